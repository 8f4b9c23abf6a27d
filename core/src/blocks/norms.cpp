// nn.LayerNorm, LlamaRMSNorm and GemmaRMSNorm on rows of float32 activations.
#include <cmath>

#include "blocks/blocks.hpp"

namespace mha::blocks {

// Moments in double: more accurate than ATen's float32 Welford, which the oracle's bounds allow.
void layer_norm(const Norm& norm, float* x, std::size_t rows, std::size_t D) {
  const std::vector<float> w = widen(*norm.weight), b = norm.bias ? widen(*norm.bias) : std::vector<float>(D, 0.0f);
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = x + r * D;
    double mean = 0.0, var = 0.0;
    for (std::size_t i = 0; i < D; ++i) mean += row[i];
    mean /= double(D);
    for (std::size_t i = 0; i < D; ++i) var += (row[i] - mean) * (row[i] - mean);
    const float m = float(mean), rstd = float(1.0 / std::sqrt(var / double(D) + double(norm.eps)));
    for (std::size_t i = 0; i < D; ++i) row[i] = (row[i] - m) * rstd * w[i] + b[i];
  }
}

std::vector<float> norm_scale(const Norm& norm) {
  std::vector<float> w = widen(*norm.weight);
  if (norm.kind == NormKind::RmsPlusOne)
    for (float& v : w) v = 1.0f + v;
  return w;
}

// hidden · rsqrt(variance + eps) in float32, then weight · hidden, as LlamaRMSNorm.forward (GemmaRMSNorm: hidden ·
// (1 + weight), the same product).
void rms_norm(const Norm& norm, float* x, std::size_t rows, std::size_t D) {
  const std::vector<float> w = norm_scale(norm);
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = x + r * D;
    double squares = 0.0;
    for (std::size_t i = 0; i < D; ++i) squares += double(row[i]) * row[i];
    const float variance = float(squares / double(D));
    const float rstd = 1.0f / std::sqrt(variance + norm.eps);
    for (std::size_t i = 0; i < D; ++i) row[i] = w[i] * (row[i] * rstd);
  }
}

void normalize(const Norm& norm, float* x, std::size_t rows, std::size_t D) {
  if (!norm.weight) return;  // nn.Identity (ModernBERT's first attn_norm)
  if (norm.kind == NormKind::Layer) layer_norm(norm, x, rows, D);
  else rms_norm(norm, x, rows, D);
}

}  // namespace mha::blocks
