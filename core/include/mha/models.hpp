// Real checkpoints: GPT-2, BERT, DistilBERT and Llama-style (Llama, Qwen2) models computed as
// transformers' eager attention computes them (its modeling_*.py files are the specification).
//
// Usage:
//
//   #include "mha/models.hpp"
//
//   mha::ModelConfig config = mha::parse_model_config(config_json_text);   // config.json
//   std::shared_ptr<const mha::Weights> weights = /* the loading floor: model.safetensors */;
//   mha::Model model(config, weights);                 // checks every tensor's name and shape
//   mha::ModelOutput out = model.forward({15496, 995}, {});
//   // out.attentions [L, 1, H, T, T], out.hidden [1, T, D], out.logits [1, V] (the last position)
//
// This header is the contract between the model families (core/src/models/) and the loading
// floor and bindings: extend it, keep what is here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mha/attention.hpp"
#include "mha/tensor.hpp"
#include "mha/weights.hpp"

namespace mha {

enum class Family : std::uint8_t { GPT2, BERT, DistilBERT, Llama, COUNT };  // Qwen2 is Llama with q/k/v biases
const char* family_name(Family family);

// What config.json says, checked: an unsupported model_type or option (ALiBi, sliding windows,
// scale_attn_by_inverse_layer_idx, rope scaling, ...) throws mha::Error naming it and listing what
// is supported.
struct ModelConfig {
  Family family = Family::GPT2;
  std::string model_type;        // as config.json names it: "gpt2", "bert", "distilbert", "llama", "qwen2"
  std::size_t layers = 0, heads = 0, kv_heads = 0, d_model = 0, head_dim = 0, d_ff = 0;
  std::size_t vocab = 0, max_positions = 0, type_vocab = 0;
  double norm_eps = 0.0, rope_theta = 0.0;
  std::string activation;        // "gelu_new", "gelu", "silu", ...
  bool causal = false;
  bool tie_word_embeddings = true;
  bool attention_bias = false;   // Qwen2's q/k/v biases (Llama's attention_bias: o_proj's too)
  bool mlp_bias = false;         // Llama's mlp_bias
  bool scale_attention = true;   // GPT-2's scale_attn_weights: scores / sqrt(head_dim)
};
ModelConfig parse_model_config(const std::string& config_json);

// Whether the model built from `config` reads the tensor `name` (any accepted prefix): the
// loader copies only those, and ignores the others (GPT-2's attn.bias buffers, position_ids, ...).
bool model_reads_tensor(const ModelConfig& config, const std::string& name);

struct HeadRef {
  std::size_t layer = 0, head = 0;
};

struct ModelForwardOptions {
  std::vector<HeadRef> heads_off;     // zeroed before the output projection, as the lab's ablation
  std::vector<std::size_t> logits_at; // positions; empty: the last (causal) or none (encoders)
};

struct ModelOutput {
  Tensor attentions;                  // [L, 1, H, T, T], after softmax
  Tensor hidden;                      // [1, T, D]: transformers' last_hidden_state
  Tensor logits;                      // [P, V] at logits_at (P = 0 without an LM/MLM head)
  std::vector<std::size_t> logits_at;
  std::vector<TraceStep> trace;       // every layer's steps, tagged with the layer
};

class Model {
 public:
  // Throws mha::Error naming the tensor when one is missing or its shape disagrees with the config.
  Model(ModelConfig config, std::shared_ptr<const Weights> weights);
  ~Model();
  const ModelConfig& config() const;
  bool has_lm_head() const;           // causal LM head, or BERT/DistilBERT's MLM head
  // ids: each < vocab, 1 <= T <= max_positions, else mha::Error.
  ModelOutput forward(const std::vector<std::int32_t>& ids, const ModelForwardOptions& options) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mha
