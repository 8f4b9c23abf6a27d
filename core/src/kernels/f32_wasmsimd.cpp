// WebAssembly SIMD128 kernels. Base SIMD128 has no FMA, so every multiply-accumulate is a mul
// then an add. V8 on x64 leaves ~15 usable v128 registers; the 4x8 microkernel keeps
// 8 accumulators + 2 B vectors + 1 broadcast A + 1 product live (12).
#if defined(__wasm_simd128__)

#include <wasm_simd128.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "mha/kernels.hpp"

// Scratch buffers are per thread. Without wasm threads there is one thread, so a plain static is
// the same thing, and wasm-ld 14 rejects thread_local in a bulk-memory build without atomics.
#if defined(__EMSCRIPTEN_PTHREADS__)
#define MHA_SCRATCH_STORAGE thread_local
#else
#define MHA_SCRATCH_STORAGE static
#endif

namespace mha::kernels::wasmsimd {
namespace {

constexpr std::size_t kMR = 4;  // rows of A per microkernel call
constexpr std::size_t kNR = 8;  // columns of C per microkernel call (two v128)

// Growable scratch that lives as long as the thread: packing never mallocs in steady state.
float* scratch(std::vector<float>& buf, std::size_t n) {
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

// The magic-bias trick both exponentials round with: the low bits of y + 1.5·2^23 + 127 hold n + 127
// for n = round(y) (|y| < 2^22), so shifted into the exponent field they are 2^n.
const v128_t kMagicBias = wasm_f32x4_const_splat(0x1.8000FEp23f);

// Their shared tail: s·(1 + t·p(t)) = s + (t·s)·p(t), p(t) = c[0] + c[1]·t + … + c[4]·t⁴ (Horner).
inline v128_t times_one_plus_tp(v128_t vt, v128_t vs, const float (&c)[5]) {
  v128_t vp = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(c[4]), vt), wasm_f32x4_splat(c[3]));
  vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), wasm_f32x4_splat(c[2]));
  vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), wasm_f32x4_splat(c[1]));
  vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), wasm_f32x4_splat(c[0]));
  vt = wasm_f32x4_mul(vt, vs);
  return wasm_f32x4_add(wasm_f32x4_mul(vt, vp), vs);
}

// exp_f32x4(x) is exactly 0 for every x <= kExpZeroBelow (and for -inf).
constexpr float kExpZeroBelow = -88.0f;
// Degree-5 minimax polynomial for exp(t) on |t| <= ln2/2: exp(t) = 1 + t·p(t) (XNNPACK rr2_p5).
constexpr float kExpPoly[5] = {0x1.FFFFF6p-1f, 0x1.FFFDC6p-2f, 0x1.555A80p-3f, 0x1.573A1Ap-5f, 0x1.0F9F9Cp-7f};

// exp(x) for x <= 0 (every use here is x - max). Range reduction x = n·ln2 + t with
// |t| <= ln2/2 (ln2 split hi+lo so n·ln2_hi is exact), 2^n built in the exponent bits via the
// magic-bias trick, then kExpPoly (~1 ulp).
// x is first clamped to -88 (pmax keeps NaN): there n = -127, whose exponent field is 0, so
// 2^n = +0 and the result is exactly 0 — exp(-inf) = 0 with one max instead of a compare+select.
inline v128_t exp_f32x4(v128_t vx) {
  const v128_t vlog2e = wasm_f32x4_const_splat(0x1.715476p+0f);
  const v128_t vminus_ln2_hi = wasm_f32x4_const_splat(-0x1.62E400p-1f);
  const v128_t vminus_ln2_lo = wasm_f32x4_const_splat(-0x1.7F7D1Cp-20f);

  vx = wasm_f32x4_pmax(vx, wasm_f32x4_const_splat(kExpZeroBelow));  // pmax(NaN, c) = NaN
  v128_t vn = wasm_f32x4_add(wasm_f32x4_mul(vx, vlog2e), kMagicBias);
  const v128_t vs = wasm_i32x4_shl(vn, 23);  // 2^n: low bits of vn hold n + 127
  vn = wasm_f32x4_sub(vn, kMagicBias);
  v128_t vt = wasm_f32x4_add(wasm_f32x4_mul(vn, vminus_ln2_hi), vx);
  vt = wasm_f32x4_add(wasm_f32x4_mul(vn, vminus_ln2_lo), vt);
  return times_one_plus_tp(vt, vs, kExpPoly);
}

// exp2_f32x4(x) is exactly 0 for every x <= kExp2ZeroBelow (and for -inf).
constexpr float kExp2ZeroBelow = -127.0f;
// Degree-5 minimax fit of 2^t = 1 + t·p(t) on |t| <= 1/2 (relative error 1.9e-7, 3 ulp, in float).
constexpr float kExp2Poly[5] = {0x1.62E42Ap-1f, 0x1.EBF9BCp-3f, 0x1.C6B752p-5f, 0x1.3CEA88p-7f, 0x1.5BBA18p-10f};

// 2^x for x <= 0 (the online attention's scores minus their running max, in log2 units: log2(e)
// is folded into the scores' scale, so there is no log2(e) product here). x = n + t with n = round(x)
// by the magic-bias trick and t = x - n exactly, |t| <= 1/2: no ln2 hi/lo reduction; then kExp2Poly.
// x is first clamped to -127 (pmax keeps NaN): there 2^n = +0 (exponent field 0), so the result is
// exactly 0 and exp2(-inf) = 0 with one max. 11 vector ops with relaxed_madd (exp_f32x4: 12).
// With vscale: vscale·2^x, 2^n scaled first (exact while vscale·2^n is normal, +0 at the clamp).
inline v128_t exp2_f32x4(v128_t vx, const v128_t* vscale = nullptr) {
  vx = wasm_f32x4_pmax(vx, wasm_f32x4_const_splat(kExp2ZeroBelow));  // pmax(NaN, c) = NaN
  v128_t vn = wasm_f32x4_add(vx, kMagicBias);
  v128_t vs = wasm_i32x4_shl(vn, 23);  // 2^n: low bits of vn hold n + 127
  if (vscale) vs = wasm_f32x4_mul(vs, *vscale);
  vn = wasm_f32x4_sub(vn, kMagicBias);
  return times_one_plus_tp(wasm_f32x4_sub(vx, vn), vs, kExp2Poly);
}

// The bounded groups' probabilities carry a constant factor, kBoundedScale = κ·2^-10 (κ below), which
// their softmax cancels (O and l alike): their exponential's polynomial is then monic, one multiply
// fewer. The reference of their unmasked blocks is B + kBoundedShift, so that the weights stay <= 1.04.
constexpr float kExp2Kappa = 0x1.78F08p+9f;  // κ ≈ 1 / kExp2Poly[4]
constexpr float kBoundedScale = kExp2Kappa * 0x1p-10f;
constexpr float kBoundedShift = 10.0f;
// Monic degree-5 minimax fit of κ·2^t = t^5 + c[4]·t^4 + … + c[0] on |t| <= 1/2: relative error 1.8e-7
// in float (kExp2Poly: 1.9e-7), measured over every |t| <= 1/2 step 2^-14 and 16 million random s.
constexpr float kExp2Monic[5] = {0x1.78F082p+9f, 0x1.054642p+9f, 0x1.6A3202p+7f, 0x1.4EC464p+5f, 0x1.D2D65Ep+2f};

// κ·2^(s - R) for an integer reference R and a finite s with s - R in [-130, -10] (the bounded groups'
// scores less B + kBoundedShift, bounded_step; vmagic_r = 1.5·2^23 - R): t = s - nearest(s) exactly
// (|t| <= 1/2), κ·2^t by kExp2Monic in [2^9, 2^11), and n = nearest(s) - R, the low bits of
// nearest(s) + vmagic_r (exact), added to its exponent field: an integer add, exact as the result is a
// normal float (exponent >= -121). Per 4 values 7 adds, 4 multiplies, a nearest and 2 integer ops (with
// kExp2Poly and the magic-bias rounding: 8 adds, 5 multiplies; exp2_f32x4(s - R): 9 adds, 6 multiplies).
inline v128_t exp2_offset_f32x4(v128_t vs, v128_t vmagic_r) {
  const v128_t vc = wasm_f32x4_nearest(vs);
  const v128_t vt = wasm_f32x4_sub(vs, vc);
  v128_t vp = wasm_f32x4_add(vt, wasm_f32x4_splat(kExp2Monic[4]));
  vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), wasm_f32x4_splat(kExp2Monic[3]));
  vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), wasm_f32x4_splat(kExp2Monic[2]));
  vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), wasm_f32x4_splat(kExp2Monic[1]));
  vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), wasm_f32x4_splat(kExp2Monic[0]));
  return wasm_i32x4_add(vp, wasm_i32x4_shl(wasm_f32x4_add(vc, vmagic_r), 23));  // low bits: n, << 23
}

// Stores the first nc (< 8) lanes of (v0, v1) to c with partial-lane stores (no over-write).
inline void store_tail(float* c, std::size_t nc, v128_t v0, v128_t v1) {
  if (nc & 4) {
    wasm_v128_store(c, v0);
    v0 = v1;
    c += 4;
  }
  if (nc & 2) {
    wasm_v128_store64_lane(c, v0, 0);
    v0 = wasm_i64x2_shuffle(v0, v0, 1, 1);
    c += 2;
  }
  if (nc & 1) wasm_v128_store32_lane(c, v0, 0);
}

