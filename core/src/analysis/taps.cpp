// Attribution, patching and mean ablation: a layer computed as the model computes it (same operations,
// same bits: blocks::layer's PreNorm and Parallel), with TransformerLens's activations kept (hook_z, hook_attn_out,
// hook_mlp_out) and any of them replaced; a patched run starts at the patched layer from the kept residual stream.
#include <cmath>
#include <cstring>

#include "analysis/taps.hpp"
#include "mha/error.hpp"

namespace mha::analysis {

namespace {

void add_into(float* x, const float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] += y[i];
}

std::vector<float> normed(const blocks::Norm& norm, const float* h, std::size_t T, std::size_t D) {
  std::vector<float> a(h, h + T * D);
  blocks::normalize(norm, a.data(), T, D);
  return a;
}

}  // namespace

StackView view_of(const Model& model, const char* what) {
  const CheckpointConfig& c = model.config();
  if (!c.causal || !model.has_lm_head())
    throw Error(std::string(what) + " needs a causal model with a language-model head (this is a " + c.model_type +
                ")");
  const auto* stack = dynamic_cast<const models::Stack*>(&models_network(model));
  bool fits = stack && stack->final_norm().weight && stack->lm_head().weight;
  for (std::size_t l = 0; fits && l < stack->layers().size(); ++l) {
    const blocks::Layer& layer = stack->layers()[l];
    fits = layer.residual != blocks::Residual::PostNorm;
  }
  if (!fits)  // OPT's do_layer_norm_before false: no pre-norm residual stream for a lens or an attribution
    throw Error(std::string(what) + " is computed for pre-norm and parallel-residual causal models (GPT-2, " +
                "Llama-style, GPT-NeoX, GPT-Neo, OPT with do_layer_norm_before), not for this post-norm " +
                c.model_type);
  return {stack, &stack->layers(), &stack->final_norm(), &stack->lm_head()};
}

void check_ids(Model& model, const std::vector<std::int32_t>& ids) { model.check_ids(ids); }

namespace {

// The layer's steps after its attention on rows start..start+R-1 (x[R, D], a = norm_1(x), z [R, H·hd] the heads'
// outputs): hook_z, hook_attn_out and hook_mlp_out patched where `patch` says (positions counted from the text's
// start), the MLP, the residual adds in blocks::layer's order; the activations moved into taps when given.
void after_attention(const blocks::Layer& layer, float* x, std::size_t R, std::size_t start, const float* a,
                     std::vector<float>& z, const Patch* patch, LayerTaps* taps) {
  const std::size_t D = layer.attn.o.out, n = R * D, hd = layer.attn.head_dim, HD = layer.attn.heads * hd;
  const auto here = [&](Patch::Kind k) { return patch && patch->kind == k && patch->index >= start; };
  std::vector<float> attn(n), m(n);
  if (patch && patch->kind == Patch::Z)  // hook_z of head `index` at the rows' positions
    for (std::size_t t = 0; t < R; ++t)
      std::memcpy(&z[t * HD + patch->index * hd], patch->value + (start + t) * hd, hd * sizeof(float));
  blocks::linear(layer.attn.o, z.data(), R, attn.data());
  if (layer.post_attn.weight) blocks::normalize(layer.post_attn, attn.data(), R, D);  // hook_attn_out: after ln1_post
  if (here(Patch::Attn)) std::memcpy(&attn[(patch->index - start) * D], patch->value, D * sizeof(float));
  const bool parallel = layer.residual == blocks::Residual::Parallel;  // the MLP reads the layer's input too
  if (!parallel) add_into(x, attn.data(), n);
  const bool shared_norm = parallel && !layer.norm_2.weight;  // a Parallel layer without norm_2 feeds norm_1(x)
  blocks::mlp(layer.mlp, shared_norm ? a : normed(layer.norm_2, x, R, D).data(), R, m.data());
  if (layer.post_mlp.weight) blocks::normalize(layer.post_mlp, m.data(), R, D);  // hook_mlp_out: after ln2_post
  if (here(Patch::Mlp)) std::memcpy(&m[(patch->index - start) * D], patch->value, D * sizeof(float));
  if (parallel) add_into(x, attn.data(), n);  // x + attn + mlp, in blocks::layer's order
  add_into(x, m.data(), n);
  if (taps) {
    taps->z = std::move(z);
    taps->attn = std::move(attn);
    taps->mlp = std::move(m);
  }
}

}  // namespace

void tapped_layer(const StackView&, const blocks::Layer& layer, float* h, std::size_t T, const Patch* patch,
                  LayerTaps* taps) {
  const blocks::Attention& at = layer.attn;
  const std::size_t D = at.o.out, KD = at.kv_heads * at.head_dim;
  const std::vector<float> a = normed(layer.norm_1, h, T, D);
  std::vector<float> z(T * at.heads * at.head_dim), probs(at.heads * T * T);
  blocks::HeadEdits kept;  // the keys and values, for a patched run that starts at a later row
  if (taps) {
    taps->keys.resize(T * KD);
    taps->values.resize(T * KD);
    kept.keys = taps->keys.data(), kept.values = taps->values.data();
  }
  blocks::attention_context(at, a.data(), T, kept, probs.data(), z.data());
  after_attention(layer, h, T, 0, a.data(), z, patch, taps);
}

