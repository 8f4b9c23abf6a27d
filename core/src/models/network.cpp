// The Binder (a family's tensors by name, shapes checked) and the pieces the families share.
#include "models/network.hpp"

#include <algorithm>
#include <array>

#include "mha/error.hpp"

namespace mha::models {

namespace {

std::string shape_text(const std::vector<std::size_t>& shape) { return to_string(Shape(shape)); }

// What config.json says about the sizes, for messages about a tensor of the wrong shape.
std::string sizes_text(const CheckpointConfig& c) {
  return "config.json (" + c.model_type + ": " + std::to_string(c.layers) + " layers, hidden size " +
         std::to_string(c.d_model) + ", " + std::to_string(c.heads) + " heads of " + std::to_string(c.head_dim) +
         (c.kv_heads != c.heads ? ", " + std::to_string(c.kv_heads) + " key/value heads" : std::string()) +
         ", feed-forward " + std::to_string(c.d_ff) + ", vocabulary " + std::to_string(c.vocab) + ", " +
         std::to_string(c.max_positions) + " positions)";
}

// transformers renames "gamma" to "weight" and "beta" to "bias" when it loads old checkpoints.
std::string old_norm_name(const std::string& name) {
  const auto ends = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends(".weight")) return name.substr(0, name.size() - 7) + ".gamma";
  if (ends(".bias")) return name.substr(0, name.size() - 5) + ".beta";
  return "";
}

// Each family's body prefix and probe tensor (config.cpp's kFamilyNames are the families' names).
constexpr std::array<FamilyPrefix, 4> kFamilyPrefixes{{{"transformer.", "wte.weight"},
                                                       {"bert.", "embeddings.word_embeddings.weight"},
                                                       {"distilbert.", "embeddings.word_embeddings.weight"},
                                                       {"model.", "embed_tokens.weight"}}};
static_assert(kFamilyPrefixes.size() == static_cast<std::size_t>(Family::COUNT), "prefixes for every Family");

}  // namespace

FamilyPrefix family_prefix(Family family) { return kFamilyPrefixes.at(static_cast<std::size_t>(family)); }

Binder::Binder(const CheckpointConfig& config, const Weights* weights, std::string body_prefix)
    : config_(config), weights_(weights), prefix_(std::move(body_prefix)) {}

const WeightRef* Binder::find(const std::string& name, const Shape& shape, bool body, bool required) {
  const std::string full = body ? prefix_ + name : name;
  names_.push_back(full);
  if (!weights_) {  // names only: a placeholder that is never read
    placeholders_.push_back(std::make_unique<WeightRef>());
    placeholders_.back()->name = full;
    placeholders_.back()->shape.assign(shape.begin(), shape.end());
    return placeholders_.back().get();
  }
  const WeightRef* w = weights_->find(full);
  if (!w && !old_norm_name(full).empty()) w = weights_->find(old_norm_name(full));
  if (!w) {
    if (!required) return nullptr;
    throw Error("the checkpoint has no tensor '" + full + "', which a " + config_.model_type + " model needs with " +
                sizes_text(config_));
  }
  if (!std::equal(w->shape.begin(), w->shape.end(), shape.begin(), shape.end()))
    throw Error("the tensor '" + w->name + "' has shape " + shape_text(w->shape) + ", but " + sizes_text(config_) +
                " needs " + to_string(shape));
  return w;
}

blocks::Linear Binder::linear(const std::string& name, std::size_t in, std::size_t out, bool bias, bool conv1d) {
  blocks::Linear l;
  l.weight = need(name + ".weight", conv1d ? Shape{in, out} : Shape{out, in});
  l.bias = bias ? need(name + ".bias", {out}) : nullptr;
  l.conv1d = conv1d;
  l.in = in;
  l.out = out;
  return l;
}

blocks::Norm Binder::norm(const std::string& name, std::size_t D, float eps, blocks::NormKind kind) {
  const bool bias = kind == blocks::NormKind::Layer;
  return {need(name + ".weight", {D}), bias ? need(name + ".bias", {D}) : nullptr, eps, kind};
}

std::string body_prefix(const Weights& weights, const std::string& prefix, const std::string& probe) {
  if (weights.find(prefix + probe)) return prefix;
  if (weights.find(probe)) return "";
  throw Error("the checkpoint has neither '" + prefix + probe + "' nor '" + probe +
              "': its tensors are not those of the model config.json names");
}

void embed(const WeightRef& table, const std::vector<std::int32_t>& ids, float* out, bool accumulate) {
  const std::size_t D = table.shape[1];
  std::vector<float> row(D);
  for (std::size_t t = 0; t < ids.size(); ++t) {
    float* o = out + t * D;
    blocks::widen_rows(table, std::size_t(ids[t]), 1, accumulate ? row.data() : o);
    if (accumulate) add_into(o, row.data(), D);
  }
}

