// BERT (bert-base-uncased, all-MiniLM-L6-v2, ...) as transformers' modeling_bert.py computes it:
// embeddings = LayerNorm(word + token type 0 + absolute position), post-LayerNorm layers, exact
// erf GELU, and the MLM head cls.predictions.* when the checkpoint holds it (transform dense +
// activation + LayerNorm, decoder tied to the word embeddings, plus its bias). RoBERTa (roberta.cpp)
// is this encoder under other names, with its own position ids.
#include "models/network.hpp"

namespace mha::models {

namespace {

class Bert final : public Stack {
 public:
  Bert(Binder& b, const BertVariant& v) : Stack(b.config()), after_padding_(v.after_padding) {
    const std::size_t D = c_.d_model;
    const float eps = float(c_.norm_eps);
    const std::size_t rows = c_.max_positions + (after_padding_ ? std::size_t(c_.padding_idx) + 1 : 0);
    words_ = b.need("embeddings.word_embeddings.weight", {c_.vocab, D});
    positions_ = b.need("embeddings.position_embeddings.weight", {rows, D});
    types_ = b.need("embeddings.token_type_embeddings.weight", {c_.type_vocab, D});
    embed_norm_ = b.norm("embeddings.LayerNorm", D, eps);
    const EncoderNames names{
        "attention.self.query",       "attention.self.key", "attention.self.value", "attention.output.dense",
        "attention.output.LayerNorm", "intermediate.dense", "output.dense",         "output.LayerNorm"};
    for (std::size_t l = 0; l < c_.layers; ++l)
      layers_.push_back(encoder_layer(b, "encoder.layer." + std::to_string(l) + ".", names, eps));
    const blocks::Activation act =
        v.head_gelu ? blocks::Activation::GeluErf : blocks::activation_from_name(c_.activation);
    bind_mlm_head(b, v.head, words_, act, eps);
  }

  void embed(const std::vector<std::int32_t>& ids, float* h) const override {
    const std::size_t T = ids.size();
    models::embed(*words_, ids, h, false);  // h[T, D] = LayerNorm(words[ids] + types[0] + positions[position ids])
    models::embed(*types_, std::vector<std::int32_t>(T, 0), h, true);
    if (after_padding_) models::embed(*positions_, position_ids_after_padding(ids), h, true);
    else add_positions(*positions_, T, h);
    blocks::layer_norm(embed_norm_, h, T, c_.d_model);
  }

 private:
  // RoBERTa's create_position_ids_from_input_ids: padding_idx + (the tokens up to i that are not padding_idx), and
  // padding_idx itself at a padding token.
  std::vector<std::int32_t> position_ids_after_padding(const std::vector<std::int32_t>& ids) const {
    const auto pad = std::int32_t(c_.padding_idx);
    std::vector<std::int32_t> out(ids.size());
    std::int32_t seen = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) out[i] = ids[i] == pad ? pad : pad + ++seen;
    return out;
  }

  bool after_padding_;
  const WeightRef *words_ = nullptr, *positions_ = nullptr, *types_ = nullptr;
};

}  // namespace

std::unique_ptr<Network> bind_bert_encoder(Binder& binder, const BertVariant& variant) {
  return std::make_unique<Bert>(binder, variant);
}

// BertLMPredictionHead: decoder(LayerNorm(act(dense(h)))) + bias, act the config's hidden_act
std::unique_ptr<Network> bind_bert(Binder& binder) {
  return bind_bert_encoder(binder, {{"cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                                     "cls.predictions.decoder", "cls.predictions.bias"}});
}

}  // namespace mha::models
