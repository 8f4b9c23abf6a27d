// Shared helpers for the Catch2 suites: double-precision references and tensor builders.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "mha/mha.hpp"
#include "test_errors.hpp"

namespace mha_test {

inline mha::Tensor arange(const mha::Shape& shape, float start = 0.0f, float step = 1.0f) {
  mha::Tensor t(shape);
  for (std::size_t i = 0; i < t.numel(); ++i) t.data()[i] = start + step * static_cast<float>(i);
  return t;
}

inline mha::Tensor randn(const mha::Shape& shape, mha::Generator& gen) {
  mha::Tensor t(shape);
  mha::normal_fill(t.data(), t.numel(), 0.0, 1.0, gen);
  return t;
}

// Checks every element of `actual` against `expected` with a combined tolerance.
inline void require_close(const std::vector<float>& actual, const std::vector<double>& expected, double tol) {
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i << ": " << actual[i] << " vs " << expected[i]);
    REQUIRE(std::fabs(actual[i] - expected[i]) <= tol * (1.0 + std::fabs(expected[i])));
  }
}

inline void require_close(const mha::Tensor& a, const mha::Tensor& b, double tol) {
  REQUIRE(a.shape() == b.shape());
  const std::vector<float> bv = b.to_vector();
  require_close(a.to_vector(), std::vector<double>(bv.begin(), bv.end()), tol);
}

// Double-precision attention for one [Sq, dk] × [Skv, dk] × [Skv, dv] slice; blocked(i, j) says
// which scores are replaced by fill.
template <class Blocked>
std::vector<double> reference_attention(const float* q, const float* k, const float* v, std::size_t Sq, std::size_t Skv,
                                        std::size_t dk, std::size_t dv, double fill, Blocked blocked,
                                        std::vector<double>* weights = nullptr) {
  std::vector<double> out(Sq * dv, 0.0), w(Sq * Skv);
  for (std::size_t i = 0; i < Sq; ++i) {
    double m = -INFINITY;
    for (std::size_t j = 0; j < Skv; ++j) {
      double s = 0;
      for (std::size_t c = 0; c < dk; ++c) s += double(q[i * dk + c]) * k[j * dk + c];
      s /= std::sqrt(double(dk));
      if (blocked(i, j)) s = fill;
      w[i * Skv + j] = s;
      m = std::max(m, s);
    }
    double total = 0;
    for (std::size_t j = 0; j < Skv; ++j) total += (w[i * Skv + j] = std::exp(w[i * Skv + j] - m));
    for (std::size_t j = 0; j < Skv; ++j) {
      w[i * Skv + j] /= total;
      for (std::size_t c = 0; c < dv; ++c) out[i * dv + c] += w[i * Skv + j] * v[j * dv + c];
    }
  }
  if (weights) *weights = w;
  return out;
}


}  // namespace mha_test
