// transformers' activations (activations.py's ACT2FN) that the supported families use.
#include <array>
#include <cmath>

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

float gelu_erf(float x) { return x * 0.5f * (1.0f + std::erf(x * 0.70710678118654752f)); }

// NewGELUActivation: 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³))).
float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286536f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

float silu(float x) { return x / (1.0f + std::exp(-x)); }

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
    case Activation::GeluErf:
      for (std::size_t i = 0; i < n; ++i) x[i] = gelu_erf(x[i]);
      break;
    case Activation::GeluTanh:
      for (std::size_t i = 0; i < n; ++i) x[i] = gelu_tanh(x[i]);
      break;
    case Activation::Relu:
      for (std::size_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];  // NaN stays NaN, as torch.relu
      break;
    case Activation::Silu:
      for (std::size_t i = 0; i < n; ++i) x[i] = silu(x[i]);
      break;
    case Activation::COUNT: break;
  }
}

}  // namespace mha::blocks
