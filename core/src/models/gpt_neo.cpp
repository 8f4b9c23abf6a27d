// GPT-Neo (TinyStories-1M … 33M, gpt-neo-125m) as transformers' modeling_gpt_neo.py computes it: GPT-2's pre-LayerNorm
// block with nn.Linear q/k/v (no biases) and out_proj, scores not divided by √head_dim, and each layer global or
// local as attention_types says (a local layer's query i sees keys i - window_size < j <= i, the rest at
// finfo(float32).min), a final ln_f and the LM head tied to wte.
#include "models/network.hpp"

namespace mha::models {

namespace {

class GptNeo final : public LearnedPositions {
 public:
  explicit GptNeo(Binder& b) : LearnedPositions(b, "wte.weight", "wpe.weight") {
    const std::size_t D = c_.d_model;
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "h." + std::to_string(l) + ".", a = p + "attn.attention.";
      blocks::Layer layer = layer_of(b, p + "ln_1", p + "ln_2");
      layer.attn.q = b.linear(a + "q_proj", D, D, false);
      layer.attn.k = b.linear(a + "k_proj", D, D, false);
      layer.attn.v = b.linear(a + "v_proj", D, D, false);
      layer.attn.o = b.linear(a + "out_proj", D, D, true);
      layer.attn.scale = false;
      layer.attn.window = c_.windows.at(l);
      layer.mlp.up = b.linear(p + "mlp.c_fc", D, c_.d_ff, true);
      layer.mlp.down = b.linear(p + "mlp.c_proj", c_.d_ff, D, true);
      layers_.push_back(layer);
    }
    bind_readout(b, "ln_f");
  }
};

}  // namespace

std::unique_ptr<Network> bind_gpt_neo(Binder& binder) { return std::make_unique<GptNeo>(binder); }

}  // namespace mha::models
