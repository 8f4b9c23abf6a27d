// The one dispatch point: the public kernels forward to the SIMD128 versions when the
// translation unit is compiled with -msimd128, else to the scalar twins. Natively (not
// Emscripten) the GEMMs and the attention's two products go through Eigen when it is available:
// same contract, faster loops (the attention then streams blocks of 64 queries, not single rows).
#include "mha/kernels.hpp"

#if defined(__wasm_simd128__)
#define MHA_KERNELS_WASMSIMD 1
#elif !defined(__EMSCRIPTEN__) && __has_include(<Eigen/Core>)
#define MHA_KERNELS_EIGEN 1
#include <Eigen/Core>

#include <algorithm>
#include <vector>
#endif

namespace mha::kernels {

#if defined(MHA_KERNELS_WASMSIMD)
namespace wasmsimd {
void f32_gemm_nt__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
                               std::size_t lda, const float* B, std::size_t ldb, const float* bias, float* C,
                               std::size_t ldc);
void f32_gemm_nn__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                               const float* B, std::size_t ldb, float* C, std::size_t ldc);
void f32_pack_nt__wasmsimd_x8(std::size_t N, std::size_t K, const float* B, std::size_t ldb,
                              std::vector<float>& packed);
void f32_gemm_nt_packed__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A,
                                      std::size_t lda, const float* packed, const float* bias, float* C,
                                      std::size_t ldc);
void f32_gemm_tn__wasmsimd_4x8(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                               const float* B, std::size_t ldb, bool accumulate, float* C, std::size_t ldc);
void f32_softmax__wasmsimd(std::size_t rows, std::size_t n, float* x, std::size_t ld);
void f32_softmax_backward__wasmsimd(std::size_t rows, std::size_t n, const float* y, std::size_t ldy, const float* dy,
                                    std::size_t lddy, float* dx, std::size_t lddx);
void f32_attention_online__wasmsimd_4x8(std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, float scale,
                                        const float* q, std::size_t ldq, const float* k, std::size_t ldk,
                                        const float* v, std::size_t ldv, const f32_score_mask& mask, float* out,
                                        std::size_t ldo);
void f32_vgelu_erf__wasmsimd_rational_12_10_div(std::size_t n, const float* x, float* y);
void f32_vgelu_tanh__wasmsimd_rr2_p5_div(std::size_t n, const float* x, float* y);
void f32_vsilu__wasmsimd_rr2_p5_div(std::size_t n, const float* x, float* y);
void f16_to_f32__wasmsimd(std::size_t n, const std::uint16_t* src, float* dst);
void bf16_to_f32__wasmsimd(std::size_t n, const std::uint16_t* src, float* dst);
}  // namespace wasmsimd
#endif

#if defined(MHA_KERNELS_EIGEN)
namespace {
using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using OStride = Eigen::OuterStride<>;
using ConstMap = Eigen::Map<const RowMat, Eigen::Unaligned, OStride>;
using MutMap = Eigen::Map<RowMat, Eigen::Unaligned, OStride>;
using Index = Eigen::Index;

// Native attention: blocks of kBr queries, S = scale·Q_blk·Kᵀ with Eigen (kBr×Skv floats of
// scratch, never Sq×Skv), the mask and the scalar softmax exactly as the scalar twin, then
// out_blk = P·V with Eigen.
void attention_eigen(std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, float scale, const float* q,
                     std::size_t ldq, const float* k, std::size_t ldk, const float* v, std::size_t ldv,
                     const f32_score_mask& mask, float* out, std::size_t ldo) {
  if (Sq == 0 || dv == 0) return;
  if (Skv == 0 || dk == 0) {  // degenerate shapes: the plain loops are exact and cheap
    scalar::f32_attention_online(Sq, Skv, dk, dv, scale, q, ldq, k, ldk, v, ldv, mask, out, ldo);
    return;
  }
  constexpr std::size_t kBr = 64;
  thread_local std::vector<float> scratch;
  scratch.resize(std::min(kBr, Sq) * Skv);
  ConstMap km(k, Index(Skv), Index(dk), OStride(Index(ldk)));
  ConstMap vm(v, Index(Skv), Index(dv), OStride(Index(ldv)));
  for (std::size_t i0 = 0; i0 < Sq; i0 += kBr) {
    const std::size_t nq = std::min(kBr, Sq - i0);
    MutMap s(scratch.data(), Index(nq), Index(Skv), OStride(Index(Skv)));
    s.noalias() = scale * (ConstMap(q + i0 * ldq, Index(nq), Index(dk), OStride(Index(ldq))) * km.transpose());
    f32_score_mask_apply(mask, i0, nq, Skv, scratch.data(), Skv);
    scalar::f32_softmax(nq, Skv, scratch.data(), Skv);
    MutMap o(out + i0 * ldo, Index(nq), Index(dv), OStride(Index(ldo)));
    o.noalias() = s * vm;
  }
}
}  // namespace
#endif

