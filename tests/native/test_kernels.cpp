// Kernel tests: the dispatched kernels (SIMD128 under -msimd128) and the scalar twins against
// plain double-precision loops, at the tile boundaries of the SIMD code (MR = 4 rows, NR = 8
// columns / query lanes; attention tiles of 32, 64 or 256 queries × 128 keys) and at odd sizes.
//
// Tolerance: |got - ref| <= 1e-5 · (|ref| + mag), where mag is the sum of the absolute values of
// the terms that formed ref (Σ|a·b| for a dot product). Relative 1e-5 for well-conditioned
// values, and an absolute floor scaled to the inputs where cancellation leaves ref near zero.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "mha/kernels.hpp"

namespace k = mha::kernels;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kRel = 1e-5;

std::vector<float> random_vec(std::size_t n, std::uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// Exact-size storage for rows×cols with row stride ld: no slack after the last row, so any
// over-read past the end is a heap overflow under AddressSanitizer.
std::size_t extent(std::size_t rows, std::size_t cols, std::size_t ld) {
  return rows == 0 ? 0 : (rows - 1) * ld + cols;
}

// Per-element checks run in hot loops: Catch's machinery (INFO, REQUIRE) only runs on failure.
#define REQUIRE_CHEAP(cond)     \
  do {                          \
    if (!(cond)) REQUIRE(cond); \
  } while (0)

bool close(double got, double ref, double mag) {
  if (std::isnan(ref)) return std::isnan(got);
  return std::fabs(got - ref) <= kRel * (std::fabs(ref) + mag);
}

struct GemmCase {
  std::size_t M, N, K;
};

// The gemm reference in double, with the magnitude Σ|alpha·a·b| + |bias| of each output.
void ref_gemm(bool nt, const GemmCase& g, float alpha, const std::vector<float>& A, std::size_t lda,
              const std::vector<float>& B, std::size_t ldb, const float* bias, std::vector<double>& ref,
              std::vector<double>& mag) {
  ref.assign(g.M * g.N, 0.0);
  mag.assign(g.M * g.N, 0.0);
  for (std::size_t i = 0; i < g.M; ++i)
    for (std::size_t j = 0; j < g.N; ++j) {
      double s = 0.0, m = 0.0;
      for (std::size_t kk = 0; kk < g.K; ++kk) {
        const double b = nt ? B[j * ldb + kk] : B[kk * ldb + j];
        s += double(A[i * lda + kk]) * b;
        m += std::fabs(double(A[i * lda + kk]) * b);
      }
      ref[i * g.N + j] = alpha * s + (bias ? bias[j] : 0.0);
      mag[i * g.N + j] = std::fabs(alpha) * m + (bias ? std::fabs(bias[j]) : 0.0);
    }
}

using GemmFn = void (*)(bool nt, const GemmCase&, float alpha, const float* A, std::size_t lda, const float* B,
                        std::size_t ldb, const float* bias, float* C, std::size_t ldc);

void run_dispatched(bool nt, const GemmCase& g, float alpha, const float* A, std::size_t lda, const float* B,
                    std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  if (nt) k::f32_gemm_nt(g.M, g.N, g.K, alpha, A, lda, B, ldb, bias, C, ldc);
  else k::f32_gemm_nn(g.M, g.N, g.K, A, lda, B, ldb, C, ldc);
}

void run_scalar(bool nt, const GemmCase& g, float alpha, const float* A, std::size_t lda, const float* B,
                std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  if (nt) k::scalar::f32_gemm_nt(g.M, g.N, g.K, alpha, A, lda, B, ldb, bias, C, ldc);
  else k::scalar::f32_gemm_nn(g.M, g.N, g.K, A, lda, B, ldb, C, ldc);
}

// Runs both implementations on one case; checks each against double and the fast one against
// the scalar twin, and that the padding between rows of C is untouched.
void check_gemm(bool nt, const GemmCase& g, float alpha, bool with_bias, std::size_t pad) {
  const std::size_t lda = g.K + pad, ldb = (nt ? g.K : g.N) + pad + 1, ldc = g.N + pad + 2;
  const auto A = random_vec(extent(g.M, g.K, lda), 1 + std::uint32_t(g.M * 131 + g.K));
  const auto B = nt ? random_vec(extent(g.N, g.K, ldb), 7 + std::uint32_t(g.N * 17 + g.K))
                    : random_vec(extent(g.K, g.N, ldb), 9 + std::uint32_t(g.N * 17 + g.K));
  const auto bias = random_vec(g.N, 5 + std::uint32_t(g.N), -2.0f, 2.0f);
  const float* b = (with_bias && nt) ? bias.data() : nullptr;  // gemm_nn has no alpha nor bias
  if (!nt) alpha = 1.0f;
  std::vector<double> ref, mag;
  ref_gemm(nt, g, alpha, A, lda, B, ldb, b, ref, mag);

  const float sentinel = 12345.0f;
  std::vector<float> C[2];
  const GemmFn fns[2] = {run_dispatched, run_scalar};
  for (int f = 0; f < 2; ++f) {
    C[f].assign(extent(g.M, g.N, ldc), sentinel);
    fns[f](nt, g, alpha, A.data(), lda, B.data(), ldb, b, C[f].data(), ldc);
  }
  for (std::size_t i = 0; i < g.M; ++i)
    for (std::size_t j = 0; j < ldc && i * ldc + j < C[0].size(); ++j) {
      const std::size_t at = i * ldc + j;
      if (j >= g.N) {
        REQUIRE_CHEAP(C[0][at] == sentinel);
        REQUIRE_CHEAP(C[1][at] == sentinel);
        continue;
      }
      const double r = ref[i * g.N + j], m = mag[i * g.N + j];
      if (close(C[0][at], r, m) && close(C[1][at], r, m) && close(C[0][at], C[1][at], m)) continue;
      INFO((nt ? "nt" : "nn") << " M=" << g.M << " N=" << g.N << " K=" << g.K << " i=" << i << " j=" << j
                              << " fast=" << C[0][at] << " scalar=" << C[1][at] << " ref=" << r);
      REQUIRE(close(C[0][at], r, m));
      REQUIRE(close(C[1][at], r, m));
      REQUIRE(close(C[0][at], C[1][at], m));
    }
}

// Sizes around the SIMD tiles (MR = 4, NR = 8) and odd sizes.
const std::vector<std::size_t> kMs = {1, 2, 3, 4, 5, 8, 13, 17, 33};
const std::vector<std::size_t> kNs = {1, 3, 7, 8, 9, 16, 17, 25, 33, 65};
const std::vector<std::size_t> kKs = {0, 1, 3, 4, 5, 8, 17, 65};

}  // namespace

