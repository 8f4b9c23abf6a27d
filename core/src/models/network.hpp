// What the model families (gpt2.cpp, bert.cpp, distilbert.cpp, llama.cpp) share: the Binder that
// finds their tensors in a checkpoint by name and checks their shapes, and the Network interface
// Model drives.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blocks/blocks.hpp"
#include "mha/models.hpp"

namespace mha::models {

// A family's tensors by canonical name: body names ("h.0.attn.c_attn.weight") are looked up with
// and without the family's prefix ("transformer."), head names ("lm_head.weight", "cls.*") as
// they are; ".gamma" / ".beta" stand for ".weight" / ".bias" (old LayerNorm names, which
// transformers renames on load). Without weights (names only) every lookup succeeds with a
// placeholder and records the name: model_reads_tensor runs a family's binding that way.
class Binder {
 public:
  Binder(const CheckpointConfig& config, const Weights* weights, std::string body_prefix);
  // A body tensor that must exist with this shape; throws mha::Error naming it otherwise.
  const WeightRef* need(const std::string& name, const Shape& shape) { return find(name, shape, true, true); }
  // A body tensor that may be absent (nullptr); a present one must have this shape.
  const WeightRef* maybe(const std::string& name, const Shape& shape) { return find(name, shape, true, false); }
  // Head tensors: never prefixed.
  const WeightRef* need_head(const std::string& name, const Shape& shape) { return find(name, shape, false, true); }
  const WeightRef* maybe_head(const std::string& name, const Shape& shape) { return find(name, shape, false, false); }

  // "<name>.weight" [out, in] (+ "<name>.bias" [out] when bias) as nn.Linear, or [in, out] as Conv1D.
  blocks::Linear linear(const std::string& name, std::size_t in, std::size_t out, bool bias, bool conv1d = false);
  // "<name>.weight" and "<name>.bias" [D] (LayerNorm; the bias unless the config's norm_bias is false), or
  // "<name>.weight" alone (RMSNorm).
  blocks::Norm norm(const std::string& name, std::size_t D, float eps, blocks::NormKind kind = blocks::NormKind::Layer);

  // The names looked up so far (body names with the prefix this binder was given).
  const std::vector<std::string>& names() const { return names_; }
  const CheckpointConfig& config() const { return config_; }

 private:
  const WeightRef* find(const std::string& name, const Shape& shape, bool body, bool required);
  const CheckpointConfig& config_;
  const Weights* weights_;
  std::string prefix_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<WeightRef>> placeholders_;
};

// The body prefix a checkpoint uses: `prefix` when it holds prefix + probe, "" when it holds probe,
// else throws naming both.
std::string body_prefix(const Weights& weights, const std::string& prefix, const std::string& probe);

// One family's layers bound to a checkpoint, run a layer at a time (Model::forward keeps each
// layer's input for a later forward to resume from).
class Network {
 public:
  virtual ~Network() = default;
  virtual bool has_head() const = 0;
  // h[T, D] = the input of layer 0: the embeddings (BERT's and DistilBERT's after their LayerNorm).
  virtual void embed(const std::vector<std::int32_t>& ids, float* h) const = 0;
  // Layer l in place on h[T, D]; probs[H, T, T] receives its softmax; edits change the heads' outputs
  // (blocks::HeadEdits).
  virtual void layer(std::size_t l, float* h, std::size_t T, const blocks::HeadEdits& edits, float* probs) const = 0;
  // h[T, D], the last layer's output, becomes last_hidden_state (the final norm of pre-LN models).
  virtual void finish(float* h, std::size_t T) const = 0;
  // logits[P, V] of the head at rows `at` of hidden[T, D] (has_head() only), soft-capped as the model's are (Gemma 2's
  // final_logit_softcapping) unless soft_cap is false (the logit lens: TransformerLens's unembed leaves it out).
  virtual void logits(const float* hidden, const std::vector<std::size_t>& at, float* out, bool soft_cap) const = 0;
  // The forward's steps at T tokens and P logit rows, every layer's tagged with it.
  virtual std::vector<TraceStep> trace(std::size_t T, std::size_t P) const = 0;
};

}  // namespace mha::models

namespace mha {
// The network a Model drives (core/src/analysis/ runs its layers one at a time).
const models::Network& models_network(const Model& model);
}  // namespace mha

