// What heads do to the answer: generation, the logit lens and activation patching on a real
// checkpoint (mha::Model), as transformers' generate and TransformerLens compute them.
//
// Usage:
//
//   #include "mha/analysis.hpp"
//
//   mha::Model model(config, weights);                            // mha/models.hpp
//   mha::GenerateOptions g;
//   g.max_new_tokens = 20;                                        // greedy: generate(do_sample=False)
//   mha::GenerateResult r = mha::generate(model, {15496, 995}, g); // r.ids: the new tokens
//   g.sample = true;                                              // generate(do_sample=True) after
//   g.sampling = {0.8, 50, 0.95};                                 // temperature, top_k, top_p
//   g.seed = 42;                                                  // torch.manual_seed(42)
//   mha::GenerateResult s = mha::generate(model, {15496, 995}, g); // the same draws as PyTorch's CPU
//   mha::Tensor lens = mha::logit_lens(model, ids);               // [L + 1, T, V]
//   mha::Attribution at = mha::attribute(model, ids, ids.size() - 1, {a, b});  // per head, sum = logit[a] - logit[b]
//   mha::Tensor heads = mha::patch(model, clean, corrupted, {a, b}, mha::PatchKind::Heads);  // [L, H], normalised
//   mha::ModelForwardOptions mean = mha::ablation_options(model, ids, {{9, 6}}, mha::Ablation::Mean);
//   mha::ModelOutput ablated = model.forward(ids, mean);          // head 9.6's output its mean over the positions
//
// Sampling is transformers' (temperature, then top-k, then top-p: generate's order of its warpers,
// on float32 logits) and one draw is torch.multinomial(probs, 1)'s CPU path: argmax(p / q) with q a
// float32 Exp(1) draw per token, -log1p(-u) of 53 bits of random64() (ATen's exponential_, one pass
// over the vocabulary), from the Mersenne Twister of torch.manual_seed (mha/random.hpp). The drawn
// tokens equal PyTorch's as long as the probabilities do: a winner of p / q within float32's
// rounding of the runner-up may differ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "mha/models.hpp"
#include "mha/random.hpp"
#include "mha/tensor.hpp"

namespace mha {

// ---- Sampling ---------------------------------------------------------------------------------

struct SamplingOptions {
  double temperature = 1.0;  // > 0; 1: no TemperatureLogitsWarper
  std::size_t top_k = 0;     // 0: no TopKLogitsWarper
  double top_p = 1.0;        // in (0, 1]; 1: no TopPLogitsWarper
};
// Throws mha::Error naming the option and its range.
void check_sampling(const SamplingOptions& options);
// probs[V] = softmax of the warped scores (temperature -> top-k -> top-p, filtered tokens exactly 0),
// in float32 as transformers computes it on float32 logits.
std::vector<float> filtered_probs(const float* logits, std::size_t V, const SamplingOptions& options);
// One draw of torch.multinomial(probs, 1) on the CPU: V exponentials from gen, argmax(p / q).
std::size_t draw_one(const std::vector<float>& probs, Generator& gen);

// ---- The key/value cache ----------------------------------------------------------------------

// Each layer's keys (after RoPE) and values of the positions ids, [L][T · kv_heads · head_dim] floats each:
// GPT-2 small holds 2 · 12 · 768 floats a position, 72 KiB; 72 MiB at 1024 positions.
struct KvCache {
  std::vector<std::int32_t> ids;
  std::vector<std::vector<float>> keys, values;
  std::size_t bytes() const;
};
// logits[V] at the last of ids. The cache is extended by the positions it lacks when its ids begin ids (a new
// token costs one position's forward), else refilled from the first position. Causal pre-norm models.
std::vector<float> cached_logits(Model& model, KvCache& cache, const std::vector<std::int32_t>& ids);

// ---- Generation -------------------------------------------------------------------------------

struct GenerateOptions {
  std::size_t max_new_tokens = 20;
  bool sample = false;  // false: argmax (greedy)
  SamplingOptions sampling;
  std::uint64_t seed = 0;  // torch.manual_seed(seed) before the first draw (sampling only)
  int eos = -1;            // the end-of-text id (generation stops after it), -1: none
  // Called after each new token with its id and the probabilities it was drawn from (greedy: the
  // softmax of the logits); return false to stop.
  std::function<bool(std::int32_t id, const std::vector<float>& probs)> on_token;
};
struct GenerateResult {
  std::vector<std::int32_t> ids;  // the new tokens
  std::string stopped;            // "length", "eos", "positions" (the model's positions ran out), "stopped"
};
// Causal models only (else mha::Error).
GenerateResult generate(Model& model, const std::vector<std::int32_t>& ids, const GenerateOptions& options);

// The same loop a token at a time (the JS API's generate awaits between tokens): step() returns the
// next id, or -1 once stopped() says why. The model and the options must outlive it.
class Generation {
 public:
  Generation(Model& model, std::vector<std::int32_t> ids, const GenerateOptions& options);
  std::int32_t step();
  std::int32_t stop(const char* why);                         // -1
  const std::vector<float>& probs() const { return probs_; }  // the last token's distribution
  const std::string& stopped() const { return stopped_; }     // "" while going on
  const std::vector<std::int32_t>& ids() const { return seq_; }

