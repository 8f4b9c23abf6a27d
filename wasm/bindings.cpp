// embind bindings: conversion and validation only; all logic lives in core/.
//
// Errors cross as values, never as C++ exceptions (catching those in JS leaks memory in this
// Emscripten): entry points return {value} or {error: message}, or (the tensor functions) a
// success flag with the message in the result slot, and the JS API (wasm/api/) throws.
//
// Tensors on the hot paths cross as blocks in wasm memory, written by api.js: uint32 rank,
// uint32 dims[8], then the floats. Their results stay in one result slot until api.js has copied
// them out (reading the slot's summary from memory) and called releaseResult(). Each embind call
// and `val` property access is a JS call, so a forward that read and built JS objects spent more
// time crossing than computing at small sizes.
// Numbers arrive as double so that NaN, negatives and fractions are seen here and rejected,
// instead of being silently coerced by embind's integer conversions.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "mha/mha.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

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

// ---- Raw transfer ---------------------------------------------------------------------------

constexpr std::size_t kBlockHeader = 1 + mha::kMaxDims;  // rank + 8 dims, as uint32

mha::Tensor tensor_from_block(double address, const std::string& what) {
  const std::size_t addr = to_count(address, what + ": buffer address", 4294967295.0);
  if (addr == 0 || addr % alignof(std::uint32_t) != 0) throw mha::Error(what + ": invalid buffer address");
  const auto* header = reinterpret_cast<const std::uint32_t*>(addr);
  if (header[0] > mha::kMaxDims)
    throw mha::Error(what + ": at most " + std::to_string(mha::kMaxDims) + " dimensions are supported");
  const mha::Shape shape(header + 1, header + 1 + header[0]);
  mha::check_shape(shape, what.c_str());
  const auto* data = reinterpret_cast<const float*>(header + kBlockHeader);
  mha::Tensor t = mha::Tensor::empty(shape);
  std::copy(data, data + t.numel(), t.data());
  return t;
}

std::optional<mha::Tensor> optional_block(double address, const std::string& what) {
  if (address == 0) return std::nullopt;
  return tensor_from_block(address, what);
}

// q, k and v from their blocks; a block passed again (self-attention) is read once.
struct Qkv {
  mha::Tensor q, k, v;
};
Qkv qkv_from_blocks(double q, double k, double v, const char* q_name, const char* k_name, const char* v_name) {
  mha::Tensor tq = tensor_from_block(q, q_name);
  mha::Tensor tk = k == q ? tq : tensor_from_block(k, k_name);
  mha::Tensor tv = v == q ? tq : v == k ? tk : tensor_from_block(v, v_name);
  return {std::move(tq), std::move(tk), std::move(tv)};
}

// The last tensor result: [0] output, [1] weights (absent when not asked for), and a summary that
// api.js reads straight from wasm memory (one read instead of an embind call per field):
//   summary[0, 1]  data addresses of the output and the weights (0 when absent)
//   summary[2]     fully masked query rows
//   summary[3 + 9w, ...]  tensor w's header: rank, dims[8]
constexpr std::size_t kSummaryMaskedRows = 2, kSummaryHeaders = 3;
constexpr std::size_t kSummaryWords = kSummaryHeaders + 2 * kBlockHeader;
// headSpecialization's hand-built heads take at most this many tokens.
constexpr std::size_t kMaxSpecializationTokens = 4096;
struct ResultSlot {
  std::optional<mha::Tensor> tensors[2];
  std::uint32_t summary[kSummaryWords] = {};
  std::string error;

  void reset() {
    tensors[0].reset();
    tensors[1].reset();
    std::fill(std::begin(summary), std::end(summary), 0u);
    error.clear();
  }
};
ResultSlot& result_slot() {
  static ResultSlot slot;
  return slot;
}

void store(std::size_t which, const mha::Tensor& t) {
  ResultSlot& slot = result_slot();
  const mha::Tensor& c = *(slot.tensors[which] = t.contiguous());
  slot.summary[which] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(c.data()));
  std::uint32_t* header = slot.summary + kSummaryHeaders + which * kBlockHeader;
  header[0] = static_cast<std::uint32_t>(c.dim());
  for (std::size_t d = 0; d < c.dim(); ++d) header[1 + d] = static_cast<std::uint32_t>(c.shape()[d]);
}

void store_attention(const mha::Tensor& output, const mha::Tensor& weights, bool need_weights,
                     std::size_t fully_masked_rows) {
  store(0, output);
  if (need_weights) store(1, weights);
  result_slot().summary[kSummaryMaskedRows] = static_cast<std::uint32_t>(fully_masked_rows);
}

