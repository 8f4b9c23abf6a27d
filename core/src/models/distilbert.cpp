// DistilBERT as transformers' modeling_distilbert.py computes it: embeddings = LayerNorm(word +
// absolute position) (no token types), q divided by √head_dim before the product, post-LayerNorm
// layers (eps 1e-12), and the MLM head (vocab_transform, activation, vocab_layer_norm,
// vocab_projector tied to the word embeddings) when the checkpoint holds it.
#include "models/network.hpp"

namespace mha::models {

namespace {

constexpr float kEps = 1e-12f;  // every DistilBERT LayerNorm

class DistilBert final : public Network {
 public:
  explicit DistilBert(Binder& b) : c_(b.config()) {
    const std::size_t D = c_.d_model;
    words_ = b.need("embeddings.word_embeddings.weight", {c_.vocab, D});
    positions_ = b.need("embeddings.position_embeddings.weight", {c_.max_positions, D});
    embed_norm_ = b.norm("embeddings.LayerNorm", D, kEps);
    const blocks::Activation act = blocks::activation_from_name(c_.activation);
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "transformer.layer." + std::to_string(l) + ".";
      Layer layer;
      layer.attn.heads = layer.attn.kv_heads = c_.heads;
      layer.attn.head_dim = c_.head_dim;
      layer.attn.scale_query = true;
      layer.attn.q = b.linear(p + "attention.q_lin", D, D, true);
      layer.attn.k = b.linear(p + "attention.k_lin", D, D, true);
      layer.attn.v = b.linear(p + "attention.v_lin", D, D, true);
      layer.attn.o = b.linear(p + "attention.out_lin", D, D, true);
      layer.norm_1 = b.norm(p + "sa_layer_norm", D, kEps);
      layer.mlp.up = b.linear(p + "ffn.lin1", D, c_.d_ff, true);
      layer.mlp.down = b.linear(p + "ffn.lin2", c_.d_ff, D, true);
      layer.mlp.act = act;
      layer.norm_2 = b.norm(p + "output_layer_norm", D, kEps);
      layers_.push_back(layer);
    }
    bind_head(b, act);
  }

  bool has_head() const override { return has_head_; }

  void embed(const std::vector<std::int32_t>& ids, float* h) const override {
    models::embed(*words_, ids, h, false);  // h[T, D] = LayerNorm(words[ids] + positions[0..T))
    add_positions(*positions_, ids.size(), h);
    blocks::layer_norm(embed_norm_, h, ids.size(), c_.d_model);
  }

  void layer(std::size_t l, float* h, std::size_t T, const std::vector<bool>& head_off, float* probs) const override {
    post_norm_layer(layers_.at(l), h, T, head_off, probs);
  }

  void finish(float*, std::size_t) const override {}  // post-LN: the last layer's output is last_hidden_state

  // DistilBertForMaskedLM: vocab_projector(vocab_layer_norm(act(vocab_transform(h)))).
  void logits(const float* hidden, const std::vector<std::size_t>& at, float* out) const override {
    mlm_head_logits(head_, hidden, at, c_.d_model, out);
  }

  std::vector<TraceStep> trace(std::size_t T, std::size_t P) const override {
    return post_norm_trace(layers_, T, c_.d_model, P, c_.vocab);
  }

 private:
  void bind_head(Binder& b, blocks::Activation act) {
    const std::size_t D = c_.d_model;
    const WeightRef* dense = b.maybe_head("vocab_transform.weight", {D, D});
    if (!dense) return;  // DistilBertModel alone: no MLM head
    has_head_ = true;
    head_.act = act;
    head_.transform = {dense, b.need_head("vocab_transform.bias", {D}), false, D, D};
    head_.norm = {b.need_head("vocab_layer_norm.weight", {D}), b.need_head("vocab_layer_norm.bias", {D}), kEps};
    const WeightRef* weight = c_.tie_word_embeddings ? words_ : b.need_head("vocab_projector.weight", {c_.vocab, D});
    head_.decoder = {weight, b.need_head("vocab_projector.bias", {c_.vocab}), false, D, c_.vocab};
  }

  CheckpointConfig c_;
  const WeightRef *words_ = nullptr, *positions_ = nullptr;
  blocks::Norm embed_norm_;
  std::vector<Layer> layers_;
  bool has_head_ = false;
  MlmHead head_;
};

}  // namespace

std::unique_ptr<Network> bind_distilbert(Binder& binder) { return std::make_unique<DistilBert>(binder); }

}  // namespace mha::models
