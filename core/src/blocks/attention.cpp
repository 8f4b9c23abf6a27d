// The model attention: transformers' eager self-attention of GPT-2, BERT, DistilBERT and
// Llama/Qwen2 on one sequence, with every head's softmax kept and heads switched off on request. (The lessons'
// MultiHeadAttention, for the page and the lab, is core/src/lessons/attention.cpp.)
#include <algorithm>
#include <cmath>

#include "blocks/blocks.hpp"

namespace mha::blocks {

namespace {

// Projected q [T, H·hd] and k, v [T, KV·hd] with their row strides and the distance hs between two
// heads of a row (GPT-2's are views of q‖k‖v, GPT-NeoX's of q_h‖k_h‖v_h per head).
struct Projected {
  std::vector<float> fused, q_buf, k_buf, v_buf;
  float *q = nullptr, *k = nullptr, *v = nullptr;
  std::size_t ldq = 0, ldkv = 0, hs = 0;
};

Projected project(const Attention& a, const float* x, std::size_t T) {
  Projected p;
  if (a.qkv.weight) {  // c_attn(x).split(D, dim=2): q, k, v are column blocks of one [T, 3D]
    const std::size_t D = a.heads * a.head_dim;
    p.fused.resize(T * 3 * D);
    linear(a.qkv, x, T, p.fused.data());
    const std::size_t part = a.qkv_interleaved ? a.head_dim : D;  // where k and v start after q
    p.q = p.fused.data();
    p.k = p.q + part;
    p.v = p.q + 2 * part;
    p.ldq = p.ldkv = 3 * D;
    p.hs = a.qkv_interleaved ? 3 * a.head_dim : a.head_dim;
    return p;
  }
  p.q_buf.resize(T * a.q.out);
  p.k_buf.resize(T * a.k.out);
  p.v_buf.resize(T * a.v.out);
  linear(a.q, x, T, p.q_buf.data());
  linear(a.k, x, T, p.k_buf.data());
  linear(a.v, x, T, p.v_buf.data());
  p.q = p.q_buf.data();
  p.k = p.k_buf.data();
  p.v = p.v_buf.data();
  p.ldq = a.q.out;
  p.ldkv = a.k.out;
  p.hs = a.head_dim;
  return p;
}

// q and k of R rows at positions start.. made ready for the scores: q_norm and k_norm, RoPE (`rope`, or the table
// of those positions), q / √head_dim when scale_query (DistilBERT).
void prepare_qk(const Attention& a, Projected& p, std::size_t R, std::size_t start, const Rope* rope) {
  const std::size_t H = a.heads, hd = a.head_dim;
  if (a.q_norm.weight) normalize_heads(a.q_norm, p.q, R, H, hd, p.hs, p.ldq);
  if (a.k_norm.weight) normalize_heads(a.k_norm, p.k, R, a.kv_heads, hd, p.hs, p.ldkv);
  if (a.rotary_dim) {
    const Rope own = rope ? Rope{} : rope_table(R, a.rotary_dim, a.rope_theta, start, a.rope_factor);
    const Rope& table = rope ? *rope : own;
    apply_rope(table, p.q, R, H, p.hs, p.ldq);
    apply_rope(table, p.k, R, a.kv_heads, p.hs, p.ldkv);
  }
  if (a.scale_query) {  // q = q / math.sqrt(dim_per_head)
    const float root = std::sqrt(float(hd));
    for (std::size_t t = 0; t < R; ++t)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < hd; ++i) p.q[t * p.ldq + h * p.hs + i] /= root;
  }
}

// The R rows of k and v into rows start.. of keys and values ([·, KV·hd], contiguous; either may be nullptr).
void copy_kv(const Attention& a, const Projected& p, std::size_t R, std::size_t start, float* keys, float* values) {
  const std::size_t hd = a.head_dim, KD = a.kv_heads * hd;
  for (std::size_t t = 0; (keys || values) && t < R; ++t)
    for (std::size_t kv = 0; kv < a.kv_heads; ++kv) {
      const std::size_t at = (start + t) * KD + kv * hd, from = t * p.ldkv + kv * p.hs;
      if (keys) std::copy(p.k + from, p.k + from + hd, keys + at);
      if (values) std::copy(p.v + from, p.v + from + hd, values + at);
    }
}

}  // namespace

void scale_scores(const Attention& a, float* scores, std::size_t n) {
  if (a.scaling != 0.0f) {  // attn_weights = q @ k.T * scaling
    for (std::size_t i = 0; i < n; ++i) scores[i] *= a.scaling;
  } else if (a.scale && !a.scale_query) {
    const float root = std::sqrt(float(a.head_dim));
    for (std::size_t i = 0; i < n; ++i) scores[i] /= root;
  }
  if (a.softcap != 0.0f)  // Gemma 2's eager attention: / softcap, tanh, * softcap, each in float32
    for (std::size_t i = 0; i < n; ++i) scores[i] = std::tanh(scores[i] / a.softcap) * a.softcap;
}

