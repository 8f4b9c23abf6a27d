// ModernBERT (ModernBERT-base, ModernBERT-large) as transformers' modeling_modernbert.py computes it: the token
// embeddings through a LayerNorm (embeddings.norm), pre-norm layers (no attn_norm in layer 0: nn.Identity) with Wqkv
// fused as q ‖ k ‖ v, rotary embeddings over each head with a base for the full layers and one for the local ones, the
// local layers' bidirectional window (|i - j| <= local_attention / 2), Wo, the GeGLU MLP (input, gate = Wi(x).chunk(2);
// Wo(act(input) · gate)), a final_norm, and the MLM head (head.dense, classifier_activation, head.norm, decoder tied to
// the token embeddings, decoder.bias). Biases only where the config asks (norm_bias, attention_bias, mlp_bias,
// classifier_bias, decoder_bias).
#include "models/network.hpp"

namespace mha::models {

namespace {

class ModernBert final : public TokenEmbeddings {
 public:
  explicit ModernBert(Binder& b) : TokenEmbeddings(b, "embeddings.tok_embeddings.weight") {
    const std::size_t D = c_.d_model;
    const float eps = float(c_.norm_eps);
    embed_norm_ = b.norm("embeddings.norm", D, eps);
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "layers." + std::to_string(l) + ".";
      blocks::Layer layer = layer_of(b, l == 0 ? "" : p + "attn_norm", p + "mlp_norm");
      layer.attn.qkv = b.linear(p + "attn.Wqkv", D, 3 * D, c_.attention_bias);
      layer.attn.o = b.linear(p + "attn.Wo", D, D, c_.attention_bias);
      layer.attn.rotary_dim = c_.head_dim;
      layer.attn.window = c_.windows.at(l);
      layer.attn.rope_theta = layer.attn.window ? c_.rope_local_theta : c_.rope_theta;
      layer.mlp.up = b.linear(p + "mlp.Wi", D, 2 * c_.d_ff, c_.mlp_bias);
      layer.mlp.down = b.linear(p + "mlp.Wo", c_.d_ff, D, c_.mlp_bias);
      layer.mlp.fused_glu = true;
      layers_.push_back(layer);
    }
    final_norm_ = b.norm("final_norm", D, eps);
    bind_mlm_head(b, {"head.dense", "head.norm", "decoder", "decoder.bias"}, tokens_,
                  blocks::activation_from_name(c_.head_activation), eps);
  }
};

}  // namespace

std::unique_ptr<Network> bind_modernbert(Binder& binder) { return std::make_unique<ModernBert>(binder); }

}  // namespace mha::models
