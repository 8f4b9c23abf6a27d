// DistilBERT as transformers' modeling_distilbert.py computes it: embeddings = LayerNorm(word +
// absolute position) (no token types), q divided by √head_dim before the product, post-LayerNorm
// layers (eps 1e-12), and the MLM head (vocab_transform, activation, vocab_layer_norm,
// vocab_projector tied to the word embeddings) when the checkpoint holds it.
#include "models/network.hpp"

namespace mha::models {

namespace {

constexpr float kEps = 1e-12f;  // every DistilBERT LayerNorm

class DistilBert final : public Stack {
 public:
  explicit DistilBert(Binder& b) : Stack(b.config()) {
    const std::size_t D = c_.d_model;
    words_ = b.need("embeddings.word_embeddings.weight", {c_.vocab, D});
    positions_ = b.need("embeddings.position_embeddings.weight", {c_.max_positions, D});
    embed_norm_ = b.norm("embeddings.LayerNorm", D, kEps);
    const EncoderNames names{"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                             "sa_layer_norm",   "ffn.lin1",        "ffn.lin2",        "output_layer_norm"};
    for (std::size_t l = 0; l < c_.layers; ++l) {
      layers_.push_back(encoder_layer(b, "transformer.layer." + std::to_string(l) + ".", names, kEps));
      layers_.back().attn.scale_query = true;  // q = q / math.sqrt(dim_per_head), before the product
    }
    // DistilBertForMaskedLM: vocab_projector(vocab_layer_norm(act(vocab_transform(h))))
    bind_mlm_head(b, {"vocab_transform", "vocab_layer_norm", "vocab_projector", "vocab_projector.bias"}, words_,
                  blocks::activation_from_name(c_.activation), kEps);
  }

  void embed(const std::vector<std::int32_t>& ids, float* h) const override {
    models::embed(*words_, ids, h, false);  // h[T, D] = LayerNorm(words[ids] + positions[0..T))
    add_positions(*positions_, ids.size(), h);
    blocks::layer_norm(embed_norm_, h, ids.size(), c_.d_model);
  }

 private:
  const WeightRef *words_ = nullptr, *positions_ = nullptr;
};

}  // namespace

std::unique_ptr<Network> bind_distilbert(Binder& binder) { return std::make_unique<DistilBert>(binder); }

}  // namespace mha::models
