// The Binder (a family's tensors by name, shapes checked) and the pieces the families share.
#include "models/network.hpp"

#include <algorithm>
#include <array>
#include <cmath>

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
constexpr std::array<FamilyPrefix, 11> kFamilyPrefixes{{{"transformer.", "wte.weight"},
                                                        {"bert.", "embeddings.word_embeddings.weight"},
                                                        {"distilbert.", "embeddings.word_embeddings.weight"},
                                                        {"model.", "embed_tokens.weight"},
                                                        {"gpt_neox.", "embed_in.weight"},
                                                        {"transformer.", "wte.weight"},
                                                        {"model.", "decoder.embed_tokens.weight"},
                                                        {"model.", "embed_tokens.weight"},
                                                        {"roberta.", "embeddings.word_embeddings.weight"},
                                                        {"model.", "embed_tokens.weight"},
                                                        {"model.", "embeddings.tok_embeddings.weight"}}};
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
  const bool bias = kind == blocks::NormKind::Layer && config_.norm_bias;  // ModernBERT's norm_bias false: none
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

void add_positions(const WeightRef& table, std::size_t T, float* out, std::size_t start) {
  const std::size_t D = table.shape[1];
  std::vector<float> rows(T * D);
  blocks::widen_rows(table, start, T, rows.data());
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

void Stack::layer(std::size_t l, float* h, std::size_t T, const blocks::HeadEdits& edits, float* probs) const {
  blocks::layer(layers_.at(l), h, T, edits, probs);
}

void Stack::finish(float* h, std::size_t T) const {
  if (final_norm_.weight) blocks::normalize(final_norm_, h, T, c_.d_model);  // last_hidden_state = norm(h)
}

void Stack::logits(const float* hidden, const std::vector<std::size_t>& at, float* out, bool soft_cap) const {
  if (lm_head_.weight) lm_head_logits(lm_head_, hidden, at, c_.d_model, out);
  else mlm_head_logits(mlm_, hidden, at, c_.d_model, out);
  const float cap = float(c_.final_softcap);  // Gemma 2: logits / cap, tanh, * cap, in float32
  if (soft_cap && cap != 0.0f)
    for (std::size_t i = 0, n = at.size() * c_.vocab; i < n; ++i) out[i] = std::tanh(out[i] / cap) * cap;
}

std::vector<TraceStep> Stack::trace(std::size_t T, std::size_t P) const {
  std::vector<TraceStep> steps = trace_start(T, c_.d_model);
  if (embed_norm_.weight) steps.push_back(stream_step("norm", T, c_.d_model));
  for (std::size_t l = 0; l < layers_.size(); ++l)
    for (const TraceStep& s : blocks::layer_trace(layers_[l], T, int(l))) steps.push_back(s);
  if (final_norm_.weight) steps.push_back(stream_step("norm", T, c_.d_model));
  if (P) steps.push_back(readout_step(P, c_.vocab));
  return steps;
}

void Stack::bind_lm_head(Binder& b, const WeightRef* embeddings) {
  const std::size_t D = c_.d_model;
  lm_head_ = {c_.tie_word_embeddings ? embeddings : b.need_head("lm_head.weight", {c_.vocab, D}), nullptr, false, D,
              c_.vocab};
}

void Stack::bind_mlm_head(Binder& b, const MlmNames& n, const WeightRef* embeddings, blocks::Activation act,
                          float eps) {
  const std::size_t D = c_.d_model, V = c_.vocab;
  const std::string transform = n.transform, decoder = n.decoder;
  const WeightRef* dense = b.maybe_head(transform + ".weight", {D, D});
  if (!dense) return;  // the encoder alone: no MLM head
  mlm_.act = act;
  const std::string norm = n.norm;  // ModernBERT: each bias as its config says (classifier_bias, norm_bias)
  mlm_.transform = {dense, c_.head_bias ? b.need_head(transform + ".bias", {D}) : nullptr, false, D, D};
  mlm_.norm = {b.need_head(norm + ".weight", {D}), c_.norm_bias ? b.need_head(norm + ".bias", {D}) : nullptr, eps};
  const WeightRef* bias = c_.decoder_bias ? b.maybe_head(n.bias, {V}) : nullptr;
  if (!bias && c_.decoder_bias) bias = b.maybe_head(decoder + ".bias", {V});
  if (!bias && c_.decoder_bias)
    throw Error("the checkpoint has an MLM head but neither '" + std::string(n.bias) + "' nor '" + decoder + ".bias'");
  const WeightRef* weight = c_.tie_word_embeddings ? embeddings : b.need_head(decoder + ".weight", {V, D});
  mlm_.decoder = {weight, bias, false, D, V};
}

blocks::Layer Stack::encoder_layer(Binder& b, const std::string& p, const EncoderNames& n, float eps) const {
  const std::size_t D = c_.d_model;
  blocks::Layer layer;
  layer.residual = blocks::Residual::PostNorm;
  layer.attn.heads = layer.attn.kv_heads = c_.heads;
  layer.attn.head_dim = c_.head_dim;
  layer.attn.q = b.linear(p + n.q, D, D, true);
  layer.attn.k = b.linear(p + n.k, D, D, true);
  layer.attn.v = b.linear(p + n.v, D, D, true);
  layer.attn.o = b.linear(p + n.o, D, D, true);
  layer.norm_1 = b.norm(p + n.norm_1, D, eps);
  layer.mlp.up = b.linear(p + n.up, D, c_.d_ff, true);
  layer.mlp.down = b.linear(p + n.down, c_.d_ff, D, true);
  layer.mlp.act = blocks::activation_from_name(c_.activation);
  layer.norm_2 = b.norm(p + n.norm_2, D, eps);
  return layer;
}

blocks::Layer Stack::layer_of(Binder& b, const std::string& norm_1, const std::string& norm_2,
                              blocks::NormKind kind) const {
  const float eps = float(c_.norm_eps);
  blocks::Layer layer;
  if (!norm_1.empty()) layer.norm_1 = b.norm(norm_1, c_.d_model, eps, kind);
  if (!norm_2.empty()) layer.norm_2 = b.norm(norm_2, c_.d_model, eps, kind);
  layer.attn.heads = c_.heads;
  layer.attn.kv_heads = c_.kv_heads;
  layer.attn.head_dim = c_.head_dim;
  layer.attn.causal = c_.causal;
  layer.mlp.act = blocks::activation_from_name(c_.activation);
  return layer;
}

LearnedPositions::LearnedPositions(Binder& b, const std::string& tokens, const std::string& positions,
                                   std::size_t offset)
    : Stack(b.config()), offset_(offset) {
  tokens_ = b.need(tokens, {c_.vocab, c_.d_model});
  positions_ = b.need(positions, {c_.max_positions + offset, c_.d_model});
}

void LearnedPositions::bind_readout(Binder& b, const char* final_norm) {
  if (final_norm) final_norm_ = b.norm(final_norm, c_.d_model, float(c_.norm_eps));
  bind_lm_head(b, tokens_);
}

void LearnedPositions::embed(const std::vector<std::int32_t>& ids, float* h) const {
  models::embed(*tokens_, ids, h, false);  // h[T, D] = tokens[ids] + positions[offset .. offset + T)
  add_positions(*positions_, ids.size(), h, offset_);
}

TokenEmbeddings::TokenEmbeddings(Binder& b, const std::string& name) : Stack(b.config()) {
  tokens_ = b.need(name, {c_.vocab, c_.d_model});
}

void TokenEmbeddings::embed(const std::vector<std::int32_t>& ids, float* h) const {
  models::embed(*tokens_, ids, h, false);  // h[T, D] = tokens[ids] (· embed_scale_), then embed_norm_ if any
  if (embed_scale_ != 1.0f)
    for (std::size_t i = 0; i < ids.size() * c_.d_model; ++i) h[i] *= embed_scale_;
  blocks::normalize(embed_norm_, h, ids.size(), c_.d_model);  // ModernBERT's embeddings.norm
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
