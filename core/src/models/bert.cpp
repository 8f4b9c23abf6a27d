// BERT (bert-base-uncased, all-MiniLM-L6-v2, ...) as transformers' modeling_bert.py computes it:
// embeddings = LayerNorm(word + token type 0 + absolute position), post-LayerNorm layers, exact
// erf GELU, and the MLM head cls.predictions.* when the checkpoint holds it (transform dense +
// activation + LayerNorm, decoder tied to the word embeddings, plus its bias).
#include "models/network.hpp"

#include "mha/error.hpp"

namespace mha::models {

namespace {

class Bert final : public Network {
 public:
  explicit Bert(Binder& b) : c_(b.config()) {
    const std::size_t D = c_.d_model;
    const float eps = float(c_.norm_eps);
    words_ = b.need("embeddings.word_embeddings.weight", {c_.vocab, D});
    positions_ = b.need("embeddings.position_embeddings.weight", {c_.max_positions, D});
    types_ = b.need("embeddings.token_type_embeddings.weight", {c_.type_vocab, D});
    embed_norm_ = b.norm("embeddings.LayerNorm", D, eps);
    const blocks::Activation act = blocks::activation_from_name(c_.activation);
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "encoder.layer." + std::to_string(l) + ".";
      Layer layer;
      layer.attn.heads = layer.attn.kv_heads = c_.heads;
      layer.attn.head_dim = c_.head_dim;
      layer.attn.q = b.linear(p + "attention.self.query", D, D, true);
      layer.attn.k = b.linear(p + "attention.self.key", D, D, true);
      layer.attn.v = b.linear(p + "attention.self.value", D, D, true);
      layer.attn.o = b.linear(p + "attention.output.dense", D, D, true);
      layer.norm_1 = b.norm(p + "attention.output.LayerNorm", D, eps);
      layer.mlp.up = b.linear(p + "intermediate.dense", D, c_.d_ff, true);
      layer.mlp.down = b.linear(p + "output.dense", c_.d_ff, D, true);
      layer.mlp.act = act;
      layer.norm_2 = b.norm(p + "output.LayerNorm", D, eps);
      layers_.push_back(layer);
    }
    bind_head(b, act);
  }

  bool has_head() const override { return has_head_; }

  void embed(const std::vector<std::int32_t>& ids, float* h) const override {
    const std::size_t T = ids.size();
    models::embed(*words_, ids, h, false);  // h[T, D] = LayerNorm(words[ids] + types[0] + positions[0..T))
    models::embed(*types_, std::vector<std::int32_t>(T, 0), h, true);
    add_positions(*positions_, T, h);
    blocks::layer_norm(embed_norm_, h, T, c_.d_model);
  }

  void layer(std::size_t l, float* h, std::size_t T, const std::vector<bool>& head_off, float* probs) const override {
    post_norm_layer(layers_.at(l), h, T, head_off, probs);
  }

  void finish(float*, std::size_t) const override {}  // post-LN: the last layer's output is last_hidden_state

  // BertLMPredictionHead: decoder(LayerNorm(act(dense(h)))) + bias.
  void logits(const float* hidden, const std::vector<std::size_t>& at, float* out) const override {
    mlm_head_logits(head_, hidden, at, c_.d_model, out);
  }

  std::vector<TraceStep> trace(std::size_t T, std::size_t P) const override {
    return post_norm_trace(layers_, T, c_.d_model, P, c_.vocab);
  }

 private:
  void bind_head(Binder& b, blocks::Activation act) {
    const std::size_t D = c_.d_model;
    const std::string p = "cls.predictions.";
    const WeightRef* dense = b.maybe_head(p + "transform.dense.weight", {D, D});
    if (!dense) return;  // BertModel alone: no MLM head
    has_head_ = true;
    head_.act = act;
    head_.transform = {dense, b.need_head(p + "transform.dense.bias", {D}), false, D, D};
    head_.norm = {b.need_head(p + "transform.LayerNorm.weight", {D}), b.need_head(p + "transform.LayerNorm.bias", {D}),
                  float(c_.norm_eps)};
    // The decoder's bias is cls.predictions.bias (one tensor shared with decoder.bias; files keep either).
    const WeightRef* bias = b.maybe_head(p + "bias", {c_.vocab});
    const WeightRef* decoder_bias = b.maybe_head(p + "decoder.bias", {c_.vocab});
    if (!bias) bias = decoder_bias;
    if (!bias)
      throw Error(
          "the checkpoint has an MLM head but neither 'cls.predictions.bias' nor 'cls.predictions.decoder.bias'");
    const WeightRef* weight = c_.tie_word_embeddings ? words_ : b.need_head(p + "decoder.weight", {c_.vocab, D});
    head_.decoder = {weight, bias, false, D, c_.vocab};
  }

  CheckpointConfig c_;
  const WeightRef *words_ = nullptr, *positions_ = nullptr, *types_ = nullptr;
  blocks::Norm embed_norm_;
  std::vector<Layer> layers_;
  bool has_head_ = false;
  MlmHead head_;
};

}  // namespace

std::unique_ptr<Network> bind_bert(Binder& binder) { return std::make_unique<Bert>(binder); }

}  // namespace mha::models
