// embind bindings of tensors, the generator and the lessons' MultiHeadAttention (mha/tensor.hpp, mha/random.hpp,
// mha/attention.hpp): conversion and validation only. Tensors cross as blocks in wasm memory (bindings.cpp).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "mha/attention.hpp"
#include "mha/random.hpp"
#include "mha/tensor.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

mha::Shape shape_from_js(const val& shape, const std::string& what) {
  if (!shape.isArray()) throw mha::Error(what + ": shape must be an array of sizes");
  const std::size_t rank = to_count(shape["length"].as<double>(), what + ": the number of dimensions", mha::kMaxDims);
  mha::Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const val entry = shape[i];
    if (!entry.isNumber()) throw mha::Error(what + ": every size in the shape must be a number");
    out[i] = to_count(entry.as<double>(), what + ": size " + std::to_string(i), static_cast<double>(mha::kMaxDim));
  }
  mha::check_shape(out, what.c_str());
  return out;
}

// ---- Generator -------------------------------------------------------------------------------

val generator_create(double seed) {
  return guarded([&] { return val(std::make_shared<mha::Generator>(to_seed(seed))); });
}

val generator_manual_seed(mha::Generator& gen, double seed) {
  return guarded([&] {
    gen.manual_seed(to_seed(seed));
    return val::undefined();
  });
}

double generator_initial_seed(const mha::Generator& gen) { return static_cast<double>(gen.initial_seed()); }

val generator_rand(mha::Generator& gen, val shape) {
  return guarded([&] {
    mha::Tensor t(shape_from_js(shape, "rand"));
    mha::uniform_fill(t.data(), t.numel(), 0.0, 1.0, gen);
    return tensor_to_js(t);
  });
}

val generator_randn(mha::Generator& gen, val shape) {
  return guarded([&] {
    mha::Tensor t(shape_from_js(shape, "randn"));
    mha::normal_fill(t.data(), t.numel(), 0.0, 1.0, gen);
    return tensor_to_js(t);
  });
}

// ---- Tensor functions (raw transfer) ---------------------------------------------------------

bool js_matmul(double a, double b) {
  return into_slot(
      [&] { store(0, mha::matmul(tensor_from_block(a, "matmul: a"), tensor_from_block(b, "matmul: b"))); });
}

bool js_softmax(double t, double dim) {
  return into_slot([&] {
    if (!std::isfinite(dim) || dim != std::floor(dim))
      throw mha::Error("softmax: dim must be a whole number such as -1");
    store(0,
          mha::softmax(tensor_from_block(t, "softmax: input"), static_cast<int>(std::max(-64.0, std::min(64.0, dim)))));
  });
}

bool js_split_heads(double t, double heads) {
  return into_slot([&] {
    store(0, mha::split_heads(tensor_from_block(t, "splitHeads: input"), to_count(heads, "numHeads", 4096)));
  });
}

bool js_merge_heads(double t) {
  return into_slot([&] { store(0, mha::merge_heads(tensor_from_block(t, "mergeHeads: input"))); });
}

bool js_sdpa(double q, double k, double v, bool need_weights, bool causal, double fill, double mask_mode, double mask,
             double key_padding) {
  return into_slot([&] {
    const mha::AttentionOptions options = raw_options(need_weights, causal, fill, mask_mode, mask, key_padding);
    const Qkv in = qkv_from_blocks(q, k, v, "q", "k", "v");
    const mha::AttentionResult r = mha::scaled_dot_product_attention(in.q, in.k, in.v, options);
    store_attention(r.output, r.weights, need_weights, r.fully_masked_rows);
  });
}

// ---- MultiHeadAttention ----------------------------------------------------------------------

val mha_create(val config, std::shared_ptr<mha::Generator> gen) {
  return guarded([&] {
    mha::MhaConfig c;
    c.d_model = to_count(config["dModel"].as<double>(), "dModel", 4096);
    c.num_heads = to_count(config["numHeads"].as<double>(), "numHeads", 4096);
    c.bias = config["bias"].as<bool>();
    c.dropout = config["dropout"].as<double>();
    return val(std::make_shared<mha::MultiHeadAttention>(c, std::move(gen)));
  });
}

// heads [head_begin, head_end): all of them, or the part forward_heads computes (a worker pool's share).
bool mha_forward(const mha::MultiHeadAttention& m, double q, double k, double v, bool need_weights, bool causal,
                 double fill, double mask_mode, double mask, double key_padding, double head_begin, double head_end) {
  return into_slot([&] {
    const mha::AttentionOptions options = raw_options(need_weights, causal, fill, mask_mode, mask, key_padding);
    const Qkv in = qkv_from_blocks(q, k, v, "query", "key", "value");
    const std::size_t H = m.config().num_heads;
    const std::size_t h0 = to_count(head_begin, "options.heads[0]", H), h1 = to_count(head_end, "options.heads[1]", H);
    const mha::ForwardResult r = m.forward_heads(in.q, in.k, in.v, options, h0, h1);  // all heads: forward()
    store_attention(r.output, r.weights, need_weights, r.fully_masked_rows);
  });
}

val mha_parameters(const mha::MultiHeadAttention& m) {
  return guarded([&] {
    val out = val::object();
    const std::pair<const char*, const mha::Linear*> layers[] = {
        {"W_q", &m.W_q}, {"W_k", &m.W_k}, {"W_v", &m.W_v}, {"W_o", &m.W_o}};
    for (const auto& [name, layer] : layers) {
      val entry = val::object();
      entry.set("weight", tensor_to_js(layer->weight()));
      entry.set("bias", layer->bias() ? tensor_to_js(*layer->bias()) : val::null());
      out.set(name, entry);
    }
    return out;
  });
}

void mha_set_training(mha::MultiHeadAttention& m, bool on) { m.train(on); }
bool mha_training(const mha::MultiHeadAttention& m) { return m.training(); }

}  // namespace

EMSCRIPTEN_BINDINGS(mha_attention) {
  using namespace emscripten;
  class_<mha::Generator>("GeneratorCore")
      .smart_ptr<std::shared_ptr<mha::Generator>>("GeneratorCorePtr")
      .function("manualSeed", &generator_manual_seed)
      .function("initialSeed", &generator_initial_seed)
      .function("rand", &generator_rand)
      .function("randn", &generator_randn)
      .function("mixThenSplit", &js_mix_then_split);
  class_<mha::MultiHeadAttention>("MultiHeadAttentionCore")
      .smart_ptr<std::shared_ptr<mha::MultiHeadAttention>>("MultiHeadAttentionCorePtr")
      .function("forward", &mha_forward)
      .function("parameters", &mha_parameters)
      .function("parameterCount", &module_parameter_count<mha::MultiHeadAttention>)
      .function("stateDict", &state_dict_to_js<mha::MultiHeadAttention>)
      .function("loadStateDict", &module_load_state_dict<mha::MultiHeadAttention>)
      .function("toSafetensors", &module_to_safetensors<mha::MultiHeadAttention>)
      .function("setTraining", &mha_set_training)
      .function("training", &mha_training)
      .function("loopVsVectorized", &js_loop_vs_vectorized);
  function("generatorCreate", &generator_create);
  function("mhaCreate", &mha_create);
  function("matmul", &js_matmul);
  function("softmax", &js_softmax);
  function("splitHeads", &js_split_heads);
  function("mergeHeads", &js_merge_heads);
  function("scaledDotProductAttention", &js_sdpa);
}