// The 4x8 microkernel, C[mr, nc] (mr <= 4, nc <= 8):
//   kUpdate = false: C = alpha · A·W + bias8       (bias8: 8 floats or nullptr)
//                    and colmax = max(colmax, column maxima of C) when colmax (two v128) is given
//   kUpdate = true : C = C ⊙ colscale + A·W          (colscale: per-column, two v128, or nullptr
//                    for C + A·W; nc must be 8)
// A[i, k] = a[i + k*a_ks]: a packed micro-panel [kc][4] (a_ks = 4) or Vᵀ read in place
// (a_ks = ldv). One A pointer with constant row offsets and one W pointer ([kc][8] panel) keep
// the loop at 6 loads, 8 mul, 8 add and 2 pointer bumps per k: register-tiled A rows (4 row
// pointers) or a 2x unrolled k loop measured ~30% slower under V8 (more integer work, spills).
// Rows past mr alias the last valid row: in-bounds reads, identical duplicate stores.
// Live v128: 8 accumulators + 2 W + 1 broadcast + 1 product = 12 (x64 V8 has ~15).
// kFirstStep (kUpdate = false, kc >= 1): the accumulators start as the first step's products rather
// than 0 + them, 8 adds fewer per call; the same values but for the sign of an exact zero (0 + -0 = +0),
// so only the online kernel's score tiles take it, where the adds are the bottleneck (no FMA).
template <bool kUpdate, bool kFirstStep = false>
inline void f32_gemm_ukernel__wasmsimd_4x8(std::size_t mr, std::size_t nc, std::size_t kc, const float* a,
                                           std::size_t a_ks, const float* w, float* c, std::size_t ldc, float alpha,
                                           const float* bias8, const v128_t* colscale, v128_t* colmax = nullptr) {
  constexpr std::size_t MR = kMR;
  float* cp[MR];
  std::size_t aoff[MR];  // offset of A row i from a (aliased past mr)
  cp[0] = c;
  aoff[0] = 0;
  for (std::size_t i = 1; i < MR; ++i) {
    const bool in = i < mr;
    cp[i] = in ? cp[i - 1] + ldc : cp[i - 1];
    aoff[i] = in ? i : aoff[i - 1];
  }

  v128_t acc[MR][2];
  for (std::size_t i = 0; i < MR; ++i) {
    if constexpr (kUpdate) {
      acc[i][0] = wasm_v128_load(cp[i]);
      acc[i][1] = wasm_v128_load(cp[i] + 4);
      if (colscale) {
        acc[i][0] = wasm_f32x4_mul(acc[i][0], colscale[0]);
        acc[i][1] = wasm_f32x4_mul(acc[i][1], colscale[1]);
      }
    } else {
      acc[i][0] = acc[i][1] = wasm_f32x4_const_splat(0.0f);
    }
  }

  // Full tiles use constant row offsets (folded into the load immediates); tails use aoff.
  auto kloop = [&](auto full) {
    const float* ak = a;
    std::size_t k = 0;
    if constexpr (kFirstStep) {
      const v128_t w0 = wasm_v128_load(w);
      const v128_t w1 = wasm_v128_load(w + 4);
      for (std::size_t i = 0; i < MR; ++i) {
        const v128_t va = wasm_v128_load32_splat(ak + (decltype(full)::value ? i : aoff[i]));
        acc[i][0] = wasm_f32x4_mul(va, w0);
        acc[i][1] = wasm_f32x4_mul(va, w1);
      }
      ak += a_ks;
      w += 8;
      k = 1;
    }
    for (; k < kc; ++k) {
      const v128_t w0 = wasm_v128_load(w);
      const v128_t w1 = wasm_v128_load(w + 4);
      for (std::size_t i = 0; i < MR; ++i) {
        const v128_t va = wasm_v128_load32_splat(ak + (decltype(full)::value ? i : aoff[i]));
        acc[i][0] = wasm_f32x4_add(acc[i][0], wasm_f32x4_mul(va, w0));
        acc[i][1] = wasm_f32x4_add(acc[i][1], wasm_f32x4_mul(va, w1));
      }
      ak += a_ks;
      w += 8;
    }
  };
  if (mr == MR) kloop(std::true_type{});
  else kloop(std::false_type{});

  if constexpr (!kUpdate) {
    if (alpha != 1.0f) {  // x·1 = x exactly: the projections and the prescaled queries skip it
      const v128_t valpha = wasm_f32x4_splat(alpha);
      for (std::size_t i = 0; i < MR; ++i) {
        acc[i][0] = wasm_f32x4_mul(acc[i][0], valpha);
        acc[i][1] = wasm_f32x4_mul(acc[i][1], valpha);
      }
    }
    if (bias8) {
      const v128_t vb0 = wasm_v128_load(bias8), vb1 = wasm_v128_load(bias8 + 4);
      for (std::size_t i = 0; i < MR; ++i) {
        acc[i][0] = wasm_f32x4_add(acc[i][0], vb0);
        acc[i][1] = wasm_f32x4_add(acc[i][1], vb1);
      }
    }
    if (colmax) {  // rows past mr repeat row mr - 1: no effect on the maxima
      for (std::size_t i = 0; i < MR; ++i) {
        colmax[0] = wasm_f32x4_pmax(colmax[0], acc[i][0]);
        colmax[1] = wasm_f32x4_pmax(colmax[1], acc[i][1]);
      }
    }
  }
  if (nc == 8) {
    for (std::size_t i = MR; i-- > 0;) {
      wasm_v128_store(cp[i], acc[i][0]);
      wasm_v128_store(cp[i] + 4, acc[i][1]);
    }
  } else {
    for (std::size_t i = MR; i-- > 0;) store_tail(cp[i], nc, acc[i][0], acc[i][1]);
  }
}

// The 4x4 transpose in registers: rows r0..r3 in, columns out (r0 = column 0, ...).
inline void transpose4(v128_t& r0, v128_t& r1, v128_t& r2, v128_t& r3) {
  const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5);
  const v128_t t1 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
  const v128_t t2 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
  const v128_t t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
  r0 = wasm_i64x2_shuffle(t0, t1, 0, 2);
  r1 = wasm_i64x2_shuffle(t0, t1, 1, 3);
  r2 = wasm_i64x2_shuffle(t2, t3, 0, 2);
  r3 = wasm_i64x2_shuffle(t2, t3, 1, 3);
}

// Transposing pack of R (4 or 8) rows of length K into a micro-panel: dst[k*R + r] = src[r*ld + k].
// Rows r >= nr repeat row nr - 1, so padded lanes hold finite copies and nothing past the
// last row is read. Full panels use 4x4 in-register transposes.
template <std::size_t R>
void pack_rows(std::size_t K, std::size_t nr, const float* src, std::size_t ld, float* dst) {
  const float* row[R];
  for (std::size_t r = 0; r < R; ++r) row[r] = src + std::min(r, nr - 1) * ld;
  std::size_t k = 0;
  for (; k + 4 <= K; k += 4) {
    for (std::size_t h = 0; h < R / 4; ++h) {
      v128_t r0 = wasm_v128_load(row[4 * h + 0] + k);
      v128_t r1 = wasm_v128_load(row[4 * h + 1] + k);
      v128_t r2 = wasm_v128_load(row[4 * h + 2] + k);
      v128_t r3 = wasm_v128_load(row[4 * h + 3] + k);
      transpose4(r0, r1, r2, r3);
      float* o = dst + k * R + 4 * h;
      wasm_v128_store(o, r0);
      wasm_v128_store(o + R, r1);
      wasm_v128_store(o + 2 * R, r2);
      wasm_v128_store(o + 3 * R, r3);
    }
  }
  for (; k < K; ++k)
    for (std::size_t r = 0; r < R; ++r) dst[k * R + r] = row[r][k];
}

// Copying pack of columns [0, nr) of a row-major [K, ld] matrix into a [K][8] panel, zero padded.
void pack_cols8(std::size_t K, std::size_t nr, const float* B, std::size_t ldb, float* w) {
  if (nr == 8) {
    for (std::size_t k = 0; k < K; ++k) {
      wasm_v128_store(w + k * 8, wasm_v128_load(B + k * ldb));
      wasm_v128_store(w + k * 8 + 4, wasm_v128_load(B + k * ldb + 4));
    }
    return;
  }
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t j = 0; j < 8; ++j) w[k * 8 + j] = j < nr ? B[k * ldb + j] : 0.0f;
}

MHA_SCRATCH_STORAGE std::vector<float> t_wpack;  // packed B panels of the current GEMM
MHA_SCRATCH_STORAGE std::vector<float> t_bias;   // bias padded to a multiple of 8
MHA_SCRATCH_STORAGE std::vector<float> t_apack;  // one row block of A as [4-row tiles][K][4]