TEST_CASE("implementation name", "[kernels]") {
  const std::string name = k::implementation();
#if defined(__wasm_simd128__)
  CHECK(name == "wasmsimd");
#elif !defined(__EMSCRIPTEN__) && __has_include(<Eigen/Core>)
  CHECK(name == "eigen");
#else
  CHECK(name == "scalar");
#endif
}

TEST_CASE("gemm_nt at tile boundaries with alpha, bias and strides", "[kernels][gemm]") {
  for (auto M : kMs)
    for (auto N : kNs)
      for (auto K : kKs) {
        check_gemm(true, {M, N, K}, 0.125f, true, 3);
        check_gemm(true, {M, N, K}, 1.0f, false, 0);
      }
}

TEST_CASE("gemm_nn at tile boundaries with strides", "[kernels][gemm]") {
  for (auto M : kMs)
    for (auto N : kNs)
      for (auto K : kKs) {
        check_gemm(false, {M, N, K}, 1.0f, false, 3);
        check_gemm(false, {M, N, K}, 1.0f, false, 0);
      }
}

TEST_CASE("gemm larger shapes (several row blocks, panels and packed column blocks)", "[kernels][gemm]") {
  // The last two: op(B) packed in several column blocks (N·K above the 256 Ki floats of one block).
  for (const GemmCase g : {GemmCase{300, 33, 257}, GemmCase{129, 127, 129}, GemmCase{65, 64, 512}, GemmCase{16, 64, 64},
                           GemmCase{2, 385, 3}, GemmCase{9, 700, 1030}, GemmCase{5, 70, 8000}})
    for (bool nt : {true, false}) check_gemm(nt, g, -0.5f, true, 5);
}

TEST_CASE("gemv (M <= 4) across its blocks of 16 rows of B", "[kernels][gemm]") {
  for (std::size_t M : {1, 2, 3, 4})
    for (std::size_t N : {4, 19, 260, 531})
      for (std::size_t K : {15, 16, 17, 32, 49, 129}) {
        check_gemm(false, {M, N, K}, 1.0f, false, 3);
        check_gemm(true, {M, N, K}, 0.5f, true, 0);
      }
}

TEST_CASE("gemm with zero sizes does nothing", "[kernels][gemm]") {
  float c = 7.0f;
  const float a = 1.0f, b = 2.0f;
  k::f32_gemm_nt(0, 1, 1, 1.0f, &a, 1, &b, 1, nullptr, &c, 1);
  k::f32_gemm_nt(1, 0, 1, 1.0f, &a, 1, &b, 1, nullptr, &c, 1);
  k::f32_gemm_nn(0, 1, 1, &a, 1, &b, 1, &c, 1);
  k::f32_gemm_nn(1, 0, 1, &a, 1, &b, 1, &c, 1);
  CHECK(c == 7.0f);
}

namespace {

// softmax in double: all -inf row → NaN row.
std::vector<double> ref_softmax_row(const float* x, std::size_t n) {
  double m = -INFINITY;
  for (std::size_t j = 0; j < n; ++j) m = std::max(m, double(x[j]));
  std::vector<double> y(n);
  if (m == -INFINITY) {
    for (auto& v : y) v = NAN;
    return y;
  }
  double s = 0.0;
  for (std::size_t j = 0; j < n; ++j) s += (y[j] = std::exp(double(x[j]) - m));
  for (auto& v : y) v /= s;
  return y;
}

// rows of length n with stride ld; checks both implementations, padding untouched.
void check_softmax(const std::vector<float>& x0, std::size_t rows, std::size_t n, std::size_t ld) {
  std::vector<float> y[2] = {x0, x0};
  k::f32_softmax(rows, n, y[0].data(), ld);
  k::scalar::f32_softmax(rows, n, y[1].data(), ld);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto ref = ref_softmax_row(x0.data() + r * ld, n);
    for (std::size_t j = 0; j < ld && r * ld + j < x0.size(); ++j) {
      const std::size_t at = r * ld + j;
      if (j >= n) {
        REQUIRE_CHEAP(y[0][at] == x0[at]);
        continue;
      }
      const double tol = 1e-3 / double(n);
      if (close(y[0][at], ref[j], tol) && close(y[1][at], ref[j], tol) && close(y[0][at], y[1][at], tol) &&
          (ref[j] != 0.0 || y[0][at] == 0.0f))
        continue;
      INFO("n=" << n << " r=" << r << " j=" << j << " x=" << x0[at] << " fast=" << y[0][at] << " scalar=" << y[1][at]
                << " ref=" << ref[j]);
      REQUIRE(close(y[0][at], ref[j], tol));
      REQUIRE(close(y[1][at], ref[j], tol));
      REQUIRE(close(y[0][at], y[1][at], tol));
      if (ref[j] == 0.0) REQUIRE(y[0][at] == 0.0f);
    }
  }
}

}  // namespace

TEST_CASE("softmax at tile boundaries and long rows", "[kernels][softmax]") {
  for (std::size_t n : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 25, 33, 65, 127, 128, 129, 4099}) {
    const std::size_t rows = 3, ld = n + 3;
    check_softmax(random_vec(extent(rows, n, ld), std::uint32_t(n), -8.0f, 8.0f), rows, n, ld);
    check_softmax(random_vec(extent(rows, n, n), std::uint32_t(n) + 1, -8.0f, 8.0f), rows, n, n);
  }
}

TEST_CASE("softmax special rows: -inf, all -inf, huge values", "[kernels][softmax]") {
  for (std::size_t n : {1, 3, 4, 5, 8, 9, 17, 33}) {
    const std::size_t rows = 6, ld = n + 1;
    auto x = random_vec(extent(rows, n, ld), 99 + std::uint32_t(n), -4.0f, 4.0f);
    for (std::size_t j = 0; j < n; ++j) {
      x[0 * ld + j] = -kInf;                          // all -inf → NaN row
      if (j % 2 == 1) x[1 * ld + j] = -kInf;          // some -inf → exactly 0 there
      x[2 * ld + j] = (j % 3 == 0) ? 3e38f : -3e38f;  // x - max overflows to -inf → 0
      x[3 * ld + j] = 1e30f + float(j) * 1e24f;       // huge, no overflow
      x[4 * ld + j] = -1e9f;                          // uniform
    }
    x[5 * ld + n - 1] = -kInf;  // -inf in the tail lane
    check_softmax(x, rows, n, ld);
    std::vector<float> y = x;
    k::f32_softmax(rows, n, y.data(), ld);
    for (std::size_t j = 0; j < n; ++j) {
      CHECK(std::isnan(y[0 * ld + j]));
      if (j % 2 == 1) CHECK(y[1 * ld + j] == 0.0f);
      CHECK(std::isfinite(y[2 * ld + j]));
      CHECK(std::isfinite(y[3 * ld + j]));
      CHECK_THAT(y[4 * ld + j], Catch::Matchers::WithinRel(1.0f / float(n), 1e-5f));
    }
    if (n > 1) CHECK(y[5 * ld + n - 1] == 0.0f);
  }
}

