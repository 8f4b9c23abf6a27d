// GPT-2 (gpt2, distilgpt2, DialoGPT) as transformers' modeling_gpt2.py computes it: pre-LayerNorm
// blocks, Conv1D weights stored [in, out] (c_attn holds q‖k‖v), gelu_new, the causal mask at
// finfo(float32).min, a final ln_f, and the LM head tied to wte (or lm_head.weight when untied).
#include "models/network.hpp"

namespace mha::models {

namespace {

class Gpt2 final : public Stack {
 public:
  explicit Gpt2(Binder& b) : Stack(b.config()) {
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
      layer.attn.qkv = b.linear(p + "attn.c_attn", D, 3 * D, true, true);
      layer.attn.o = b.linear(p + "attn.c_proj", D, D, true, true);
      layer.attn.causal = true;
      layer.attn.scale = c_.scale_attention;
      layer.mlp.up = b.linear(p + "mlp.c_fc", D, c_.d_ff, true, true);
      layer.mlp.down = b.linear(p + "mlp.c_proj", c_.d_ff, D, true, true);
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

std::unique_ptr<Network> bind_gpt2(Binder& binder) { return std::make_unique<Gpt2>(binder); }

}  // namespace mha::models
