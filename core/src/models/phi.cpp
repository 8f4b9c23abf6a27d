// Phi (phi-1_5, phi-2) as transformers' modeling_phi.py computes it: one input_layernorm feeding both the attention
// and the MLP (the parallel residual h + attn(ln(h)) + mlp(ln(h))), q/k/v and dense with biases, rotary embeddings on
// the first partial_rotary_factor of each head, fc1/fc2 with gelu_new, a final_layernorm, and an LM head with a bias.
#include "models/network.hpp"

namespace mha::models {

namespace {

class Phi final : public TokenEmbeddings {
 public:
  explicit Phi(Binder& b) : TokenEmbeddings(b, "embed_tokens.weight") {
    const std::size_t D = c_.d_model, Dq = c_.heads * c_.head_dim, Dkv = c_.kv_heads * c_.head_dim;
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "layers." + std::to_string(l) + ".", a = p + "self_attn.";
      blocks::Layer layer = layer_of(b, p + "input_layernorm", "");  // no norm_2: the MLP reads norm_1's output
      layer.residual = blocks::Residual::Parallel;
      layer.attn.q = b.linear(a + "q_proj", D, Dq, true);
      layer.attn.k = b.linear(a + "k_proj", D, Dkv, true);
      layer.attn.v = b.linear(a + "v_proj", D, Dkv, true);
      layer.attn.o = b.linear(a + "dense", Dq, D, true);
      layer.attn.rotary_dim = c_.rotary_dim;
      layer.attn.rope_theta = c_.rope_theta;
      layer.mlp.up = b.linear(p + "mlp.fc1", D, c_.d_ff, true);
      layer.mlp.down = b.linear(p + "mlp.fc2", c_.d_ff, D, true);
      layers_.push_back(layer);
    }
    final_norm_ = b.norm("final_layernorm", D, float(c_.norm_eps));
    bind_lm_head(b, tokens_);
    lm_head_.bias = b.need_head("lm_head.bias", {c_.vocab});  // nn.Linear(hidden_size, vocab_size, bias=True)
  }
};

}  // namespace

std::unique_ptr<Network> bind_phi(Binder& binder) { return std::make_unique<Phi>(binder); }

}  // namespace mha::models