// Packs all of op(B) into ceil(N/8) panels [K][8] (one panel = K·32 bytes, L1-resident).
template <bool kNT>
void pack_b(std::size_t N, std::size_t K, const float* B, std::size_t ldb, float* w) {
  const std::size_t panels = (N + kNR - 1) / kNR;
  for (std::size_t p = 0; p < panels; ++p) {
    const std::size_t nr = std::min(kNR, N - p * kNR);
    if (kNT) pack_rows<kNR>(K, nr, B + p * kNR * ldb, ldb, w + p * K * kNR);
    else pack_cols8(K, nr, B + p * kNR, ldb, w + p * K * kNR);
  }
}

// Copying pack of columns [0, nr) of a row-major [K, ld] matrix into a [K][4] tile (the rows of
// Aᵀ): columns past nr repeat column nr - 1, as pack_rows repeats rows.
void pack_cols4(std::size_t K, std::size_t nr, const float* A, std::size_t lda, float* dst) {
  if (nr == 4) {
    for (std::size_t k = 0; k < K; ++k) wasm_v128_store(dst + k * 4, wasm_v128_load(A + k * lda));
    return;
  }
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t r = 0; r < 4; ++r) dst[k * 4 + r] = A[k * lda + std::min(r, nr - 1)];
}

// GEMM on packed B panels: per block of mc rows of op(A) (packed as 4-row tiles [K][4], ~256 KiB,
// L2-resident) sweep every panel. op(A) = A [M, K], or Aᵀ of A [K, M] when a_transposed.
void gemm_packed(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda,
                 const float* w, const float* bias, float* C, std::size_t ldc, bool a_transposed = false) {
  if (M == 0 || N == 0) return;
  const std::size_t panels = (N + kNR - 1) / kNR;
  float* b8 = nullptr;
  if (bias) {
    b8 = scratch(t_bias, panels * kNR);
    std::fill(b8, b8 + panels * kNR, 0.0f);
    std::copy(bias, bias + N, b8);
  }
  const std::size_t kL2Floats = 64 * 1024;
  const std::size_t mc = K == 0 ? M : std::max(kMR, kL2Floats / K / kMR * kMR);
  float* ap = scratch(t_apack, (std::min(mc, M) + kMR - 1) / kMR * kMR * K);
  for (std::size_t i0 = 0; i0 < M; i0 += mc) {
    const std::size_t i1 = std::min(M, i0 + mc);
    for (std::size_t i = i0; i < i1; i += kMR) {
      if (a_transposed) pack_cols4(K, std::min(kMR, i1 - i), A + i, lda, ap + (i - i0) * K);
      else pack_rows<kMR>(K, std::min(kMR, i1 - i), A + i * lda, lda, ap + (i - i0) * K);
    }
    for (std::size_t p = 0; p < panels; ++p) {
      const std::size_t nc = std::min(kNR, N - p * kNR);
      const float* wp = w + p * K * kNR;
      for (std::size_t i = i0; i < i1; i += kMR)
        f32_gemm_ukernel__wasmsimd_4x8<false>(std::min(kMR, i1 - i), nc, K, ap + (i - i0) * K, kMR, wp,
                                              C + i * ldc + p * kNR, ldc, alpha, b8 ? b8 + p * kNR : nullptr, nullptr);
    }
  }
}

float hmax(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

float hsum(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// ---- Few rows: B read in place ----------------------------------------------------------------------------
// With M <= kGemvRows every element of B is used at most 4 times: the GEMM is a pass over B (the LM head at
// one position reads all of wte), and packing B would triple its memory traffic. Each output is summed over
// k in order, as the microkernel sums it: the results are the packed path's, bit for bit.
constexpr std::size_t kGemvRows = 4;

// C[MR, nb] = alpha · A[MR, K] · B[nb, K]ᵀ (+ bias) for nb <= 4·G rows of B [·, K] (rows past nb alias the
// last one, their sums dropped): G groups of 4 rows transposed 4 k at a time in registers, so that each sum
// runs over k in order and ends as the microkernel's (· alpha, + bias): the same bits as f32_gemm_nt_packed.
template <std::size_t MR, std::size_t G>
void gemv_nt_rows(std::size_t nb, std::size_t K, float alpha, const float* A, std::size_t lda, const float* B,
                  std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  constexpr std::size_t R = 4 * G;
  const float* b[R];
  for (std::size_t r = 0; r < R; ++r) b[r] = B + std::min(r, nb - 1) * ldb;
  const float* a[MR];
  for (std::size_t i = 0; i < MR; ++i) a[i] = A + i * lda;
  v128_t acc[MR][G];
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t g = 0; g < G; ++g) acc[i][g] = wasm_f32x4_const_splat(0.0f);
  std::size_t k = 0;
  for (; k + 4 <= K; k += 4)
    for (std::size_t g = 0; g < G; ++g) {
      v128_t col[4];  // col[t] = rows 4g..4g+3 at k + t
      for (std::size_t r = 0; r < 4; ++r) col[r] = wasm_v128_load(b[4 * g + r] + k);
      transpose4(col[0], col[1], col[2], col[3]);
      for (std::size_t t = 0; t < 4; ++t)
        for (std::size_t i = 0; i < MR; ++i)
          acc[i][g] = wasm_f32x4_add(acc[i][g], wasm_f32x4_mul(wasm_v128_load32_splat(a[i] + k + t), col[t]));
    }
  for (; k < K; ++k)
    for (std::size_t g = 0; g < G; ++g) {
      const float* const* rows = b + 4 * g;
      const v128_t col = wasm_f32x4_make(rows[0][k], rows[1][k], rows[2][k], rows[3][k]);
      for (std::size_t i = 0; i < MR; ++i)
        acc[i][g] = wasm_f32x4_add(acc[i][g], wasm_f32x4_mul(wasm_v128_load32_splat(a[i] + k), col));
    }
  float bias4[R] = {};
  if (bias) std::copy(bias, bias + nb, bias4);
  const v128_t valpha = wasm_f32x4_splat(alpha);
  for (std::size_t g = 0; g < G && 4 * g < nb; ++g) {
    const std::size_t nc = std::min<std::size_t>(4, nb - 4 * g);
    for (std::size_t i = 0; i < MR; ++i) {
      v128_t v = wasm_f32x4_mul(acc[i][g], valpha);
      if (bias) v = wasm_f32x4_add(v, wasm_v128_load(bias4 + 4 * g));
      if (nc == 4) wasm_v128_store(C + i * ldc + 4 * g, v);
      else store_tail(C + i * ldc + 4 * g, nc, v, v);
    }
  }
}

// C[MR, N] = alpha · A[MR, K] · Bᵀ (+ bias), B [N, K]: 4·G rows of B per step, MR·G <= 4 accumulators.
template <std::size_t MR>
void gemv_nt(std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda, const float* B,
             std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  constexpr std::size_t G = MR == 1 ? 4 : MR == 2 ? 2 : 1, R = 4 * G;
  for (std::size_t j = 0; j < N; j += R)
    gemv_nt_rows<MR, G>(std::min(R, N - j), K, alpha, A, lda, B + j * ldb, ldb, bias ? bias + j : nullptr, C + j, ldc);
}

// C[MR, 4·NV] (+)= A[MR, K] · B[K, 4·NV] (B row-major, read in place): down K, NV vectors of row k at a time
// into MR·NV accumulators, started from C's values when resume (the sum of the rows above, exact in float32).
template <std::size_t MR, std::size_t NV>
void gemv_nn_cols(std::size_t K, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
                  std::size_t ldc, bool resume) {
  v128_t acc[MR][NV];
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t v = 0; v < NV; ++v)
      acc[i][v] = resume ? wasm_v128_load(C + i * ldc + 4 * v) : wasm_f32x4_const_splat(0.0f);
  for (std::size_t k = 0; k < K; ++k) {
    const float* b = B + k * ldb;
    v128_t vb[NV];
    for (std::size_t v = 0; v < NV; ++v) vb[v] = wasm_v128_load(b + 4 * v);
    for (std::size_t i = 0; i < MR; ++i) {
      const v128_t va = wasm_v128_load32_splat(A + i * lda + k);
      for (std::size_t v = 0; v < NV; ++v) acc[i][v] = wasm_f32x4_add(acc[i][v], wasm_f32x4_mul(va, vb[v]));
    }
  }
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t v = 0; v < NV; ++v) wasm_v128_store(C + i * ldc + 4 * v, acc[i][v]);
}

// The rows of B a GEMV reads together: each block of kGemvKBlock rows in strips of 16 columns across the whole
// width, so that the prefetcher sees 16 sequential streams. Down a strip of the whole B each row is another page
// (a 3072-wide B: 12 KB apart) and the page walks set the pace: these GEMVs took 79 % of GPT-2 small's decode
// (bench/js/profile-model.js --decode), whose token went from 73 to 42 ms of CPU with the blocks
// (bench/js/decode-pair.js; blocks of 4, 8, 16, 32 and 64 rows tried, 8 and 16 best).
constexpr std::size_t kGemvKBlock = 16;

