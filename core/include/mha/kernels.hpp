// The kernel layer: every hot loop of the attention core goes through these functions.
//
// Naming follows XNNPACK: <datatype>_<op>. Each op has a portable scalar twin
// (core/src/kernels/f32_scalar.cpp, which carries the maths comments and is the reference)
// and a WebAssembly SIMD128 version (core/src/kernels/f32_wasmsimd.cpp). One dispatch point
// (core/src/kernels/dispatch.cpp) picks the implementation at compile time.
//
// Conventions: row-major matrices, leading dimensions in elements, no aliasing between
// inputs and outputs unless stated. Sizes may be zero (then the call does nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace mha::kernels {

// C[M,N] = alpha * A[M,K] · B[N,K]ᵀ (+ bias[N] when bias != nullptr).
// This is nn.Linear (weight is [out, in]) and Q·Kᵀ.
void f32_gemm_nt(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda,
                 const float* B, std::size_t ldb, const float* bias, float* C, std::size_t ldc);

// A GEMM B operand [N, K] packed once in the layout the dispatched kernel streams, for operands
// that are reused across calls (nn.Linear weights): packing then costs nothing per call.
struct f32_packed_nt {
  std::size_t N = 0, K = 0;
  std::vector<float> data;  // implementation-defined layout
};
void f32_pack_nt(std::size_t N, std::size_t K, const float* B, std::size_t ldb, f32_packed_nt& packed);
// As f32_gemm_nt with B packed by f32_pack_nt: C[M,N] = alpha * A[M,K] · Bᵀ (+ bias[N]).
void f32_gemm_nt_packed(std::size_t M, float alpha, const float* A, std::size_t lda, const f32_packed_nt& B,
                        const float* bias, float* C, std::size_t ldc);

// C[M,N] = A[M,K] · B[K,N]. This is weights·V and the lessons' plain matmul.
void f32_gemm_nn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, float* C, std::size_t ldc);

// C[M,N] = A[K,M]ᵀ · B[K,N] (+ C when accumulate). The weight gradient of nn.Linear
// (dW = dYᵀ·X) and of attention (dV = Pᵀ·dO, dK = dSᵀ·Q); accumulate adds into C as
// gradients accumulate until zero_grad.
void f32_gemm_tn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, bool accumulate, float* C, std::size_t ldc);

// Softmax backward for `rows` rows of length n, as ATen's softmax_backward_data on the last dim:
//   dx = (dy - Σ_j dy_j·y_j) · y
// y is the softmax output (ldy), dy the incoming gradient (lddy), dx the result (lddx; may alias dy).
void f32_softmax_backward(std::size_t rows, std::size_t n, const float* y, std::size_t ldy, const float* dy,
                          std::size_t lddy, float* dx, std::size_t lddx);

// In-place softmax of each of `rows` rows of length n (row stride ld), as torch.softmax(dim=-1):
// y = exp(x - max) / sum(exp(x - max)). A row of all -inf becomes all NaN, as in PyTorch.
void f32_softmax(std::size_t rows, std::size_t n, float* x, std::size_t ld);

// How blocked and biased scores are formed before the softmax, per (query i, key j):
//   s = scale * q_i·k_j;  if (add) s += add[i*add_ld + j];
//   if (blocked && blocked[i*blocked_ld + j]) or (causal && j > i): s = fill   (masked_fill)
// Row/column strides may be 0 to broadcast a mask.
struct f32_score_mask {
  const float* add = nullptr;
  std::ptrdiff_t add_ld = 0;
  const std::uint8_t* blocked = nullptr;
  std::ptrdiff_t blocked_ld = 0;
  bool causal = false;
  float fill = -__builtin_inff();

  // The rule for query i and key j: whether the score becomes `fill`, and the score it gives.
  bool blocks(std::ptrdiff_t i, std::ptrdiff_t j) const {
    return (blocked && blocked[i * blocked_ld + j]) || (causal && j > i);
  }
  float apply(std::ptrdiff_t i, std::ptrdiff_t j, float score) const {
    if (add) score += add[i * add_ld + j];
    return blocks(i, j) ? fill : score;
  }
};

