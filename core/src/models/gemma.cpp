// Gemma (gemma-2b, gemma-7b, CodeGemma) as transformers' modeling_gemma.py computes it: Llama's decoder (llama.cpp)
// with GemmaRMSNorm, (1 + weight) times the normed features in float32, the token embeddings times
// float32(√hidden_size), the MLP's gate through hidden_act (gelu_pytorch_tanh: GeGLU), head_dim apart from hidden_size
// / heads, and the LM head tied to embed_tokens. Gemma 2 (gemma-2-2b, modeling_gemma2.py): the same with four norms a
// layer (the sandwich), scores times query_pre_attn_scalar^-0.5 and soft-capped (attn_logit_softcapping), the even
// layers sliding (config.cpp), the logits soft-capped (final_logit_softcapping, Stack::logits). Gemma 3's text models
// (gemma-3-270m, gemma-3-1b; modeling_gemma3.py): Gemma 2's layer with q_norm / k_norm as (1 + w) RMSNorms, no caps
// by default, every sixth layer full, and the sliding layers' own rope base (rope_parameters.sliding_attention).
#include "models/network.hpp"

namespace mha::models {

std::unique_ptr<Network> bind_gemma(Binder& binder) {
  return bind_llama_decoder(binder, {blocks::NormKind::RmsPlusOne, true, binder.config().model_type != "gemma"});
}

}  // namespace mha::models
