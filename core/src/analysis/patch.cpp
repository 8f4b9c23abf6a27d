// Activation patching as TransformerLens's patching module (get_act_patch_resid_pre, _attn_out, _mlp_out,
// _attn_head_out_all_pos): the corrupted run with one activation of the clean run put in, its metric
// logit[a] - logit[b] at the last position normalised (patched - corrupted) / (clean - corrupted); each patched
// run starts at the patched layer from the corrupted run's kept residual stream, at the first position the patch
// changes (the rows before it read from the corrupted run's kept keys and values), and reads two logits, not V.
// Mean ablation: a head's hook_z replaced by its mean over the text's positions.
#include <cmath>
#include <cstring>

#include "analysis/taps.hpp"
#include "mha/analysis.hpp"
#include "mha/error.hpp"

namespace mha {

// The metric's two rows of the unembedding, widened: logit[a] - logit[b] needs only them, not the whole [V, D].
struct PatchMetric {
  std::vector<float> a, b;
  float softcap = 0.0f;  // Gemma 2's final_logit_softcapping (0: none)
};

namespace {

using analysis::Patch;

void check_tokens(const CheckpointConfig& c, const std::vector<std::int32_t>& tokens) {
  if (tokens.size() != 2) throw Error("the metric needs two tokens (logit[a] - logit[b] at the last position)");
  for (std::int32_t t : tokens)
    if (t < 0 || std::size_t(t) >= c.vocab)
      throw Error("token id " + std::to_string(t) + " is outside the vocabulary (0 to " + std::to_string(c.vocab - 1) +
                  ")");
}

PatchMetric metric_of(const analysis::StackView& v, const CheckpointConfig& c,
                      const std::vector<std::int32_t>& tokens) {
  const std::size_t D = c.d_model;
  PatchMetric m{std::vector<float>(D), std::vector<float>(D), float(c.final_softcap)};
  blocks::widen_rows(*v.lm_head->weight, std::size_t(tokens[0]), 1, m.a.data());
  blocks::widen_rows(*v.lm_head->weight, std::size_t(tokens[1]), 1, m.b.data());
  return m;
}

// logit[a] - logit[b] at the last row of h[T, D]: the final norm, the two logits (sums in double), the soft cap.
double metric(const analysis::StackView& v, const PatchMetric& m, const std::vector<float>& h) {
  const std::size_t D = m.a.size();
  std::vector<float> x(h.end() - std::ptrdiff_t(D), h.end());
  v.net->finish(x.data(), 1);
  double za = 0.0, zb = 0.0;
  for (std::size_t d = 0; d < D; ++d) za += double(x[d]) * m.a[d], zb += double(x[d]) * m.b[d];
  if (m.softcap == 0.0f) return za - zb;
  const auto cap = [&](double z) { return double(std::tanh(float(z) / m.softcap) * m.softcap); };
  return cap(za) - cap(zb);
}

// logit[a] - logit[b] as the forward's logits give it (the whole readout: mean ablation's metric is a forward's, bit
// for bit).
double forward_metric(const analysis::StackView& v, const std::vector<float>& h, std::size_t T,
                      const std::vector<std::int32_t>& tokens) {
  const std::vector<float> z = analysis::readout(v, h, T, {T - 1});
  return double(z[std::size_t(tokens[0])]) - double(z[std::size_t(tokens[1])]);
}

}  // namespace

const char* patch_kind_name(PatchKind kind) {
  switch (kind) {
    case PatchKind::Heads: return "heads";
    case PatchKind::Resid: return "resid";
    case PatchKind::Attn: return "attn";
    case PatchKind::Mlp: return "mlp";
  }
  return "?";
}

struct Patching::Impl {
  analysis::StackView v;
  PatchKind kind;
  PatchMetric m;
  analysis::Run k_run, c_run;
  double k = 0, cm = 0;
  std::size_t L = 0, T = 0, N = 0, hd = 0, done = 0;
  Tensor out;
  std::vector<float> z;  // the patched head's hook_z [T, hd]
};

Patching::Patching(Model& model, const std::vector<std::int32_t>& clean, const std::vector<std::int32_t>& corrupted,
                   const std::vector<std::int32_t>& tokens, PatchKind kind)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.v = analysis::view_of(model, "patching");
  const CheckpointConfig& c = model.config();
  check_tokens(c, tokens);
  analysis::check_ids(model, clean);
  analysis::check_ids(model, corrupted);
  if (clean.size() != corrupted.size())
    throw Error("the clean text has " + std::to_string(clean.size()) + " tokens and the corrupted one " +
                std::to_string(corrupted.size()) + ": patching needs the same count");
  s.kind = kind, s.L = c.layers, s.T = clean.size();
  s.k_run = analysis::run(s.v, clean, true);
  s.c_run = analysis::run(s.v, corrupted, true);  // its keys and values: a patch recomputes the rows it changes
  s.m = metric_of(s.v, c, tokens);
  s.k = metric(s.v, s.m, s.k_run.resid[s.L]);
  s.cm = metric(s.v, s.m, s.c_run.resid[s.L]);
  if (s.k == s.cm) throw Error("the clean and corrupted texts give the same metric: there is nothing to normalise by");
  s.N = kind == PatchKind::Heads ? c.heads : s.T;
  s.out = Tensor::empty({s.L, s.N});
  s.hd = c.head_dim;
}

