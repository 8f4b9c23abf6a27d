// Gemma (gemma-2b, gemma-7b, CodeGemma) as transformers' modeling_gemma.py computes it: Llama's decoder (llama.cpp)
// with GemmaRMSNorm, (1 + weight) times the normed features in float32, the token embeddings times
// float32(√hidden_size), the MLP's gate through hidden_act (gelu_pytorch_tanh: GeGLU), head_dim apart from hidden_size
// / heads, and the LM head tied to embed_tokens.
#include "models/network.hpp"

namespace mha::models {

std::unique_ptr<Network> bind_gemma(Binder& binder) {
  return bind_llama_decoder(binder, {blocks::NormKind::RmsPlusOne, true});
}

}  // namespace mha::models
