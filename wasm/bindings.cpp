// embind bindings: conversion and validation only; all logic lives in core/. This file: the C++↔JS protocol
// (protocol()), the tensor blocks, the result slot, the mask modes; the other concerns are in the files
// bindings.hpp lists.
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
#include <string>

#include "bindings.hpp"
#include "mha/analysis.hpp"
#include "mha/kernels.hpp"
#include "mha/train.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

// ---- Raw transfer ---------------------------------------------------------------------------

constexpr std::size_t kBlockHeader = 1 + mha::kMaxDims;  // rank + 8 dims, as uint32

// The last tensor result: [0] output, [1] weights (absent when not asked for), and a summary that
// api.js reads straight from wasm memory (one read instead of an embind call per field):
//   summary[0, 1]  data addresses of the output and the weights (0 when absent)
//   summary[2]     fully masked query rows
//   summary[3 + 9w, ...]  tensor w's header: rank, dims[8]
constexpr std::size_t kSummaryMaskedRows = 2, kSummaryHeaders = 3;
constexpr std::size_t kSummaryWords = kSummaryHeaders + 2 * kBlockHeader;

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
  val patchKinds = val::array();  // what activation patching puts in (mha/analysis.hpp): "heads", "resid", …
  for (mha::PatchKind k : mha::kPatchKinds) patchKinds.call<void>("push", std::string(mha::patch_kind_name(k)));
  p.set("patchKinds", patchKinds);
  val ablations = val::array();  // ways to switch a head off (mha/analysis.hpp): "zero", "mean", "resample"
  for (mha::Ablation k : mha::kAblations) ablations.call<void>("push", std::string(mha::ablation_name(k)));
  p.set("ablations", ablations);
  val pools = val::array();  // how a model forward's thumbnails pool each map (mha/models.hpp): "max", "mean"
  for (mha::Pool k : mha::kPools) pools.call<void>("push", std::string(mha::pool_name(k)));
  p.set("pools", pools);
  p.set("tasks", tasks_to_js());  // training_bindings.cpp
  val limits = val::object();     // the largest sizes the core accepts (attention.hpp, train.hpp)
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

std::string js_implementation() { return mha::kernels::implementation(); }

// The kernels' pool (mha/kernels.hpp's Threads): its size, set once the page's pthread workers are there
// (wasm/api/index.js clamps to them); 1 in a build without threads.
double js_threads() { return static_cast<double>(mha::kernels::threads()); }
void js_set_split_threshold(double madds) {
  if (std::isfinite(madds) && madds >= 0) mha::kernels::set_split_threshold(static_cast<std::size_t>(madds));
}
double js_set_threads(double n) {
  const double whole = std::isfinite(n) && n >= 1 ? std::floor(n) : 1;
  return static_cast<double>(mha::kernels::set_threads(static_cast<std::size_t>(std::min(whole, 1024.0))));
}

val js_memory_stats() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("heapUsed", static_cast<double>(static_cast<std::uint32_t>(info.uordblks)));  // an int: unsigned past 2 GB
  out.set("heapSize", static_cast<double>(emscripten_get_heap_size()));
  return out;
}

}  // namespace

namespace mha_js {

std::uint64_t to_seed(double seed) {
  constexpr double kMaxSafe = 9007199254740991.0;  // 2^53 - 1: the largest integer a JS number holds exactly
  if (!std::isfinite(seed) || seed != std::floor(seed) || std::fabs(seed) > kMaxSafe) {
    throw mha::Error("the seed must be a whole number between -(2^53 - 1) and 2^53 - 1, got " + std::to_string(seed));
  }
  // torch.manual_seed wraps negative seeds to uint64 the same way.
  return seed < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(seed)) : static_cast<std::uint64_t>(seed);
}

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

Qkv qkv_from_blocks(double q, double k, double v, const char* q_name, const char* k_name, const char* v_name) {
  mha::Tensor tq = tensor_from_block(q, q_name);
  mha::Tensor tk = k == q ? tq : tensor_from_block(k, k_name);
  mha::Tensor tv = v == q ? tq : v == k ? tk : tensor_from_block(v, v_name);
  return {std::move(tq), std::move(tk), std::move(tv)};
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

void slot_begin() { result_slot().reset(); }

void slot_fail(std::string error) {
  ResultSlot& slot = result_slot();
  slot.reset();
  slot.error = std::move(error);
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

}  // namespace mha_js

EMSCRIPTEN_BINDINGS(mha_protocol) {
  using namespace emscripten;
  function("protocol", &protocol);
  function("implementation", &js_implementation);
  function("threads", &js_threads);
  function("setThreads", &js_set_threads);
  function("setSplitThreshold", &js_set_split_threshold);
  function("memoryStats", &js_memory_stats);
  function("resultSummaryAddress", &result_summary_address);
  function("resultError", &result_error);
  function("releaseResult", &release_result);
}