Patching::~Patching() = default;
std::size_t Patching::total() const { return impl_->L * impl_->N; }
std::size_t Patching::done() const { return impl_->done; }
const Tensor& Patching::result() const { return impl_->out; }

bool Patching::step() {
  Impl& s = *impl_;
  if (s.done == total()) return false;
  const Patch::Kind kinds[] = {Patch::Z, Patch::Resid, Patch::Attn, Patch::Mlp};  // PatchKind's order
  const Patch p = analysis::patch_from(s.k_run, kinds[int(s.kind)], s.done / s.N, s.done % s.N, s.T, s.hd, s.z);
  const std::vector<float> h = analysis::resume(s.v, s.c_run, s.T, p);
  s.out.data()[s.done] = float((metric(s.v, s.m, h) - s.cm) / (s.k - s.cm));
  ++s.done;
  return true;
}

Tensor patch(Model& model, const std::vector<std::int32_t>& clean, const std::vector<std::int32_t>& corrupted,
             const std::vector<std::int32_t>& tokens, PatchKind kind,
             const std::function<bool(std::size_t, std::size_t)>& progress) {
  Patching p(model, clean, corrupted, tokens, kind);
  do {
    if (progress && !progress(p.done(), p.total())) throw Error("cancelled");
  } while (p.step());
  return p.result();
}

Tensor mean_ablation(Model& model, const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& tokens) {
  const analysis::StackView v = analysis::view_of(model, "mean ablation");
  const CheckpointConfig& c = model.config();
  check_tokens(c, tokens);
  analysis::check_ids(model, ids);
  const std::size_t L = c.layers, H = c.heads, T = ids.size(), hd = c.head_dim, HD = H * hd;
  const analysis::Run r = analysis::run(v, ids, true);
  Tensor out = Tensor::empty({L, H});
  std::vector<float> z(T * hd);
  for (std::size_t l = 0; l < L; ++l) {
    for (std::size_t h = 0; h < H; ++h) {
      for (std::size_t i = 0; i < hd; ++i) {
        double mean = 0.0;
        for (std::size_t t = 0; t < T; ++t) mean += r.taps[l].z[t * HD + h * hd + i];
        for (std::size_t t = 0; t < T; ++t) z[t * hd + i] = float(mean / double(T));
      }
      Patch p;
      p.kind = Patch::Z, p.layer = l, p.index = h, p.value = z.data();
      out.data()[l * H + h] = float(forward_metric(v, analysis::resume(v, r, T, p), T, tokens));
    }
  }
  return out;
}

}  // namespace mha