// C[MR, N] = A[MR, K] · B[K, N]: blocks of kGemvKBlock rows of B, each in strips of 16 columns (8 when MR > 2:
// MR·NV <= 8 accumulators), then 4; the last N % 4 columns one by one. Each element's sum runs down k in order, as
// without the blocks (the same bits: the sum so far is kept in C between blocks).
template <std::size_t MR>
void gemv_nn(std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
             std::size_t ldc) {
  constexpr std::size_t NV = MR <= 2 ? 4 : 2;
  const std::size_t N4 = N - N % 4;
  std::size_t k0 = 0;
  do {  // once when K == 0: C's zeros
    const std::size_t kb = std::min(kGemvKBlock, K - k0);
    const float* b = B + k0 * ldb;
    std::size_t j = 0;
    for (; j + 4 * NV <= N4; j += 4 * NV) gemv_nn_cols<MR, NV>(kb, A + k0, lda, b + j, ldb, C + j, ldc, k0 > 0);
    for (; j < N4; j += 4) gemv_nn_cols<MR, 1>(kb, A + k0, lda, b + j, ldb, C + j, ldc, k0 > 0);
    k0 += kb;
  } while (k0 < K);
  for (std::size_t j = N4; j < N; ++j)
    for (std::size_t i = 0; i < MR; ++i) {
      float sum = 0.0f;
      for (std::size_t k = 0; k < K; ++k) sum += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = sum;
    }
}

// Whether an M-row GEMM takes the GEMV path. Three rows of gemm_nt stay on the packed one: f32_gemm_nt must
// give f32_gemm_nt_packed's bits (the page joins head parts that the lab's Linear computes both ways), and in
// the relaxed build the microkernel's three-row tail (row offsets, not constants) fuses its multiply-adds
// otherwise than the GEMV (one, two and four rows match it bit for bit).
template <bool kNT>
bool takes_gemv(std::size_t M) {
  return M <= kGemvRows && !(kNT && M == 3);
}

// The M <= kGemvRows GEMMs, by their row count (gemm_nn passes alpha = 1 and no bias).
template <bool kNT, std::size_t MR>
void gemv_rows(std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda, const float* B,
               std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  if constexpr (kNT) gemv_nt<MR>(N, K, alpha, A, lda, B, ldb, bias, C, ldc);
  else gemv_nn<MR>(N, K, A, lda, B, ldb, C, ldc);
}

template <bool kNT>
void gemv(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda, const float* B,
          std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  using RowsFn = void (*)(std::size_t, std::size_t, float, const float*, std::size_t, const float*, std::size_t,
                          const float*, float*, std::size_t);
  constexpr RowsFn kRows[kGemvRows] = {gemv_rows<kNT, 1>, gemv_rows<kNT, 2>, gemv_rows<kNT, 3>, gemv_rows<kNT, 4>};
  kRows[M - 1](N, K, alpha, A, lda, B, ldb, bias, C, ldc);
}

// Floats of op(B) packed per column block (1 MiB): the block's panels stay in L2 while every row block of
// A passes over them, and the scratch stays this size whatever N (the LM head's N·K is 154 MB).
constexpr std::size_t kPackFloats = 256 * 1024;

// Shared GEMM driver: up to kGemvRows rows on B in place; else op(B) packed one column block at a time
// (about kPackFloats), each block run on all of A.
template <bool kNT>
void gemm(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda, const float* B,
          std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
  if (M == 0 || N == 0) return;
  if (takes_gemv<kNT>(M)) {
    gemv<kNT>(M, N, K, alpha, A, lda, B, ldb, bias, C, ldc);
    return;
  }
  const std::size_t nc = K == 0 ? N : std::max(kNR, kPackFloats / K / kNR * kNR);
  float* w = scratch(t_wpack, (std::min(nc, N) + kNR - 1) / kNR * kNR * K);
  for (std::size_t n0 = 0; n0 < N; n0 += nc) {
    const std::size_t nb = std::min(nc, N - n0);
    pack_b<kNT>(nb, K, kNT ? B + n0 * ldb : B + n0, ldb, w);
    gemm_packed(M, nb, K, alpha, A, lda, w, bias ? bias + n0 : nullptr, C + n0, ldc);
  }
}

}  // namespace

void f32_gemm_nt__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
                               std::size_t lda, const float* B, std::size_t ldb, const float* bias, float* C,
                               std::size_t ldc) {
  gemm<true>(M, N, K, alpha, A, lda, B, ldb, bias, C, ldc);
}

void f32_pack_nt__wasmsimd_x8(std::size_t N, std::size_t K, const float* B, std::size_t ldb,
                              std::vector<float>& packed) {
  packed.assign((N + kNR - 1) / kNR * K * kNR, 0.0f);
  if (N > 0) pack_b<true>(N, K, B, ldb, packed.data());
}

void f32_gemm_nt_packed__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
                                      std::size_t lda, const float* packed, const float* bias, float* C,
                                      std::size_t ldc) {
  gemm_packed(M, N, K, alpha, A, lda, packed, bias, C, ldc);
}

void f32_gemm_nn__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                               const float* B, std::size_t ldb, float* C, std::size_t ldc) {
  gemm<false>(M, N, K, 1.0f, A, lda, B, ldb, nullptr, C, ldc);
}

MHA_SCRATCH_STORAGE std::vector<float> t_accumulate;  // f32_gemm_tn's fresh product before it is added

void f32_gemm_tn__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                               const float* B, std::size_t ldb, bool accumulate, float* C, std::size_t ldc) {
  if (M == 0 || N == 0) return;
  // K is the number of rows of a batch (B·T: thousands) for weight gradients: in blocks of kKc the
  // B panels stay in L1 ([kKc][8] floats = 8 KiB) instead of streaming from L2 per microkernel call.
  // Each block's product is formed on its own and added, as PyTorch adds a fresh gradient.
  constexpr std::size_t kKc = 256;
  if (K <= kKc && !accumulate) {
    float* w = scratch(t_wpack, (N + kNR - 1) / kNR * K * kNR);
    pack_b<false>(N, K, B, ldb, w);
    gemm_packed(M, N, K, 1.0f, A, lda, w, nullptr, C, ldc, true);
    return;
  }
  float* fresh = scratch(t_accumulate, 2 * M * N);
  float* sum = fresh + M * N;
  std::fill(sum, sum + M * N, 0.0f);
  for (std::size_t k0 = 0; k0 < K; k0 += kKc) {
    const std::size_t kc = std::min(kKc, K - k0);
    float* w = scratch(t_wpack, (N + kNR - 1) / kNR * kc * kNR);
    pack_b<false>(N, kc, B + k0 * ldb, ldb, w);
    gemm_packed(M, N, kc, 1.0f, A + k0 * lda, lda, w, nullptr, fresh, N, true);
    std::size_t i = 0;
    for (; i + 4 <= M * N; i += 4)
      wasm_v128_store(sum + i, wasm_f32x4_add(wasm_v128_load(sum + i), wasm_v128_load(fresh + i)));
    for (; i < M * N; ++i) sum[i] += fresh[i];
  }
  for (std::size_t i = 0; i < M; ++i) {
    float* c = C + i * ldc;
    const float* f = sum + i * N;
    std::size_t j = 0;
    if (accumulate) {
      for (; j + 4 <= N; j += 4) wasm_v128_store(c + j, wasm_f32x4_add(wasm_v128_load(c + j), wasm_v128_load(f + j)));
      for (; j < N; ++j) c[j] += f[j];
    } else {
      std::copy(f, f + N, c);
    }
  }
}

// dx = (dy - Σ dy·y) · y per row: one pass for the dot product (four lanes, then a tree), one for dx.
void f32_softmax_backward__wasmsimd(std::size_t rows, std::size_t n, const float* y, std::size_t ldy, const float* dy,
                                    std::size_t lddy, float* dx, std::size_t lddx) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* yr = y + r * ldy;
    const float* gr = dy + r * lddy;
    float* xr = dx + r * lddx;
    v128_t vdot = wasm_f32x4_const_splat(0.0f);
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4)
      vdot = wasm_f32x4_add(vdot, wasm_f32x4_mul(wasm_v128_load(gr + j), wasm_v128_load(yr + j)));
    float dot = hsum(vdot);
    for (std::size_t t = j; t < n; ++t) dot += gr[t] * yr[t];
    const v128_t vd = wasm_f32x4_splat(dot);
    for (j = 0; j + 4 <= n; j += 4)
      wasm_v128_store(xr + j, wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(gr + j), vd), wasm_v128_load(yr + j)));
    for (; j < n; ++j) xr[j] = (gr[j] - dot) * yr[j];
  }
}

