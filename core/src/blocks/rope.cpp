// Rotary position embeddings as LlamaRotaryEmbedding (rope_type "default") and apply_rotary_pos_emb,
// over all of a head's features or the first rotary_ndims (GPT-NeoX, Phi: partial rotary).
#include <cmath>

#include "blocks/blocks.hpp"

namespace mha::blocks {

// compute_default_rope_parameters: inv_freq = 1.0 / (base ** (arange(0, dim, 2).float() / dim)),
// all float32 (base a Python float, so a float32 power); then freqs = inv_freq ⊗ positions in
// float32, emb = cat(freqs, freqs), cos and sin of the float32 angles.
Rope rope_table(std::size_t T, std::size_t dim, double theta, std::size_t start, double linear_factor) {
  const std::size_t half = dim / 2;
  std::vector<float> inv_freq(half);
  for (std::size_t i = 0; i < half; ++i) inv_freq[i] = 1.0f / std::pow(float(theta), float(2 * i) / float(dim));
  if (linear_factor != 1.0)  // _compute_linear_scaling_rope_parameters: inv_freq /= factor (a float32 tensor's div)
    for (float& f : inv_freq) f /= float(linear_factor);
  Rope rope{dim, std::vector<float>(T * dim), std::vector<float>(T * dim)};
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < dim; ++i) {
      const float angle = float(start + t) * inv_freq[i % half];
      rope.cos[t * dim + i] = std::cos(angle);
      rope.sin[t * dim + i] = std::sin(angle);
    }
  return rope;
}

// q·cos + rotate_half(q)·sin: out[i] = x[i]·cos[i] - x[i + half]·sin[i] for i < half,
// out[i] = x[i]·cos[i] + x[i - half]·sin[i] for half <= i < dim; features from dim on unchanged.
void apply_rope(const Rope& rope, float* x, std::size_t T, std::size_t heads, std::size_t head_dim, std::size_t ld) {
  const std::size_t d = rope.dim, half = d / 2;
  for (std::size_t t = 0; t < T; ++t) {
    const float* c = rope.cos.data() + t * d;
    const float* s = rope.sin.data() + t * d;
    for (std::size_t h = 0; h < heads; ++h) {
      float* v = x + t * ld + h * head_dim;
      for (std::size_t i = 0; i < half; ++i) {
        const float lo = v[i], hi = v[i + half];
        v[i] = lo * c[i] + (-hi) * s[i];
        v[i + half] = hi * c[i + half] + lo * s[i + half];
      }
    }
  }
}

}  // namespace mha::blocks
