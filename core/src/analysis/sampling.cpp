// Sampling as transformers' generate(do_sample=True) on the CPU: its warpers (logits_process.py's
// TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper, in generate's order) on float32 scores,
// the softmax, and torch.multinomial's one-sample path (ATen's Distributions.cpp: argmax(p / q) with
// q = exponential_(1), which the CPU draws as -log1p(-u) from 53 bits of random64()).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "mha/analysis.hpp"
#include "mha/error.hpp"

namespace mha {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// torch.softmax of float32 scores in place (-inf entries become 0).
void softmax_inplace(std::vector<float>& x) {
  const float m = *std::max_element(x.begin(), x.end());
  float sum = 0.0f;
  for (float& v : x) {
    v = std::exp(v - m);
    sum += v;
  }
  for (float& v : x) v /= sum;
}

// TopKLogitsWarper: scores below the k-th largest become -inf (ties with it stay).
void top_k(std::vector<float>& s, std::size_t k) {
  if (k == 0 || k >= s.size()) return;
  std::vector<float> sorted(s);
  std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(k - 1), sorted.end(), std::greater<float>());
  const float kth = sorted[k - 1];
  for (float& v : s)
    if (v < kth) v = kNegInf;
}

// TopPLogitsWarper: sorted ascending, softmax, cumulative sum; tokens whose cumulative probability is
// <= 1 - top_p become -inf, the most probable always stays (min_tokens_to_keep = 1).
void top_p(std::vector<float>& s, double p) {
  if (p >= 1.0) return;
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s[a] < s[b]; });
  std::vector<float> sorted(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) sorted[i] = s[order[i]];
  softmax_inplace(sorted);
  const float cut = float(1.0 - p);  // the scalar compared in float32
  float cum = 0.0f;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    cum += sorted[i];
    if (cum <= cut) s[order[i]] = kNegInf;
  }
}

}  // namespace

void check_sampling(const SamplingOptions& o) {
  if (!(o.temperature > 0.0) || !std::isfinite(o.temperature))
    throw Error("temperature must be a positive number (got " + std::to_string(o.temperature) + ")");
  if (!(o.top_p > 0.0 && o.top_p <= 1.0))
    throw Error("top_p must be in (0, 1] (got " + std::to_string(o.top_p) + "); 1 keeps every token");
}

std::vector<float> filtered_probs(const float* logits, std::size_t V, const SamplingOptions& o) {
  check_sampling(o);
  std::vector<float> s(logits, logits + V);
  if (o.temperature != 1.0) {
    const float t = float(o.temperature);
    for (float& v : s) v /= t;
  }
  top_k(s, o.top_k);
  top_p(s, o.top_p);
  softmax_inplace(s);
  return s;
}

std::size_t draw_one(const std::vector<float>& probs, Generator& gen) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << 53) - 1U;
  constexpr double kUnit = 1.0 / double(std::uint64_t{1} << 53);
  std::size_t best = 0;
  float best_r = 0.0f;
  bool nan = false;
  for (std::size_t i = 0; i < probs.size(); ++i) {  // every q is drawn, as exponential_ fills the tensor
    const double u = double(gen.random64() & kMask) * kUnit;
    const float q = float(-std::log1p(-u));
    const float r = probs[i] / q;
    if (nan) continue;
    if (std::isnan(r)) {  // torch.argmax takes a NaN as the maximum (0 / 0: u was exactly 0)
      best = i, nan = true;
    } else if (i == 0 || r > best_r) {
      best = i, best_r = r;
    }
  }
  return best;
}

}  // namespace mha