void f32_gemm_nt(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda,
                 const float* B, std::size_t ldb, const float* bias, float* C, std::size_t ldc) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_gemm_nt__wasmsimd_4x8(M, N, K, alpha, A, lda, B, ldb, bias, C, ldc);
#elif defined(MHA_KERNELS_EIGEN)
  if (M == 0 || N == 0) return;
  if (K == 0) {  // Eigen maps with zero inner size and stride 0 are fine, but keep it explicit
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) C[i * ldc + j] = bias ? bias[j] : 0.0f;
    return;
  }
  ConstMap a(A, Index(M), Index(K), OStride(Index(lda)));
  ConstMap b(B, Index(N), Index(K), OStride(Index(ldb)));
  MutMap c(C, Index(M), Index(N), OStride(Index(ldc)));
  c.noalias() = alpha * (a * b.transpose());
  if (bias) c.rowwise() += Eigen::Map<const Eigen::Matrix<float, 1, Eigen::Dynamic>>(bias, Index(N));
#else
  scalar::f32_gemm_nt(M, N, K, alpha, A, lda, B, ldb, bias, C, ldc);
#endif
}

// SIMD128: the GEMM's own panel layout. Elsewhere: B's rows copied contiguously (ldb = K).
void f32_pack_nt(std::size_t N, std::size_t K, const float* B, std::size_t ldb, f32_packed_nt& packed) {
  packed.N = N;
  packed.K = K;
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_pack_nt__wasmsimd_x8(N, K, B, ldb, packed.data);
#else
  packed.data.resize(N * K);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t k = 0; k < K; ++k) packed.data[n * K + k] = B[n * ldb + k];
#endif
}

void f32_gemm_nt_packed(std::size_t M, float alpha, const float* A, std::size_t lda, const f32_packed_nt& B,
                        const float* bias, float* C, std::size_t ldc) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_gemm_nt_packed__wasmsimd_4x8(M, B.N, B.K, alpha, A, lda, B.data.data(), bias, C, ldc);
#else
  f32_gemm_nt(M, B.N, B.K, alpha, A, lda, B.data.data(), B.K, bias, C, ldc);
#endif
}

void f32_gemm_nn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, float* C, std::size_t ldc) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_gemm_nn__wasmsimd_4x8(M, N, K, A, lda, B, ldb, C, ldc);
#elif defined(MHA_KERNELS_EIGEN)
  if (M == 0 || N == 0) return;
  MutMap c(C, Index(M), Index(N), OStride(Index(ldc)));
  if (K == 0) {
    c.setZero();
    return;
  }
  ConstMap a(A, Index(M), Index(K), OStride(Index(lda)));
  ConstMap b(B, Index(K), Index(N), OStride(Index(ldb)));
  c.noalias() = a * b;
#else
  scalar::f32_gemm_nn(M, N, K, A, lda, B, ldb, C, ldc);
#endif
}

