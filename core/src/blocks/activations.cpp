// transformers' activations (activations.py's ACT2FN) that the supported families use: the kernels'
// elementwise maps (mha/kernels.hpp), ReLU inline.
#include <array>

#include "blocks/blocks.hpp"
#include "mha/error.hpp"

namespace mha::blocks {

namespace {

struct ActivationName {
  const char* name;
  Activation act;
};
// Every ACT2FN name the core computes; the first row of each Activation is its own name.
constexpr std::array<ActivationName, 6> kNames{{{"gelu", Activation::GeluErf},
                                                {"gelu_new", Activation::GeluTanh},
                                                {"gelu_pytorch_tanh", Activation::GeluTanh},
                                                {"relu", Activation::Relu},
                                                {"silu", Activation::Silu},
                                                {"swish", Activation::Silu}}};
static_assert(static_cast<std::size_t>(Activation::COUNT) == 4, "a name row for every Activation");

}  // namespace

Activation activation_from_name(const std::string& name) {
  for (const ActivationName& row : kNames)
    if (name == row.name) return row.act;
  throw Error("the activation '" + name + "' is not supported; supported: " + activation_names());
}

std::string activation_names() {
  std::string out;
  for (const ActivationName& row : kNames) out += std::string(out.empty() ? "" : ", ") + row.name;
  return out;
}

void activate(Activation act, float* x, std::size_t n) {
  switch (act) {
    case Activation::GeluErf: kernels::f32_vgelu_erf(n, x, x); break;
    case Activation::GeluTanh: kernels::f32_vgelu_tanh(n, x, x); break;
    case Activation::Relu:
      for (std::size_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];  // NaN stays NaN, as torch.relu
      break;
    case Activation::Silu: kernels::f32_vsilu(n, x, x); break;
    case Activation::COUNT: break;
  }
}

}  // namespace mha::blocks