 private:
  Model& model_;
  std::vector<std::int32_t> seq_;
  GenerateOptions options_;
  Generator gen_;
  std::vector<float> probs_;
  KvCache cache_;
  std::size_t made_ = 0;
  std::string stopped_;
};

// ---- The logit lens ---------------------------------------------------------------------------

// [L + 1, T, V]: row l the residual stream entering layer l (row L: the last layer's output) through
// the final norm and the LM head: TransformerLens's accumulated_resid(apply_ln=True) @ W_U + b_U, up
// to a constant per row (its unembedding is centred; the softmax is the same). Causal models. Gemma 2's
// final_logit_softcapping is left out, as TransformerLens's unembed leaves it: row L ranks as the model's logits do.
Tensor logit_lens(Model& model, const std::vector<std::int32_t>& ids);
// The same a row at a time, for texts whose (L + 1)·T·V logits do not fit: the residual stream entering
// each layer kept ((L + 1)·T·D floats), row(l) → [T, V] equal to logit_lens(...)[l]. model must outlive it.
class LogitLens {
 public:
  LogitLens(Model& model, const std::vector<std::int32_t>& ids);
  std::size_t rows() const { return resid_.size(); }
  Tensor row(std::size_t l) const;

 private:
  const Model& model_;
  std::size_t positions_;
  std::vector<std::vector<float>> resid_;
};

// ---- Direct logit attribution -----------------------------------------------------------------

// Each head's, each MLP's, the embeddings' and the biases' direct effect on the logit of tokens[0] (or on
// logit[tokens[0]] - logit[tokens[1]]) at `position`: TransformerLens's stack_head_results(apply_ln=True)
// with its default weight processing (docs/analysis.md says what that means); the terms add up to
// `centred` (the logit minus its mean over the vocabulary; for two tokens the difference itself).
struct Attribution {
  std::size_t layers = 0, heads_per_layer = 0;
  std::vector<double> heads;  // [L * H]
  std::vector<double> mlps;   // [L]
  double embed = 0, biases = 0, sum = 0, logit = 0, centred = 0;
};
Attribution attribute(Model& model, const std::vector<std::int32_t>& ids, std::size_t position,
                      const std::vector<std::int32_t>& tokens);

// ---- Activation patching ----------------------------------------------------------------------

// What a patched run replaces with the clean run's: each head's output at every position
// (get_act_patch_attn_head_out_all_pos: [L, H]), the residual stream entering each layer at each position
// (get_act_patch_resid_pre: [L, T]), each layer's attention or MLP output at each position (_attn_out,
// _mlp_out: [L, T]).
enum class PatchKind : std::uint8_t { Heads, Resid, Attn, Mlp };
// Every kind, in the enum's order: protocol() publishes their names ("heads", "resid", "attn", "mlp").
constexpr PatchKind kPatchKinds[] = {PatchKind::Heads, PatchKind::Resid, PatchKind::Attn, PatchKind::Mlp};
static_assert(std::size(kPatchKinds) == static_cast<std::size_t>(PatchKind::Mlp) + 1, "a kind is missing");
const char* patch_kind_name(PatchKind kind);
// The corrupted run with one clean activation put in, its metric logit[a] - logit[b] at the last position,
// normalised (patched - corrupted) / (clean - corrupted); each patched run starts at its layer from the
// corrupted run's kept residual stream. clean and corrupted have the same token count. progress(done,
// total) may return false to cancel (then mha::Error "cancelled").
Tensor patch(Model& model, const std::vector<std::int32_t>& clean, const std::vector<std::int32_t>& corrupted,
             const std::vector<std::int32_t>& tokens, PatchKind kind,
             const std::function<bool(std::size_t, std::size_t)>& progress = nullptr);
// The same a patched run at a time (the JS API awaits between them): the clean and corrupted runs at
// construction, then step() computes the next entry of result() (row-major), false once all are done.
class Patching {
 public:
  Patching(Model& model, const std::vector<std::int32_t>& clean, const std::vector<std::int32_t>& corrupted,
           const std::vector<std::int32_t>& tokens, PatchKind kind);
  ~Patching();
  bool step();
  std::size_t done() const;
  std::size_t total() const;
  const Tensor& result() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
// ---- Ways to switch a head off ----------------------------------------------------------------

// Zero: the head's output (hook_z) zeroed; Mean: replaced at every position by its mean over the text's positions
// (TransformerLens's mean ablation); Resample: replaced by its output on another text of the same token count.
enum class Ablation : std::uint8_t { Zero, Mean, Resample };
// Every way, in the enum's order: protocol() publishes their names ("zero", "mean", "resample").
constexpr Ablation kAblations[] = {Ablation::Zero, Ablation::Mean, Ablation::Resample};
static_assert(std::size(kAblations) == static_cast<std::size_t>(Ablation::Resample) + 1, "a way is missing");
const char* ablation_name(Ablation kind);
// The forward options that switch `heads` off on `ids` as `kind` says (heads_off, or head_values computed by a
// forward of ids or of `other`, the full model's outputs); the caller adds what else it asks (logits_at, attentions).
// Resample needs `other` of ids' token count (else mha::Error naming both counts). Every family.
ModelForwardOptions ablation_options(Model& model, const std::vector<std::int32_t>& ids,
                                     const std::vector<HeadRef>& heads, Ablation kind,
                                     const std::vector<std::int32_t>& other = {});

// [L, H]: the metric with each head's output (hook_z) replaced by its mean over the text's positions.
Tensor mean_ablation(Model& model, const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& tokens);

}  // namespace mha
