// The key/value cache: each layer's keys (after RoPE) and values of the positions computed so far, so that a new
// token costs one position's forward: its q, k, v, its attention over the cached keys, the MLP, one row of logits.
// The same formulas as the whole forward (transformers' eager attention: scores scaled and soft-capped as
// blocks::scale_scores does, softmax, weights · v;
// the new row sees every cached position, as the causal mask lets it, or a local layer's last `window` of them),
// another order of summation.
#include <cmath>
#include <cstring>

#include "analysis/taps.hpp"
#include "mha/analysis.hpp"
#include "mha/error.hpp"
#include "mha/kernels.hpp"

namespace mha {

namespace {

// q [H·hd], k and v [KV·hd] of the row a[D] (GPT-2's fused c_attn split in three; GPT-NeoX's query_key_value
// interleaved by head, q_h | k_h | v_h, with KV = H).
void project_row(const blocks::Attention& at, const float* a, float* q, float* k, float* v) {
  const std::size_t hd = at.head_dim, HD = at.heads * hd, KD = at.kv_heads * hd;
  if (at.qkv.weight) {
    std::vector<float> qkv(at.qkv.out);
    blocks::linear(at.qkv, a, 1, qkv.data());
    if (at.qkv_interleaved) {
      for (std::size_t h = 0; h < at.heads; ++h) {
        std::memcpy(q + h * hd, &qkv[3 * h * hd], hd * sizeof(float));
        std::memcpy(k + h * hd, &qkv[(3 * h + 1) * hd], hd * sizeof(float));
        std::memcpy(v + h * hd, &qkv[(3 * h + 2) * hd], hd * sizeof(float));
      }
      return;
    }
    std::memcpy(q, qkv.data(), HD * sizeof(float));
    std::memcpy(k, qkv.data() + HD, KD * sizeof(float));
    std::memcpy(v, qkv.data() + 2 * HD, KD * sizeof(float));
    return;
  }
  blocks::linear(at.q, a, 1, q);
  blocks::linear(at.k, a, 1, k);
  blocks::linear(at.v, a, 1, v);
}

void add_row(float* x, const float* y, std::size_t D) {
  for (std::size_t d = 0; d < D; ++d) x[d] += y[d];
}

// Layer l on the row x[D] at position t (= the cache's length), appending its k and v.
void layer_row(const analysis::StackView& view, std::size_t l, float* x, std::size_t t, KvCache& cache) {
  const blocks::Layer& layer = (*view.layers)[l];
  const blocks::Attention& at = layer.attn;
  const std::size_t D = at.o.out, hd = at.head_dim, H = at.heads, KD = at.kv_heads * hd, group = H / at.kv_heads;
  std::vector<float> a(x, x + D), q(H * hd), context(H * hd), out(D);
  blocks::normalize(layer.norm_1, a.data(), 1, D);
  std::vector<float>& keys = cache.keys[l];
  std::vector<float>& values = cache.values[l];
  keys.resize((t + 1) * KD);
  values.resize((t + 1) * KD);
  project_row(at, a.data(), q.data(), &keys[t * KD], &values[t * KD]);
  if (at.q_norm.weight) blocks::normalize_heads(at.q_norm, q.data(), 1, H, hd, hd, H * hd);
  if (at.k_norm.weight) blocks::normalize_heads(at.k_norm, &keys[t * KD], 1, at.kv_heads, hd, hd, KD);
  if (at.rotary_dim) {  // the table at position t only
    const blocks::Rope row = blocks::rope_table(1, at.rotary_dim, at.rope_theta, t, at.rope_factor);
    blocks::apply_rope(row, q.data(), 1, H, hd, H * hd);
    blocks::apply_rope(row, &keys[t * KD], 1, at.kv_heads, hd, KD);
  }
  std::vector<float> p(t + 1);
  const float root = std::sqrt(float(hd));
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t kv = (h / group) * hd;
    std::vector<float> qh(q.begin() + std::ptrdiff_t(h * hd), q.begin() + std::ptrdiff_t((h + 1) * hd));
    if (at.scale_query)
      for (float& e : qh) e /= root;
    kernels::f32_gemm_nt(1, t + 1, hd, 1.0f, qh.data(), hd, keys.data() + kv, KD, nullptr, p.data(), t + 1);
    blocks::scale_scores(at, p.data(), t + 1);
    for (std::size_t j = 0; at.window && j + at.window <= t; ++j) p[j] = blocks::kFinfoMin;  // a local layer's window
    kernels::f32_softmax(1, t + 1, p.data(), t + 1);
    kernels::f32_gemm_nn(1, hd, t + 1, p.data(), t + 1, values.data() + kv, KD, context.data() + h * hd, H * hd);
  }
  blocks::linear(at.o, context.data(), 1, out.data());
  if (layer.post_attn.weight) blocks::normalize(layer.post_attn, out.data(), 1, D);
  const bool parallel = layer.residual == blocks::Residual::Parallel;  // x + attn + mlp(norm_2(x)), as blocks::layer
  if (!parallel) add_row(x, out.data(), D);
  if (!parallel || layer.norm_2.weight) {  // a Parallel layer without norm_2 feeds norm_1(x), kept in a
    a.assign(x, x + D);
    blocks::normalize(layer.norm_2, a.data(), 1, D);
  }
  std::vector<float> m(D);
  blocks::mlp(layer.mlp, a.data(), 1, m.data());
  if (layer.post_mlp.weight) blocks::normalize(layer.post_mlp, m.data(), 1, D);
  if (parallel) add_row(x, out.data(), D);
  add_row(x, m.data(), D);
}

}  // namespace

