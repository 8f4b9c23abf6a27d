// Llama-style models (SmolLM2, TinyLlama; Mistral; Qwen2 and Qwen2.5 with q/k/v biases; Qwen3 with q_norm / k_norm;
// SmolLM3 with its layers without rotary embeddings) as transformers' modeling_llama.py, modeling_mistral.py,
// modeling_qwen2.py, modeling_qwen3.py and modeling_smollm3.py compute them: RMSNorm
// (float32 variance), rotary embeddings as rotate_half with the config's rope_theta, grouped-query attention
// (repeat_kv), each layer's sliding window if any (query i sees keys i - sliding_window < j <= i), the SwiGLU MLP, a
// final norm, and the LM head tied to embed_tokens or its own lm_head.weight. Gemma (gemma.cpp) is this decoder with
// its own norms and embedding scale, Gemma 2 with its sandwich norms, scaling and soft caps too, Gemma 3 with (1 + w)
// query and key norms and a rope base for its sliding layers and one for its full ones.
#include <cmath>

#include "models/network.hpp"

namespace mha::models {

namespace {

class Llama final : public TokenEmbeddings {
 public:
  Llama(Binder& b, const LlamaVariant& v) : TokenEmbeddings(b, "embed_tokens.weight") {
    const std::size_t D = c_.d_model, hd = c_.head_dim, Dq = c_.heads * hd, Dkv = c_.kv_heads * hd;
    const float eps = float(c_.norm_eps);
    const bool o_bias = c_.model_type != "qwen2" && c_.attention_bias;  // Qwen2's o_proj has none
    const blocks::NormKind rms = v.norm;
    if (v.scale_embeddings) embed_scale_ = float(std::sqrt(double(D)));  // torch.tensor(hidden_size**0.5)
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "layers." + std::to_string(l) + ".";
      blocks::Layer layer = layer_of(b, p + "input_layernorm",
                                     p + (v.sandwich ? "pre_feedforward_layernorm" : "post_attention_layernorm"), rms);
      if (v.sandwich) {
        layer.post_attn = b.norm(p + "post_attention_layernorm", D, eps, rms);
        layer.post_mlp = b.norm(p + "post_feedforward_layernorm", D, eps, rms);
      }
      layer.attn.scaling = c_.query_pre_attn_scalar > 0 ? float(1.0 / std::sqrt(c_.query_pre_attn_scalar)) : 0.0f;
      layer.attn.softcap = float(c_.attn_softcap);
      layer.attn.rotary_dim = !c_.no_rope.empty() && c_.no_rope.at(l) ? 0 : hd;
      const bool local = c_.windows.at(l) && c_.rope_local_theta > 0.0;  // Gemma 3: a base for each kind of layer
      layer.attn.rope_theta = local ? c_.rope_local_theta : c_.rope_theta;
      layer.attn.rope_factor = local ? 1.0 : c_.rope_factor;
      layer.attn.window = c_.windows.at(l);
      layer.attn.q = b.linear(p + "self_attn.q_proj", D, Dq, c_.attention_bias);
      layer.attn.k = b.linear(p + "self_attn.k_proj", D, Dkv, c_.attention_bias);
      layer.attn.v = b.linear(p + "self_attn.v_proj", D, Dkv, c_.attention_bias);
      layer.attn.o = b.linear(p + "self_attn.o_proj", Dq, D, o_bias);
      if (c_.model_type == "qwen3" || c_.model_type == "gemma3_text") {  // q_norm / k_norm over each head's features
        layer.attn.q_norm = b.norm(p + "self_attn.q_norm", hd, eps, rms);
        layer.attn.k_norm = b.norm(p + "self_attn.k_norm", hd, eps, rms);
      }
      layer.mlp.gate = b.linear(p + "mlp.gate_proj", D, c_.d_ff, c_.mlp_bias);
      layer.mlp.up = b.linear(p + "mlp.up_proj", D, c_.d_ff, c_.mlp_bias);
      layer.mlp.down = b.linear(p + "mlp.down_proj", c_.d_ff, D, c_.mlp_bias);
      layers_.push_back(layer);
    }
    final_norm_ = b.norm("norm", D, eps, rms);
    bind_lm_head(b, tokens_);
  }
};

}  // namespace

std::unique_ptr<Network> bind_llama_decoder(Binder& binder, const LlamaVariant& variant) {
  return std::make_unique<Llama>(binder, variant);
}

std::unique_ptr<Network> bind_llama(Binder& binder) { return bind_llama_decoder(binder, {}); }

}  // namespace mha::models
