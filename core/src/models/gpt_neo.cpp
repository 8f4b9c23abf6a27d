// GPT-Neo (TinyStories-1M … 33M, gpt-neo-125m) as transformers' modeling_gpt_neo.py computes it: GPT-2's pre-LayerNorm
// block with nn.Linear q/k/v (no biases) and out_proj, scores not divided by √head_dim, and each layer global or
// local as attention_types says (a local layer's query i sees keys i - window_size < j <= i, the rest at
// finfo(float32).min), a final ln_f and the LM head tied to wte.
#include "models/network.hpp"

namespace mha::models {

namespace {

class GptNeo final : public Stack {
 public:
  explicit GptNeo(Binder& b) : Stack(b.config()) {
    const std::size_t D = c_.d_model;
    const float eps = float(c_.norm_eps);
    wte_ = b.need("wte.weight", {c_.vocab, D});
    wpe_ = b.need("wpe.weight", {c_.max_positions, D});
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "h." + std::to_string(l) + ".";
      blocks::Layer layer;
      layer.norm_1 = b.norm(p + "ln_1", D, eps);
      layer.norm_2 = b.norm(p + "ln_2", D, eps);
      layer.attn.heads = layer.attn.kv_heads = c_.heads;
      layer.attn.head_dim = c_.head_dim;
      layer.attn.q = b.linear(p + "attn.attention.q_proj", D, D, false);
      layer.attn.k = b.linear(p + "attn.attention.k_proj", D, D, false);
      layer.attn.v = b.linear(p + "attn.attention.v_proj", D, D, false);
      layer.attn.o = b.linear(p + "attn.attention.out_proj", D, D, true);
      layer.attn.causal = true;
      layer.attn.scale = false;
      layer.attn.window = c_.windows.at(l);
      layer.mlp.up = b.linear(p + "mlp.c_fc", D, c_.d_ff, true);
      layer.mlp.down = b.linear(p + "mlp.c_proj", c_.d_ff, D, true);
      layer.mlp.act = blocks::activation_from_name(c_.activation);
      layers_.push_back(layer);
    }
    final_norm_ = b.norm("ln_f", D, eps);
    bind_lm_head(b, wte_);
  }

  void embed(const std::vector<std::int32_t>& ids, float* h) const override {
    models::embed(*wte_, ids, h, false);  // h[T, D] = wte[ids] + wpe[0..T)
    add_positions(*wpe_, ids.size(), h);
  }

 private:
  const WeightRef* wte_ = nullptr;
  const WeightRef* wpe_ = nullptr;
};

}  // namespace

std::unique_ptr<Network> bind_gpt_neo(Binder& binder) { return std::make_unique<GptNeo>(binder); }

}  // namespace mha::models
