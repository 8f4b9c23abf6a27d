// BERT (bert-base-uncased, all-MiniLM-L6-v2, ...) as transformers' modeling_bert.py computes it:
// embeddings = LayerNorm(word + token type 0 + absolute position), post-LayerNorm layers, exact
// erf GELU, and the MLM head cls.predictions.* when the checkpoint holds it (transform dense +
// activation + LayerNorm, decoder tied to the word embeddings, plus its bias).
#include "models/network.hpp"

#include "mha/error.hpp"

namespace mha::models {

namespace {

struct BertLayer {
  blocks::Attention attn;
  blocks::Norm attn_norm, out_norm;
  blocks::Mlp mlp;
};

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
      BertLayer layer;
      layer.attn.heads = layer.attn.kv_heads = c_.heads;
      layer.attn.head_dim = c_.head_dim;
      layer.attn.q = b.linear(p + "attention.self.query", D, D, true);
      layer.attn.k = b.linear(p + "attention.self.key", D, D, true);
      layer.attn.v = b.linear(p + "attention.self.value", D, D, true);
      layer.attn.o = b.linear(p + "attention.output.dense", D, D, true);
      layer.attn_norm = b.norm(p + "attention.output.LayerNorm", D, eps);
      layer.mlp = {b.linear(p + "intermediate.dense", D, c_.d_ff, true), b.linear(p + "output.dense", c_.d_ff, D, true), act};
      layer.out_norm = b.norm(p + "output.LayerNorm", D, eps);
      layers_.push_back(layer);
    }
    bind_head(b, act);
  }

  bool has_head() const override { return head_; }

  void forward(const std::vector<std::int32_t>& ids, const std::vector<std::vector<bool>>& head_off, float* probs,
               float* h) const override {
    const std::size_t T = ids.size(), D = c_.d_model, HTT = c_.heads * T * T;
    embed(*words_, ids, h, false);  // h[T, D] = LayerNorm(words[ids] + types[0] + positions[0..T))
    embed(*types_, std::vector<std::int32_t>(T, 0), h, true);
    add_positions(*positions_, T, h);
    blocks::layer_norm(embed_norm_, h, T, D);
    std::vector<float> out(T * D);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const BertLayer& layer = layers_[l];
      blocks::attention(layer.attn, h, T, head_off[l], probs + l * HTT, out.data());  // h = LN(attn(h) + h)
      add_into(h, out.data(), T * D);
      blocks::layer_norm(layer.attn_norm, h, T, D);
      blocks::mlp(layer.mlp, h, T, out.data());  // h = LN(mlp(h) + h)
      add_into(h, out.data(), T * D);
      blocks::layer_norm(layer.out_norm, h, T, D);
    }
  }

  // BertLMPredictionHead: decoder(LayerNorm(act(dense(h)))) + bias.
  void logits(const float* hidden, const std::vector<std::size_t>& at, float* out) const override {
    const std::size_t P = at.size(), D = c_.d_model;
    const std::vector<float> rows = gather_rows(hidden, at, D);  // [P, D]
    std::vector<float> x(P * D);
    blocks::linear(transform_, rows.data(), P, x.data());
    blocks::activate(act_, x.data(), x.size());
    blocks::layer_norm(transform_norm_, x.data(), P, D);
    blocks::linear(decoder_, x.data(), P, out);  // [P, V]
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
  void bind_head(Binder& b, blocks::Activation act) {
    const std::size_t D = c_.d_model;
    const std::string p = "cls.predictions.";
    const WeightRef* dense = b.maybe_head(p + "transform.dense.weight", {D, D});
    if (!dense) return;  // BertModel alone: no MLM head
    head_ = true;
    act_ = act;
    transform_ = {dense, b.need_head(p + "transform.dense.bias", {D}), false, D, D};
    transform_norm_ = {b.need_head(p + "transform.LayerNorm.weight", {D}), b.need_head(p + "transform.LayerNorm.bias", {D}),
                       float(c_.norm_eps)};
    // The decoder's bias is cls.predictions.bias (one tensor shared with decoder.bias; files keep either).
    const WeightRef* bias = b.maybe_head(p + "bias", {c_.vocab});
    const WeightRef* decoder_bias = b.maybe_head(p + "decoder.bias", {c_.vocab});
    if (!bias) bias = decoder_bias;
    if (!bias) throw Error("the checkpoint has an MLM head but neither 'cls.predictions.bias' nor 'cls.predictions.decoder.bias'");
    const WeightRef* weight = c_.tie_word_embeddings ? words_ : b.need_head(p + "decoder.weight", {c_.vocab, D});
    decoder_ = {weight, bias, false, D, c_.vocab};
  }

  ModelConfig c_;
  const WeightRef *words_ = nullptr, *positions_ = nullptr, *types_ = nullptr;
  blocks::Norm embed_norm_;
  std::vector<BertLayer> layers_;
  bool head_ = false;
  blocks::Activation act_ = blocks::Activation::GeluErf;
  blocks::Linear transform_, decoder_;
  blocks::Norm transform_norm_;
};

}  // namespace

std::unique_ptr<Network> bind_bert(Binder& binder) { return std::make_unique<Bert>(binder); }

}  // namespace mha::models