// Three passes per row: max, exp(x - max) stored with its sum, scale by 1/sum.
// The n % 4 tail goes through a padded 4-lane copy so it uses the same exp.
void f32_softmax__wasmsimd(std::size_t rows, std::size_t n, float* x, std::size_t ld) {
  const float kNegInf = -std::numeric_limits<float>::infinity();
  const std::size_t n4 = n & ~std::size_t(3);
  const std::size_t rem = n - n4;
  for (std::size_t r = 0; r < rows; ++r) {
    float* xr = x + r * ld;
    v128_t vm0 = wasm_f32x4_splat(kNegInf), vm1 = vm0;
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      vm0 = wasm_f32x4_pmax(vm0, wasm_v128_load(xr + j));
      vm1 = wasm_f32x4_pmax(vm1, wasm_v128_load(xr + j + 4));
    }
    if (j < n4) vm0 = wasm_f32x4_pmax(vm0, wasm_v128_load(xr + j));
    float m = hmax(wasm_f32x4_pmax(vm0, vm1));
    for (std::size_t t = n4; t < n; ++t) m = xr[t] > m ? xr[t] : m;
    if (m == kNegInf) {  // all -inf (or empty): NaN row, as PyTorch
      for (std::size_t t = 0; t < n; ++t) xr[t] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    const v128_t vmax = wasm_f32x4_splat(m);
    // 16 elements per step: four independent exp chains keep the FP pipes busy.
    v128_t vs0 = wasm_f32x4_const_splat(0.0f), vs1 = vs0, vs2 = vs0, vs3 = vs0;
    for (j = 0; j + 16 <= n; j += 16) {
      const v128_t e0 = exp_f32x4(wasm_f32x4_sub(wasm_v128_load(xr + j), vmax));
      const v128_t e1 = exp_f32x4(wasm_f32x4_sub(wasm_v128_load(xr + j + 4), vmax));
      const v128_t e2 = exp_f32x4(wasm_f32x4_sub(wasm_v128_load(xr + j + 8), vmax));
      const v128_t e3 = exp_f32x4(wasm_f32x4_sub(wasm_v128_load(xr + j + 12), vmax));
      wasm_v128_store(xr + j, e0);
      wasm_v128_store(xr + j + 4, e1);
      wasm_v128_store(xr + j + 8, e2);
      wasm_v128_store(xr + j + 12, e3);
      vs0 = wasm_f32x4_add(vs0, e0);
      vs1 = wasm_f32x4_add(vs1, e1);
      vs2 = wasm_f32x4_add(vs2, e2);
      vs3 = wasm_f32x4_add(vs3, e3);
    }
    for (; j < n4; j += 4) {
      const v128_t e0 = exp_f32x4(wasm_f32x4_sub(wasm_v128_load(xr + j), vmax));
      wasm_v128_store(xr + j, e0);
      vs0 = wasm_f32x4_add(vs0, e0);
    }
    vs0 = wasm_f32x4_add(wasm_f32x4_add(vs0, vs2), vs3);
    float tail[4] = {kNegInf, kNegInf, kNegInf, kNegInf};  // exp(-inf - m) = 0 in unused lanes
    if (rem) {
      std::memcpy(tail, xr + n4, rem * sizeof(float));
      const v128_t e = exp_f32x4(wasm_f32x4_sub(wasm_v128_load(tail), vmax));
      wasm_v128_store(tail, e);
      vs1 = wasm_f32x4_add(vs1, e);
    }
    const v128_t vinv = wasm_f32x4_splat(1.0f / hsum(wasm_f32x4_add(vs0, vs1)));
    for (j = 0; j + 4 <= n; j += 4) wasm_v128_store(xr + j, wasm_f32x4_mul(wasm_v128_load(xr + j), vinv));
    if (rem) {
      wasm_v128_store(tail, wasm_f32x4_mul(wasm_v128_load(tail), vinv));
      std::memcpy(xr + n4, tail, rem * sizeof(float));
    }
  }
}

namespace {
MHA_SCRATCH_STORAGE std::vector<float> t_qpack;   // [groups][dk][8]: the query tile, transposed per group of 8
MHA_SCRATCH_STORAGE std::vector<float> t_kpack;   // [ceil(Skv/4)][dk][4]: K as 4-key micro-panels
MHA_SCRATCH_STORAGE std::vector<float> t_scores;  // [kKvTile][8]: one group's transposed scores / probabilities
MHA_SCRATCH_STORAGE std::vector<float> t_acc;     // [groups][dv][8]: each group's transposed output
// A group's stats: m (8), l (8), its bounds B (8), then a flag: whether it took a bounded step (its P then carry
// kBoundedScale, and so must those of its masked blocks after; a group without one keeps P = 1 for its largest score,
// so that a row of one key gives v exactly, as PyTorch).
constexpr std::size_t kStats = 32, kScaledAt = 24;
MHA_SCRATCH_STORAGE std::vector<float> t_stats;  // [groups][kStats]: each group's running max (8), sum (8), bound (8),
                                                 // whether it took a bounded step (1)
MHA_SCRATCH_STORAGE std::vector<float> t_vrows;  // [Skv][dv]: V's rows side by side (when ldv > dv)

// Keys per tile: a tile's K and V rows (2·kKvTile·d floats, 32 KiB at d = 32) stay in L1 while every
// query group of the query tile passes over them.
constexpr std::size_t kKvTile = 128;

// Queries per tile (a multiple of 8), as PyTorch's CPU flash attention splits queries
// (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp: 256 from 768 queries, 64 from 192, else 32).
std::size_t query_tile(std::size_t Sq) { return Sq >= 768 ? 256 : Sq >= 192 ? 64 : 32; }

// What every step of one call shares.
struct OnlineArgs {
  std::size_t dk, dv;
  const float* kp;  // packed K
  const float* v;
  std::size_t ldv;
  const f32_score_mask* mask;
  float* st;  // [kKvTile][8] scratch
};

// Sᵀ[j, q] for the group's keys [j0, j0 + nb) into st: the 4x8 microkernel, A = packed K, W = the
// packed queries (which carry the scale), from its first step's products (dk >= 1). With colmax (two
// v128) it also takes the block's maxima from its registers (no pass over st).
void score_block(const OnlineArgs& a, const float* qp, std::size_t j0, std::size_t nb, v128_t* colmax) {
  for (std::size_t jj = 0; jj < nb; jj += kMR)
    f32_gemm_ukernel__wasmsimd_4x8<false, true>(std::min(kMR, nb - jj), 8, a.dk, a.kp + (j0 + jj) * a.dk, kMR, qp,
                                                a.st + jj * 8, 8, 1.0f, nullptr, nullptr, colmax);
}

// P = exp2(Sᵀ, half) in place over nb keys (half: lanes 0-3 or 4-7), and sum = Σ_j P (two exp2
// chains per key; more spill the polynomial's constants).
template <class Exp2>
void exponentiate(float* st, std::size_t nb, Exp2 exp2, v128_t* sum) {
  v128_t sum0 = wasm_f32x4_const_splat(0.0f), sum1 = sum0;
  for (std::size_t jj = 0; jj < nb; ++jj) {
    const v128_t p0 = exp2(wasm_v128_load(st + jj * 8), 0);
    const v128_t p1 = exp2(wasm_v128_load(st + jj * 8 + 4), 1);
    wasm_v128_store(st + jj * 8, p0);
    wasm_v128_store(st + jj * 8 + 4, p1);
    sum0 = wasm_f32x4_add(sum0, p0);
    sum1 = wasm_f32x4_add(sum1, p1);
  }
  sum[0] = sum0;
  sum[1] = sum1;
}

// Oᵀ[c, q] = Oᵀ[c, q]·colscale[q] + Σ_j V[j0 + j, c]·P[j, q]: the 4x8 microkernel, A = Vᵀ read in
// place, W = P (st). colscale nullptr: no rescale.
void accumulate_pv(const OnlineArgs& a, std::size_t j0, std::size_t nb, float* ot, const v128_t* colscale) {
  for (std::size_t c = 0; c < a.dv; c += kMR)
    f32_gemm_ukernel__wasmsimd_4x8<true>(std::min(kMR, a.dv - c), 8, nb, a.v + j0 * a.ldv + c, a.ldv, a.st, ot + c * 8,
                                         8, 1.0f, nullptr, colscale);
}

// Scores of a bounded group stay within ±kBoundMax (log2 units): Sᵀ - B >= -2·kBoundMax, so a row's
// largest weight is at least 2^-64.5 (with kBoundedScale) and its products with V keep float's
// precision down to |V| of 2^-61.5 (at 60, |V| below 0.02 lost bits: 0.24% at 1e-7).
constexpr float kBoundMax = 32.0f;

// An unmasked block of a group whose scores are bounded, |Sᵀ[j, q]| <= B[q] <= kBoundMax with B an
// integer (bound_group). The reference is B itself rather than the running max: the same softmax
// (any reference gives it, as long as every 2^(Sᵀ - ref) is a normal float, here in [2^-120, 1]),
// without the block maximum and without a rescale, and the scores are finite, so exp2_offset_f32x4
// applies (with B + kBoundedShift: P = kBoundedScale·2^(Sᵀ - B), the constant cancelled by l). A group's unmasked
// blocks come before its masked ones (only a causal mask leaves blocks unmasked: those left of the diagonal), so its
// reference is still -inf (nothing accumulated: l = 0, Oᵀ = 0) or already B when this runs.
void bounded_step(const OnlineArgs& a, const float* qp, const float* bound, std::size_t j0, std::size_t nb, float* ot,
                  float* stats) {
  const v128_t b[2] = {wasm_v128_load(bound), wasm_v128_load(bound + 4)};
  const v128_t magic = wasm_f32x4_const_splat(0x1.8p23f - kBoundedShift);
  const v128_t magic_r[2] = {wasm_f32x4_sub(magic, b[0]), wasm_f32x4_sub(magic, b[1])};
  score_block(a, qp, j0, nb, nullptr);
  v128_t sum[2];
  exponentiate(
      a.st, nb, [&](v128_t s, int h) { return exp2_offset_f32x4(s, magic_r[h]); }, sum);
  for (int h = 0; h < 2; ++h) {
    wasm_v128_store(stats + 4 * h, b[h]);
    wasm_v128_store(stats + 8 + 4 * h, wasm_f32x4_add(wasm_v128_load(stats + 8 + 4 * h), sum[h]));
  }
  stats[kScaledAt] = 1.0f;
  accumulate_pv(a, j0, nb, ot, nullptr);
}

// The online-softmax update of one group of 8 queries q0.. (nq real, in lanes) by keys [j0, j0 + nb),
// in log2 units (score_log2; the scalar twin's recurrence):
//   Sᵀ[j, q] = log2(e) · (scale · K_j·Q_q (+ mask))   4x8 microkernel, A = packed K, W = packed Q
//   m' = max(m, max_j Sᵀ[j, ·]);  P = 2^(Sᵀ - m');  l = l·2^(m - m') + Σ_j P
//   Oᵀ[c, q] = Oᵀ[c, q]·2^(m - m') + Σ_j V[j, c]·P[j, q]   4x8 microkernel, A = Vᵀ, W = P
// stats holds m (8 floats) then l (8 floats); ot is the group's Oᵀ [dv][8]. bound: the group's
// score bounds (8 floats) when it is bounded, else nullptr; its unmasked blocks take bounded_step,
// and its P here carry the bounded blocks' constant factor kBoundedScale too once it took one (stats[kScaledAt]).
void online_step(const OnlineArgs& a, const float* qp, const float* bound, std::size_t q0, std::size_t nq,
                 std::size_t j0, std::size_t nb, float* ot, float* stats) {
  const f32_score_mask& mask = *a.mask;
  float* st = a.st;
  const v128_t vneginf = wasm_f32x4_splat(-std::numeric_limits<float>::infinity());
  // An additive or boolean mask applies to natural-unit scores, converted after it.
  const bool mask_per_score = mask.add || mask.blocked;
  // Unmasked scores: the microkernel takes the block max from its registers (no pass over st).
  const bool masked = mask_per_score || (mask.causal && j0 + nb > q0 + 1);
  if (!masked && bound) {
    bounded_step(a, qp, bound, j0, nb, ot, stats);
    return;
  }
  v128_t bm[2] = {vneginf, vneginf};
  score_block(a, qp, j0, nb, masked ? nullptr : bm);

  if (!mask_per_score) {
    // Causal only: select fill where j > q, vectorized; blocks left of the diagonal skip it.
    if (mask.causal && j0 + nb > q0 + 1) {
      const v128_t vfill = wasm_f32x4_splat(score_log2(mask.fill));
      const v128_t qidx0 = wasm_i32x4_make(int(q0), int(q0 + 1), int(q0 + 2), int(q0 + 3));
      const v128_t qidx1 = wasm_i32x4_add(qidx0, wasm_i32x4_splat(4));
      for (std::size_t jj = 0; jj < nb; ++jj) {
        const v128_t vj = wasm_i32x4_splat(int(j0 + jj));
        float* s = st + jj * 8;
        wasm_v128_store(s, wasm_v128_bitselect(vfill, wasm_v128_load(s), wasm_i32x4_gt(vj, qidx0)));
        wasm_v128_store(s + 4, wasm_v128_bitselect(vfill, wasm_v128_load(s + 4), wasm_i32x4_gt(vj, qidx1)));
      }
    }
  } else {
    for (std::size_t jj = 0; jj < nb; ++jj) {
      float* s = st + jj * 8;
      for (std::size_t l = 0; l < nq; ++l)
        s[l] = score_log2(mask.apply(std::ptrdiff_t(q0 + l), std::ptrdiff_t(j0 + jj), s[l]));
    }
  }

  // Block max (masked scores), new running max, and the factor 2^(m - m') for what was accumulated so far.
  if (masked) {
    for (std::size_t jj = 0; jj < nb; ++jj) {
      bm[0] = wasm_f32x4_pmax(bm[0], wasm_v128_load(st + jj * 8));
      bm[1] = wasm_f32x4_pmax(bm[1], wasm_v128_load(st + jj * 8 + 4));
    }
  }
  v128_t corr[2], mu[2], sum[2];
  for (int h = 0; h < 2; ++h) {
    const v128_t m = wasm_v128_load(stats + 4 * h);
    const v128_t mn = wasm_f32x4_pmax(m, bm[h]);
    // A lane whose scores so far are all -inf uses 0 as its reference, so P = 0 and
    // corr = 0 there instead of NaN from -inf - (-inf); it ends with l = 0 → 0/0 = NaN.
    mu[h] = wasm_v128_andnot(mn, wasm_f32x4_eq(mn, vneginf));
    corr[h] = exp2_f32x4(wasm_f32x4_sub(m, mu[h]));
    wasm_v128_store(stats + 4 * h, mn);
  }
  if (stats[kScaledAt] != 0.0f) {  // after bounded blocks the probabilities carry kBoundedScale, as theirs
    const v128_t vscale = wasm_f32x4_const_splat(kBoundedScale);
    exponentiate(
        st, nb, [&](v128_t s, int h) { return exp2_f32x4(wasm_f32x4_sub(s, mu[h]), &vscale); }, sum);
  } else {
    exponentiate(
        st, nb, [&](v128_t s, int h) { return exp2_f32x4(wasm_f32x4_sub(s, mu[h])); }, sum);
  }
  wasm_v128_store(stats + 8, wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(stats + 8), corr[0]), sum[0]));
  wasm_v128_store(stats + 12, wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(stats + 12), corr[1]), sum[1]));
  accumulate_pv(a, j0, nb, ot, corr);
}