TEST_CASE("softmax with zero rows or zero length does nothing", "[kernels][softmax]") {
  float x = 3.0f;
  k::f32_softmax(0, 1, &x, 1);
  k::f32_softmax(1, 0, &x, 1);
  CHECK(x == 3.0f);
}

namespace {

struct AttnCase {
  std::size_t Sq, Skv, dk, dv;
};

enum MaskKind : unsigned {
  kAdd = 1,        // additive float mask, full [Sq, Skv]
  kAddBcast = 2,   // additive mask broadcast over queries (add_ld = 0)
  kBlocked = 4,    // random boolean mask, full
  kBlockedBc = 8,  // boolean mask broadcast over queries (blocked_ld = 0)
  kCausal = 16,
  kBlockRows = 32,  // some queries see every key blocked
};

// The materialized reference in double: scores, masked_fill, softmax, P·V.
// mag[i, c] = Σ_j p_j |v_jc| bounds the rounding of the weighted sum.
void ref_attention(const AttnCase& a, float scale, const std::vector<float>& q, std::size_t ldq,
                   const std::vector<float>& kk, std::size_t ldk, const std::vector<float>& v, std::size_t ldv,
                   const k::f32_score_mask& m, std::vector<double>& out, std::vector<double>& mag) {
  out.assign(a.Sq * a.dv, 0.0);
  mag.assign(a.Sq * a.dv, 0.0);
  std::vector<float> s(a.Skv);
  for (std::size_t i = 0; i < a.Sq; ++i) {
    for (std::size_t j = 0; j < a.Skv; ++j) {
      double d = 0.0;
      for (std::size_t c = 0; c < a.dk; ++c) d += double(q[i * ldq + c]) * kk[j * ldk + c];
      d *= scale;
      if (m.add) d += m.add[std::ptrdiff_t(i) * m.add_ld + std::ptrdiff_t(j)];
      const bool blocked =
          (m.blocked && m.blocked[std::ptrdiff_t(i) * m.blocked_ld + std::ptrdiff_t(j)]) || (m.causal && j > i);
      s[j] = blocked ? m.fill : float(d);
    }
    const auto p = ref_softmax_row(s.data(), a.Skv);
    for (std::size_t c = 0; c < a.dv; ++c) {
      double o = 0.0, g = 0.0;
      for (std::size_t j = 0; j < a.Skv; ++j) {
        o += p[j] * v[j * ldv + c];
        g += std::fabs(p[j] * v[j * ldv + c]);
      }
      out[i * a.dv + c] = o;
      mag[i * a.dv + c] = g;
    }
  }
}

// Changes the random queries and keys before a check (rows ldq and ldk apart).
using ShapeInputs = void (*)(const AttnCase& a, std::vector<float>& q, std::size_t ldq, std::vector<float>& kk,
                             std::size_t ldk);

void check_attention(const AttnCase& a, unsigned kinds, float fill, bool compare_scalar = true,
                     ShapeInputs shape_inputs = nullptr, float v_scale = 1.0f) {
  const std::size_t ldq = a.dk + 3, ldk = a.dk + 1, ldv = a.dv + 2, ldo = a.dv + 5;
  const std::uint32_t seed = std::uint32_t(a.Sq * 7 + a.Skv * 13 + a.dk * 3 + a.dv + kinds);
  auto q = random_vec(extent(a.Sq, a.dk, ldq), seed, -2.0f, 2.0f);
  auto kk = random_vec(extent(a.Skv, a.dk, ldk), seed + 1, -2.0f, 2.0f);
  if (shape_inputs) shape_inputs(a, q, ldq, kk, ldk);
  const auto v = random_vec(extent(a.Skv, a.dv, ldv), seed + 2, -3.0f * v_scale, 3.0f * v_scale);
  const float scale = 1.0f / std::sqrt(float(std::max<std::size_t>(a.dk, 1)));

  k::f32_score_mask m;
  m.fill = fill;
  m.causal = (kinds & kCausal) != 0;
  std::vector<float> add;
  if (kinds & (kAdd | kAddBcast)) {
    const bool bc = (kinds & kAddBcast) != 0;
    m.add_ld = bc ? 0 : std::ptrdiff_t(a.Skv + 1);
    add = random_vec(bc ? a.Skv : extent(a.Sq, a.Skv, a.Skv + 1), seed + 3, -1.0f, 1.0f);
    for (std::size_t t = 0; t < add.size(); t += 5) add[t] = -kInf;  // additive -inf mask too
    m.add = add.data();
  }
  std::vector<std::uint8_t> blk;
  if (kinds & (kBlocked | kBlockedBc | kBlockRows)) {
    const bool bc = (kinds & kBlockedBc) != 0;
    m.blocked_ld = bc ? 0 : std::ptrdiff_t(a.Skv + 2);
    blk.assign(bc ? a.Skv : extent(a.Sq, a.Skv, a.Skv + 2), 0);
    std::mt19937 gen(seed + 4);
    if (kinds & (kBlocked | kBlockedBc))
      for (auto& b : blk) b = (gen() % 3 == 0) ? 1 : 0;
    if ((kinds & kBlockRows) && !bc)
      for (std::size_t i = 0; i < a.Sq; i += 3)  // every third query: all keys blocked
        for (std::size_t j = 0; j < a.Skv; ++j) blk[i * (a.Skv + 2) + j] = 1;
    m.blocked = blk.data();
  }

  std::vector<double> ref, mag;
  ref_attention(a, scale, q, ldq, kk, ldk, v, ldv, m, ref, mag);
  const float sentinel = -777.0f;
  std::vector<float> out[2];
  for (int f = 0; f < (compare_scalar ? 2 : 1); ++f) {
    out[f].assign(extent(a.Sq, a.dv, ldo), sentinel);
    (f == 0 ? k::f32_attention_online : k::scalar::f32_attention_online)(
        a.Sq, a.Skv, a.dk, a.dv, scale, q.data(), ldq, kk.data(), ldk, v.data(), ldv, m, out[f].data(), ldo);
  }
  for (std::size_t i = 0; i < a.Sq; ++i)
    for (std::size_t c = 0; c < ldo && i * ldo + c < out[0].size(); ++c) {
      const std::size_t at = i * ldo + c;
      if (c >= a.dv) {
        REQUIRE_CHEAP(out[0][at] == sentinel);
        continue;
      }
      const double r = ref[i * a.dv + c], g = mag[i * a.dv + c];
      if (close(out[0][at], r, g) && (!compare_scalar || (close(out[1][at], r, g) && close(out[0][at], out[1][at], g))))
        continue;
      INFO("Sq=" << a.Sq << " Skv=" << a.Skv << " dk=" << a.dk << " dv=" << a.dv << " kinds=" << kinds
                 << " fill=" << fill << " i=" << i << " c=" << c << " fast=" << out[0][at] << " ref=" << r);
      REQUIRE(close(out[0][at], r, g));
      if (compare_scalar) {
        INFO("scalar=" << out[1][at]);
        REQUIRE(close(out[1][at], r, g));
        REQUIRE(close(out[0][at], out[1][at], g));
      }
    }
}

// Query groups of 8 lanes, 4-key / 4-column microkernel rows, 128-key tiles.
const std::vector<AttnCase> kAttnCases = {
    {1, 1, 1, 1},      {3, 5, 3, 5},     {7, 7, 4, 4},       {8, 8, 8, 8},       {9, 9, 5, 3},     {16, 17, 16, 16},
    {17, 33, 17, 9},   {25, 13, 64, 64}, {33, 65, 64, 65},   {8, 127, 64, 64},   {9, 128, 33, 31}, {13, 129, 64, 64},
    {65, 256, 16, 16}, {7, 385, 64, 64}, {129, 129, 32, 32}, {128, 128, 64, 64}, {40, 3, 8, 8}};

}  // namespace

