// OPT (opt-125m and the other pre-norm sizes, or post-norm with do_layer_norm_before false) as transformers'
// modeling_opt.py computes it: learned positions read from row 2 on (OPTLearnedPositionalEmbedding's offset),
// q_proj's output times head_dim^-0.5 before the product, ReLU, a final_layer_norm after the layers of a pre-norm
// model only, and the LM head tied to embed_tokens.
#include "models/network.hpp"

namespace mha::models {

namespace {

constexpr std::size_t kPositionOffset = 2;  // OPTLearnedPositionalEmbedding: position ids + 2

class Opt final : public LearnedPositions {
 public:
  explicit Opt(Binder& b)
      : LearnedPositions(b, "decoder.embed_tokens.weight", "decoder.embed_positions.weight", kPositionOffset) {
    const std::size_t D = c_.d_model;
    const bool bias = c_.attention_bias;
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "decoder.layers." + std::to_string(l) + ".", a = p + "self_attn.";
      blocks::Layer layer = layer_of(b, p + "self_attn_layer_norm", p + "final_layer_norm");
      layer.residual = c_.post_norm ? blocks::Residual::PostNorm : blocks::Residual::PreNorm;
      layer.attn.q = b.linear(a + "q_proj", D, D, bias);
      layer.attn.k = b.linear(a + "k_proj", D, D, bias);
      layer.attn.v = b.linear(a + "v_proj", D, D, bias);
      layer.attn.o = b.linear(a + "out_proj", D, D, bias);
      layer.attn.scale_query = true;  // query_states = q_proj(h) * scaling
      layer.mlp.up = b.linear(p + "fc1", D, c_.d_ff, bias);
      layer.mlp.down = b.linear(p + "fc2", c_.d_ff, D, bias);
      layers_.push_back(layer);
    }
    bind_readout(b, c_.post_norm ? nullptr : "decoder.final_layer_norm");
  }
};

}  // namespace

std::unique_ptr<Network> bind_opt(Binder& binder) { return std::make_unique<Opt>(binder); }

}  // namespace mha::models