// Runs `compute` (which stores its tensors); false with the message in the slot on failure.
template <class F>
bool into_slot(F&& compute) {
  ResultSlot& slot = result_slot();
  slot.reset();
  std::string error;
  try {
    compute();
    return true;
  } catch (const std::bad_alloc&) {
    error = kOutOfMemory;
  } catch (const std::exception& e) {
    error = e.what();
  }
  slot.reset();  // drop what a failed call stored before it threw
  slot.error = std::move(error);
  return false;
}

double result_summary_address() { return static_cast<double>(reinterpret_cast<std::uintptr_t>(result_slot().summary)); }
std::string result_error() { return result_slot().error; }
void release_result() { result_slot().reset(); }

// The mask modes by the index api.js sends, with their JS names and what a mask's values mean (api.js's message).
struct NamedMaskMode {
  const char* name;
  mha::MaskMode mode;
  const char* meaning;
};
constexpr NamedMaskMode kMaskModes[] = {{"keep", mha::MaskMode::Keep, "0 blocks"},
                                        {"block", mha::MaskMode::Block, "1 blocks"},
                                        {"bool", mha::MaskMode::Bool, "true blocks"},
                                        {"additive", mha::MaskMode::Additive, "added to the scores"}};
static_assert(std::size(kMaskModes) == static_cast<std::size_t>(mha::MaskMode::Additive) + 1,
              "every MaskMode has a name here (Additive is the last)");

val strings_to_js(const char* const* names, std::size_t n) {
  val out = val::array();
  for (std::size_t i = 0; i < n && names[i]; ++i) out.call<void>("push", std::string(names[i]));
  return out;
}

val config_to_js(const mha::ModelConfig& c) {
  val out = val::object();
  out.set("task", std::string(mha::task_name(c.task)));
  out.set("vocab", static_cast<double>(c.vocab));
  out.set("seqLen", static_cast<double>(c.seq_len));
  out.set("dModel", static_cast<double>(c.d_model));
  out.set("numHeads", static_cast<double>(c.num_heads));
  out.set("layers", static_cast<double>(c.layers));
  out.set("causal", c.causal);
  return out;
}

// The training tasks (the core's task table) in its order: {name, title, brief, readouts, roles, byContent (a role
// picks keys by their tokens), defaults, goalSteps}.
val tasks_to_js() {
  val out = val::array();
  for (const mha::TaskInfo& t : mha::task_table()) {
    val entry = val::object();
    entry.set("name", std::string(t.name));
    entry.set("title", std::string(t.title));
    entry.set("brief", std::string(t.brief));
    entry.set("readouts", strings_to_js(t.readouts.data(), t.readouts.size()));
    val roles = val::array();
    for (const mha::Role& r : t.roles)
      if (r.name) roles.call<void>("push", std::string(r.name));
    entry.set("roles", roles);
    bool by_content = false;
    for (const mha::Role& r : t.roles) by_content = by_content || (r.name && r.by_content);
    entry.set("byContent", by_content);
    entry.set("defaults", config_to_js(t.defaults));
    entry.set("goalSteps", static_cast<double>(t.goal_steps));
    out.call<void>("push", entry);
  }
  return out;
}

// The C++↔JS protocol, defined here once: api.js reads it when a module starts (size limits, the tensor block
// layout, the result summary's slots, the mask modes' order, the training tasks) instead of mirroring them.
val protocol() {
  val p = val::object();
  p.set("maxDims", static_cast<double>(mha::kMaxDims));
  p.set("maxDim", static_cast<double>(mha::kMaxDim));
  p.set("maxElements", static_cast<double>(mha::kMaxElements));
  p.set("blockHeader", static_cast<double>(kBlockHeader));
  p.set("summaryMaskedRows", static_cast<double>(kSummaryMaskedRows));
  p.set("summaryHeaders", static_cast<double>(kSummaryHeaders));
  val modes = val::array();
  for (const NamedMaskMode& m : kMaskModes) modes.call<void>("push", std::string(m.name));
  p.set("maskModes", modes);
  val meanings = val::array();
  for (const NamedMaskMode& m : kMaskModes) meanings.call<void>("push", std::string(m.meaning));
  p.set("maskModeMeanings", meanings);
  val optimizers = val::array();  // torch.optim's class names: "SGD", "Adam", "AdamW"
  for (mha::OptimizerKind k : mha::kOptimizerKinds) optimizers.call<void>("push", std::string(mha::optimizer_name(k)));
  p.set("optimizers", optimizers);
  p.set("tasks", tasks_to_js());
  val limits = val::object();  // the largest sizes the core accepts (attention.hpp, train.hpp)
  limits.set("dModel", static_cast<double>(mha::kMaxDModel));
  limits.set("modelDModel", static_cast<double>(mha::kMaxModelDModel));
  limits.set("vocab", static_cast<double>(mha::kMaxVocab));
  limits.set("seqLen", static_cast<double>(mha::kMaxSeqLen));
  limits.set("batch", static_cast<double>(mha::kMaxBatch));
  limits.set("layers", static_cast<double>(mha::kMaxLayers));
  limits.set("scriptSteps", static_cast<double>(mha::kMaxScriptSteps));
  limits.set("specializationTokens", static_cast<double>(kMaxSpecializationTokens));
  p.set("limits", limits);
  return p;
}