TEST_CASE("attention_online without mask", "[kernels][attention]") {
  for (const auto& a : kAttnCases) check_attention(a, 0, -kInf);
}

TEST_CASE("attention_online with every mask feature", "[kernels][attention]") {
  for (const auto& a : kAttnCases)
    for (float fill : {-kInf, -1e9f}) {
      check_attention(a, kAdd, fill);
      check_attention(a, kAddBcast, fill);
      check_attention(a, kBlocked, fill);
      check_attention(a, kBlockedBc, fill);
      check_attention(a, kCausal, fill);
      check_attention(a, kBlockRows, fill);
      check_attention(a, kAdd | kBlocked | kCausal, fill);
      check_attention(a, kAddBcast | kBlockedBc | kCausal, fill);
      check_attention(a, kBlockRows | kCausal, fill);
    }
}

// A fill of float32's lowest (torch.finfo(torch.float32).min, a common masked_fill value) stays a finite
// score in the kernels' log2 units (score_log2 clamps it), so its fully masked row is uniform too.
TEST_CASE("attention_online fully blocked rows: NaN with -inf, mean of v with -1e9 and float32's lowest",
          "[kernels][attention]") {
  for (const AttnCase a : {AttnCase{5, 9, 4, 6}, AttnCase{12, 130, 64, 64}}) {
    const auto q = random_vec(a.Sq * a.dk, 11), kk = random_vec(a.Skv * a.dk, 12);
    const auto v = random_vec(a.Skv * a.dv, 13);
    std::vector<std::uint8_t> blk(a.Sq * a.Skv, 0);
    for (std::size_t j = 0; j < a.Skv; ++j) blk[1 * a.Skv + j] = 1;  // query 1 sees nothing
    for (float fill : {-kInf, -1e9f, -3.40282347e38f})
      for (bool causal : {false, true}) {
        k::f32_score_mask m;
        m.blocked = blk.data();
        m.blocked_ld = std::ptrdiff_t(a.Skv);
        m.fill = fill;
        m.causal = causal;
        for (int f = 0; f < 2; ++f) {
          std::vector<float> out(a.Sq * a.dv);
          (f == 0 ? k::f32_attention_online : k::scalar::f32_attention_online)(
              a.Sq, a.Skv, a.dk, a.dv, 0.5f, q.data(), a.dk, kk.data(), a.dk, v.data(), a.dv, m, out.data(), a.dv);
          for (std::size_t c = 0; c < a.dv; ++c) {
            const float o = out[1 * a.dv + c];
            if (fill == -kInf) {
              CHECK(std::isnan(o));
            } else {
              double mean = 0.0;
              for (std::size_t j = 0; j < a.Skv; ++j) mean += v[j * a.dv + c];
              mean /= double(a.Skv);
              CHECK_THAT(o, Catch::Matchers::WithinAbs(mean, 1e-5));
            }
            CHECK(std::isfinite(out[0 * a.dv + c]));
            CHECK(std::isfinite(out[2 * a.dv + c]));
          }
        }
      }
  }
}

// The online kernel's tiles: groups of 8 queries, query tiles of 32 (Sq < 192), 64 (Sq < 768) or
// 256 queries, key tiles of 128. Every boundary on each side, with the masks whose handling
// depends on the tile (causal skips, fully masked rows, finite fills).
TEST_CASE("attention_online at every tile boundary", "[kernels][attention]") {
  for (std::size_t Sq : {1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 191, 192, 193, 255, 256, 257, 767, 768, 769})
    for (std::size_t Skv : {1, 4, 127, 128, 129, 255, 256, 257}) {
      const AttnCase a{Sq, Skv, 5, 6};
      check_attention(a, 0, -kInf);
      for (float fill : {-kInf, -1e9f}) {
        check_attention(a, kCausal, fill);
        check_attention(a, kBlockRows | kCausal, fill);
        check_attention(a, kAdd | kBlocked, fill);
      }
    }
}

// Square sequences around the 64-query tile and past 2048 (the long-sequence benchmark's largest),
// at the benchmark's head width.
TEST_CASE("attention_online at S = 1, 63, 64, 65, 2049", "[kernels][attention]") {
  for (std::size_t S : {1, 63, 64, 65, 2049}) {
    check_attention({S, S, 32, 32}, 0, -kInf);
    check_attention({S, S, 32, 32}, kCausal, -1e9f);
    if (S < 2049) check_attention({S, S, 32, 32}, kBlockRows | kCausal | kAdd, -kInf);
  }
}

