// Real checkpoints: GPT-2, BERT, DistilBERT, Llama-style (Llama, Qwen2, Qwen3, Mistral, SmolLM3), GPT-NeoX (Pythia),
// GPT-Neo (TinyStories), OPT, Phi, RoBERTa, Gemma (1, 2, 3) and ModernBERT models computed as transformers' eager
// attention computes them (its modeling_*.py files are the specification).
//
// Usage:
//
//   #include "mha/models.hpp"
//
//   mha::CheckpointConfig config = mha::parse_checkpoint_config(config_json_text);   // config.json
//   std::shared_ptr<const mha::Weights> weights = /* the loading floor: model.safetensors */;
//   mha::Model model(config, weights);                 // checks every tensor's name and shape
//   mha::ModelOutput out = model.forward({15496, 995}, {});
//   // out.attentions [L, 1, H, T, T], out.hidden [1, T, D], out.logits [1, V] (the last position)
//   mha::ModelForwardOptions ablate;
//   ablate.heads_off = {{11, 3}};
//   ablate.attentions = false;                          // only the logits: resume from the cache
//   mha::ModelOutput off = model.forward({15496, 995}, ablate);  // computes layers 11.. only
//   mha::Tensor layer3 = model.attention({15496, 995}, 3);     // [1, H, T, T]: one layer, from the cache
//   mha::ModelForwardOptions writes;
//   writes.writes = true;                               // out.writes [L, H, T]: ‖v_j·W_O^h‖ for the norm view
//   mha::ModelForwardOptions grid;
//   grid.attentions = false;
//   grid.thumbnail = 64;                                // out.thumbnails [L, H, 64, 64]: max-pooled maps
//
// The activations cache: a Model keeps, for the ids of its last forward, the full model's (no head
// off) hidden state entering each layer and leaving the last, (L + 1)·T·D floats (GPT-2 small at
// 1024 tokens: 13 · 1024 · 768 floats, 41 MB). Layers below the lowest head switched off compute
// what the full model computes, so a forward without attentions whose heads off all sit in layers
// >= l starts at layer l from the cache, bit-identical to a forward from the embeddings. Every
// forward fills what it computed of the full model; other ids replace the cache; it dies with the
// Model. Hence forward is not const, and one Model runs one forward at a time.
//
// This header is the contract between the model families (core/src/models/) and the loading
// floor and bindings: extend it, keep what is here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mha/tensor.hpp"
#include "mha/trace.hpp"
#include "mha/weights.hpp"

