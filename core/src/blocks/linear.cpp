// Stored weights as the kernels read them, and the linear layers (nn.Linear, GPT-2's Conv1D).
#include <algorithm>

#include "blocks/blocks.hpp"

namespace mha::blocks {

namespace {
kernels::wtype kernel_type(DType dtype) {
  switch (dtype) {
    case DType::F16: return kernels::wtype::f16;
    case DType::BF16: return kernels::wtype::bf16;
    default: return kernels::wtype::f32;
  }
}
}  // namespace

kernels::weight_matrix matrix(const WeightRef& w) {
  return {w.data, kernel_type(w.dtype), w.shape.empty() ? 1 : w.shape.back()};
}

void widen_rows(const WeightRef& w, std::size_t r0, std::size_t rows, float* out) {
  const std::size_t cols = w.shape.empty() ? 1 : w.shape.back();
  kernels::widen_tile(matrix(w), r0, rows, 0, cols, out);
}

std::vector<float> widen(const WeightRef& w) {
  std::vector<float> out(w.numel());
  const std::size_t cols = w.shape.empty() ? 1 : w.shape.back();
  if (!out.empty()) widen_rows(w, 0, out.size() / cols, out.data());
  return out;
}

void linear(const Linear& layer, const float* x, std::size_t rows, float* y) {
  const std::vector<float> bias = layer.bias ? widen(*layer.bias) : std::vector<float>();
  const float* b = layer.bias ? bias.data() : nullptr;
  if (layer.conv1d)  // W [in, out]
    kernels::f32_gemm_nn_w(rows, layer.out, layer.in, x, layer.in, matrix(*layer.weight), b, y, layer.out);
  else  // W [out, in]
    kernels::f32_gemm_nt_w(rows, layer.out, layer.in, x, layer.in, matrix(*layer.weight), b, y, layer.out);
}

}  // namespace mha::blocks