std::size_t KvCache::bytes() const {
  std::size_t n = 0;
  for (const auto& k : keys) n += k.size();
  for (const auto& v : values) n += v.size();
  return n * sizeof(float);
}

std::vector<float> cached_logits(Model& model, KvCache& cache, const std::vector<std::int32_t>& ids) {
  const analysis::StackView v = analysis::view_of(model, "the key/value cache");
  const CheckpointConfig& c = model.config();
  if (ids.empty() || ids.size() > c.max_positions)
    throw Error(std::to_string(ids.size()) + " tokens: the key/value cache holds 1 to " +
                std::to_string(c.max_positions) + " positions (max_position_embeddings)");
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || std::size_t(ids[t]) >= c.vocab)
      throw Error("token " + std::to_string(t) + " has id " + std::to_string(ids[t]) +
                  ", outside the vocabulary (ids 0 to " + std::to_string(c.vocab - 1) + ")");
  const std::size_t L = v.layers->size(), D = c.d_model;
  bool prefix = cache.ids.size() < ids.size() && cache.keys.size() == L;
  for (std::size_t i = 0; prefix && i < cache.ids.size(); ++i) prefix = cache.ids[i] == ids[i];
  if (!prefix && ids.size() > 1) {  // the prompt in one batched forward (its GEMMs read each weight once)
    ModelForwardOptions fill;
    fill.attentions = false;
    fill.keep_kv = true;
    fill.logits_at = {ids.size() - 1};
    ModelOutput out = model.forward(ids, fill);
    cache = KvCache{ids, std::move(out.keys), std::move(out.values)};
    return std::vector<float>(out.logits.data(), out.logits.data() + c.vocab);
  }
  if (!prefix) cache = KvCache{{}, std::vector<std::vector<float>>(L), std::vector<std::vector<float>>(L)};
  std::vector<float> row(D), all;
  for (std::size_t t = cache.ids.size(); t < ids.size(); ++t) {
    all.resize((t + 1) * D);  // the embeddings of positions 0..t (GPT-2 adds wpe[t]): row t is the new one
    v.net->embed(std::vector<std::int32_t>(ids.begin(), ids.begin() + std::ptrdiff_t(t + 1)), all.data());
    std::memcpy(row.data(), &all[t * D], D * sizeof(float));
    for (std::size_t l = 0; l < L; ++l) layer_row(v, l, row.data(), t, cache);
    cache.ids.push_back(ids[t]);
  }
  std::vector<float> z(c.vocab);
  v.net->finish(row.data(), 1);
  v.net->logits(row.data(), {0}, z.data(), true);
  return z;
}

}  // namespace mha