void f32_gemm_tn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, bool accumulate, float* C, std::size_t ldc) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_gemm_tn__wasmsimd_4x8(M, N, K, A, lda, B, ldb, accumulate, C, ldc);
#elif defined(MHA_KERNELS_EIGEN)
  if (M == 0 || N == 0) return;
  MutMap c(C, Index(M), Index(N), OStride(Index(ldc)));
  if (K == 0) {
    if (!accumulate) c.setZero();
    return;
  }
  ConstMap a(A, Index(K), Index(M), OStride(Index(lda)));
  ConstMap b(B, Index(K), Index(N), OStride(Index(ldb)));
  if (accumulate) {
    const RowMat fresh = a.transpose() * b;  // formed on its own, then added (as PyTorch accumulates)
    c += fresh;
  } else {
    c.noalias() = a.transpose() * b;
  }
#else
  scalar::f32_gemm_tn(M, N, K, A, lda, B, ldb, accumulate, C, ldc);
#endif
}

void f32_softmax_backward(std::size_t rows, std::size_t n, const float* y, std::size_t ldy, const float* dy,
                          std::size_t lddy, float* dx, std::size_t lddx) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_softmax_backward__wasmsimd(rows, n, y, ldy, dy, lddy, dx, lddx);
#else
  scalar::f32_softmax_backward(rows, n, y, ldy, dy, lddy, dx, lddx);
#endif
}

void f32_softmax(std::size_t rows, std::size_t n, float* x, std::size_t ld) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_softmax__wasmsimd(rows, n, x, ld);
#else
  scalar::f32_softmax(rows, n, x, ld);
#endif
}

void f32_attention_online(std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, float scale, const float* q,
                          std::size_t ldq, const float* k, std::size_t ldk, const float* v, std::size_t ldv,
                          const f32_score_mask& mask, float* out, std::size_t ldo) {
#if defined(MHA_KERNELS_WASMSIMD)
  // Through a pointer: wasm-opt would inline this kernel (one caller) into attend(), and V8's register
  // allocator, in that one large function, can spill a microkernel accumulator in the hot loop (it did
  // for a change of the score tiles: 1.6x slower). On its own it compiles as the kernel benchmarks it.
  static const auto volatile online = wasmsimd::f32_attention_online__wasmsimd_4x8;
  online(Sq, Skv, dk, dv, scale, q, ldq, k, ldk, v, ldv, mask, out, ldo);
#elif defined(MHA_KERNELS_EIGEN)
  attention_eigen(Sq, Skv, dk, dv, scale, q, ldq, k, ldk, v, ldv, mask, out, ldo);
#else
  scalar::f32_attention_online(Sq, Skv, dk, dv, scale, q, ldq, k, ldk, v, ldv, mask, out, ldo);
#endif
}

void f32_vgelu_erf(std::size_t n, const float* x, float* y) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_vgelu_erf__wasmsimd_rational_12_10_div(n, x, y);
#else
  scalar::f32_vgelu_erf(n, x, y);
#endif
}

void f32_vgelu_tanh(std::size_t n, const float* x, float* y) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_vgelu_tanh__wasmsimd_rr2_p5_div(n, x, y);
#else
  scalar::f32_vgelu_tanh(n, x, y);
#endif
}

void f32_vsilu(std::size_t n, const float* x, float* y) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f32_vsilu__wasmsimd_rr2_p5_div(n, x, y);
#else
  scalar::f32_vsilu(n, x, y);
#endif
}

void f16_to_f32(std::size_t n, const std::uint16_t* src, float* dst) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::f16_to_f32__wasmsimd(n, src, dst);
#else
  scalar::f16_to_f32(n, src, dst);
#endif
}

void bf16_to_f32(std::size_t n, const std::uint16_t* src, float* dst) {
#if defined(MHA_KERNELS_WASMSIMD)
  wasmsimd::bf16_to_f32__wasmsimd(n, src, dst);
#else
  scalar::bf16_to_f32(n, src, dst);
#endif
}

const char* implementation() {
#if defined(MHA_KERNELS_WASMSIMD)
  return "wasmsimd";
#elif defined(MHA_KERNELS_EIGEN)
  return "eigen";
#else
  return "scalar";
#endif
}

}  // namespace mha::kernels