namespace {

// A local layer's window on the scores of query rows i0..i0+rows (scores[rows, n], keys 0..n-1) at finfo.min:
// GPT-Neo's (bias ^ tril(bias, -window_size): keys j <= i - window), ModernBERT's when not causal (|i - j| <=
// local_attention / 2 = window - 1: keys j >= i + window too).
void mask_window(const Attention& a, std::size_t i0, std::size_t rows, std::size_t n, float* scores) {
  for (std::size_t r = 0; a.window && r < rows; ++r) {
    const std::size_t i = i0 + r;
    float* row = scores + r * n;
    if (i >= a.window) std::fill(row, row + std::min(n, i - a.window + 1), kFinfoMin);
    if (!a.causal && i + a.window < n) std::fill(row + i + a.window, row + n, kFinfoMin);
  }
}

// probs[R, n] = softmax(q_h · k_hᵀ / √hd, masked positions at finfo.min) for one head: query rows start..start+R-1
// (q [R, hd]) over the keys 0..n-1 (k [n, hd]); the whole text is start 0, R = n.
// GPT-2 and DistilBERT replace masked scores by finfo.min; Llama adds it, which rounds to the
// same finfo.min for any |score| < 2^103: the softmax gives those keys exactly 0 either way.
void head_probs(const Attention& a, const float* q, std::size_t ldq, const float* k, std::size_t ldk, std::size_t R,
                std::size_t start, std::size_t n, float* probs) {
  kernels::f32_gemm_nt(R, n, a.head_dim, 1.0f, q, ldq, k, ldk, nullptr, probs, n);
  scale_scores(a, probs, R * n);
  kernels::f32_score_mask mask;
  mask.causal = a.causal;
  mask.fill = kFinfoMin;
  kernels::f32_score_mask_apply(mask, start, R, n, probs, n);
  mask_window(a, start, R, n, probs);
  kernels::f32_softmax(R, n, probs, n);
}

}  // namespace

void normalize_heads(const Norm& norm, float* x, std::size_t T, std::size_t heads, std::size_t head_dim, std::size_t hs,
                     std::size_t ld) {
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t h = 0; h < heads; ++h) normalize(norm, x + t * ld + h * hs, 1, head_dim);
}

bool HeadEdits::any() const {
  return kept || writes || keys || values || std::find(off.begin(), off.end(), true) != off.end() ||
         std::any_of(value.begin(), value.end(), [](const float* v) { return v != nullptr; });
}

namespace {

// writes[H, T] = ‖v_j·W_O^h‖ for every head h and key j: v the value projection's rows (its bias in), W_O^h head h's
// rows of the output projection (no bias; Gemma 2's post-attention norm not applied). One output projection's
// multiply-adds in all; the norms' squares summed in double.
void head_writes(const Attention& a, const Projected& p, std::size_t T, float* writes) {
  const std::size_t H = a.heads, hd = a.head_dim, HD = H * hd, D = a.o.out, group = a.heads / a.kv_heads;
  const std::vector<float> W = widen(*a.o.weight);  // Conv1D [HD, D], nn.Linear [D, HD]
  std::vector<float> y(T * D);
  for (std::size_t h = 0; h < H; ++h) {
    const float* v = p.v + (h / group) * p.hs;
    if (a.o.conv1d) kernels::f32_gemm_nn(T, D, hd, v, p.ldkv, W.data() + h * hd * D, D, y.data(), D);
    else kernels::f32_gemm_nt(T, D, hd, 1.0f, v, p.ldkv, W.data() + h * hd, HD, nullptr, y.data(), D);
    for (std::size_t j = 0; j < T; ++j) {
      double sq = 0.0;
      for (std::size_t d = 0; d < D; ++d) sq += double(y[j * D + d]) * double(y[j * D + d]);
      writes[h * T + j] = float(std::sqrt(sq));
    }
  }
}

}  // namespace

void attention(const Attention& a, const float* x, std::size_t T, const HeadEdits& edits, float* probs, float* y,
               const Rope* rope) {
  std::vector<float> context(T * a.heads * a.head_dim);  // [T, H·hd]: the heads merged
  attention_context(a, x, T, edits, probs, context.data(), rope);
  linear(a.o, context.data(), T, y);  // [T, D]
}

