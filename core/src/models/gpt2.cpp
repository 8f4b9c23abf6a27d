// GPT-2 (gpt2, distilgpt2, DialoGPT) as transformers' modeling_gpt2.py computes it: pre-LayerNorm
// blocks, Conv1D weights stored [in, out] (c_attn holds q‖k‖v), gelu_new, the causal mask at
// finfo(float32).min, a final ln_f, and the LM head tied to wte (or lm_head.weight when untied).
#include "models/network.hpp"

namespace mha::models {

namespace {

class Gpt2 final : public LearnedPositions {
 public:
  explicit Gpt2(Binder& b) : LearnedPositions(b, "wte.weight", "wpe.weight") {
    const std::size_t D = c_.d_model;
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "h." + std::to_string(l) + ".";
      blocks::Layer layer = layer_of(b, p + "ln_1", p + "ln_2");
      layer.attn.qkv = b.linear(p + "attn.c_attn", D, 3 * D, true, true);
      layer.attn.o = b.linear(p + "attn.c_proj", D, D, true, true);
      layer.attn.scale = c_.scale_attention;
      layer.mlp.up = b.linear(p + "mlp.c_fc", D, c_.d_ff, true, true);
      layer.mlp.down = b.linear(p + "mlp.c_proj", c_.d_ff, D, true, true);
      layers_.push_back(layer);
    }
    bind_readout(b, "ln_f");
  }
};

}  // namespace

std::unique_ptr<Network> bind_gpt2(Binder& binder) { return std::make_unique<Gpt2>(binder); }

}  // namespace mha::models