// Applies that rule (f32_score_mask::apply) in place to already scaled scores of query rows
// [i0, i0 + rows), each of n keys (row stride ld): the reference kernels, the native attention and
// the materialized-weights path call it; the SIMD kernel applies it in its own transposed layout
// (queries in lanes).
void f32_score_mask_apply(const f32_score_mask& mask, std::size_t i0, std::size_t rows, std::size_t n, float* scores,
                          std::size_t ld);

// A score in log2 units, x·log2(e): the online kernels take 2^(s - m) on such scores, which is
// exp(x - max) with log2(e) folded into the scale. A finite score stays finite (clamped to
// ±FLT_MAX, so a fill of -3.4e38 is still an ordinary score and a fully masked row stays uniform);
// ±inf and NaN pass through.
inline float score_log2(float x) {
  constexpr float kLog2e = 1.44269504088896341f, kMax = 3.40282347e38f;
  const float y = x * kLog2e;
  if (!__builtin_isfinite(x)) return y;  // ±inf or NaN
  return y < -kMax ? -kMax : y > kMax ? kMax : y;
}

// Attention for one head without its weights, tiled with the online-softmax recurrence
// (FlashAttention: a running max and sum per query, the output rescaled as they change; scores in
// log2 units, score_log2, and exponentials base 2), so the Sq×Skv matrix never goes to memory:
//   out[Sq, dv] = softmax(masked scores) · v
// q is [Sq, dk] (ldq), k is [Skv, dk] (ldk), v is [Skv, dv] (ldv), out is [Sq, dv] (ldo).
// Masks as f32_score_mask. Rows whose every score is -inf produce NaN (as PyTorch's plain
// softmax does); with a finite fill a fully masked row is the mean of v. Skv = 0 gives zeros.
void f32_attention_online(std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, float scale, const float* q,
                          std::size_t ldq, const float* k, std::size_t ldk, const float* v, std::size_t ldv,
                          const f32_score_mask& mask, float* out, std::size_t ldo);

// ---- Activations: elementwise, y[i] = f(x[i]) for i < n (y may alias x), as transformers' ACT2FN ---------

// "gelu" (BERT, DistilBERT): x/2 · (1 + erf(x/√2)).
void f32_vgelu_erf(std::size_t n, const float* x, float* y);
// "gelu_new", "gelu_pytorch_tanh" (GPT-2): x/2 · (1 + tanh(√(2/π)(x + 0.044715x³))).
void f32_vgelu_tanh(std::size_t n, const float* x, float* y);
// "silu", "swish" (Llama, Qwen2): x · sigmoid(x).
void f32_vsilu(std::size_t n, const float* x, float* y);

// ---- Stored weights: F32, F16 and BF16 -------------------------------------------------------
// A checkpoint's half-precision weights stay half in memory; these kernels widen them to float32
// tile by tile (never the whole matrix) and run the float32 GEMMs above on the tiles, so the
// arithmetic is float32 whatever the storage.

// Storage type of a weight matrix (safetensors' F32, F16, BF16).
enum class wtype : std::uint8_t { f32, f16, bf16 };

// dst[i] = float(src[i]), exactly (every IEEE binary16 and bfloat16 value is a float32 value;
// subnormals, ±0 and ±inf kept; NaN stays NaN, a signaling one may come out quiet). src and dst
// may not overlap.
void f16_to_f32(std::size_t n, const std::uint16_t* src, float* dst);
void bf16_to_f32(std::size_t n, const std::uint16_t* src, float* dst);

// A stored matrix: row-major rows of `type`, leading dimension ld (elements); `data` holds
// float (f32) or std::uint16_t (f16, bf16).
struct weight_matrix {
  const void* data = nullptr;
  wtype type = wtype::f32;
  std::size_t ld = 0;
};

// Rows [r0, r0 + rows) × columns [c0, c0 + cols) of w widened into dst[rows, cols] (leading dimension cols).
void widen_tile(const weight_matrix& w, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols, float* dst);

// nn.Linear with a stored weight W [N, K]: C[M,N] = A[M,K] · Wᵀ (+ bias[N]).
void f32_gemm_nt_w(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const weight_matrix& W,
                   const float* bias, float* C, std::size_t ldc);
