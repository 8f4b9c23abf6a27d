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

// Scratch for one tile, per thread (the pool's threads widen tiles side by side); a plain static in a wasm
// build without threads (see f32_wasmsimd.cpp).
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

void widen_tile(const weight_matrix& w, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols,
                float* dst) {
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

namespace {

std::size_t madds(std::size_t M, std::size_t N, std::size_t K) { return M * N * std::max<std::size_t>(K, 1); }

// The column blocks of an N-column GEMM, about one per thread: each starts at a multiple of kColumnGrain (so
// every kernel's panels and GEMV blocks fall where one call puts them) and the last takes the rest, so no block
// is narrower than `width` (natively Eigen runs a product of rows + depth + columns < 20 coefficient by
// coefficient, and one column as a GEMV: other sums). One block when the GEMM is small or there is one thread.
struct ColumnBlocks {
  std::size_t width, count;
  ColumnBlocks(std::size_t M, std::size_t N, std::size_t K) : width(N), count(1) {
    const std::size_t t = threads();
    if (t < 2 || N < 2 * kColumnGrain || madds(M, N, K) < split_threshold()) return;
    const std::size_t w = std::max(kColumnGrain, (N + t - 1) / t / kColumnGrain * kColumnGrain);
    if (M + K + w < 20) return;
    width = w;
    count = N / w;
  }
  std::size_t begin(std::size_t i) const { return i * width; }
  std::size_t end(std::size_t i, std::size_t N) const { return i + 1 == count ? N : (i + 1) * width; }
};

}  // namespace

void f32_gemm_nt_w(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const weight_matrix& W,
                   const float* bias, float* C, std::size_t ldc) {
  if (M == 0 || N == 0) return;
  if (W.type == wtype::f32) {
    const ColumnBlocks b(M, N, K);
    parallel_for(b.count, madds(M, N, K), [&](std::size_t i) {
      const std::size_t n0 = b.begin(i), nb = b.end(i, N) - n0;
      f32_gemm_nt(M, nb, K, 1.0f, A, lda, f32_rows(W) + n0 * W.ld, W.ld, bias ? bias + n0 : nullptr, C + n0, ldc);
    });
    return;
  }
  const auto tile = [&](std::size_t i) {  // W[n0 : n0 + nb, :] widened as float [nb, K]
    const std::size_t n0 = i * kTile, nb = std::min(kTile, N - n0);
    float* t = tile_scratch(kTile * K);
    widen_tile(W, n0, nb, 0, K, t);
    f32_gemm_nt(M, nb, K, 1.0f, A, lda, t, K, bias ? bias + n0 : nullptr, C + n0, ldc);
  };
  const std::size_t tiles = (N + kTile - 1) / kTile;
  parallel_for(tiles, madds(M, N, K), tile);
}

void f32_gemm_nn_w(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda, const weight_matrix& W,
                   const float* bias, float* C, std::size_t ldc) {
  if (M == 0 || N == 0) return;
  if (W.type == wtype::f32) {
    const ColumnBlocks b(M, N, K);
    parallel_for(b.count, madds(M, N, K), [&](std::size_t i) {
      const std::size_t n0 = b.begin(i), nb = b.end(i, N) - n0;
      f32_gemm_nn(M, nb, K, A, lda, f32_rows(W) + n0, W.ld, C + n0, ldc);
      add_bias(M, nb, bias ? bias + n0 : nullptr, C + n0, ldc);
    });
    return;
  }
  const auto tile = [&](std::size_t i) {  // W[:, n0 : n0 + nb] widened as float [K, nb]
    const std::size_t n0 = i * kTile, nb = std::min(kTile, N - n0);
    float* t = tile_scratch(kTile * K);
    widen_tile(W, 0, K, n0, nb, t);
    f32_gemm_nn(M, nb, K, A, lda, t, nb, C + n0, ldc);
    add_bias(M, nb, bias ? bias + n0 : nullptr, C + n0, ldc);
  };
  const std::size_t tiles = (N + kTile - 1) / kTile;
  parallel_for(tiles, madds(M, N, K), tile);
}

}  // namespace mha::kernels
