// DistilBERT as transformers' modeling_distilbert.py computes it: embeddings = LayerNorm(word +
// absolute position) (no token types), q divided by √head_dim before the product, post-LayerNorm
// layers (eps 1e-12), and the MLM head (vocab_transform, activation, vocab_layer_norm,
// vocab_projector tied to the word embeddings) when the checkpoint holds it.
#include "models/network.hpp"

namespace mha::models {

namespace {

constexpr float kEps = 1e-12f;  // every DistilBERT LayerNorm

struct DistilBertLayer {
  blocks::Attention attn;
  blocks::Norm sa_norm, out_norm;
  blocks::Mlp ffn;
};

class DistilBert final : public Network {
 public:
  explicit DistilBert(Binder& b) : c_(b.config()) {
    const std::size_t D = c_.d_model;
    words_ = b.need("embeddings.word_embeddings.weight", {c_.vocab, D});
    positions_ = b.need("embeddings.position_embeddings.weight", {c_.max_positions, D});
    embed_norm_ = b.norm("embeddings.LayerNorm", D, kEps);
    act_ = blocks::activation_from_name(c_.activation);
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "transformer.layer." + std::to_string(l) + ".";
      DistilBertLayer layer;
      layer.attn.heads = layer.attn.kv_heads = c_.heads;
      layer.attn.head_dim = c_.head_dim;
      layer.attn.scale_query = true;
      layer.attn.q = b.linear(p + "attention.q_lin", D, D, true);
      layer.attn.k = b.linear(p + "attention.k_lin", D, D, true);
      layer.attn.v = b.linear(p + "attention.v_lin", D, D, true);
      layer.attn.o = b.linear(p + "attention.out_lin", D, D, true);
      layer.sa_norm = b.norm(p + "sa_layer_norm", D, kEps);
      layer.ffn = {b.linear(p + "ffn.lin1", D, c_.d_ff, true), b.linear(p + "ffn.lin2", c_.d_ff, D, true), act_};
      layer.out_norm = b.norm(p + "output_layer_norm", D, kEps);
      layers_.push_back(layer);
    }
    bind_head(b);
  }

  bool has_head() const override { return head_; }

  void forward(const std::vector<std::int32_t>& ids, const std::vector<std::vector<bool>>& head_off, float* probs,
               float* h) const override {
    const std::size_t T = ids.size(), D = c_.d_model, HTT = c_.heads * T * T;
    embed(*words_, ids, h, false);  // h[T, D] = LayerNorm(words[ids] + positions[0..T))
    add_positions(*positions_, T, h);
    blocks::layer_norm(embed_norm_, h, T, D);
    std::vector<float> out(T * D);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const DistilBertLayer& layer = layers_[l];
      blocks::attention(layer.attn, h, T, head_off[l], probs + l * HTT, out.data());  // h = sa_layer_norm(attn(h) + h)
      add_into(h, out.data(), T * D);
      blocks::layer_norm(layer.sa_norm, h, T, D);
      blocks::mlp(layer.ffn, h, T, out.data());  // h = output_layer_norm(ffn(h) + h)
      add_into(h, out.data(), T * D);
      blocks::layer_norm(layer.out_norm, h, T, D);
    }
  }

  // DistilBertForMaskedLM: vocab_projector(vocab_layer_norm(act(vocab_transform(h)))).
  void logits(const float* hidden, const std::vector<std::size_t>& at, float* out) const override {
    const std::size_t P = at.size(), D = c_.d_model;
    const std::vector<float> rows = gather_rows(hidden, at, D);  // [P, D]
    std::vector<float> x(P * D);
    blocks::linear(transform_, rows.data(), P, x.data());
    blocks::activate(act_, x.data(), x.size());
    blocks::layer_norm(transform_norm_, x.data(), P, D);
    blocks::linear(projector_, x.data(), P, out);  // [P, V]
  }

  std::vector<TraceStep> trace(std::size_t T, std::size_t P) const override {
    const std::size_t D = c_.d_model;
    std::vector<TraceStep> steps = trace_start(T, D);
    steps.push_back(stream_step("norm", T, D));
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const int tag = int(l);
      for (const TraceStep& s : blocks::attention_trace(layers_[l].attn, T, D, tag)) steps.push_back(s);
      steps.push_back(stream_step("residual", T, D, tag));
      steps.push_back(stream_step("norm", T, D, tag));
      steps.push_back(stream_step("mlp", T, D, tag));
      steps.push_back(stream_step("residual", T, D, tag));
      steps.push_back(stream_step("norm", T, D, tag));
    }
    if (P) steps.push_back(readout_step(P, c_.vocab));
    return steps;
  }

 private:
  void bind_head(Binder& b) {
    const std::size_t D = c_.d_model;
    const WeightRef* dense = b.maybe_head("vocab_transform.weight", {D, D});
    if (!dense) return;  // DistilBertModel alone: no MLM head
    head_ = true;
    transform_ = {dense, b.need_head("vocab_transform.bias", {D}), false, D, D};
    transform_norm_ = {b.need_head("vocab_layer_norm.weight", {D}), b.need_head("vocab_layer_norm.bias", {D}), kEps};
    const WeightRef* weight = c_.tie_word_embeddings ? words_ : b.need_head("vocab_projector.weight", {c_.vocab, D});
    projector_ = {weight, b.need_head("vocab_projector.bias", {c_.vocab}), false, D, c_.vocab};
  }

  ModelConfig c_;
  const WeightRef *words_ = nullptr, *positions_ = nullptr;
  blocks::Norm embed_norm_;
  blocks::Activation act_ = blocks::Activation::GeluErf;
  std::vector<DistilBertLayer> layers_;
  bool head_ = false;
  blocks::Linear transform_, projector_;
  blocks::Norm transform_norm_;
};

}  // namespace

std::unique_ptr<Network> bind_distilbert(Binder& binder) { return std::make_unique<DistilBert>(binder); }

}  // namespace mha::models