Run run(const StackView& v, const std::vector<std::int32_t>& ids, bool keep_taps) {
  const std::size_t L = v.layers->size(), T = ids.size(), D = v.layers->front().attn.o.out;
  Run r;
  r.resid.assign(L + 1, std::vector<float>(T * D));
  if (keep_taps) r.taps.resize(L);
  v.net->embed(ids, r.resid[0].data());
  for (std::size_t l = 0; l < L; ++l) {
    r.resid[l + 1] = r.resid[l];
    tapped_layer(v, (*v.layers)[l], r.resid[l + 1].data(), T, nullptr, keep_taps ? &r.taps[l] : nullptr);
  }
  return r;
}

void layer_rows(const blocks::Layer& layer, float* x, std::size_t R, std::size_t start, float* keys, float* values,
                const Patch* patch) {
  const blocks::Attention& at = layer.attn;
  const std::vector<float> a = normed(layer.norm_1, x, R, at.o.out);
  std::vector<float> z(R * at.heads * at.head_dim);
  blocks::attention_rows(at, a.data(), R, start, keys, values, z.data());
  after_attention(layer, x, R, start, a.data(), z, patch, nullptr);
}

namespace {

// The first row whose value the patch changes (T: none), from the patched layer's kept activations.
std::size_t first_changed(const Run& from, std::size_t T, std::size_t D, std::size_t hd, const Patch& p) {
  const LayerTaps& taps = from.taps[p.layer];
  const auto differs = [](const float* x, const float* y, std::size_t n) {
    return std::memcmp(x, y, n * sizeof(float)) != 0;
  };
  if (p.kind == Patch::Resid) return differs(p.value, &from.resid[p.layer][p.index * D], D) ? p.index : T;
  if (p.kind == Patch::Attn) return differs(p.value, &taps.attn[p.index * D], D) ? p.index : T;
  if (p.kind == Patch::Mlp) return differs(p.value, &taps.mlp[p.index * D], D) ? p.index : T;
  const std::size_t HD = taps.z.size() / T;  // hook_z of head index: [T, hd] against its slice of [T, H·hd]
  std::size_t t = 0;
  while (t < T && !differs(p.value + t * hd, &taps.z[t * HD + p.index * hd], hd)) ++t;
  return t;
}

}  // namespace

Patch patch_from(const Run& from, Patch::Kind kind, std::size_t layer, std::size_t index, std::size_t T, std::size_t hd,
                 std::vector<float>& z) {
  const LayerTaps& taps = from.taps[layer];
  const std::size_t D = from.resid[layer].size() / T;
  Patch p;
  p.kind = kind, p.layer = layer, p.index = index;
  if (kind == Patch::Resid) p.value = &from.resid[layer][index * D];
  if (kind == Patch::Attn) p.value = &taps.attn[index * D];
  if (kind == Patch::Mlp) p.value = &taps.mlp[index * D];
  if (kind == Patch::Z) {  // head index's columns of [T, H·hd]
    const std::size_t HD = taps.z.size() / T;
    z.resize(T * hd);
    for (std::size_t t = 0; t < T; ++t) std::memcpy(&z[t * hd], &taps.z[t * HD + index * hd], hd * sizeof(float));
    p.value = z.data();
  }
  return p;
}

std::vector<float> resume(const StackView& v, const Run& from, std::size_t T, const Patch& patch) {
  const std::size_t L = v.layers->size(), D = v.layers->front().attn.o.out;
  const std::size_t start =
      from.taps.empty() ? 0 : first_changed(from, T, D, (*v.layers)[patch.layer].attn.head_dim, patch);
  if (start == T) return from.resid[L];  // the patch puts in what is there
  std::vector<float> h = from.resid[patch.layer];
  if (patch.kind == Patch::Resid) std::memcpy(&h[patch.index * D], patch.value, D * sizeof(float));
  if (start == 0) {  // every row: the forward's own operations
    for (std::size_t l = patch.layer; l < L; ++l)
      tapped_layer(v, (*v.layers)[l], h.data(), T, l == patch.layer && patch.kind != Patch::Resid ? &patch : nullptr,
                   nullptr);
    return h;
  }
  for (std::size_t l = patch.layer; l < L; ++l) {
    std::vector<float> keys = from.taps[l].keys, values = from.taps[l].values;
    layer_rows((*v.layers)[l], &h[start * D], T - start, start, keys.data(), values.data(),
               l == patch.layer && patch.kind != Patch::Resid ? &patch : nullptr);
  }
  std::memcpy(h.data(), from.resid[L].data(), start * D * sizeof(float));  // the rows before start, as they left
  return h;
}

std::vector<float> readout(const StackView& v, const std::vector<float>& h, std::size_t T,
                           const std::vector<std::size_t>& at) {
  std::vector<float> x(h), out(at.size() * v.lm_head->out);
  v.net->finish(x.data(), T);
  v.net->logits(x.data(), at, out.data(), true);
  return out;
}

}  // namespace mha::analysis