// GPT-2's Conv1D with a stored weight W [K, N]: C[M,N] = A[M,K] · W (+ bias[N]).
void f32_gemm_nn_w(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const weight_matrix& W,
                   const float* bias, float* C, std::size_t ldc);

// ---- Threads: one fixed-size pool (core/src/kernels/pool.cpp) ------------------------------------------
// The model forward's GEMMs with a stored weight (f32_gemm_nt_w, f32_gemm_nn_w) split their columns into
// blocks of whole kColumnGrain columns, and the model attention its heads: every output element is summed by
// one thread in the one-thread order, so results are bit-identical whatever the number of threads.
// Without threads (a wasm build without pthreads) the pool is one thread and set_threads(n) keeps 1.

// The most threads this build can run: 1 without threads, natively 64, in the threaded wasm build its
// pthread workers and the caller (wasm/CMakeLists.txt's MHA_PTHREAD_POOL).
std::size_t max_threads();
// The threads the pool runs (the caller's included), 1 at start.
std::size_t threads();
// Sets the pool's size, clamped to [1, max_threads()]; returns the size set. Not during a parallel call.
std::size_t set_threads(std::size_t n);
// GEMMs of fewer multiply-adds than this run on one thread (a split costs a wake-up); tests set 0.
std::size_t split_threshold();
void set_split_threshold(std::size_t madds);
// Column blocks start at multiples of this: the SIMD kernels' panels (8) and GEMV blocks (16), Eigen's (4, 8).
constexpr std::size_t kColumnGrain = 16;

namespace detail {
// Whether a parallel_for here runs inline: one thread, or already inside a parallel call.
bool run_inline();
// Runs fn(ctx, i) for every i < n on the pool, the caller taking items too; returns when all are done.
void run_parallel(std::size_t n, void (*fn)(void*, std::size_t), void* ctx);
}  // namespace detail

// f(i) for i in [0, n), on the pool's threads when the call's work (multiply-adds) reaches split_threshold();
// each i once. f must not throw (an exception in a worker would end the program): the callers compute
// kernels only.
template <class F>
void parallel_for(std::size_t n, std::size_t work, F&& f) {
  if (n <= 1 || detail::run_inline() || work < split_threshold()) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  detail::run_parallel(
      n, [](void* c, std::size_t i) { (*static_cast<Fn*>(c))(i); }, const_cast<void*>(static_cast<const void*>(&f)));
}

// Name of the implementation chosen at compile time: "wasmsimd" (SIMD128 kernels), "eigen" (native
// build with Eigen: GEMMs and the attention's products through Eigen, softmax scalar) or "scalar".
const char* implementation();

// The scalar twins, always compiled, so tests can compare the dispatched kernel against them.
namespace scalar {
void f32_gemm_nt(std::size_t M, std::size_t N, std::size_t K, float alpha, const float* A, std::size_t lda,
                 const float* B, std::size_t ldb, const float* bias, float* C, std::size_t ldc);
void f32_gemm_nn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, float* C, std::size_t ldc);
void f32_gemm_tn(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const float* B,
                 std::size_t ldb, bool accumulate, float* C, std::size_t ldc);
void f32_softmax(std::size_t rows, std::size_t n, float* x, std::size_t ld);
void f32_softmax_backward(std::size_t rows, std::size_t n, const float* y, std::size_t ldy, const float* dy,
                          std::size_t lddy, float* dx, std::size_t lddx);
void f32_attention_online(std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, float scale, const float* q,
                          std::size_t ldq, const float* k, std::size_t ldk, const float* v, std::size_t ldv,
                          const f32_score_mask& mask, float* out, std::size_t ldo);
void f32_vgelu_erf(std::size_t n, const float* x, float* y);
void f32_vgelu_tanh(std::size_t n, const float* x, float* y);
void f32_vsilu(std::size_t n, const float* x, float* y);
void f16_to_f32(std::size_t n, const std::uint16_t* src, float* dst);
void bf16_to_f32(std::size_t n, const std::uint16_t* src, float* dst);
}  // namespace scalar

}  // namespace mha::kernels
