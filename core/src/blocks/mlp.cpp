// The feed-forward blocks: down(act(up(x))) and Llama's SwiGLU down(act(gate(x)) · up(x)).
#include "blocks/blocks.hpp"

namespace mha::blocks {

void mlp(const Mlp& block, const float* x, std::size_t T, float* y) {
  std::vector<float> inner(T * block.up.out);  // [T, d_ff]
  linear(block.up, x, T, inner.data());
  activate(block.act, inner.data(), inner.size());
  linear(block.down, inner.data(), T, y);      // [T, D]
}

void gated_mlp(const GatedMlp& block, const float* x, std::size_t T, float* y) {
  std::vector<float> gate(T * block.gate.out), up(T * block.up.out);  // [T, d_ff] each
  linear(block.gate, x, T, gate.data());
  linear(block.up, x, T, up.data());
  activate(block.act, gate.data(), gate.size());
  for (std::size_t i = 0; i < gate.size(); ++i) gate[i] *= up[i];
  linear(block.down, gate.data(), T, y);  // [T, D]
}

}  // namespace mha::blocks
