// Direct logit attribution as TransformerLens's stack_head_results(apply_ln=True) with its default weight
// processing, computed on the unprocessed weights: each term is centre(v) / scale · (w ⊙ u) where scale is the
// final norm's at the position, w its weight, u the unembedding direction (W_U[a] centred over the vocabulary,
// or W_U[a] - W_U[b]); centring (LayerNorm models) stands for center_writing_weights, w for fold_ln. A head's
// v is (z_h - b_V') · W_O[h], where b_V' (the value bias, plus the first norm's bias through W_V) is what
// fold_value_biases moves into b_O; the biases' term gathers b_O, those b_V' and the final norm's bias · u.
#include <cmath>

#include "analysis/taps.hpp"
#include "mha/analysis.hpp"
#include "mha/error.hpp"

namespace mha {

namespace {

using analysis::StackView;

// (w ⊙ u)[D] and the final norm's bias · u (0 without a bias).
struct Direction {
  std::vector<float> wu;
  double bias = 0.0;
};

Direction direction(const StackView& v, const std::vector<std::int32_t>& tokens, std::size_t D) {
  const blocks::Linear& head = *v.lm_head;
  const std::size_t V = head.out;
  std::vector<float> row(D), u(D, 0.0f);
  blocks::widen_rows(*head.weight, std::size_t(tokens[0]), 1, u.data());
  if (tokens.size() == 2) {
    blocks::widen_rows(*head.weight, std::size_t(tokens[1]), 1, row.data());
    for (std::size_t d = 0; d < D; ++d) u[d] -= row[d];
  } else {  // center_unembed: W_U minus its mean over the vocabulary
    std::vector<double> mean(D, 0.0);
    for (std::size_t r = 0; r < V; ++r) {
      blocks::widen_rows(*head.weight, r, 1, row.data());
      for (std::size_t d = 0; d < D; ++d) mean[d] += row[d];
    }
    for (std::size_t d = 0; d < D; ++d) u[d] = float(double(u[d]) - mean[d] / double(V));
  }
  Direction out;
  const std::vector<float> w = blocks::norm_scale(*v.final_norm);
  out.wu.resize(D);
  for (std::size_t d = 0; d < D; ++d) out.wu[d] = w[d] * u[d];
  if (v.final_norm->bias) {
    const std::vector<float> b = blocks::widen(*v.final_norm->bias);
    for (std::size_t d = 0; d < D; ++d) out.bias += double(b[d]) * double(u[d]);
  }
  return out;
}

// 1 / the final norm's scale at x[D]: LayerNorm rsqrt(var + eps), RMSNorm rsqrt(mean x² + eps).
float inverse_scale(const blocks::Norm& norm, const float* x, std::size_t D) {
  double mean = 0.0, sq = 0.0;
  if (norm.kind == blocks::NormKind::Layer) {
    for (std::size_t d = 0; d < D; ++d) mean += x[d];
    mean /= double(D);
  }
  for (std::size_t d = 0; d < D; ++d) sq += (x[d] - mean) * (x[d] - mean);
  return float(1.0 / std::sqrt(sq / double(D) + double(norm.eps)));
}

double term(const blocks::Norm& norm, const float* v, const Direction& dir, float r, std::size_t D) {
  double mean = 0.0, dot = 0.0;
  if (norm.kind == blocks::NormKind::Layer) {
    for (std::size_t d = 0; d < D; ++d) mean += v[d];
    mean /= double(D);
  }
  for (std::size_t d = 0; d < D; ++d) dot += (double(v[d]) - mean) * double(dir.wu[d]);
  return dot * double(r);
}

// b_V' [H·hd]: the value projection of the first norm's bias (zeros: RMSNorm), per query head.
std::vector<float> folded_value_bias(const blocks::Layer& layer) {
  const blocks::Attention& a = layer.attn;
  const std::size_t D = a.o.out, hd = a.head_dim, group = a.heads / a.kv_heads;
  std::vector<float> x = layer.norm_1.bias ? blocks::widen(*layer.norm_1.bias) : std::vector<float>(D, 0.0f);
  std::vector<float> v, out(a.heads * hd);
  if (a.qkv.weight) {
    std::vector<float> qkv(a.qkv.out);
    blocks::linear(a.qkv, x.data(), 1, qkv.data());
    if (a.qkv_interleaved)  // GPT-NeoX: q_h | k_h | v_h per head, so head h's values at (3h + 2)·hd
      for (std::size_t h = 0; h < a.heads; ++h)
        v.insert(v.end(), qkv.begin() + std::ptrdiff_t((3 * h + 2) * hd),
                 qkv.begin() + std::ptrdiff_t((3 * h + 3) * hd));
    else v.assign(qkv.begin() + std::ptrdiff_t(2 * a.heads * hd), qkv.end());
  } else {
    v.resize(a.v.out);
    blocks::linear(a.v, x.data(), 1, v.data());
  }
  for (std::size_t h = 0; h < a.heads; ++h)
    for (std::size_t i = 0; i < hd; ++i) out[h * hd + i] = v[(h / group) * hd + i];
  return out;
}

}  // namespace

Attribution attribute(Model& model, const std::vector<std::int32_t>& ids, std::size_t position,
                      const std::vector<std::int32_t>& tokens) {
  const StackView v = analysis::view_of(model, "the attribution");
  const CheckpointConfig& c = model.config();
  if (tokens.empty() || tokens.size() > 2) throw Error("the attribution takes one token, or two for a difference");
  for (const blocks::Layer& layer : *v.layers)  // a norm between o_proj and the stream: no per-head terms to sum
    if (layer.post_attn.weight || c.final_softcap != 0.0)
      throw Error("the attribution splits the logit into terms that add up to it: a " + c.model_type +
                  " model normalizes each attention's output and soft-caps the logits, so its heads' direct effects "
                  "do not add up (TransformerLens's stack_head_results would not either)");
  for (std::int32_t t : tokens)
    if (t < 0 || std::size_t(t) >= c.vocab)
      throw Error("token id " + std::to_string(t) + " is outside the vocabulary (0 to " + std::to_string(c.vocab - 1) +
                  ")");
  analysis::check_ids(model, ids);
  if (position >= ids.size())
    throw Error("position " + std::to_string(position) + " is past the text's " + std::to_string(ids.size()) +
                " tokens");
  const std::size_t L = c.layers, H = c.heads, T = ids.size(), D = c.d_model, p = position;
  const analysis::Run r = analysis::run(v, ids, true);
  const Direction dir = direction(v, tokens, D);
  const float inv = inverse_scale(*v.final_norm, &r.resid[L][p * D], D);
  const blocks::Norm& fn = *v.final_norm;
  Attribution out;
  out.layers = L;
  out.heads_per_layer = H;
  out.biases = dir.bias;
  std::vector<float> one(D);
  for (std::size_t l = 0; l < L; ++l) {
    const blocks::Layer& layer = (*v.layers)[l];
    const std::size_t hd = layer.attn.head_dim, HD = H * hd;
    const std::vector<float> bv = folded_value_bias(layer);
    for (std::size_t h = 0; h < H; ++h) {  // (z_h - b_V'_h) · W_O[h]: the output projection of that slice alone
      std::vector<float> z(HD, 0.0f);
      for (std::size_t i = 0; i < hd; ++i) z[h * hd + i] = r.taps[l].z[p * HD + h * hd + i] - bv[h * hd + i];
      blocks::Linear o = layer.attn.o;
      o.bias = nullptr;
      blocks::linear(o, z.data(), 1, one.data());
      out.heads.push_back(term(fn, one.data(), dir, inv, D));
    }
    blocks::linear(layer.attn.o, bv.data(), 1, one.data());  // b_O + Σ_h b_V'_h · W_O[h]
    out.biases += term(fn, one.data(), dir, inv, D);
    out.mlps.push_back(term(fn, &r.taps[l].mlp[p * D], dir, inv, D));
  }
  out.embed = term(fn, &r.resid[0][p * D], dir, inv, D);
  out.sum = out.embed + out.biases;
  for (double t : out.heads) out.sum += t;
  for (double t : out.mlps) out.sum += t;
  const std::vector<float> z = analysis::readout(v, r.resid[L], T, {p});
  if (tokens.size() == 2) {
    out.logit = out.centred = double(z[std::size_t(tokens[0])]) - double(z[std::size_t(tokens[1])]);
  } else {
    double mean = 0.0;
    for (float x : z) mean += x;
    out.logit = z[std::size_t(tokens[0])];
    out.centred = out.logit - mean / double(c.vocab);
  }
  return out;
}

}  // namespace mha
