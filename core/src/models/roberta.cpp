// RoBERTa and XLM-RoBERTa (roberta-base, xlm-roberta-base, ...) as transformers' modeling_roberta.py and
// modeling_xlm_roberta.py compute them: BERT's encoder (bert.cpp) under the roberta. prefix, position ids counted from
// padding_idx + 1 (create_position_ids_from_input_ids), and the MLM head lm_head.* (dense, exact GELU whatever
// hidden_act says, layer_norm, decoder tied to the word embeddings, plus its bias).
#include "models/network.hpp"

namespace mha::models {

std::unique_ptr<Network> bind_roberta(Binder& binder) {
  return bind_bert_encoder(binder,
                           {{"lm_head.dense", "lm_head.layer_norm", "lm_head.decoder", "lm_head.bias"}, true, true});
}

}  // namespace mha::models