void attention_context(const Attention& a, const float* x, std::size_t T, const HeadEdits& edits, float* probs,
                       float* context, const Rope* rope) {
  const std::size_t H = a.heads, hd = a.head_dim, HD = H * hd, group = a.heads / a.kv_heads;
  Projected p = project(a, x, T);  // q [T, H·hd], k, v [T, KV·hd]
  if (edits.writes) head_writes(a, p, T, edits.writes);
  prepare_qk(a, p, T, 0, rope);
  copy_kv(a, p, T, 0, edits.keys, edits.values);
  const auto is_off = [&](std::size_t h) { return h < edits.off.size() && edits.off[h]; };
  const auto value = [&](std::size_t h) { return h < edits.value.size() ? edits.value[h] : nullptr; };
  std::fill(context, context + T * HD, 0.0f);
  kernels::parallel_for(H, H * T * T * hd, [&](std::size_t h) {  // one head per thread at a time
    const std::size_t kv = h / group;  // repeat_kv: query head h reads key/value head h / group
    float* P = probs + h * T * T;      // [T, T]
    head_probs(a, p.q + h * p.hs, p.ldq, p.k + kv * p.hs, p.ldkv, T, 0, T, P);
    if (is_off(h) && !edits.kept) return;  // switched off: its slice of the merged output stays 0
    kernels::f32_gemm_nn(T, hd, T, P, T, p.v + kv * p.hs, p.ldkv, context + h * hd, HD);
  });
  if (edits.kept) std::copy(context, context + T * HD, edits.kept);
  for (std::size_t h = 0; h < H; ++h) {
    const float* v = value(h);
    if (!v && !is_off(h)) continue;
    for (std::size_t t = 0; t < T; ++t) {  // zeroed, or the given [T, hd]
      float* row = context + t * HD + h * hd;
      if (v) std::copy(v + t * hd, v + (t + 1) * hd, row);
      else std::fill(row, row + hd, 0.0f);
    }
  }
}

void attention_rows(const Attention& a, const float* x, std::size_t R, std::size_t start, float* keys, float* values,
                    float* context) {
  const std::size_t H = a.heads, hd = a.head_dim, HD = H * hd, KV = a.kv_heads, KD = KV * hd, T = start + R;
  const std::size_t group = H / KV;
  Projected p = project(a, x, R);  // q [R, H·hd], k, v [R, KV·hd]
  prepare_qk(a, p, R, start, nullptr);
  copy_kv(a, p, R, start, keys, values);
  std::vector<float> P(R * T);
  std::fill(context, context + R * HD, 0.0f);
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t kv = (h / group) * hd;
    head_probs(a, p.q + h * p.hs, p.ldq, keys + kv, KD, R, start, T, P.data());
    kernels::f32_gemm_nn(R, hd, T, P.data(), T, values + kv, KD, context + h * hd, HD);
  }
}

std::vector<TraceStep> attention_trace(const Attention& a, std::size_t T, std::size_t D, int layer) {
  const auto n = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  const std::size_t H = a.heads, KV = a.kv_heads, hd = a.head_dim;
  std::vector<TraceStep> steps;
  Layout q = Layout::contiguous({1, T, H * hd}), k = Layout::contiguous({1, T, KV * hd}), v = k;
  if (a.qkv.weight) {  // q, k, v: column blocks of c_attn's [1, T, 3D], views with row stride 3D
    steps.push_back({"qkv", Layout::contiguous({1, T, 3 * D})});
    q = k = v = Layout{{1, T, D}, {std::ptrdiff_t(3 * T * D), std::ptrdiff_t(3 * D), 1}};
  }
  if (a.qkv_interleaved) {  // qkv.view(1, T, H, 3·hd).transpose(1, 2).chunk(3, dim=-1): views of qkv
    const Layout heads{{1, H, T, hd}, {std::ptrdiff_t(3 * T * D), std::ptrdiff_t(3 * hd), std::ptrdiff_t(3 * D), 1}};
    for (const char* op : {"query_heads", "key_heads", "value_heads"}) steps.push_back({op, heads});
  } else {
    steps.push_back({"query", q});
    steps.push_back({"key", k});
    steps.push_back({"value", v});
    steps.push_back({"query_heads", q.view({1, n(T), n(H), n(hd)}).transpose(1, 2)});
    steps.push_back({"key_heads", k.view({1, n(T), n(KV), n(hd)}).transpose(1, 2)});
    steps.push_back({"value_heads", v.view({1, n(T), n(KV), n(hd)}).transpose(1, 2)});
  }
  if (a.q_norm.weight) {
    steps.push_back({"query_norm", Layout::contiguous({1, H, T, hd})});
    steps.push_back({"key_norm", Layout::contiguous({1, KV, T, hd})});
  }
  if (a.rotary_dim) {
    steps.push_back({"rope_query", Layout::contiguous({1, H, T, hd})});
    steps.push_back({"rope_key", Layout::contiguous({1, KV, T, hd})});
  }
  if (KV != H) {
    steps.push_back({"repeat_kv_key", Layout::contiguous({1, H, T, hd})});
    steps.push_back({"repeat_kv_value", Layout::contiguous({1, H, T, hd})});
  }
  steps.push_back({"scores", Layout::contiguous({1, H, T, T})});
  if (a.softcap != 0.0f) steps.push_back({"softcap", Layout::contiguous({1, H, T, T})});
  if (a.window) steps.push_back({"window", Layout::contiguous({1, H, T, T})});
  steps.push_back({"softmax", Layout::contiguous({1, H, T, T}), {1, H, T, T}});
  steps.push_back({"context", Layout::contiguous({1, H, T, hd})});
  steps.push_back({"merge", Layout::contiguous({1, T, H * hd})});
  steps.push_back({"output", Layout::contiguous({1, T, D})});
  for (TraceStep& s : steps) s.layer = layer;
  return steps;
}

}  // namespace mha::blocks