// The SIMD kernel takes a group of 8 queries through one of two references: the scores' bound
// |q|·max|k| when it is at most 60 in log2 units (moderate norms, as the random inputs above), else
// the running max. A key of norm 50·√dk pointing away from every query (queries positive, the key
// all -50) makes that bound too large without large scores; queries set to zero in every other group
// of 8 keep those groups bounded, so one call mixes both references, at every tile boundary.
void away_key_every_other_group(const AttnCase& a, std::vector<float>& q, std::size_t ldq, std::vector<float>& kk,
                                std::size_t ldk) {
  for (std::size_t i = 0; i < a.Sq; ++i)
    for (std::size_t c = 0; c < a.dk; ++c) {
      float& x = q[i * ldq + c];
      x = (i / 8) % 2 ? 0.25f + std::fabs(x) : 0.0f;
    }
  for (std::size_t c = 0; c < a.dk; ++c) kk[(a.Skv / 2) * ldk + c] = -50.0f;
}

void away_key(const AttnCase& a, std::vector<float>& q, std::size_t ldq, std::vector<float>& kk, std::size_t ldk) {
  for (std::size_t i = 0; i < a.Sq; ++i)
    for (std::size_t c = 0; c < a.dk; ++c) q[i * ldq + c] = 0.25f + std::fabs(q[i * ldq + c]);
  for (std::size_t c = 0; c < a.dk; ++c) kk[(a.Skv / 2) * ldk + c] = -50.0f;
}

TEST_CASE("attention_online with bounded and running-max references, at every tile boundary", "[kernels][attention]") {
  for (std::size_t Sq : {1, 8, 9, 31, 32, 33, 63, 64, 65, 255, 256, 257, 769})
    for (std::size_t Skv : {1, 4, 127, 128, 129, 257}) {
      for (ShapeInputs shape : {away_key, away_key_every_other_group}) {
        check_attention({Sq, Skv, 5, 6}, 0, -kInf, true, shape);
        check_attention({Sq, Skv, 32, 8}, kCausal, -kInf, true, shape);
        check_attention({Sq, Skv, 5, 6}, kCausal, -1e9f, true, shape);
      }
    }
}

// Every score -41.4 (q = -6, k = 6.9, dk = 1: 59.7 in log2 units, within a bound of 60).
void scores_near_fill(const AttnCase& a, std::vector<float>& q, std::size_t ldq, std::vector<float>& kk,
                      std::size_t ldk) {
  for (std::size_t i = 0; i < a.Sq; ++i) q[i * ldq] = -6.0f;
  for (std::size_t j = 0; j < a.Skv; ++j) kk[j * ldk] = 6.9f;
}

// A finite causal fill close to the scores weighs (the keys after the diagonal count), and V of 1e-7
// behind scores far below their bound keeps float's precision: the bounded reference must give way
// (the SIMD kernel weighed those keys 0, 24% off at S = 1000, and lost V's low bits: 0.24% at 1e-7).
TEST_CASE("attention_online with a causal fill near the scores, and small values behind low scores",
          "[kernels][attention]") {
  for (std::size_t S : {9, 200, 257}) {
    check_attention({S, S, 1, 4}, kCausal, -46.5f, true, scores_near_fill);
    check_attention({S, S, 1, 4}, kCausal, -44.0f, true, scores_near_fill);
    for (float v_scale : {1e-7f, 1e-10f}) check_attention({S, S, 1, 4}, 0, -kInf, true, scores_near_fill, v_scale);
  }
}

// NaN in a key makes every row NaN, in a query its own row, as in PyTorch (a NaN score makes its
// softmax row NaN); the other rows stay finite. Both references: the random inputs are bounded, and
// the away key makes them unbounded.
TEST_CASE("attention_online NaN inputs give NaN rows with either reference", "[kernels][attention]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (bool bounded : {true, false})
    for (bool causal : {false, true}) {
      const AttnCase a{40, 300, 32, 16};
      auto q = random_vec(a.Sq * a.dk, 31), kk = random_vec(a.Skv * a.dk, 32), v = random_vec(a.Skv * a.dv, 33);
      if (!bounded) away_key(a, q, a.dk, kk, a.dk);
      k::f32_score_mask m;
      m.causal = causal;
      for (int which = 0; which < 2; ++which) {
        auto qn = q, kn = kk;
        if (which == 0) qn[17 * a.dk + 3] = nan;  // query 17
        else kn[5 * a.dk + 1] = nan;              // key 5: seen by every query from 5 on (causal), else all
        for (int f = 0; f < 2; ++f) {
          std::vector<float> out(a.Sq * a.dv);
          (f == 0 ? k::f32_attention_online : k::scalar::f32_attention_online)(
              a.Sq, a.Skv, a.dk, a.dv, 0.125f, qn.data(), a.dk, kn.data(), a.dk, v.data(), a.dv, m, out.data(), a.dv);
          for (std::size_t i = 0; i < a.Sq; ++i) {
            const bool sees_nan = which == 0 ? i == 17 : (!causal || i >= 5);
            for (std::size_t c = 0; c < a.dv; ++c) REQUIRE_CHEAP(std::isnan(out[i * a.dv + c]) == sees_nan);
          }
        }
      }
    }
}

TEST_CASE("attention_online streams long key sequences", "[kernels][attention]") {
  check_attention({16, 8192, 64, 64}, 0, -kInf);
  check_attention({16, 4099, 64, 64}, kCausal | kAdd, -1e9f);
  check_attention({3, 1000, 64, 64}, kBlocked, -kInf);
}

TEST_CASE("attention_online at S = 8192, dk = 64 (dispatched only)", "[kernels][attention][.slow]") {
  const std::size_t S = 8192, d = 64;
  const auto q = random_vec(S * d, 21), kk = random_vec(S * d, 22), v = random_vec(S * d, 23);
  std::vector<float> out(S * d);
  k::f32_score_mask m;
  m.causal = true;
  k::f32_attention_online(S, S, d, d, 0.125f, q.data(), d, kk.data(), d, v.data(), d, m, out.data(), d);
  for (float o : out) REQUIRE_CHEAP(std::isfinite(o));
  // Query 0 sees only key 0: v itself, as PyTorch gives it (its weight exactly 1).
  for (std::size_t c = 0; c < d; ++c) CHECK(out[c] == v[c]);
}

