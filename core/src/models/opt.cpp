// OPT (opt-125m and the other pre-norm sizes, or post-norm with do_layer_norm_before false) as transformers'
// modeling_opt.py computes it: learned positions read from row 2 on (OPTLearnedPositionalEmbedding's offset),
// q_proj's output times head_dim^-0.5 before the product, ReLU, a final_layer_norm after the layers of a pre-norm
// model only, and the LM head tied to embed_tokens.
#include "models/network.hpp"

namespace mha::models {

namespace {

constexpr std::size_t kPositionOffset = 2;  // OPTLearnedPositionalEmbedding: position ids + 2

class Opt final : public Stack {
 public:
  explicit Opt(Binder& b) : Stack(b.config()) {
    const std::size_t D = c_.d_model;
    const float eps = float(c_.norm_eps);
    const bool bias = c_.attention_bias;
    embed_ = b.need("decoder.embed_tokens.weight", {c_.vocab, D});
    positions_ = b.need("decoder.embed_positions.weight", {c_.max_positions + kPositionOffset, D});
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "decoder.layers." + std::to_string(l) + ".";
      blocks::Layer layer;
      layer.residual = c_.post_norm ? blocks::Residual::PostNorm : blocks::Residual::PreNorm;
      layer.norm_1 = b.norm(p + "self_attn_layer_norm", D, eps);
      layer.norm_2 = b.norm(p + "final_layer_norm", D, eps);
      layer.attn.heads = layer.attn.kv_heads = c_.heads;
      layer.attn.head_dim = c_.head_dim;
      layer.attn.q = b.linear(p + "self_attn.q_proj", D, D, bias);
      layer.attn.k = b.linear(p + "self_attn.k_proj", D, D, bias);
      layer.attn.v = b.linear(p + "self_attn.v_proj", D, D, bias);
      layer.attn.o = b.linear(p + "self_attn.out_proj", D, D, bias);
      layer.attn.causal = true;
      layer.attn.scale_query = true;  // query_states = q_proj(h) * scaling
      layer.mlp.up = b.linear(p + "fc1", D, c_.d_ff, bias);
      layer.mlp.down = b.linear(p + "fc2", c_.d_ff, D, bias);
      layer.mlp.act = blocks::activation_from_name(c_.activation);
      layers_.push_back(layer);
    }
    if (!c_.post_norm) final_norm_ = b.norm("decoder.final_layer_norm", D, eps);
    bind_lm_head(b, embed_);
  }

  void embed(const std::vector<std::int32_t>& ids, float* h) const override {
    const std::size_t T = ids.size(), D = c_.d_model;
    models::embed(*embed_, ids, h, false);  // h[T, D] = embed_tokens[ids] + embed_positions[2..T + 2)
    std::vector<float> rows(T * D);
    blocks::widen_rows(*positions_, kPositionOffset, T, rows.data());
    add_into(h, rows.data(), T * D);
  }

 private:
  const WeightRef* embed_ = nullptr;
  const WeightRef* positions_ = nullptr;
};

}  // namespace

std::unique_ptr<Network> bind_opt(Binder& binder) { return std::make_unique<Opt>(binder); }

}  // namespace mha::models