// The largest |k_j|² of the keys, from K's packed micro-panels [dk][4] (padding keys repeat the
// last); NaN if a key holds NaN (f32x4.max propagates it), so that no group is bounded then.
float max_key_norm2(const float* kp, std::size_t Skv, std::size_t dk) {
  v128_t best = wasm_f32x4_const_splat(0.0f);
  for (std::size_t j = 0; j < Skv; j += kMR) {
    v128_t n2 = wasm_f32x4_const_splat(0.0f);
    for (std::size_t c = 0; c < dk; ++c) {
      const v128_t x = wasm_v128_load(kp + j * dk + c * kMR);
      n2 = wasm_f32x4_add(n2, wasm_f32x4_mul(x, x));
    }
    best = wasm_f32x4_max(best, n2);
  }
  best = wasm_f32x4_max(best, wasm_i32x4_shuffle(best, best, 2, 3, 0, 1));
  best = wasm_f32x4_max(best, wasm_i32x4_shuffle(best, best, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(best, 0);
}

// A group's score bounds B[q] = |q|·max_j |k_j| (the packed queries carry the scale, so B is in the
// scores' units; Cauchy-Schwarz: |Sᵀ[j, q]| <= |q|·|k_j|), enlarged by 4·(dk + 4)·2^-24 for the
// rounding of the dot products and the norms, and rounded up to an integer. Returns whether every
// lane's B is at most kBoundMax (inf or NaN, from inputs with inf or NaN: not); the scores of a
// bounded group are then finite. fill: a causal mask's fill in log2 units (-inf without one); it must
// weigh 0 against any score, fill + B <= kExp2ZeroBelow, as the bounded reference B stands in for the
// running max when the masked blocks come (a fill near the scores weighs, and takes the running max).
bool bound_group(const float* qg, std::size_t dk, float kmax, float fill, float* bound) {
  v128_t n0 = wasm_f32x4_const_splat(0.0f), n1 = n0;
  for (std::size_t c = 0; c < dk; ++c) {
    const v128_t x0 = wasm_v128_load(qg + c * 8), x1 = wasm_v128_load(qg + c * 8 + 4);
    n0 = wasm_f32x4_add(n0, wasm_f32x4_mul(x0, x0));
    n1 = wasm_f32x4_add(n1, wasm_f32x4_mul(x1, x1));
  }
  const v128_t f = wasm_f32x4_splat(kmax * (1.0f + float(dk + 4) * 0x1p-22f));
  const v128_t b0 = wasm_f32x4_ceil(wasm_f32x4_mul(wasm_f32x4_sqrt(n0), f));
  const v128_t b1 = wasm_f32x4_ceil(wasm_f32x4_mul(wasm_f32x4_sqrt(n1), f));
  wasm_v128_store(bound, b0);
  wasm_v128_store(bound + 4, b1);
  const v128_t vmax = wasm_f32x4_const_splat(kBoundMax), vzero = wasm_f32x4_const_splat(kExp2ZeroBelow);
  const v128_t vfill = wasm_f32x4_splat(fill);
  const v128_t ok0 = wasm_v128_and(wasm_f32x4_le(b0, vmax), wasm_f32x4_le(wasm_f32x4_add(vfill, b0), vzero));
  const v128_t ok1 = wasm_v128_and(wasm_f32x4_le(b1, vmax), wasm_f32x4_le(wasm_f32x4_add(vfill, b1), vzero));
  return wasm_i32x4_all_true(ok0) && wasm_i32x4_all_true(ok1);
}

// Rows [n][cols] of src (rows ld apart) side by side in scratch. V read in place has its rows ldv
// apart: with a head's columns of a wider model (1 KiB apart at d_model 256) a key tile's rows fall
// into a few L1 sets and leave L1 between query groups; side by side they stay.
const float* rows_side_by_side(std::size_t n, std::size_t cols, const float* src, std::size_t ld) {
  float* dst = scratch(t_vrows, n * cols);
  for (std::size_t j = 0; j < n; ++j) std::memcpy(dst + j * cols, src + j * ld, cols * sizeof(float));
  return dst;
}

// Whether a finite causal fill weighs exactly 0 for every real query of the group q0..: fill is
// kExp2ZeroBelow or more below each running max m (8 floats); padding lanes (q >= Sq) never count.
bool fill_weighs_zero(const float* m, v128_t vfill, std::size_t q0, std::size_t Sq) {
  const v128_t vzero_below = wasm_f32x4_const_splat(kExp2ZeroBelow);
  const v128_t f0 = wasm_f32x4_le(wasm_f32x4_sub(vfill, wasm_v128_load(m)), vzero_below);
  const v128_t f1 = wasm_f32x4_le(wasm_f32x4_sub(vfill, wasm_v128_load(m + 4)), vzero_below);
  const v128_t vsq = wasm_i32x4_splat(int(Sq));
  const v128_t qidx0 = wasm_i32x4_make(int(q0), int(q0 + 1), int(q0 + 2), int(q0 + 3));
  const v128_t pad0 = wasm_i32x4_ge(qidx0, vsq);
  const v128_t pad1 = wasm_i32x4_ge(wasm_i32x4_add(qidx0, wasm_i32x4_splat(4)), vsq);
  return wasm_i32x4_all_true(wasm_v128_or(f0, pad0)) && wasm_i32x4_all_true(wasm_v128_or(f1, pad1));
}
}  // namespace

// Tiled online-softmax (FlashAttention) attention in a transposed layout: a group of 8 queries
// lives in the 8 SIMD lanes (two v128), so the running max m, sum l and the rescale factors are
// plain vectors (no horizontal reductions). Tiles of query_tile(Sq) queries × kKvTile keys: per
// key tile, every group of the query tile takes its online_step, so the tile's K and V are read
// from L1 by all groups. K is packed once per call into 4-key micro-panels (the size of K);
// the rest is query_tile·(dk + dv + 3) floats plus kKvTile·8. Nothing is Sq×Skv. A group whose
// scores |q|·max|k| bounds within ±kBoundMax (moderate norms: the page's and the benchmark's inputs;
// not under an additive or boolean mask) takes its unmasked blocks through bounded_step.
void f32_attention_online__wasmsimd_4x8(std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, float scale,
                                        const float* q, std::size_t ldq, const float* k, std::size_t ldk,
                                        const float* v, std::size_t ldv, const f32_score_mask& mask, float* out,
                                        std::size_t ldo) {
  if (Sq == 0 || dv == 0) return;
  if (Skv == 0) {  // softmax over nothing, summed over nothing: zeros, as the reference
    for (std::size_t i = 0; i < Sq; ++i) std::fill(out + i * ldo, out + i * ldo + dv, 0.0f);
    return;
  }
  if (dk == 0) {  // every score is 0 (the score tiles start from a first step): the scalar twin, exact and cheap
    scalar::f32_attention_online(Sq, Skv, dk, dv, scale, q, ldq, k, ldk, v, ldv, mask, out, ldo);
    return;
  }
  const float kNegInf = -std::numeric_limits<float>::infinity();
  const std::size_t qtile = query_tile(Sq), max_groups = qtile / 8;
  const std::size_t dk8 = dk * 8;
  float* qp = scratch(t_qpack, max_groups * dk8);
  float* ot = scratch(t_acc, max_groups * dv * 8);
  float* stats = scratch(t_stats, max_groups * kStats);
  float* kp = scratch(t_kpack, (Skv + kMR - 1) / kMR * kMR * dk);
  for (std::size_t j = 0; j < Skv; j += kMR) pack_rows<kMR>(dk, std::min(kMR, Skv - j), k + j * ldk, ldk, kp + j * dk);
  const bool copy_v = ldv > dv;
  const OnlineArgs args{dk,
                        dv,
                        kp,
                        copy_v ? rows_side_by_side(Skv, dv, v, ldv) : v,
                        copy_v ? dv : ldv,
                        &mask,
                        scratch(t_scores, kKvTile * 8)};
  // The queries carry the scores' scale: scale·log2(e) (scores straight in log2 units), or scale
  // alone under an additive or boolean mask, which applies to natural-unit scores (every block is
  // then masked, so no group is bounded).
  const bool mask_per_score = mask.add || mask.blocked;
  const v128_t vqscale = wasm_f32x4_splat(mask_per_score ? scale : score_log2(scale));
  const float kmax = mask_per_score ? 0.0f : std::sqrt(max_key_norm2(kp, Skv, dk));
  bool bounded[256 / 8];  // per group of the query tile (query_tile <= 256)
  const bool fill_neginf = mask.fill == kNegInf;
  const v128_t vfill = wasm_f32x4_splat(score_log2(mask.fill));  // running maxima are in log2 units
  const float causal_fill = mask.causal ? score_log2(mask.fill) : kNegInf;

  for (std::size_t t0 = 0; t0 < Sq; t0 += qtile) {
    const std::size_t groups = (std::min(qtile, Sq - t0) + 7) / 8;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t q0 = t0 + 8 * g;
      float* qg = qp + g * dk8;
      pack_rows<8>(dk, std::min<std::size_t>(8, Sq - q0), q + q0 * ldq, ldq, qg);
      for (std::size_t c = 0; c < dk * 8; c += 4)
        wasm_v128_store(qg + c, wasm_f32x4_mul(wasm_v128_load(qg + c), vqscale));
      std::fill(ot + g * dv * 8, ot + (g + 1) * dv * 8, 0.0f);
      std::fill(stats + g * kStats, stats + g * kStats + 8, kNegInf);
      std::fill(stats + g * kStats + 8, stats + g * kStats + 16, 0.0f);
      stats[g * kStats + kScaledAt] = 0.0f;
      bounded[g] = !mask_per_score && bound_group(qg, dk, kmax, causal_fill, stats + g * kStats + 16);
    }
    // With fill = -inf, keys past the tile's last query weigh exactly 0 for all of it.
    const std::size_t kv_end = mask.causal && fill_neginf ? std::min(Skv, t0 + groups * 8) : Skv;
    for (std::size_t j0 = 0; j0 < kv_end; j0 += kKvTile) {
      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t q0 = t0 + 8 * g, nq = std::min<std::size_t>(8, Sq - q0);
        const std::size_t causal_end = q0 + nq;  // keys j >= this are causal-masked for the group
        std::size_t nb = std::min(kKvTile, Skv - j0);
        if (mask.causal && j0 + nb > causal_end) {
          // Keys past causal_end score `fill` for every real query. Skipping them is exact when
          // their weight 2^(fill - m') is exactly 0: fill = -inf, or fill already 127 below m.
          if (fill_neginf || fill_weighs_zero(stats + g * kStats, vfill, q0, Sq)) {
            if (j0 >= causal_end) continue;
            nb = causal_end - j0;
          }
        }
        float* sg = stats + g * kStats;
        online_step(args, qp + g * dk8, bounded[g] ? sg + 16 : nullptr, q0, nq, j0, nb, ot + g * dv * 8, sg);
      }
    }
    // out[q0 + l, c] = Oᵀ[c, l] / l_l  (l = 0 for an all -inf row gives 0/0 = NaN).
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t q0 = t0 + 8 * g, nq = std::min<std::size_t>(8, Sq - q0);
      for (std::size_t l = 0; l < nq; ++l)
        for (std::size_t c = 0; c < dv; ++c)
          out[(q0 + l) * ldo + c] = ot[(g * dv + c) * 8 + l] / stats[g * kStats + 8 + l];
    }
  }
}