// dk = 0: every score is 0 (the SIMD kernel's score tiles start from a first step, so it takes the scalar twin).
TEST_CASE("attention_online with dk = 0: uniform weights over the unmasked keys", "[kernels][attention]") {
  for (const AttnCase a : {AttnCase{9, 130, 0, 6}, AttnCase{33, 5, 0, 3}}) {
    check_attention(a, 0, -kInf);
    check_attention(a, kCausal, -kInf);
    check_attention(a, kBlockRows | kCausal | kAdd, -1e9f);
  }
}

TEST_CASE("attention_online with zero keys gives zeros, zero queries does nothing", "[kernels][attention]") {
  const float q[4] = {1, 2, 3, 4};
  float out[4] = {9, 9, 9, 9};
  k::f32_score_mask m;
  k::f32_attention_online(2, 0, 2, 2, 1.0f, q, 2, nullptr, 2, nullptr, 2, m, out, 2);
  for (float o : out) CHECK(o == 0.0f);
  out[0] = 9.0f;
  k::f32_attention_online(0, 3, 2, 2, 1.0f, q, 2, q, 2, q, 2, m, out, 2);
  CHECK(out[0] == 9.0f);
}

TEST_CASE("f32_gemm_nt_packed equals f32_gemm_nt at tile boundaries, with and without bias") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t M : {1u, 3u, 4u, 5u, 32u, 33u}) {
    for (std::size_t N : {1u, 7u, 8u, 9u, 17u, 64u}) {
      for (std::size_t K : {1u, 3u, 4u, 5u, 64u}) {
        std::vector<float> A(M * K), B(N * (K + 2)), bias(N), C0(M * N), C1(M * N);
        for (float& v : A) v = dist(rng);
        for (float& v : B) v = dist(rng);
        for (float& v : bias) v = dist(rng);
        mha::kernels::f32_packed_nt packed;
        mha::kernels::f32_pack_nt(N, K, B.data(), K + 2, packed);
        for (const float* b : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
          mha::kernels::f32_gemm_nt(M, N, K, 0.5f, A.data(), K, B.data(), K + 2, b, C0.data(), N);
          mha::kernels::f32_gemm_nt_packed(M, 0.5f, A.data(), K, packed, b, C1.data(), N);
          INFO("M=" << M << " N=" << N << " K=" << K);
          CHECK(C0 == C1);  // same panels, same microkernel: identical bits
        }
      }
    }
  }
}

// ---- Backward kernels --------------------------------------------------------------------------

namespace {

// C = Aᵀ·B (+ C0) in double, A [K, M] (lda), B [K, N] (ldb), with Σ|a·b| + |c0| per output.
void check_gemm_tn(bool dispatched, std::size_t M, std::size_t N, std::size_t K, std::size_t pad, bool accumulate) {
  const std::size_t lda = M + pad, ldb = N + pad, ldc = N + pad;
  const auto A = random_vec(extent(K, M, lda), 11 + M * 7 + K);
  const auto B = random_vec(extent(K, N, ldb), 13 + N * 5 + K);
  const auto C0 = random_vec(extent(M, N, ldc), 17 + M + N);
  std::vector<float> C = C0;
  if (dispatched) k::f32_gemm_tn(M, N, K, A.data(), lda, B.data(), ldb, accumulate, C.data(), ldc);
  else k::scalar::f32_gemm_tn(M, N, K, A.data(), lda, B.data(), ldb, accumulate, C.data(), ldc);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double s = accumulate ? C0[i * ldc + j] : 0.0, m = std::fabs(s);
      for (std::size_t kk = 0; kk < K; ++kk) {
        const double p = double(A[kk * lda + i]) * B[kk * ldb + j];
        s += p;
        m += std::fabs(p);
      }
      INFO("M " << M << " N " << N << " K " << K << " pad " << pad << " accumulate " << accumulate << " at " << i << ","
                << j);
      REQUIRE_CHEAP(close(C[i * ldc + j], s, m));
    }
  // Padding between rows is never written.
  for (std::size_t i = 0; i + 1 < M; ++i)
    for (std::size_t j = N; j < ldc; ++j) REQUIRE_CHEAP(C[i * ldc + j] == C0[i * ldc + j]);
}

}  // namespace

TEST_CASE("gemm_tn (dW = dYᵀ·X) at tile boundaries, with strides, overwriting and accumulating",
          "[kernels][gemm][backward]") {
  for (bool dispatched : {false, true})
    for (std::size_t M : {1, 3, 4, 5, 8, 9})
      for (std::size_t N : {1, 7, 8, 9, 16, 17})
        for (std::size_t K : {0, 1, 5, 32})
          for (bool accumulate : {false, true}) check_gemm_tn(dispatched, M, N, K, M % 3, accumulate);
  check_gemm_tn(true, 67, 130, 300, 1, true);  // several row blocks and panels
}

TEST_CASE("softmax_backward at tile boundaries, in place and with -inf-masked (zero) weights",
          "[kernels][softmax][backward]") {
  for (bool dispatched : {false, true})
    for (std::size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 16, 33}) {
      const std::size_t rows = 3, ld = n + 2;
      auto y = random_vec(extent(rows, n, ld), 5 + n, 0.0f, 1.0f);
      y[0] = 0.0f;  // a masked key: its weight is exactly 0, so its gradient is 0
      const auto dy = random_vec(extent(rows, n, ld), 7 + n);
      for (bool in_place : {false, true}) {
        std::vector<float> dx = in_place ? dy : std::vector<float>(extent(rows, n, ld), 0.0f);
        const float* g = in_place ? dx.data() : dy.data();
        if (dispatched) k::f32_softmax_backward(rows, n, y.data(), ld, g, ld, dx.data(), ld);
        else k::scalar::f32_softmax_backward(rows, n, y.data(), ld, g, ld, dx.data(), ld);
        for (std::size_t r = 0; r < rows; ++r) {
          double dot = 0.0, mag = 0.0;
          for (std::size_t j = 0; j < n; ++j) {
            dot += double(dy[r * ld + j]) * y[r * ld + j];
            mag += std::fabs(double(dy[r * ld + j]) * y[r * ld + j]);
          }
          for (std::size_t j = 0; j < n; ++j) {
            const double yj = y[r * ld + j];
            const double ref = (dy[r * ld + j] - dot) * yj;
            INFO("n " << n << " row " << r << " col " << j << " dispatched " << dispatched << " in place " << in_place);
            REQUIRE_CHEAP(close(dx[r * ld + j], ref, (std::fabs(dy[r * ld + j]) + mag) * yj));
          }
        }
        REQUIRE(dx[0] == 0.0f);
      }
    }
}

