// Scaled dot-product attention and the lessons' MultiHeadAttention module.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mha/kernels.hpp"
#include "mha/module.hpp"
#include "mha/random.hpp"
#include "mha/tensor.hpp"
#include "mha/trace.hpp"

namespace mha {

// How `AttentionOptions::mask` is read. Every convention of the lessons and of PyTorch:
enum class MaskMode {
  Keep,      // scores.masked_fill(mask == 0, fill): 1 keeps, 0 blocks (lessons 000, 002, 004)
  Block,     // scores.masked_fill(mask == 1, fill): 1 blocks (lesson 003's triu)
  Bool,      // nn.MultiheadAttention's bool attn_mask: nonzero (True) blocks
  Additive,  // nn.MultiheadAttention's float attn_mask: scores + mask
};

struct AttentionOptions {
  // Broadcastable to [B, H, Sq, Skv]: [Sq, Skv], [1, 1, Sq, Skv], [B, 1, Sq, Skv], [B, H, Sq, Skv].
  std::optional<Tensor> mask;
  MaskMode mask_mode = MaskMode::Keep;
  // The value blocked scores are replaced with: -inf (lessons 000, 003) or -1e9 (lessons 002, 004).
  float fill = -__builtin_inff();
  bool causal = false;  // query i sees keys j <= i (top-left aligned, as torch's is_causal)
  // [B, Skv], nonzero = padding (blocked), as nn.MultiheadAttention's key_padding_mask.
  std::optional<Tensor> key_padding_mask;
  bool need_weights = true;  // false: the fused path, no [B, H, Sq, Skv] matrix is formed
};

struct AttentionResult {
  Tensor output;   // [..., Sq, dv]
  Tensor weights;  // [..., Sq, Skv]; empty when need_weights is false
  // Query rows whose every key was blocked. With fill = -inf their weights are NaN (as in
  // PyTorch); with a finite fill they are uniform. Reported, never silently changed.
  std::size_t fully_masked_rows = 0;
};

// softmax(q kᵀ / sqrt(dk) masked) [dropout] v for q [..., Sq, dk], k [..., Skv, dk], v [..., Skv, dv]
// (batch dimensions broadcast). Dropout on the weights when dropout > 0 and generator != nullptr.
AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const AttentionOptions& options, double dropout = 0.0,
                                             Generator* generator = nullptr);

// Lesson 002's helpers: t.view(B, S, H, d_k).transpose(1, 2) and its inverse
// t.transpose(1, 2).contiguous().view(B, S, H * d_k). Views, as in PyTorch.
Tensor split_heads(const Tensor& t, std::size_t num_heads);  // [B, S, D] → [B, H, S, d_k]
Tensor merge_heads(const Tensor& t);                         // [B, H, S, d_k] → [B, S, D]

// The shape trace of one forward pass at (B, Sq, D, H), Skv keys; computed with the same Layout
// operations (view/transpose) the module applies to its tensors.
std::vector<TraceStep> shape_trace(std::size_t batch, std::size_t seq_len, std::size_t d_model, std::size_t num_heads,
                                   std::size_t kv_len = 0);

struct MhaConfig {
  std::size_t d_model = 0;
  std::size_t num_heads = 0;
  bool bias = true;
  double dropout = 0.0;  // on the attention weights, in training mode
};

// The shape table of a forward is shape_trace(B, Sq, D, H, Skv): the same layouts, formed on
// demand rather than on every call.
struct ForwardResult {
  Tensor output;   // [B, Sq, D]
  Tensor weights;  // [B, H, Sq, Skv] (empty when need_weights is false)
  std::size_t fully_masked_rows = 0;
};

// What a training forward keeps for backward (an eval forward keeps none of it).
struct MhaActivations {
  Tensor query, key, value;  // the inputs, contiguous [B, Sq, D], [B, Skv, D] (shared when the same)
  Tensor Q, K, V;            // projections [B, S, D]; head h is columns [h·d_k, (h+1)·d_k)
  Tensor probs;              // softmax output [B, H, Sq, Skv], before dropout
  Tensor noise;              // dropout's 0 or 1/(1-p) per weight, [B, H, Sq, Skv]; empty without dropout
  Tensor merged;             // [B, Sq, D], the heads concatenated (ablated heads zeroed): W_o's input
  AttentionOptions options;
};

// Gradients of the loss with respect to the three inputs; for self-attention (one tensor passed
// as query, key and value) the input's gradient is dquery + dkey + dvalue.
struct MhaInputGrads {
  Tensor dquery, dkey, dvalue;
};

// The lessons' MultiHeadAttention(d_model, num_heads). The generator draws W_q, W_k, W_v, W_o
// as four nn.Linear in that order, and later the dropout masks (as torch's global generator).
// Parameters (state_dict order): W_q.weight, W_q.bias, W_k.weight, …, W_o.bias.
class MultiHeadAttention : public Module {
 public:
  MultiHeadAttention(const MhaConfig& config, std::shared_ptr<Generator> generator);

  // q [B, Sq, D], k and v [B, Skv, D]. With `keep`, a training forward: it also fills what
  // backward needs (and always forms the weights).
  ForwardResult forward(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options,
                        MhaActivations* keep = nullptr) const;
  // The part of an eval forward (no dropout) that heads [h0, h1) compute, so that several workers can share
  // one forward: Q, K, V projected for those heads only, their attention, and their term of W_o's sum,
  // output = merged[..., h0·d_k : h1·d_k] · W_o.weight[:, h0·d_k : h1·d_k]ᵀ (+ W_o's bias when h0 == 0);
  // weights [B, h1 − h0, Sq, Skv], the same values as forward()'s heads h0…h1−1. The outputs of the parts
  // of a partition of the heads sum to forward()'s output within float32 rounding (W_o's sum over d_model
  // is split into the parts' sums). A mask with one entry per head is sliced to the part's heads.
  ForwardResult forward_heads(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options,
                              std::size_t h0, std::size_t h1) const;
  // Backward of that forward for dout [B, Sq, D]: accumulates every parameter's gradient and
  // returns the inputs' gradients.
  MhaInputGrads backward(const MhaActivations& acts, const Tensor& dout);
  // The loop-over-heads implementation of lesson 002, built from plain tensor ops, for comparison.
  Tensor forward_loop(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) const;

  void train(bool on = true) { training_ = on; }
  void eval() { training_ = false; }
  bool training() const { return training_; }
  const MhaConfig& config() const { return config_; }
  std::size_t d_k() const { return config_.d_model / config_.num_heads; }
  // Ablation: the head's output is zeroed before W_o (forward and backward) while on.
  void ablate(std::size_t head, bool on);
  bool ablated(std::size_t head) const { return head < ablated_.size() && ablated_[head]; }
  // The generator dropout draws from (the one the weights came from).
  Generator& generator() const { return *generator_; }

  Linear W_q, W_k, W_v, W_o;

 private:
  void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v) const;
  void parameters_changed() override;
  MhaConfig config_;
  std::shared_ptr<Generator> generator_;
  std::vector<bool> ablated_;
  bool training_ = true;  // nn.Module starts in training mode
};

// The largest d_model a module accepts (check_heads); published to JS by protocol().
constexpr std::size_t kMaxDModel = 4096;
// Throws the student-facing message unless d_model and num_heads make a valid module.
void check_heads(std::size_t d_model, std::size_t num_heads);

}  // namespace mha
