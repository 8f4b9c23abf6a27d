// BERT (bert-base-uncased, all-MiniLM-L6-v2, ...) as transformers' modeling_bert.py computes it:
// embeddings = LayerNorm(word + token type 0 + absolute position), post-LayerNorm layers, exact
// erf GELU, and the MLM head cls.predictions.* when the checkpoint holds it (transform dense +
// activation + LayerNorm, decoder tied to the word embeddings, plus its bias).
#include "models/network.hpp"

namespace mha::models {

namespace {

class Bert final : public Stack {
 public:
  explicit Bert(Binder& b) : Stack(b.config()) {
    const std::size_t D = c_.d_model;
    const float eps = float(c_.norm_eps);
    words_ = b.need("embeddings.word_embeddings.weight", {c_.vocab, D});
    positions_ = b.need("embeddings.position_embeddings.weight", {c_.max_positions, D});
    types_ = b.need("embeddings.token_type_embeddings.weight", {c_.type_vocab, D});
    embed_norm_ = b.norm("embeddings.LayerNorm", D, eps);
    const EncoderNames names{
        "attention.self.query",       "attention.self.key", "attention.self.value", "attention.output.dense",
        "attention.output.LayerNorm", "intermediate.dense", "output.dense",         "output.LayerNorm"};
    for (std::size_t l = 0; l < c_.layers; ++l)
      layers_.push_back(encoder_layer(b, "encoder.layer." + std::to_string(l) + ".", names, eps));
    // BertLMPredictionHead: decoder(LayerNorm(act(dense(h)))) + bias
    bind_mlm_head(b,
                  {"cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.decoder",
                   "cls.predictions.bias"},
                  words_, blocks::activation_from_name(c_.activation), eps);
  }

  void embed(const std::vector<std::int32_t>& ids, float* h) const override {
    const std::size_t T = ids.size();
    models::embed(*words_, ids, h, false);  // h[T, D] = LayerNorm(words[ids] + types[0] + positions[0..T))
    models::embed(*types_, std::vector<std::int32_t>(T, 0), h, true);
    add_positions(*positions_, T, h);
    blocks::layer_norm(embed_norm_, h, T, c_.d_model);
  }

 private:
  const WeightRef *words_ = nullptr, *positions_ = nullptr, *types_ = nullptr;
};

}  // namespace

std::unique_ptr<Network> bind_bert(Binder& binder) { return std::make_unique<Bert>(binder); }

}  // namespace mha::models
