// Internal to core/src/analysis/: a causal Stack's layers run one at a time with TransformerLens's
// activations kept and patched (taps.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "blocks/blocks.hpp"
#include "mha/models.hpp"
#include "models/network.hpp"

namespace mha::analysis {

struct StackView {
  const models::Stack* net;
  const std::vector<blocks::Layer>* layers;
  const blocks::Norm* final_norm;
  const blocks::Linear* lm_head;
};
// The model's pre-norm layers (GPT-2, Llama-style); mha::Error naming `what` for the others.
StackView view_of(const Model& model, const char* what);
// The forward's own checks of ids (count, positions, vocabulary), with its messages.
void check_ids(Model& model, const std::vector<std::int32_t>& ids);

// One activation replaced: the residual stream entering `layer` at position `index` ([D]), hook_attn_out
// or hook_mlp_out at position `index` ([D]), or hook_z of head `index` at every position ([T, head_dim]).
struct Patch {
  enum Kind { Resid, Attn, Mlp, Z } kind = Resid;
  std::size_t layer = 0, index = 0;
  const float* value = nullptr;
};
struct LayerTaps {
  std::vector<float> z;             // [T, H·hd]: the heads' outputs before the output projection
  std::vector<float> attn, mlp;     // [T, D]
  std::vector<float> keys, values;  // [T, KV·hd]: after k_norm and RoPE, what a later row's attention reads
};
// Layer in place on h[T, D], the operations of blocks::layer (PreNorm, Parallel); `patch` (its layer's, not Resid)
// applied.
void tapped_layer(const StackView& v, const blocks::Layer& layer, float* h, std::size_t T, const Patch* patch,
                  LayerTaps* taps);

// Layer on rows start..start+R-1 (x[R, D]) of a causal text, the earlier rows' keys and values read from keys,
// values [start + R, KV·hd] and the rows' own written there (blocks::attention_rows); `patch` (its layer's, not
// Resid; positions counted from the text's start) applied. The cache's step (R = 1) and a patched run's changed rows.
void layer_rows(const blocks::Layer& layer, float* x, std::size_t R, std::size_t start, float* keys, float* values,
                const Patch* patch);

struct Run {
  std::vector<std::vector<float>> resid;  // [L + 1][T·D]: entering each layer, then leaving the last
  std::vector<LayerTaps> taps;            // [L] when kept
};
Run run(const StackView& v, const std::vector<std::int32_t>& ids, bool keep_taps);
// The patch that puts `from`'s activation in (its taps kept): the stream entering `layer` at position `index`,
// hook_attn_out or hook_mlp_out there, or hook_z of head `index` at every position (copied into z, [T, hd]).
Patch patch_from(const Run& from, Patch::Kind kind, std::size_t layer, std::size_t index, std::size_t T, std::size_t hd,
                 std::vector<float>& z);
// The stream leaving the last layer with `patch` applied, from `from`'s stream entering patch.layer (its taps
// kept). Only the rows from the first one the patch changes are computed again, over the kept keys and values of
// the rows before it (causal: those rows are the same); a patch that changes nothing gives `from`'s stream.
std::vector<float> resume(const StackView& v, const Run& from, std::size_t T, const Patch& patch);
// logits [P, V] at `at` of h[T, D] through the final norm and the head.
std::vector<float> readout(const StackView& v, const std::vector<float>& h, std::size_t T,
                           const std::vector<std::size_t>& at);

}  // namespace mha::analysis
