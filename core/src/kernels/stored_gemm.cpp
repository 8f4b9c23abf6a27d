// GEMMs whose B operand is a stored weight (F32, F16, BF16): half-precision weights are widened
// tile by tile into float32 scratch (kTile rows or columns of the weight at a time, never the whole
// matrix) and each tile goes through the dispatched float32 GEMM; float32 weights go straight in.
#include <algorithm>
#include <vector>

#include "mha/kernels.hpp"

namespace mha::kernels {

namespace {

// Weight rows (nn.Linear) or columns (Conv1D) per widened tile: 64 × K floats of scratch.
constexpr std::size_t kTile = 64;

// Scratch for one tile; one thread per wasm instance (see f32_wasmsimd.cpp), thread_local natively.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
static std::vector<float> t_tile;
#else
thread_local std::vector<float> t_tile;
#endif

float* tile_scratch(std::size_t n) {
  if (t_tile.size() < n) t_tile.resize(n);
  return t_tile.data();
}

const float* f32_rows(const weight_matrix& w) { return static_cast<const float*>(w.data); }
const std::uint16_t* u16_rows(const weight_matrix& w) { return static_cast<const std::uint16_t*>(w.data); }

// C[M, N] += bias[N] on every row.
void add_bias(std::size_t M, std::size_t N, const float* bias, float* C, std::size_t ldc) {
  if (!bias) return;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) C[i * ldc + j] += bias[j];
}

}  // namespace

void widen_tile(const weight_matrix& w, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols, float* dst) {
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t at = (r0 + r) * w.ld + c0;
    float* out = dst + r * cols;
    switch (w.type) {
      case wtype::f32: std::copy(f32_rows(w) + at, f32_rows(w) + at + cols, out); break;
      case wtype::f16: f16_to_f32(cols, u16_rows(w) + at, out); break;
      case wtype::bf16: bf16_to_f32(cols, u16_rows(w) + at, out); break;
    }
  }
}

void f32_gemm_nt_w(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                   const weight_matrix& W, const float* bias, float* C, std::size_t ldc) {
  if (W.type == wtype::f32) {
    f32_gemm_nt(M, N, K, 1.0f, A, lda, f32_rows(W), W.ld, bias, C, ldc);
    return;
  }
  if (M == 0 || N == 0) return;
  float* tile = tile_scratch(kTile * K);
  for (std::size_t n0 = 0; n0 < N; n0 += kTile) {
    const std::size_t nb = std::min(kTile, N - n0);
    widen_tile(W, n0, nb, 0, K, tile);  // W[n0 : n0 + nb, :] as float [nb, K]
    f32_gemm_nt(M, nb, K, 1.0f, A, lda, tile, K, bias ? bias + n0 : nullptr, C + n0, ldc);
  }
}

void f32_gemm_nn_w(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                   const weight_matrix& W, const float* bias, float* C, std::size_t ldc) {
  if (M == 0 || N == 0) return;
  if (W.type == wtype::f32) {
    f32_gemm_nn(M, N, K, A, lda, f32_rows(W), W.ld, C, ldc);
    add_bias(M, N, bias, C, ldc);
    return;
  }
  float* tile = tile_scratch(kTile * K);
  for (std::size_t n0 = 0; n0 < N; n0 += kTile) {
    const std::size_t nb = std::min(kTile, N - n0);
    widen_tile(W, 0, K, n0, nb, tile);  // W[:, n0 : n0 + nb] as float [K, nb]
    f32_gemm_nn(M, nb, K, A, lda, tile, nb, C + n0, ldc);
    add_bias(M, nb, bias ? bias + n0 : nullptr, C + n0, ldc);
  }
}

}  // namespace mha::kernels
