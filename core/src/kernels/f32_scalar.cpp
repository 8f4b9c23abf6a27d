// Portable scalar twins of the kernels: plain loops, the numerical reference for every fast path.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "mha/kernels.hpp"

namespace mha::kernels {

void f32_score_mask_apply(const f32_score_mask& mask, std::size_t i0, std::size_t rows, std::size_t n, float* scores,
                          std::size_t ld) {
  if (!mask.add && !mask.blocked && !mask.causal) return;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(i0 + r);
    float* s = scores + r * ld;
    for (std::size_t j = 0; j < n; ++j) s[j] = mask.apply(i, static_cast<std::ptrdiff_t>(j), s[j]);
  }
}

namespace scalar {

void f32_gemm_nt(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda,
                 const float* B, std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  // C[i,j] = alpha * Σ_k A[i,k]·B[j,k] + bias[j]: row i of A against row j of B, both contiguous in k.
  for (std::size_t i = 0; i < M; ++i) {
    const float* a = A + i * lda;
    for (std::size_t j = 0; j < N; ++j) {
      const float* b = B + j * ldb;
      float acc = 0.0f;
      for (std::size_t k = 0; k < K; ++k) acc += a[k] * b[k];
      C[i * ldc + j] = alpha * acc + (bias ? bias[j] : 0.0f);
    }
  }
}

void f32_gemm_nn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, float* C, std::size_t ldc) {
  // C[i,:] = Σ_k A[i,k]·B[k,:]: i-k-j order so the inner loop walks rows of B and C contiguously.
  for (std::size_t i = 0; i < M; ++i) {
    float* c = C + i * ldc;
    for (std::size_t j = 0; j < N; ++j) c[j] = 0.0f;
    for (std::size_t k = 0; k < K; ++k) {
      const float a = A[i * lda + k];
      const float* b = B + k * ldb;
      for (std::size_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

void f32_gemm_tn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, bool accumulate, float* C, std::size_t ldc) {
  // C[i,:] (+)= Σ_k A[k,i]·B[k,:]: the sum is formed on its own and then added, as PyTorch adds a
  // fresh gradient to the accumulated one.
  std::vector<float> row(N);
  for (std::size_t i = 0; i < M; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (std::size_t k = 0; k < K; ++k) {
      const float a = A[k * lda + i];
      const float* b = B + k * ldb;
      for (std::size_t j = 0; j < N; ++j) row[j] += a * b[j];
    }
    float* c = C + i * ldc;
    for (std::size_t j = 0; j < N; ++j) c[j] = accumulate ? c[j] + row[j] : row[j];
  }
}

void f32_softmax_backward(std::size_t rows, std::size_t n, const float* y, std::size_t ldy, const float* dy,
                          std::size_t lddy, float* dx, std::size_t lddx) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* yr = y + r * ldy;
    const float* gr = dy + r * lddy;
    float dot = 0.0f;
    for (std::size_t j = 0; j < n; ++j) dot += gr[j] * yr[j];
    float* xr = dx + r * lddx;
    for (std::size_t j = 0; j < n; ++j) xr[j] = (gr[j] - dot) * yr[j];
  }
}

namespace {

// One row of softmax in place. Subtracting the row max keeps exp() in (0, 1] (no overflow for
// huge inputs). A row of all -inf has max -inf, so x - max = -inf - (-inf) = NaN everywhere:
// the NaN row PyTorch produces. A -inf entry in a row with a finite max gives exp(-inf) = 0.
void softmax_row(std::size_t n, float* x) {
  float m = -std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < n; ++j) m = x[j] > m ? x[j] : m;
  if (m == -std::numeric_limits<float>::infinity()) {
    for (std::size_t j = 0; j < n; ++j) x[j] = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  float sum = 0.0f;
  for (std::size_t j = 0; j < n; ++j) {
    x[j] = std::exp(x[j] - m);
    sum += x[j];
  }
  const float inv = 1.0f / sum;
  for (std::size_t j = 0; j < n; ++j) x[j] *= inv;
}

}  // namespace

void f32_softmax(std::size_t rows, std::size_t n, float* x, std::size_t ld) {
  for (std::size_t r = 0; r < rows; ++r) softmax_row(n, x + r * ld);
}

void f32_attention_online(std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, float scale, const float* q,
                          std::size_t ldq, const float* k, std::size_t ldk, const float* v, std::size_t ldv,
                          const f32_score_mask& mask, float* out, std::size_t ldo) {
  // One query row at a time over tiles of kKvTile keys, with the online-softmax recurrence the
  // SIMD kernel runs (running max m, running sum l, output o; m' the max after the tile), on
  // scores in log2 units (s_j = score_log2 of the masked score, so 2^(s_j - m') = exp(x_j - max)):
  //   p_j = 2^(s_j - m'),  l = l·2^(m - m') + Σ_j p_j,  o = o·2^(m - m') + Σ_j p_j·v_j
  // and out = o / l. While every score so far is -inf, the reference is 0 instead of m' = -inf,
  // so p = 0 and 2^(m - ref) = 0 (not NaN); a row that stays all -inf ends with 0/0 = NaN, as
  // PyTorch's softmax. A finite fill is an ordinary score: a fully masked row is uniform.
  // The SIMD kernel's groups of moderate norms take a fixed reference instead of m, and their p carry a
  // constant factor that l cancels; its exponentials have a relative error <= 1.9e-7 (std::exp2 here).
  constexpr std::size_t kKvTile = 128;
  const float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> s(std::min(kKvTile, Skv)), o(dv);
  for (std::size_t i = 0; i < Sq; ++i) {
    float* oi = out + i * ldo;
    if (Skv == 0) {  // softmax over nothing, summed over nothing: zeros
      std::fill(oi, oi + dv, 0.0f);
      continue;
    }
    const float* qi = q + i * ldq;
    float m = kNegInf, l = 0.0f;
    std::fill(o.begin(), o.end(), 0.0f);
    for (std::size_t j0 = 0; j0 < Skv; j0 += kKvTile) {
      const std::size_t nb = std::min(kKvTile, Skv - j0);
      float bm = kNegInf;
      for (std::size_t jj = 0; jj < nb; ++jj) {
        const float* kj = k + (j0 + jj) * ldk;
        float acc = 0.0f;
        for (std::size_t c = 0; c < dk; ++c) acc += qi[c] * kj[c];
        s[jj] = score_log2(mask.apply(std::ptrdiff_t(i), std::ptrdiff_t(j0 + jj), scale * acc));
        bm = s[jj] > bm ? s[jj] : bm;
      }
      const float mn = std::max(m, bm);
      const float ref = mn == kNegInf ? 0.0f : mn;
      const float corr = std::exp2(m - ref);
      float sum = 0.0f;
      for (std::size_t jj = 0; jj < nb; ++jj) {
        s[jj] = std::exp2(s[jj] - ref);
        sum += s[jj];
      }
      l = l * corr + sum;
      for (std::size_t c = 0; c < dv; ++c) o[c] *= corr;
      for (std::size_t jj = 0; jj < nb; ++jj) {
        const float* vj = v + (j0 + jj) * ldv;
        for (std::size_t c = 0; c < dv; ++c) o[c] += s[jj] * vj[c];
      }
      m = mn;
    }
    for (std::size_t c = 0; c < dv; ++c) oi[c] = o[c] / l;
  }
}

// The activations exactly as transformers writes them, in float32 with the C library's erf, tanh, exp.
void f32_vgelu_erf(std::size_t n, const float* x, float* y) {
  constexpr float kSqrtHalf = 0.70710678118654752f;
  for (std::size_t i = 0; i < n; ++i) y[i] = x[i] * 0.5f * (1.0f + std::erf(x[i] * kSqrtHalf));
}

void f32_vgelu_tanh(std::size_t n, const float* x, float* y) {
  constexpr float kSqrt2OverPi = 0.79788456080286536f;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
  }
}

void f32_vsilu(std::size_t n, const float* x, float* y) {
  for (std::size_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

namespace {

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// IEEE binary16 (1 sign, 5 exponent, 10 mantissa bits, bias 15) to float32 (bias 127).
float f16_one(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return from_bits(sign | 0x7F800000u | (mantissa << 13));            // inf, NaN
  if (exponent != 0) return from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));  // normal
  const float magnitude = float(mantissa) * 0x1p-24f;  // ±0 and subnormals: mantissa · 2^-24, exact
  return sign ? -magnitude : magnitude;
}

}  // namespace

void f16_to_f32(std::size_t n, const std::uint16_t* src, float* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = f16_one(src[i]);
}

// bfloat16 is the top half of a float32.
void bf16_to_f32(std::size_t n, const std::uint16_t* src, float* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = from_bits(std::uint32_t(src[i]) << 16);
}

}  // namespace scalar
}  // namespace mha::kernels