mha::AttentionOptions raw_options(bool need_weights, bool causal, double fill, double mask_mode, double mask,
                                  double key_padding) {
  mha::AttentionOptions options;
  options.need_weights = need_weights;
  options.causal = causal;
  if (std::isnan(fill) || fill == INFINITY) throw mha::Error("options.fill must be a number such as -Infinity or -1e9");
  options.fill = static_cast<float>(fill);
  options.mask_mode = kMaskModes[to_count(mask_mode, "options.maskMode", std::size(kMaskModes) - 1)].mode;
  options.mask = optional_block(mask, "options.mask");
  options.key_padding_mask = optional_block(key_padding, "options.keyPaddingMask");
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

// ---- Parameters, state dicts and safetensors (shared by every module) ---------------------------

// Bound per module class (embind takes `this` as the class itself).
template <class M>
val state_dict_to_js(const M& m) {
  return guarded([&] {
    val out = val::object();
    for (const mha::NamedTensor& t : m.state_dict()) out.set(t.name, tensor_to_js(t.value));
    return out;
  });
}

// names[i] with its tensor staged at addrs[i] (api.js validated both).
std::vector<mha::NamedTensor> named_from_blocks(const val& names, const val& addrs) {
  const std::size_t n = to_count(names["length"].as<double>(), "the number of tensors", 100000);
  if (to_count(addrs["length"].as<double>(), "the number of tensors", 100000) != n)
    throw mha::Error("names and tensors differ in number");
  std::vector<mha::NamedTensor> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = names[i].as<std::string>();
    out.push_back({name, tensor_from_block(addrs[i].as<double>(), "'" + name + "'")});
  }
  return out;
}

template <class M>
val module_load_state_dict(M& m, val names, val addrs) {
  return guarded([&] {
    m.load_state_dict(named_from_blocks(names, addrs));
    return val::undefined();
  });
}

val bytes_to_js(const std::vector<std::uint8_t>& bytes) {
  return val::global("Uint8Array").new_(val(emscripten::typed_memory_view(bytes.size(), bytes.data())));
}

// What a state_dict cannot say (num_heads has no tensor of its own), kept in the file's __metadata__ so that
// the page and the lab can rebuild the module; "format": "pt" as safetensors.torch.save_file writes.
using Metadata = std::vector<std::pair<std::string, std::string>>;
Metadata metadata_of(const mha::MultiHeadAttention& m) {
  return {{"format", "pt"},
          {"d_model", std::to_string(m.config().d_model)},
          {"num_heads", std::to_string(m.config().num_heads)}};
}
Metadata metadata_of(const mha::TinyAttentionModel& m) {
  const mha::ModelConfig& c = m.config();
  return {{"format", "pt"},
          {"task", mha::task_name(c.task)},
          {"vocab", std::to_string(c.vocab)},
          {"seq_len", std::to_string(c.seq_len)},
          {"d_model", std::to_string(c.d_model)},
          {"num_heads", std::to_string(c.num_heads)},
          {"layers", std::to_string(c.layers)}};
}

template <class M>
val module_to_safetensors(const M& m) {
  return guarded([&] { return bytes_to_js(mha::write_safetensors(m.state_dict(), metadata_of(m))); });
}

// The bytes api.js copied to wasm memory at `address`.
val js_read_safetensors(double address, double size) {
  return guarded([&] {
    const std::size_t n = to_count(size, "the file size", 2147483647.0);
    const std::size_t addr = to_count(address, "buffer address", 4294967295.0);
    if (n > 0 && addr == 0) throw mha::Error("invalid buffer address");
    const mha::SafetensorsFile file = mha::read_safetensors(reinterpret_cast<const std::uint8_t*>(addr), n);
    val names = val::array(), tensors = val::array(), metadata = val::array();
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
      names.set(i, file.tensors[i].name);
      tensors.set(i, tensor_to_js(file.tensors[i].value));
    }
    for (std::size_t i = 0; i < file.metadata.size(); ++i) {
      val pair = val::array();
      pair.set(0, file.metadata[i].first);
      pair.set(1, file.metadata[i].second);
      metadata.set(i, pair);
    }
    val out = val::object();
    out.set("names", names);
    out.set("tensors", tensors);
    out.set("metadata", metadata);
    return out;
  });
}

