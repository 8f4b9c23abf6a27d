// embind bindings: conversion and validation only; all logic lives in core/.
//
// Errors cross as values, never as C++ exceptions (catching those in JS leaks memory in this
// Emscripten): every entry point returns {value} or {error: message}, and wasm/api.js throws.
// Numbers arrive as double so that NaN, negatives and fractions are seen here and rejected,
// instead of being silently coerced by embind's integer conversions.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <memory>
#include <new>
#include <string>

#include "mha/mha.hpp"

using emscripten::val;

namespace {

template <class F>
val guarded(F&& compute) {
  val result = val::object();
  try {
    result.set("value", compute());
  } catch (const std::bad_alloc&) {
    result.set("error", std::string("out of memory: the browser could not give this tab enough memory for that size; try a smaller one"));
  } catch (const std::exception& e) {
    result.set("error", std::string(e.what()));
  }
  return result;
}

std::size_t to_count(double x, const std::string& what, double max_value) {
  if (!std::isfinite(x) || x != std::floor(x) || x < 0 || x > max_value) {
    throw mha::Error(what + " must be a whole number between 0 and " + std::to_string(static_cast<long long>(max_value)) +
                     ", got " + (std::isnan(x) ? std::string("NaN") : std::to_string(x)));
  }
  return static_cast<std::size_t>(x);
}

std::uint64_t to_seed(double seed) {
  constexpr double kMaxSafe = 9007199254740991.0;  // 2^53 - 1: the largest integer a JS number holds exactly
  if (!std::isfinite(seed) || seed != std::floor(seed) || std::fabs(seed) > kMaxSafe) {
    throw mha::Error("the seed must be a whole number between -(2^53 - 1) and 2^53 - 1, got " + std::to_string(seed));
  }
  // torch.manual_seed wraps negative seeds to uint64 the same way.
  return seed < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(seed)) : static_cast<std::uint64_t>(seed);
}

mha::Shape shape_from_js(const val& shape, const std::string& what) {
  if (!shape.isArray()) throw mha::Error(what + ": shape must be an array of sizes");
  const std::size_t rank = to_count(shape["length"].as<double>(), what + ": the number of dimensions", 8);
  mha::Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const val entry = shape[i];
    if (!entry.isNumber()) throw mha::Error(what + ": every size in the shape must be a number");
    out[i] = to_count(entry.as<double>(), what + ": size " + std::to_string(i), static_cast<double>(mha::kMaxDim));
  }
  mha::check_shape(out, what.c_str());
  return out;
}

mha::Tensor tensor_from_js(const val& t, const std::string& what) {
  if (t.isNull() || t.isUndefined() || t.typeOf().as<std::string>() != "object") {
    throw mha::Error(what + " must be a tensor {shape, data}");
  }
  const mha::Shape shape = shape_from_js(t["shape"], what);
  const val data = t["data"];
  if (!data.instanceof(val::global("Float32Array"))) throw mha::Error(what + ": data must be a Float32Array");
  const std::size_t n = mha::Layout::contiguous(shape).numel();
  if (data["length"].as<std::size_t>() != n) {
    throw mha::Error(what + ": shape " + mha::to_string(shape) + " needs " + std::to_string(n) + " values, but data has " +
                     std::to_string(data["length"].as<std::size_t>()));
  }
  return mha::Tensor::from_vector(shape, emscripten::convertJSArrayToNumberVector<float>(data));
}

// A fresh JS array of numbers.
template <class Seq>
val array_from(const Seq& values) {
  val out = val::array();
  for (std::size_t i = 0; i < values.size(); ++i) out.set(i, static_cast<double>(values[i]));
  return out;
}

// {shape, data}: data is a copy (a view into wasm memory would die when memory grows).
val tensor_to_js(const mha::Tensor& t) {
  const mha::Tensor c = t.contiguous();
  val out = val::object();
  out.set("shape", array_from(c.shape()));
  out.set("data", val::global("Float32Array").new_(val(emscripten::typed_memory_view(c.numel(), c.data()))));
  return out;
}

val trace_to_js(const std::vector<mha::TraceStep>& trace) {
  val out = val::array();
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const mha::TraceStep& s = trace[i];
    val step = val::object();
    step.set("step", static_cast<double>(i));
    step.set("label", s.label);
    step.set("op", s.op);
    step.set("expr", s.expr);
    step.set("description", s.description);
    step.set("shape", array_from(s.layout.shape));
    step.set("strides", array_from(s.layout.strides));
    step.set("contiguous", s.layout.is_contiguous());
    out.set(i, step);
  }
  return out;
}

