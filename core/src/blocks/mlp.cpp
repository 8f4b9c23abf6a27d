// The feed-forward blocks: down(act(up(x))) and Llama's SwiGLU down(act(gate(x)) · up(x)).
#include "blocks/blocks.hpp"

namespace mha::blocks {

void mlp(const Mlp& block, const float* x, std::size_t T, float* y) {
  std::vector<float> inner(T * block.up.out);  // [T, d_ff]
  if (!block.gate.weight) {
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