namespace mha {

namespace models {
class Network;
}

// Qwen2 is Llama with q/k/v biases; GPTNeoX: Pythia (model_type "gpt_neox"); GPTNeo: TinyStories ("gpt_neo");
// Phi: phi-1_5, phi-2 ("phi"); SmolLM3 ("smollm3") is Llama with layers without rotary embeddings; RoBERTa:
// roberta-base, xlm-roberta-base ("roberta", "xlm-roberta"), BERT with positions after padding_idx and lm_head;
// Gemma: gemma-2b, gemma-7b ("gemma"), Llama with (1 + w) RMSNorm, scaled embeddings and GeGLU; Gemma 2 ("gemma2")
// with sandwich norms, soft caps and alternating sliding layers; Gemma 3's text models ("gemma3_text": gemma-3-270m,
// gemma-3-1b) with Gemma 2's layer, (1 + w) query and key norms and a rope base for each kind of layer; ModernBERT:
// ModernBERT-base, -large ("modernbert"), a pre-norm encoder with rotary embeddings, local layers and GeGLU
enum class Family : std::uint8_t {
  GPT2,
  BERT,
  DistilBERT,
  Llama,
  GPTNeoX,
  GPTNeo,
  OPT,
  Phi,
  RoBERTa,
  Gemma,
  ModernBERT,
  COUNT
};
const char* family_name(Family family);

// What config.json says, checked: an unsupported model_type or option (ALiBi, sliding windows,
// scale_attn_by_inverse_layer_idx, rope scaling, ...) throws mha::Error naming it and listing what
// is supported.
struct CheckpointConfig {
  Family family = Family::GPT2;
  std::string model_type;  // as config.json names it: "gpt2", "bert", "distilbert", "llama", "qwen2", "gpt_neox",
                           // "gpt_neo", "opt", "qwen3", "mistral", "phi", "smollm3", "roberta", "xlm-roberta",
                           // "gemma", "gemma2", "gemma3_text", "modernbert"
  std::size_t layers = 0, heads = 0, kv_heads = 0, d_model = 0, head_dim = 0, d_ff = 0;
  std::size_t vocab = 0, max_positions = 0, type_vocab = 0;  // max_positions: the tokens a forward may hold
  // RoBERTa: positions count from padding_idx + 1 over the tokens that are not padding_idx (those read row
  // padding_idx), so the table holds max_positions + padding_idx + 1 rows; -1: positions from 0
  std::int64_t padding_idx = -1;
  double norm_eps = 0.0, rope_theta = 0.0;
  // Gemma 3 and ModernBERT: the rope base of the sliding layers (rope_parameters.sliding_attention; 0: rope_theta,
  // which is then the full layers'), and the full layers' linear factor (rope_type "linear": inv_freq / factor; 1:
  // none)
  double rope_local_theta = 0.0, rope_factor = 1.0;
  std::string activation;  // "gelu_new", "gelu", "silu", ...
  // ModernBERT: its LayerNorms' biases (norm_bias; every other family's LayerNorms have them), the MLM head's dense
  // bias (classifier_bias), its activation (classifier_activation) and the decoder's bias (decoder_bias)
  bool norm_bias = true, head_bias = true, decoder_bias = true;
  std::string head_activation;
  bool causal = false;
  bool tie_word_embeddings = true;
  bool attention_bias = false;  // Qwen2's q/k/v biases (Llama's attention_bias: o_proj's too)
  bool mlp_bias = false;        // Llama's mlp_bias
  bool scale_attention = true;  // GPT-2's scale_attn_weights: scores / sqrt(head_dim)
  std::size_t rotary_dim = 0;   // rotary features per head (head_dim, or GPT-NeoX's partial rotary); 0: none
  std::vector<bool> no_rope;    // SmolLM3: the layers without rotary embeddings (no_rope_layers[l] == 0); empty: none
  bool parallel_residual = false;  // GPT-NeoX's use_parallel_residual: h + attn(ln_1(h)) + mlp(ln_2(h))
  bool post_norm = false;          // OPT's do_layer_norm_before false: norms after the residual adds
  // Gemma 2: scores times query_pre_attn_scalar^-0.5 (0: 1 / sqrt(head_dim)), then tanh(s / c) · c with
  // c = attn_softcap, and the logits with c = final_softcap (0: no cap)
  double query_pre_attn_scalar = 0.0, attn_softcap = 0.0, final_softcap = 0.0;
  // Each layer's window: query i sees keys j with i - window < j <= i (GPT-Neo's local layers), or in an encoder
  // |i - j| < window (ModernBERT's local layers: window = local_attention / 2 + 1); 0: every key
  std::vector<std::size_t> windows;
};
CheckpointConfig parse_checkpoint_config(const std::string& config_json);

// Whether the model built from `config` reads the tensor `name` (any accepted prefix): the
// loader copies only those, and ignores the others (GPT-2's attn.bias buffers, position_ids, ...).
bool model_reads_tensor(const CheckpointConfig& config, const std::string& name);

struct HeadRef {
  std::size_t layer = 0, head = 0;
};

// How a [T, T] map becomes an s x s thumbnail: cell (a, b) covers rows [a·T/s, (a+1)·T/s) and the same
// columns (integer division, s <= T), and holds their maximum or their mean (a causal map's masked zeros count).
enum class Pool : std::uint8_t { Max, Mean };
constexpr Pool kPools[] = {Pool::Max, Pool::Mean};
const char* pool_name(Pool pool);  // "max", "mean"

// One head's output before the output projection (TransformerLens's hook_z) replaced: z [T, head_dim] (a mean or
// resample ablation: mha/analysis.hpp's ablation_options makes them).
struct HeadValue {
  HeadRef head;
  std::vector<float> z;
};

struct ModelForwardOptions {
  std::vector<HeadRef> heads_off;      // zeroed before the output projection, as the lab's ablation
  std::vector<std::size_t> logits_at;  // positions; empty: the last (causal) or none (encoders)
  // false: no attentions (out.attentions is empty), and the forward may resume from the cache
  // (above); hidden, logits and the trace are those of the whole forward all the same.
  bool attentions = true;
  // > 0: out.thumbnails [L, H, s, s] with s = min(thumbnail, T), every layer's maps pooled as they are computed
  // (the whole [L, 1, H, T, T] never held unless attentions); the forward then starts at the embeddings.
  std::size_t thumbnail = 0;
  Pool pool = Pool::Max;
  std::vector<HeadValue> head_values{};  // replaced before the output projection (a head at most once, not also off)
  std::vector<HeadRef> keep_z{};         // out.z: these heads' outputs as computed (before any replacement)
  bool writes = false;                   // out.writes [L, H, T]: ‖v_j·W_O^h‖, what key j writes through head h
  bool keep_kv = false;                  // out.keys, out.values: every layer's keys (after RoPE) and values
};

struct ModelOutput {
  Tensor attentions;  // [L, 1, H, T, T], after softmax; [0] when options.attentions is false
  Tensor hidden;      // [1, T, D]: transformers' last_hidden_state
  Tensor logits;      // [P, V] at logits_at (P = 0 without an LM/MLM head)
  Tensor thumbnails;  // [L, H, s, s] when options.thumbnail, else [0]
  std::vector<std::size_t> logits_at;
  std::vector<TraceStep> trace;       // every layer's steps, tagged with the layer
  std::vector<std::vector<float>> z;  // [T, head_dim] for each of options.keep_z, in its order
  Tensor writes;                      // [L, H, T] when options.writes (Kobayashi et al. 2020's ‖f(x_j)‖), else [0]
  std::vector<std::vector<float>> keys, values;  // [L][T · kv_heads · head_dim] when options.keep_kv
  std::size_t first_layer = 0;  // the first layer computed: 0, or where it resumed (L: none, only the head)
};

class Model {
 public:
  // Throws mha::Error naming the tensor when one is missing or its shape disagrees with the config.
  Model(CheckpointConfig config, std::shared_ptr<const Weights> weights);
  ~Model();
  const CheckpointConfig& config() const;
  bool has_lm_head() const;  // causal LM head, or BERT/DistilBERT's MLM head
  // The forward's checks of a text (a token at least, the positions, the vocabulary), without the forward.
  void check_ids(const std::vector<std::int32_t>& ids) const;
  // ids: each < vocab, 1 <= T <= max_positions, else mha::Error. Reads and fills the cache (above).
  ModelOutput forward(const std::vector<std::int32_t>& ids, const ModelForwardOptions& options);
  // Layer `layer`'s softmax [1, H, T, T] with heads_off switched off (and head_values put in): the forward's
  // attentions[layer], bit for bit, at any T (one layer's memory). Resumes from the cache (above): one layer's compute
  // when it holds ids' input of min(layer, lowest head off), else the layers up to it, which it then keeps.
  Tensor attention(const std::vector<std::int32_t>& ids, std::size_t layer, const std::vector<HeadRef>& heads_off = {},
                   const std::vector<HeadValue>& head_values = {});

 private:
  friend const models::Network& models_network(const Model& model);  // core/src/analysis/ (internal)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mha