mha::AttentionOptions options_from_js(const val& o) {
  mha::AttentionOptions options;
  if (o.isUndefined() || o.isNull()) return options;
  const val mask = o["mask"];
  if (!mask.isUndefined() && !mask.isNull()) options.mask = tensor_from_js(mask, "options.mask");
  const val mode = o["maskMode"];
  if (!mode.isUndefined()) {
    const std::string m = mode.isString() ? mode.as<std::string>() : "";
    if (m == "keep") options.mask_mode = mha::MaskMode::Keep;
    else if (m == "block") options.mask_mode = mha::MaskMode::Block;
    else if (m == "bool") options.mask_mode = mha::MaskMode::Bool;
    else if (m == "additive") options.mask_mode = mha::MaskMode::Additive;
    else throw mha::Error("options.maskMode must be 'keep' (0 blocks), 'block' (1 blocks), 'bool' (true blocks) or 'additive'");
  }
  const val fill = o["fill"];
  if (!fill.isUndefined()) {
    if (!fill.isNumber() || std::isnan(fill.as<double>()) || fill.as<double>() == INFINITY) {
      throw mha::Error("options.fill must be a number such as -Infinity or -1e9");
    }
    options.fill = static_cast<float>(fill.as<double>());
  }
  const val causal = o["causal"];
  if (!causal.isUndefined()) options.causal = causal.as<bool>();
  const val kpm = o["keyPaddingMask"];
  if (!kpm.isUndefined() && !kpm.isNull()) options.key_padding_mask = tensor_from_js(kpm, "options.keyPaddingMask");
  const val need = o["needWeights"];
  if (!need.isUndefined()) options.need_weights = need.as<bool>();
  return options;
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

// ---- Tensor functions ------------------------------------------------------------------------

val js_matmul(val a, val b) {
  return guarded([&] { return tensor_to_js(mha::matmul(tensor_from_js(a, "matmul: a"), tensor_from_js(b, "matmul: b"))); });
}

val js_softmax(val t, double dim) {
  return guarded([&] {
    if (!std::isfinite(dim) || dim != std::floor(dim)) throw mha::Error("softmax: dim must be a whole number such as -1");
    return tensor_to_js(mha::softmax(tensor_from_js(t, "softmax: input"), static_cast<int>(std::max(-64.0, std::min(64.0, dim)))));
  });
}

val js_split_heads(val t, double heads) {
  return guarded([&] {
    return tensor_to_js(mha::split_heads(tensor_from_js(t, "splitHeads: input"), to_count(heads, "numHeads", 4096)));
  });
}

val js_merge_heads(val t) {
  return guarded([&] { return tensor_to_js(mha::merge_heads(tensor_from_js(t, "mergeHeads: input"))); });
}

val attention_result_to_js(const mha::Tensor& output, const mha::Tensor& weights, bool need_weights, std::size_t fully_masked) {
  val out = val::object();
  out.set("output", tensor_to_js(output));
  out.set("weights", need_weights ? tensor_to_js(weights) : val::null());
  out.set("fullyMaskedRows", static_cast<double>(fully_masked));
  return out;
}

val js_sdpa(val q, val k, val v, val o) {
  return guarded([&] {
    const mha::AttentionOptions options = options_from_js(o);
    const mha::AttentionResult r = mha::scaled_dot_product_attention(
        tensor_from_js(q, "q"), tensor_from_js(k, "k"), tensor_from_js(v, "v"), options);
    return attention_result_to_js(r.output, r.weights, options.need_weights, r.fully_masked_rows);
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

val mha_forward(const mha::MultiHeadAttention& m, val q, val k, val v, val o) {
  return guarded([&] {
    const mha::AttentionOptions options = options_from_js(o);
    const mha::ForwardResult r = m.forward(tensor_from_js(q, "query"), tensor_from_js(k, "key"), tensor_from_js(v, "value"), options);
    val out = attention_result_to_js(r.output, r.weights, options.need_weights, r.fully_masked_rows);
    out.set("trace", trace_to_js(r.trace));
    return out;
  });
}

val mha_parameters(const mha::MultiHeadAttention& m) {
  return guarded([&] {
    val out = val::object();
    const std::pair<const char*, const mha::Linear*> layers[] = {{"W_q", &m.W_q}, {"W_k", &m.W_k}, {"W_v", &m.W_v}, {"W_o", &m.W_o}};
    for (const auto& [name, layer] : layers) {
      val entry = val::object();
      entry.set("weight", tensor_to_js(layer->weight));
      entry.set("bias", layer->bias ? tensor_to_js(*layer->bias) : val::null());
      out.set(name, entry);
    }
    return out;
  });
}

double mha_parameter_count(const mha::MultiHeadAttention& m) { return static_cast<double>(m.parameter_count()); }
void mha_set_training(mha::MultiHeadAttention& m, bool on) { m.train(on); }
bool mha_training(const mha::MultiHeadAttention& m) { return m.training(); }

// ---- Teaching pieces -------------------------------------------------------------------------

val js_shape_trace(double B, double S, double D, double H, double Skv) {
  return guarded([&] {
    return trace_to_js(mha::shape_trace(to_count(B, "batch", mha::kMaxDim), to_count(S, "seqLen", mha::kMaxDim),
                                        to_count(D, "dModel", 4096), to_count(H, "numHeads", 4096),
                                        to_count(Skv, "kvLen", mha::kMaxDim)));
  });
}

val js_parameter_scenarios(double D, double H) {
  return guarded([&] {
    const mha::ParameterScenarios p = mha::parameter_scenarios(to_count(D, "dModel", 4096), to_count(H, "numHeads", 4096));
    val out = val::object();
    out.set("full", static_cast<double>(p.full));
    out.set("reduced", static_cast<double>(p.reduced));
    out.set("actual", static_cast<double>(p.actual));
    out.set("withBias", static_cast<double>(p.with_bias));
    out.set("withoutBias", static_cast<double>(p.without_bias));
    return out;
  });
}

val js_mix_then_split(mha::Generator& gen, double D, double index) {
  return guarded([&] {
    const mha::MixThenSplit r = mha::mix_then_split(gen, to_count(D, "dModel", 4096), to_count(index, "outputIndex", 4096));
    val out = val::object();
    out.set("x0", tensor_to_js(r.x0));
    out.set("W", tensor_to_js(r.W));
    out.set("q0", tensor_to_js(r.q0));
    out.set("column", tensor_to_js(r.column));
    out.set("outputIndex", static_cast<double>(r.output_index));
    out.set("q0AtIndex", r.q0_at_index);
    out.set("manual", r.manual);
    return out;
  });
}

val js_head_specialization(val tokens) {
  return guarded([&] {
    if (!tokens.isArray()) throw mha::Error("headSpecialization expects an array of token strings");
    std::vector<std::string> words;
    const std::size_t n = to_count(tokens["length"].as<double>(), "the number of tokens", 4096);
    for (std::size_t i = 0; i < n; ++i) {
      if (!tokens[i].isString()) throw mha::Error("headSpecialization: every token must be a string");
      words.push_back(tokens[i].as<std::string>());
    }
    val heads = val::array();
    std::size_t h = 0;
    for (const mha::HandBuiltHead& head : mha::head_specialization(words)) {
      val entry = val::object();
      entry.set("name", head.name);
      entry.set("logits", tensor_to_js(head.logits));
      entry.set("weights", tensor_to_js(head.weights));
      val patterns = val::array();
      for (std::size_t i = 0; i < head.patterns.size(); ++i) {
        val p = val::object();
        p.set("from", static_cast<double>(head.patterns[i].from));
        p.set("to", static_cast<double>(head.patterns[i].to));
        p.set("weight", head.patterns[i].weight);
        patterns.set(i, p);
      }
      entry.set("patterns", patterns);
      heads.set(h++, entry);
    }
    return heads;
  });
}

val js_loop_vs_vectorized(const mha::MultiHeadAttention& m, val x, val o) {
  return guarded([&] {
    const mha::LoopVsVectorized r = mha::loop_vs_vectorized(m, tensor_from_js(x, "x"), options_from_js(o));
    val out = val::object();
    out.set("maxAbsDiff", r.max_abs_diff);
    out.set("meanAbsDiff", r.mean_abs_diff);
    out.set("vectorized", tensor_to_js(r.vectorized));
    out.set("loop", tensor_to_js(r.loop));
    return out;
  });
}

std::string js_view_error() { return mha::view_error_message(); }
std::string js_implementation() { return mha::kernels::implementation(); }

val js_memory_stats() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("heapUsed", static_cast<double>(info.uordblks));
  out.set("heapSize", static_cast<double>(emscripten_get_heap_size()));
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_core) {
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
      .function("parameterCount", &mha_parameter_count)
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
  function("shapeTrace", &js_shape_trace);
  function("parameterScenarios", &js_parameter_scenarios);
  function("headSpecialization", &js_head_specialization);
  function("viewError", &js_view_error);
  function("implementation", &js_implementation);
  function("memoryStats", &js_memory_stats);
}