namespace mha::models {

// Each family's binding: its layers from the binder (names only when the binder has no weights).
std::unique_ptr<Network> bind_gpt2(Binder& binder);
std::unique_ptr<Network> bind_bert(Binder& binder);
std::unique_ptr<Network> bind_distilbert(Binder& binder);
std::unique_ptr<Network> bind_llama(Binder& binder);
std::unique_ptr<Network> bind_gpt_neox(Binder& binder);
std::unique_ptr<Network> bind_gpt_neo(Binder& binder);
std::unique_ptr<Network> bind_opt(Binder& binder);
std::unique_ptr<Network> bind_phi(Binder& binder);
std::unique_ptr<Network> bind_roberta(Binder& binder);
std::unique_ptr<Network> bind_gemma(Binder& binder);
std::unique_ptr<Network> bind_modernbert(Binder& binder);
// Each family's body prefix ("transformer.", "bert.", "distilbert.", "model.", "gpt_neox.") and its probe: a body
// tensor every checkpoint of it holds, which tells whether a checkpoint's names carry the prefix.
struct FamilyPrefix {
  const char* prefix;
  const char* probe;
};
FamilyPrefix family_prefix(Family family);

// ---- Shared pieces of the families' forwards ---------------------------------------------------

// out[T, D] = rows ids of the embedding table [V, D] (+ out when accumulate).
void embed(const WeightRef& table, const std::vector<std::int32_t>& ids, float* out, bool accumulate);
// out[T, D] += rows start..start+T-1 of a position table [P, D] (absolute position embeddings; OPT's start at 2).
void add_positions(const WeightRef& table, std::size_t T, float* out, std::size_t start = 0);
// rows `at` of x[T, D] as [P, D] (the positions whose logits are asked for).
std::vector<float> gather_rows(const float* x, const std::vector<std::size_t>& at, std::size_t D);

// out[P, V] = head(rows `at` of hidden[T, D]) (the causal models' LM head).
void lm_head_logits(const blocks::Linear& head, const float* hidden, const std::vector<std::size_t>& at, std::size_t D,
                    float* out);
// BERT's and DistilBERT's MLM head: decoder(norm(act(transform(rows)))).
struct MlmHead {
  blocks::Linear transform, decoder;
  blocks::Activation act = blocks::Activation::GeluErf;
  blocks::Norm norm;
};
void mlm_head_logits(const MlmHead& head, const float* hidden, const std::vector<std::size_t>& at, std::size_t D,
                     float* out);
// A network of blocks::Layer: what every family shares. A family's constructor binds layers_, the
// norms it has and one head; its embed() is its own (BERT's and DistilBERT's apply embed_norm_).
class Stack : public Network {
 public:
  // An MLM head's tensor names: decoder(norm(act(transform(h)))) + bias, where the bias is `bias` or
  // `decoder`.bias (one tensor in transformers, files keep either); absent when `transform`.weight is.
  struct MlmNames {
    const char *transform, *norm, *decoder, *bias;
  };
  explicit Stack(const CheckpointConfig& config) : c_(config) {}
  bool has_head() const override { return lm_head_.weight || mlm_.decoder.weight; }
  void layer(std::size_t l, float* h, std::size_t T, const blocks::HeadEdits& edits, float* probs) const override;
  void finish(float* h, std::size_t T) const override;  // final_norm_ when the family has one
  // What core/src/analysis/ runs a layer at a time, its activations kept.
  const std::vector<blocks::Layer>& layers() const { return layers_; }
  const blocks::Norm& final_norm() const { return final_norm_; }
  const blocks::Linear& lm_head() const { return lm_head_; }
  void logits(const float* hidden, const std::vector<std::size_t>& at, float* out, bool soft_cap) const override;
  // tokens, embedding, embed_norm_'s norm, each layer's steps, final_norm_'s norm, the readout.
  std::vector<TraceStep> trace(std::size_t T, std::size_t P) const override;