// ---- Training ----------------------------------------------------------------------------------

mha::OptimizerOptions optimizer_from_js(const val& o) {
  const std::string kind = o["kind"].as<std::string>();
  mha::OptimizerOptions out = mha::optimizer_defaults(kind == "SGD"     ? mha::OptimizerKind::SGD
                                                      : kind == "AdamW" ? mha::OptimizerKind::AdamW
                                                                        : mha::OptimizerKind::Adam);
  out.lr = o["lr"].as<double>();
  out.momentum = o["momentum"].as<double>();
  out.dampening = o["dampening"].as<double>();
  out.nesterov = o["nesterov"].as<bool>();
  out.beta1 = o["beta1"].as<double>();
  out.beta2 = o["beta2"].as<double>();
  out.eps = o["eps"].as<double>();
  out.weight_decay = o["weightDecay"].as<double>();
  mha::check_optimizer_options(out);
  return out;
}

val model_create(val config, std::shared_ptr<mha::Generator> gen) {
  return guarded([&] {
    mha::ModelConfig c = mha::model_defaults(mha::task_from_name(config["task"].as<std::string>()));
    c.vocab = to_count(config["vocab"].as<double>(), "vocab", 4096);
    c.seq_len = to_count(config["seqLen"].as<double>(), "seqLen", 4096);
    c.d_model = to_count(config["dModel"].as<double>(), "dModel", 4096);
    c.num_heads = to_count(config["numHeads"].as<double>(), "numHeads", 4096);
    c.layers = to_count(config["layers"].as<double>(), "layers", 64);
    c.causal = config["causal"].as<bool>();
    return val(std::make_shared<mha::TinyAttentionModel>(c, std::move(gen)));
  });
}

val optimizer_create(std::shared_ptr<mha::TinyAttentionModel> model, val options) {
  return guarded([&] { return val(std::make_shared<mha::Optimizer>(model, optimizer_from_js(options))); });
}

double optimizer_steps(const mha::Optimizer& o) { return static_cast<double>(o.steps()); }

val model_train_step(mha::TinyAttentionModel& m, mha::Optimizer& opt, double batch_size) {
  return guarded([&] {
    const mha::StepResult r = m.train_step(opt, to_count(batch_size, "batchSize", 1024));
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    return out;
  });
}

// Loss and accuracy on a batch drawn from its own generator (the training stream is not touched).
val model_evaluate(mha::TinyAttentionModel& m, double batch_size, double seed) {
  return guarded([&] {
    mha::Generator gen(to_seed(seed));
    const mha::StepResult r = m.evaluate(mha::draw_batch(m.config(), to_count(batch_size, "batchSize", 1024), gen));
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    return out;
  });
}

std::vector<std::int64_t> tokens_from_js(const val& tokens) {
  const std::size_t n = to_count(tokens["length"].as<double>(), "the number of tokens", kMaxSpecializationTokens);
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::int64_t>(to_count(tokens[i].as<double>(), "a token", 1e9));
  return out;
}

val model_attention(mha::TinyAttentionModel& m, val tokens) {
  return guarded([&] {
    val out = val::array();
    const std::vector<mha::Tensor> layers = m.attention(tokens_from_js(tokens));
    for (std::size_t l = 0; l < layers.size(); ++l) {
      val entry = val::object();
      entry.set("layer", static_cast<double>(l));
      entry.set("weights", tensor_to_js(layers[l]));
      out.set(l, entry);
    }
    return out;
  });
}

val model_shape_trace(const mha::TinyAttentionModel& m, double seq_len) {
  return guarded([&] { return trace_to_js(m.shape_trace(to_count(seq_len, "seqLen", mha::kMaxDim))); });
}

val model_predict(mha::TinyAttentionModel& m, val tokens) {
  return guarded([&] {
    val out = val::array();
    const std::vector<mha::Tensor> logits = m.predict(tokens_from_js(tokens));
    for (std::size_t r = 0; r < logits.size(); ++r) out.set(r, tensor_to_js(logits[r]));
    return out;
  });
}