// ---- Stored weights: half precision widened in the kernels' tiles ---------------------------------

namespace {

// The value of an IEEE binary16 bit pattern, from its definition (double holds every one exactly).
double f16_value(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  const double s = sign ? -1.0 : 1.0;
  if (exponent == 0x1F) return mantissa ? std::nan("") : s * INFINITY;
  if (exponent == 0) return s * std::ldexp(double(mantissa), -24);
  return s * std::ldexp(1024.0 + mantissa, exponent - 25);
}

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Random half-precision weights of magnitude about 2^-4 .. 2^1 (both signs), as F16 or BF16 bits.
std::vector<std::uint16_t> random_half(std::size_t n, std::uint32_t seed, bool bf16) {
  std::mt19937 gen(seed);
  std::vector<std::uint16_t> out(n);
  for (auto& h : out) {
    const std::uint32_t sign = gen() & 1, exponent = (bf16 ? 123 : 11) + gen() % 6;
    h = std::uint16_t(sign << 15 | (bf16 ? exponent << 7 | (gen() & 0x7F) : exponent << 10 | (gen() & 0x3FF)));
  }
  return out;
}

}  // namespace

TEST_CASE("f16_to_f32 and bf16_to_f32 widen every one of the 65536 bit patterns exactly, SIMD and scalar",
          "[kernels][half]") {
  std::vector<std::uint16_t> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = std::uint16_t(i);
  std::vector<float> fast(all.size()), twin(all.size());
  k::f16_to_f32(all.size(), all.data(), fast.data());
  k::scalar::f16_to_f32(all.size(), all.data(), twin.data());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const double ref = f16_value(all[i]);
    INFO("f16 bits 0x" << std::hex << i << ": " << fast[i] << " (SIMD) " << twin[i] << " (scalar), value " << ref);
    // Bit for bit (the sign of zero too), except NaN: the SIMD path's exponent-scaling multiply quiets a
    // signaling NaN, as c10's half-to-float conversion does.
    const bool same = std::isnan(ref) ? std::isnan(fast[i]) && std::signbit(fast[i]) == std::signbit(twin[i])
                                      : bits_of(fast[i]) == bits_of(twin[i]);
    REQUIRE_CHEAP(same);
    const bool exact =
        std::isnan(ref) ? std::isnan(twin[i]) : double(twin[i]) == ref && std::signbit(twin[i]) == (i >> 15 == 1);
    REQUIRE_CHEAP(exact);
  }
  k::bf16_to_f32(all.size(), all.data(), fast.data());
  k::scalar::bf16_to_f32(all.size(), all.data(), twin.data());
  for (std::size_t i = 0; i < all.size(); ++i) {
    INFO("bf16 bits 0x" << std::hex << i);
    REQUIRE_CHEAP(bits_of(fast[i]) == std::uint32_t(i) << 16);
    REQUIRE_CHEAP(bits_of(twin[i]) == std::uint32_t(i) << 16);
  }
}

TEST_CASE("half widening at the 8-lane boundaries: lengths 0 to 33, any start, nothing written past the end",
          "[kernels][half]") {
  const std::vector<std::uint16_t> src = random_half(40, 3, false);
  for (std::size_t start = 0; start < 4; ++start)
    for (std::size_t n = 0; n + start <= 37 && n <= 33; ++n)
      for (bool bf16 : {false, true}) {
        const float sentinel = 777.0f;
        std::vector<float> fast(n + 9, sentinel), twin(n + 9, sentinel);
        if (bf16) {
          k::bf16_to_f32(n, src.data() + start, fast.data());
          k::scalar::bf16_to_f32(n, src.data() + start, twin.data());
        } else {
          k::f16_to_f32(n, src.data() + start, fast.data());
          k::scalar::f16_to_f32(n, src.data() + start, twin.data());
        }
        INFO("n " << n << " start " << start << " bf16 " << bf16);
        for (std::size_t i = 0; i < n; ++i) REQUIRE_CHEAP(fast[i] == twin[i]);
        for (std::size_t i = n; i < n + 9; ++i) REQUIRE_CHEAP(fast[i] == sentinel);
      }
}

TEST_CASE("f32_gemm_nt_w and f32_gemm_nn_w with F32, F16 and BF16 weights at tile boundaries, with strides and bias",
          "[kernels][gemm][half]") {
  for (int type = 0; type < 3; ++type)
    for (bool nt : {true, false})
      for (std::size_t M : {1, 4, 5, 17})
        for (std::size_t N : {1, 7, 8, 9, 63, 64, 65, 130})
          for (std::size_t K : {0, 1, 5, 8, 17}) {
            const std::size_t lda = K + 1, rows = nt ? N : K, cols = nt ? K : N, ldw = cols + 3, ldc = N + 2;
            const auto A = random_vec(extent(M, K, lda), std::uint32_t(M * 7 + K));
            const auto bias = random_vec(N, std::uint32_t(N), -2.0f, 2.0f);
            // The weight as stored, and its widened values for the reference.
            std::vector<float> wide(extent(rows, cols, ldw) + 1);
            std::vector<std::uint16_t> half;
            k::weight_matrix W{nullptr, k::wtype(type), ldw};
            if (type == 0) {
              wide = random_vec(wide.size(), std::uint32_t(N * 3 + K));
              W.data = wide.data();
            } else {
              half = random_half(wide.size(), std::uint32_t(N * 5 + K), type == 2);
              if (type == 1) k::scalar::f16_to_f32(half.size(), half.data(), wide.data());
              else k::scalar::bf16_to_f32(half.size(), half.data(), wide.data());
              W.data = half.data();
            }
            const float sentinel = 4321.0f;
            std::vector<float> C(extent(M, N, ldc), sentinel);
            if (nt) k::f32_gemm_nt_w(M, N, K, A.data(), lda, W, bias.data(), C.data(), ldc);
            else k::f32_gemm_nn_w(M, N, K, A.data(), lda, W, bias.data(), C.data(), ldc);
            for (std::size_t i = 0; i < M; ++i)
              for (std::size_t j = 0; j < ldc && i * ldc + j < C.size(); ++j) {
                if (j >= N) {
                  REQUIRE_CHEAP(C[i * ldc + j] == sentinel);
                  continue;
                }
                double ref = bias[j], mag = std::fabs(bias[j]);
                for (std::size_t kk = 0; kk < K; ++kk) {
                  const double w = nt ? wide[j * ldw + kk] : wide[kk * ldw + j];
                  ref += double(A[i * lda + kk]) * w;
                  mag += std::fabs(double(A[i * lda + kk]) * w);
                }
                INFO("type " << type << (nt ? " nt" : " nn") << " M=" << M << " N=" << N << " K=" << K << " i=" << i
                             << " j=" << j);
                REQUIRE_CHEAP(close(C[i * ldc + j], ref, mag));
              }
          }
}