void add_positions(const WeightRef& table, std::size_t T, float* out) {
  const std::size_t D = table.shape[1];
  std::vector<float> rows(T * D);
  blocks::widen_rows(table, 0, T, rows.data());
  add_into(out, rows.data(), T * D);
}

std::vector<float> gather_rows(const float* x, const std::vector<std::size_t>& at, std::size_t D) {
  std::vector<float> rows(at.size() * D);
  for (std::size_t p = 0; p < at.size(); ++p) std::copy(x + at[p] * D, x + (at[p] + 1) * D, rows.begin() + p * D);
  return rows;
}

void add_into(float* x, const float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] += y[i];
}

void pre_norm_layer(const Layer& layer, float* h, std::size_t T, const std::vector<bool>& head_off, float* probs,
                    const blocks::Rope* rope) {
  const std::size_t D = layer.attn.o.out;
  std::vector<float> a(h, h + T * D), out(T * D);  // h += attn(norm_1(h))
  blocks::normalize(layer.norm_1, a.data(), T, D);
  blocks::attention(layer.attn, a.data(), T, head_off, probs, out.data(), rope);
  add_into(h, out.data(), T * D);
  a.assign(h, h + T * D);  // h += mlp(norm_2(h))
  blocks::normalize(layer.norm_2, a.data(), T, D);
  blocks::mlp(layer.mlp, a.data(), T, out.data());
  add_into(h, out.data(), T * D);
}

void post_norm_layer(const Layer& layer, float* h, std::size_t T, const std::vector<bool>& head_off, float* probs) {
  const std::size_t D = layer.attn.o.out;
  std::vector<float> out(T * D);
  blocks::attention(layer.attn, h, T, head_off, probs, out.data());  // h = norm_1(h + attn(h))
  add_into(h, out.data(), T * D);
  blocks::normalize(layer.norm_1, h, T, D);
  blocks::mlp(layer.mlp, h, T, out.data());  // h = norm_2(h + mlp(h))
  add_into(h, out.data(), T * D);
  blocks::normalize(layer.norm_2, h, T, D);
}

std::vector<TraceStep> pre_norm_trace(const std::vector<Layer>& layers, std::size_t T, std::size_t D, std::size_t P,
                                      std::size_t V) {
  std::vector<TraceStep> steps = trace_start(T, D);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const int tag = int(l);
    steps.push_back(stream_step("norm", T, D, tag));
    for (const TraceStep& s : blocks::attention_trace(layers[l].attn, T, D, tag)) steps.push_back(s);
    for (const char* op : {"residual", "norm", "mlp", "residual"}) steps.push_back(stream_step(op, T, D, tag));
  }
  steps.push_back(stream_step("norm", T, D));
  if (P) steps.push_back(readout_step(P, V));
  return steps;
}

std::vector<TraceStep> post_norm_trace(const std::vector<Layer>& layers, std::size_t T, std::size_t D, std::size_t P,
                                       std::size_t V) {
  std::vector<TraceStep> steps = trace_start(T, D);
  steps.push_back(stream_step("norm", T, D));
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const int tag = int(l);
    for (const TraceStep& s : blocks::attention_trace(layers[l].attn, T, D, tag)) steps.push_back(s);
    for (const char* op : {"residual", "norm", "mlp", "residual", "norm"}) steps.push_back(stream_step(op, T, D, tag));
  }
  if (P) steps.push_back(readout_step(P, V));
  return steps;
}

void lm_head_logits(const blocks::Linear& head, const float* hidden, const std::vector<std::size_t>& at, std::size_t D,
                    float* out) {
  const std::vector<float> rows = gather_rows(hidden, at, D);  // [P, D]
  blocks::linear(head, rows.data(), at.size(), out);           // [P, V]
}

void mlm_head_logits(const MlmHead& head, const float* hidden, const std::vector<std::size_t>& at, std::size_t D,
                     float* out) {
  const std::size_t P = at.size();
  const std::vector<float> rows = gather_rows(hidden, at, D);  // [P, D]
  std::vector<float> x(P * D);
  blocks::linear(head.transform, rows.data(), P, x.data());
  blocks::activate(head.act, x.data(), x.size());
  blocks::normalize(head.norm, x.data(), P, D);
  blocks::linear(head.decoder, x.data(), P, out);  // [P, V]
}

std::vector<TraceStep> trace_start(std::size_t T, std::size_t D) {
  return {{"tokens", Layout::contiguous({1, T})}, {"embedding", Layout::contiguous({1, T, D})}};
}

TraceStep stream_step(const char* op, std::size_t T, std::size_t D, int layer) {
  return {op, Layout::contiguous({1, T, D}), {}, layer};
}

TraceStep readout_step(std::size_t P, std::size_t V) { return {"readout", Layout::contiguous({P, V})}; }

}  // namespace mha::models