// Per readout, what the task asks of each position of `tokens` (-100: nothing).
val model_targets(const mha::TinyAttentionModel& m, val tokens) {
  return guarded([&] {
    val out = val::array();
    const auto rows = mha::task_targets(m.config().task, tokens_from_js(tokens));
    for (std::size_t r = 0; r < rows.size(); ++r) out.set(r, array_from(rows[r]));
    return out;
  });
}

val model_example(const mha::TinyAttentionModel& m) {
  return guarded([&] { return array_from(mha::task_example(m.config())); });
}

val model_role_scores(mha::TinyAttentionModel& m) {
  return guarded([&] {
    val out = val::array();
    const std::vector<mha::RoleScore> scores = m.role_scores();
    for (std::size_t i = 0; i < scores.size(); ++i) {
      val entry = val::object();
      entry.set("layer", static_cast<double>(scores[i].layer));
      entry.set("head", static_cast<double>(scores[i].head));
      entry.set("role", scores[i].role);
      entry.set("score", scores[i].score);
      out.set(i, entry);
    }
    return out;
  });
}

val model_ablate(mha::TinyAttentionModel& m, double layer, double head, bool on) {
  return guarded([&] {
    m.ablate(to_count(layer, "layer", 64), to_count(head, "head", 4096), on);
    return val::undefined();
  });
}

val model_to_pytorch(const mha::TinyAttentionModel& m, double steps, double batch_size, val optimizer, double digits) {
  return guarded([&] {
    mha::TrainingScript s;
    s.steps = to_count(steps, "steps", 100000);
    s.batch_size = to_count(batch_size, "batchSize", 1024);
    s.optimizer = optimizer_from_js(optimizer);
    s.loss_digits = static_cast<int>(to_count(digits, "lossDigits", 9));
    return val(m.to_pytorch(s));
  });
}

// Bound per module class (embind takes `this` as the class itself).
template <class M>
double module_parameter_count(const M& m) {
  return static_cast<double>(m.parameter_count());
}
template <class M>
void module_zero_grad(M& m) {
  m.zero_grad();
}

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
    const mha::ParameterScenarios p =
        mha::parameter_scenarios(to_count(D, "dModel", 4096), to_count(H, "numHeads", 4096));
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
    const mha::MixThenSplit r =
        mha::mix_then_split(gen, to_count(D, "dModel", 4096), to_count(index, "outputIndex", 4096));
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
    const std::size_t n = to_count(tokens["length"].as<double>(), "the number of tokens", kMaxSpecializationTokens);
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

val js_loop_vs_vectorized(const mha::MultiHeadAttention& m, double x, bool causal, double fill, double mask_mode,
                          double mask, double key_padding) {
  return guarded([&] {
    const mha::LoopVsVectorized r = mha::loop_vs_vectorized(
        m, tensor_from_block(x, "x"), raw_options(true, causal, fill, mask_mode, mask, key_padding));
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
  out.set("heapUsed", static_cast<double>(static_cast<std::uint32_t>(info.uordblks)));  // an int: unsigned past 2 GB
  out.set("heapSize", static_cast<double>(emscripten_get_heap_size()));
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_core) {
  using namespace emscripten;
  function("protocol", &protocol);
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
  class_<mha::TinyAttentionModel>("TinyAttentionModelCore")
      .smart_ptr<std::shared_ptr<mha::TinyAttentionModel>>("TinyAttentionModelCorePtr")
      .function("trainStep", &model_train_step)
      .function("evaluate", &model_evaluate)
      .function("attention", &model_attention)
      .function("predict", &model_predict)
      .function("shapeTrace", &model_shape_trace)
      .function("roleScores", &model_role_scores)
      .function("targets", &model_targets)
      .function("example", &model_example)
      .function("ablate", &model_ablate)
      .function("toPyTorch", &model_to_pytorch)
      .function("parameterCount", &module_parameter_count<mha::TinyAttentionModel>)
      .function("zeroGrad", &module_zero_grad<mha::TinyAttentionModel>)
      .function("stateDict", &state_dict_to_js<mha::TinyAttentionModel>)
      .function("loadStateDict", &module_load_state_dict<mha::TinyAttentionModel>)
      .function("toSafetensors", &module_to_safetensors<mha::TinyAttentionModel>);
  class_<mha::Optimizer>("OptimizerCore")
      .smart_ptr<std::shared_ptr<mha::Optimizer>>("OptimizerCorePtr")
      .function("steps", &optimizer_steps);
  function("modelCreate", &model_create);
  function("optimizerCreate", &optimizer_create);
  function("readSafetensors", &js_read_safetensors);
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
  function("resultSummaryAddress", &result_summary_address);
  function("resultError", &result_error);
  function("releaseResult", &release_result);
}