 protected:
  // The causal LM head: the embeddings when tie_word_embeddings, else lm_head.weight [V, D].
  void bind_lm_head(Binder& b, const WeightRef* embeddings);
  void bind_mlm_head(Binder& b, const MlmNames& names, const WeightRef* embeddings, blocks::Activation act, float eps);
  // An encoder layer with separate q, k, v (all with biases), LayerNorms and a two-matrix MLP, under
  // `prefix`: the tensor names of each piece, in Layer's order.
  struct EncoderNames {
    const char *q, *k, *v, *o, *norm_1, *up, *down, *norm_2;
  };
  blocks::Layer encoder_layer(Binder& b, const std::string& prefix, const EncoderNames& names, float eps) const;
  // A layer's fields every family sets alike: norm_1 and norm_2 under these names (of this kind, the config's eps;
  // none where ""), heads, key/value heads and head_dim, causal as the config says, the MLP's activation.
  blocks::Layer layer_of(Binder& b, const std::string& norm_1, const std::string& norm_2,
                         blocks::NormKind kind = blocks::NormKind::Layer) const;

  CheckpointConfig c_;
  std::vector<blocks::Layer> layers_;
  blocks::Norm embed_norm_, final_norm_;  // absent (weight nullptr) in families without them
  blocks::Linear lm_head_;                // the causal LM head, or
  MlmHead mlm_;                           // the MLM head (decoder.weight nullptr: none)
};

// A causal stack whose embedding adds learned absolute positions (GPT-2, GPT-Neo, OPT): h = tokens[ids] +
// positions[offset .. offset + T), and whose readout is a final LayerNorm and the LM head tied to the tokens' table
// (lm_head.weight when untied). A family's constructor binds its layers between the two calls below.
class LearnedPositions : public Stack {
 public:
  void embed(const std::vector<std::int32_t>& ids, float* h) const override;

 protected:
  // tokens [V, D] and positions [max_positions + offset, D] under these names.
  LearnedPositions(Binder& b, const std::string& tokens, const std::string& positions, std::size_t offset = 0);
  // The final LayerNorm `final_norm` (none when nullptr) and the LM head.
  void bind_readout(Binder& b, const char* final_norm);

 private:
  const WeightRef* tokens_ = nullptr;
  const WeightRef* positions_ = nullptr;
  std::size_t offset_ = 0;
};

// A stack whose embedding is the token table alone, `name` [V, D] (Llama, GPT-NeoX, Phi: positions in the attention),
// then embed_norm_ where the family binds one (ModernBERT).
class TokenEmbeddings : public Stack {
 public:
  void embed(const std::vector<std::int32_t>& ids, float* h) const override;

 protected:
  TokenEmbeddings(Binder& b, const std::string& name);
  const WeightRef* tokens_ = nullptr;
  float embed_scale_ = 1.0f;  // Gemma: the rows times float32(√D) (GemmaTextScaledWordEmbedding)
};

// x[n] += y[n] (residual connections).
void add_into(float* x, const float* y, std::size_t n);
// Trace steps: tokens [1, T] and embedding [1, T, D] (the start of every model's trace); a step
// of the residual stream's shape [1, T, D] tagged with a layer; the head's logits [P, V].
std::vector<TraceStep> trace_start(std::size_t T, std::size_t D);
TraceStep stream_step(const char* op, std::size_t T, std::size_t D, int layer = -1);
TraceStep readout_step(std::size_t P, std::size_t V);

// BERT's encoder (bert.cpp) under the names and with the positions a family gives it (BERT, RoBERTa).
struct BertVariant {
  Stack::MlmNames head;        // the MLM head's tensors
  bool head_gelu = false;      // the head's activation: exact GELU (RobertaLMHead), else the config's hidden_act
  bool after_padding = false;  // position ids as RoBERTa counts them (CheckpointConfig::padding_idx)
};
std::unique_ptr<Network> bind_bert_encoder(Binder& binder, const BertVariant& variant);

// Llama's decoder (llama.cpp) with the norms and the embedding a family gives it (Llama, Gemma).
struct LlamaVariant {
  blocks::NormKind norm = blocks::NormKind::Rms;  // Gemma: RmsPlusOne
  bool scale_embeddings = false;                  // Gemma: the token rows times float32(√hidden_size)
  bool sandwich = false;  // Gemma 2: pre_feedforward_layernorm before the MLP, post_attention_layernorm and
                          // post_feedforward_layernorm on the sublayers' outputs
};
std::unique_ptr<Network> bind_llama_decoder(Binder& binder, const LlamaVariant& variant);

}  // namespace mha::models
