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

// Layer l on the row x[D] at position t (= the cache's length), appending its k and v.
void layer_row(const analysis::StackView& view, std::size_t l, float* x, std::size_t t, KvCache& cache) {
  const blocks::Attention& at = (*view.layers)[l].attn;
  const std::size_t KD = at.kv_heads * at.head_dim;
  cache.keys[l].resize((t + 1) * KD);
  cache.values[l].resize((t + 1) * KD);
  analysis::layer_rows((*view.layers)[l], x, 1, t, cache.keys[l].data(), cache.values[l].data(), nullptr);
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