namespace {

// y[i] = f(x[i]) four lanes at a time, f: v128 -> v128; the last n % 4 through a zero-padded copy,
// so nothing is read or written past n.
template <class F>
void map_f32x4(std::size_t n, const float* x, float* y, F f) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, f(wasm_v128_load(x + i)));
  if (i == n) return;
  float tail[4] = {};
  std::memcpy(tail, x + i, (n - i) * sizeof(float));
  const v128_t v = f(wasm_v128_load(tail));
  store_tail(y + i, n - i, v, v);
}

// sigmoid(z) = 1 / (1 + exp(-z)) for every z: e = exp(-|z|) in [0, 1], then e / (1 + e) where z < 0 and
// 1 / (1 + e) elsewhere (as XNNPACK's f32-vsigmoid rr2-p5-div): both sides without cancellation, relative
// error ~2 ulp. exp_f32x4 is exactly 0 below -88, so the tails are exactly 0 and 1; NaN stays NaN.
inline v128_t sigmoid_f32x4(v128_t vz) {
  const v128_t vone = wasm_f32x4_const_splat(1.0f);
  const v128_t ve = exp_f32x4(wasm_f32x4_neg(wasm_f32x4_abs(vz)));
  const v128_t vnegative = wasm_i32x4_shr(vz, 31);  // all ones where the sign bit is set
  return wasm_f32x4_div(wasm_v128_bitselect(ve, vone, vnegative), wasm_f32x4_add(ve, vone));
}

