// F.cross_entropy: the loss every task trains with, and its gradient (mha/train.hpp).
#include "mha/train.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace mha {

CrossEntropyResult cross_entropy(const float* logits, std::size_t N, std::size_t C, const std::int64_t* targets,
                                 float* dlogits) {
  CrossEntropyResult r;
  for (std::size_t i = 0; i < N; ++i) {
    if (targets[i] == kIgnoreIndex) continue;
    if (targets[i] < 0 || static_cast<std::size_t>(targets[i]) >= C) {
      throw Error("target " + std::to_string(targets[i]) + " is out of bounds: targets must be class indices 0.." +
                  std::to_string(C - 1) + " or -100 (ignored)");
    }
    ++r.counted;
  }
  // log_softmax per row: x - max - log(Σ exp(x - max)); nll: mean of -logp[target] (summed in double).
  std::vector<float> e(C);  // exp(x - max) of the current row
  double total = 0.0;
  const float g = r.counted ? -1.0f / static_cast<float>(r.counted) : 0.0f;
  for (std::size_t i = 0; i < N; ++i) {
    const float* x = logits + i * C;
    float* d = dlogits ? dlogits + i * C : nullptr;
    if (targets[i] == kIgnoreIndex) {
      if (d) std::fill(d, d + C, 0.0f);
      continue;
    }
    const std::size_t t = static_cast<std::size_t>(targets[i]);
    float m = -std::numeric_limits<float>::infinity();
    std::size_t argmax = 0;
    for (std::size_t j = 0; j < C; ++j) {
      if (x[j] > m) {
        m = x[j];
        argmax = j;
      }
    }
    float sum = 0.0f;
    for (std::size_t j = 0; j < C; ++j) {
      e[j] = std::exp(x[j] - m);
      sum += e[j];
    }
    const float log_sum = std::log(sum);
    total -= x[t] - m - log_sum;
    if (argmax == t) ++r.correct;
    // log_softmax backward with the nll gradient g at the target (Σ grad = g): g·onehot - softmax·g,
    // softmax = exp(log_softmax) formed as exp(x - max) / Σ (one exp per element; equal to rounding).
    if (d) {
      const float inv = 1.0f / sum;
      for (std::size_t j = 0; j < C; ++j) d[j] = (j == t ? g : 0.0f) - (e[j] * inv) * g;
    }
  }
  r.loss =
      r.counted ? static_cast<float>(total / static_cast<double>(r.counted)) : std::numeric_limits<float>::quiet_NaN();
  return r;
}

}  // namespace mha
