// The feed-forward blocks: down(act(up(x))), Llama's SwiGLU down(act(gate(x)) · up(x)) and ModernBERT's fused GLU
// down(act(input) · gate) with input ‖ gate = up(x).
#include <algorithm>

#include "blocks/blocks.hpp"

namespace mha::blocks {

void mlp(const Mlp& block, const float* x, std::size_t T, float* y) {
  std::vector<float> inner(T * block.down.in);  // [T, d_ff]
  if (block.fused_glu) {
    const std::size_t F = block.down.in;
    std::vector<float> both(T * block.up.out);  // [T, 2·d_ff]: input ‖ gate
    linear(block.up, x, T, both.data());
    for (std::size_t t = 0; t < T; ++t) std::copy_n(both.data() + t * 2 * F, F, inner.data() + t * F);
    activate(block.act, inner.data(), inner.size());
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i < F; ++i) inner[t * F + i] *= both[t * 2 * F + F + i];
  } else if (!block.gate.weight) {
    linear(block.up, x, T, inner.data());
    activate(block.act, inner.data(), inner.size());
  } else {
    std::vector<float> up(inner.size());
    linear(block.gate, x, T, inner.data());
    linear(block.up, x, T, up.data());
    activate(block.act, inner.data(), inner.size());
    for (std::size_t i = 0; i < inner.size(); ++i) inner[i] *= up[i];
  }
  linear(block.down, inner.data(), T, y);  // [T, D]
}

}  // namespace mha::blocks