// gelu_new through 0.5·(1 + tanh(u)) = sigmoid(2u): x·sigmoid(2u), u = √(2/π)·(x + 0.044715·x³) formed
// as the scalar twin forms it (2u is exactly 2 times it). Unlike 1 + tanh(u), the sigmoid keeps its
// relative accuracy where tanh(u) → -1 (large negative x).
inline v128_t gelu_tanh_f32x4(v128_t vx) {
  const v128_t vc = wasm_f32x4_const_splat(0.044715f);
  const v128_t vtwo_k = wasm_f32x4_const_splat(2.0f * 0.79788456080286536f);
  const v128_t vcube = wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(vc, vx), vx), vx);
  return wasm_f32x4_mul(vx, sigmoid_f32x4(wasm_f32x4_mul(vtwo_k, wasm_f32x4_add(vx, vcube))));
}

// erf(x/√2) as the rational fit x·P(x²)/Q(x²) of XNNPACK's f32-vgelu rational-12-10 kernel (coefficients
// below) on x clamped to ±5.1159 (pmin/pmax with x first keep NaN), exactly ±1 from there on (where
// erf(x/√2) is within 5 ulp of ±1), so that x/2 · (1 + erf) is 0 for every x <= -5.1159 and NaN at -inf, as
// the twin's. Absolute error <= 6.3 ulp of 1 (at |x| ~ 4.7), relative <= 4 ulp for |x| < 1: within the
// 8 ulp the oracle's bounds allow erf.
constexpr float kErfP[6] = {7.9788452387e-01f, 6.6972173750e-02f, 9.3065137044e-03f,
                            3.2973114867e-04f, 1.2609783880e-05f, 4.5835321316e-08f};
constexpr float kErfQ[5] = {2.5060352683e-01f, 2.8431978077e-02f, 1.8622842617e-03f, 7.2267655923e-05f,
                            1.1988805682e-06f};
inline v128_t gelu_erf_f32x4(v128_t vx) {
  const v128_t vone = wasm_f32x4_const_splat(1.0f);
  const v128_t vlimit = wasm_f32x4_const_splat(5.1158981323e+00f);
  const v128_t vc = wasm_f32x4_pmax(wasm_f32x4_pmin(vx, vlimit), wasm_f32x4_neg(vlimit));
  const v128_t vc2 = wasm_f32x4_mul(vc, vc);
  v128_t vp = wasm_f32x4_splat(kErfP[5]);
  for (int i = 4; i >= 0; --i) vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vc2), wasm_f32x4_splat(kErfP[i]));
  v128_t vq = wasm_f32x4_splat(kErfQ[4]);
  for (int i = 3; i >= 0; --i) vq = wasm_f32x4_add(wasm_f32x4_mul(vq, vc2), wasm_f32x4_splat(kErfQ[i]));
  vq = wasm_f32x4_add(wasm_f32x4_mul(vq, vc2), vone);
  const v128_t vsaturated = wasm_f32x4_ge(wasm_f32x4_abs(vx), vlimit);
  const v128_t vsigned_one = wasm_v128_or(vone, wasm_v128_and(vx, wasm_f32x4_const_splat(-0.0f)));
  const v128_t verf = wasm_v128_bitselect(vsigned_one, wasm_f32x4_div(wasm_f32x4_mul(vc, vp), vq), vsaturated);
  return wasm_f32x4_mul(wasm_f32x4_mul(vx, wasm_f32x4_const_splat(0.5f)), wasm_f32x4_add(verf, vone));
}

}  // namespace

void f32_vgelu_erf__wasmsimd_rational_12_10_div(std::size_t n, const float* x, float* y) {
  map_f32x4(n, x, y, gelu_erf_f32x4);
}

void f32_vgelu_tanh__wasmsimd_rr2_p5_div(std::size_t n, const float* x, float* y) {
  map_f32x4(n, x, y, gelu_tanh_f32x4);
}

void f32_vsilu__wasmsimd_rr2_p5_div(std::size_t n, const float* x, float* y) {
  map_f32x4(n, x, y, [](v128_t vx) { return wasm_f32x4_mul(vx, sigmoid_f32x4(vx)); });
}

namespace {

// dst[i] = float(src[i]) eight halves at a time, convert: (8 halves, &lo, &hi) -> their floats; the last
// n % 8 through a zero-padded copy, so nothing is read or written past n.
template <class F>
void widen_halves(std::size_t n, const std::uint16_t* src, float* dst, F convert) {
  std::uint16_t tail[8] = {};
  for (std::size_t i = 0; i < n; i += 8) {
    const std::size_t m = std::min<std::size_t>(8, n - i);
    const std::uint16_t* in = src + i;
    if (m < 8) in = static_cast<const std::uint16_t*>(std::memcpy(tail, src + i, m * sizeof *src));
    v128_t lo, hi;
    convert(wasm_v128_load(in), lo, hi);
    if (m == 8) {
      wasm_v128_store(dst + i, lo);
      wasm_v128_store(dst + i + 4, hi);
    } else {
      store_tail(dst + i, m, lo, hi);
    }
  }
}

}  // namespace

// Half to float as XNNPACK's f16-f32-vcvt wasmsimd-int16 kernel: the half's bits without sign shifted
// into a float's place (h << 13, exponent bias fixed by a multiply with 2^-112; inf and NaN stay inf and
// NaN), or, for subnormals (|h| < 0x0400), the mantissa placed under 0.5's exponent minus 0.5 (exact:
// m · 2^-24); then the sign put back.
void f16_to_f32__wasmsimd(std::size_t n, const std::uint16_t* src, float* dst) {
  widen_halves(n, src, dst, [](v128_t vh, v128_t& lo, v128_t& hi) {
    const v128_t vsign = wasm_v128_and(vh, wasm_i16x8_const_splat(0x8000));
    const v128_t vnonsign = wasm_v128_xor(vh, vsign);
    const v128_t vprenorm_lo = wasm_i16x8_shl(vnonsign, 13);
    const v128_t vprenorm_hi = wasm_i16x8_add(wasm_u16x8_shr(vnonsign, 3), wasm_i16x8_const_splat(0x7000));
    const v128_t vexp_scale = wasm_f32x4_const_splat(0x1.0p-112f);
    const v128_t vnorm_lo =
        wasm_f32x4_mul(wasm_i16x8_shuffle(vprenorm_lo, vprenorm_hi, 0, 8, 1, 9, 2, 10, 3, 11), vexp_scale);
    const v128_t vnorm_hi =
        wasm_f32x4_mul(wasm_i16x8_shuffle(vprenorm_lo, vprenorm_hi, 4, 12, 5, 13, 6, 14, 7, 15), vexp_scale);
    const v128_t vmagic_mask = wasm_i16x8_const_splat(0x3F00);
    const v128_t vmagic_bias = wasm_f32x4_const_splat(0.5f);
    const v128_t vdenorm_lo =
        wasm_f32x4_sub(wasm_i16x8_shuffle(vnonsign, vmagic_mask, 0, 8, 1, 9, 2, 10, 3, 11), vmagic_bias);
    const v128_t vdenorm_hi =
        wasm_f32x4_sub(wasm_i16x8_shuffle(vnonsign, vmagic_mask, 4, 12, 5, 13, 6, 14, 7, 15), vmagic_bias);
    // signed compare: nonsign <= 0x7FFF
    const v128_t vmask = wasm_i16x8_gt(vnonsign, wasm_i16x8_const_splat(0x0400));
    const v128_t vzero = wasm_i16x8_const_splat(0);
    const v128_t vsign_lo = wasm_i16x8_shuffle(vzero, vsign, 0, 8, 1, 9, 2, 10, 3, 11);
    const v128_t vsign_hi = wasm_i16x8_shuffle(vzero, vsign, 4, 12, 5, 13, 6, 14, 7, 15);
    lo = wasm_v128_or(vsign_lo, wasm_v128_bitselect(vnorm_lo, vdenorm_lo, wasm_i32x4_extend_low_i16x8(vmask)));
    hi = wasm_v128_or(vsign_hi, wasm_v128_bitselect(vnorm_hi, vdenorm_hi, wasm_i32x4_extend_high_i16x8(vmask)));
  });
}

// bfloat16 to float: each half shifted into the top 16 bits of a zero word.
void bf16_to_f32__wasmsimd(std::size_t n, const std::uint16_t* src, float* dst) {
  widen_halves(n, src, dst, [](v128_t vh, v128_t& lo, v128_t& hi) {
    const v128_t vzero = wasm_i16x8_const_splat(0);
    lo = wasm_i16x8_shuffle(vzero, vh, 0, 8, 1, 9, 2, 10, 3, 11);
    hi = wasm_i16x8_shuffle(vzero, vh, 4, 12, 5, 13, 6, 14, 7, 15);
  });
}

}  // namespace mha::kernels::wasmsimd

#endif  // defined(__wasm_simd128__)