namespace {

// ---- Activations ------------------------------------------------------------------------------------------
// Each output against double within the local rounding bound tests/models/reference.py gives the oracle for
// that step (in u = 2^-24, elementary functions within FN = 8 relative), so a kernel inside it keeps every
// model inside the oracle's bounds; plus |x|·FLT_MIN where the true value is below float's normal range (the
// SIMD exponentials flush such results to 0).
constexpr double kU = 0x1p-24, kFN = 8.0;

struct ActivationCase {
  const char* name;
  void (*fast)(std::size_t, const float*, float*);
  void (*twin)(std::size_t, const float*, float*);
  double (*value)(double x);
  double (*rho)(double x);  // the local bound, in u
};

double gelu_erf_value(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_erf_rho(double x) {
  const double a = x / std::sqrt(2.0), erf = std::erf(a),
               d_erf = 2.0 / std::sqrt(3.14159265358979323846) * std::exp(-a * a);
  return 0.5 * std::fabs(x) * (d_erf * 2.0 * std::fabs(a) + kFN * std::fabs(erf) + std::fabs(1.0 + erf)) +
         2.0 * std::fabs(gelu_erf_value(x));
}
constexpr double kSqrt2OverPi = 0.79788456080286536, kGeluC = 0.044715;
double gelu_tanh_value(double x) { return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + kGeluC * x * x * x))); }
double gelu_tanh_rho(double x) {
  const double cube = kGeluC * x * x * x, t = x + cube, th = std::tanh(kSqrt2OverPi * t);
  const double e_arg =
      kSqrt2OverPi * (std::fabs(cube) * (kFN + 3.0) + std::fabs(t)) + 2.0 * kSqrt2OverPi * std::fabs(t);
  return 0.5 * std::fabs(x) * ((1.0 - th * th) * e_arg + kFN * std::fabs(th) + std::fabs(1.0 + th)) +
         2.0 * std::fabs(gelu_tanh_value(x));
}
double silu_value(double x) { return x / (1.0 + std::exp(-x)); }
double silu_rho(double x) { return (kFN + 3.0) * std::fabs(silu_value(x)); }

const ActivationCase kActivations[] = {
    {"gelu (erf)", k::f32_vgelu_erf, k::scalar::f32_vgelu_erf, gelu_erf_value, gelu_erf_rho},
    {"gelu_new (tanh)", k::f32_vgelu_tanh, k::scalar::f32_vgelu_tanh, gelu_tanh_value, gelu_tanh_rho},
    {"silu", k::f32_vsilu, k::scalar::f32_vsilu, silu_value, silu_rho},
};

bool within_bound(const ActivationCase& a, float x, float y) {
  const double ref = a.value(x);
  if (std::isnan(ref)) return std::isnan(y);
  if (std::isinf(ref)) return y == ref;
  return std::fabs(double(y) - ref) <= a.rho(x) * kU + std::fabs(double(x)) * FLT_MIN;
}

}  // namespace

TEST_CASE("activations (gelu erf and tanh, silu) within the oracle's local bound, SIMD and scalar, over [-12, 12]",
          "[kernels][activation]") {
  std::vector<float> x;
  for (double v = -12.0; v <= 12.0; v += 1.0 / 1024) x.push_back(float(v));
  for (float v : {0.0f,   -0.0f,         1e-30f,         -1e-30f, 1e-3f,
                  -1e-3f, 5.1158981323f, -5.1158981323f, 5.2f,    -5.2f,
                  40.0f,  -40.0f,        90.0f,          -90.0f,  1e20f,
                  -1e20f, FLT_MAX,       -FLT_MAX,       FLT_MIN, -FLT_MIN,
                  1e-40f, -1e-40f,       kInf,           -kInf,   std::numeric_limits<float>::quiet_NaN()})
    x.push_back(v);
  std::vector<float> fast(x.size()), twin(x.size());
  for (const ActivationCase& a : kActivations) {
    a.fast(x.size(), x.data(), fast.data());
    a.twin(x.size(), x.data(), twin.data());
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (within_bound(a, x[i], fast[i]) && within_bound(a, x[i], twin[i])) continue;
      INFO(a.name << " x = " << x[i] << ": SIMD " << fast[i] << ", scalar " << twin[i] << ", value " << a.value(x[i])
                  << ", bound " << a.rho(x[i]) * kU);
      REQUIRE(within_bound(a, x[i], fast[i]));
      REQUIRE(within_bound(a, x[i], twin[i]));
    }
  }
}

TEST_CASE("activations at the 4-lane boundaries: lengths 0 to 17, any start, in place, nothing written past the end",
          "[kernels][activation]") {
  const std::vector<float> src = random_vec(24, 11, -6.0f, 6.0f);
  for (const ActivationCase& a : kActivations)
    for (std::size_t start = 0; start < 4; ++start)
      for (std::size_t n = 0; n <= 17; ++n) {
        const float sentinel = 555.0f;
        std::vector<float> fast(n + 5, sentinel), twin(n + 5, sentinel);
        std::vector<float> inplace(src.begin() + std::ptrdiff_t(start), src.begin() + std::ptrdiff_t(start + n));
        inplace.resize(n + 5, sentinel);
        a.fast(n, src.data() + start, fast.data());
        a.twin(n, src.data() + start, twin.data());
        a.fast(n, inplace.data(), inplace.data());
        INFO(a.name << " n " << n << " start " << start);
        for (std::size_t i = 0; i < n; ++i) {
          REQUIRE_CHEAP(within_bound(a, src[start + i], fast[i]));
          REQUIRE_CHEAP(within_bound(a, src[start + i], twin[i]));
          REQUIRE_CHEAP(inplace[i] == fast[i]);
        }
        for (std::size_t i = n; i < n + 5; ++i) {
          REQUIRE_CHEAP(fast[i] == sentinel);
          REQUIRE_CHEAP(inplace[i] == sentinel);
        }
      }
}
