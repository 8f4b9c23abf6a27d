// Torch-compatible random numbers: the CPU stream of torch.manual_seed(seed), bit for bit.
//
// The specification is ATen: ATen/core/MT19937RNGEngine.h (the engine), ATen/CPUGeneratorImpl.cpp
// (random/random64 and the cached normal), ATen/core/DistributionsHelper.h and
// ATen/core/TransformationHelper.h (uniform/normal/bernoulli transforms),
// ATen/native/cpu/DistributionTemplates.h (normal_fill for >= 16 elements) and ATen/native/Dropout.cpp.
//
// All fills write `n` contiguous floats in row-major order, as the PyTorch op writes a fresh
// contiguous tensor of that many elements.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mha {

// mt19937 seeded as ATen does, plus the cached second Box–Muller sample ATen keeps.
class Generator {
 public:
  static constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;  // ATen's default_rng_seed_val
  explicit Generator(std::uint64_t seed = kDefaultSeed);

  // torch.manual_seed(seed): reseeds and forgets the cached normal.
  void manual_seed(std::uint64_t seed);
  std::uint64_t initial_seed() const { return seed_; }
  // True until the first draw after seeding: then torch.manual_seed(initial_seed()) reproduces
  // everything drawn from here on.
  bool fresh() const { return next_ == 0 && !next_double_normal_sample; }

  std::uint32_t random();    // one 32-bit draw
  std::uint64_t random64();  // two draws combined as ATen does

  // The cached second sample of the double Box–Muller transform (ATen's next_double_normal_sample).
  std::optional<double> next_double_normal_sample;

 private:
  std::uint64_t seed_;
  std::array<std::uint32_t, 624> state_{};
  int left_ = 1;
  int next_ = 0;
  void next_state();
};

// torch.randint(low, high, (n,)) on CPU, one element: low + random() % (high - low) (one 32-bit draw;
// a tensor's elements are drawn in row-major order). Requires low < high and high - low < 2^32.
std::int64_t randint(std::int64_t low, std::int64_t high, Generator& gen);

// torch.randperm(n) on CPU for small n: Fisher–Yates from the front with random() % (n - i).
std::vector<std::int64_t> randperm(std::size_t n, Generator& gen);

// torch.rand / Tensor.uniform_(from, to) on a float tensor: one 32-bit draw per element.
void uniform_fill(float* data, std::size_t n, double from, double to, Generator& gen);

// torch.randn / Tensor.normal_(mean, std) on a float tensor: the < 16 and >= 16 element paths.
void normal_fill(float* data, std::size_t n, double mean, double std, Generator& gen);

// nn.Linear(in_features, out_features) default init: weight [out, in] first
// (kaiming_uniform_(a = sqrt(5)) = U(-1/sqrt(in), 1/sqrt(in))), then bias [out] (same bound).
// bias may be nullptr (bias = False), then only the weight is drawn.
void linear_init(float* weight, float* bias, std::size_t in_features, std::size_t out_features, Generator& gen);

// F.dropout(x, p, training = True) on CPU in place (PyTorch >= 2.7): per element a 53-bit
// uniform u; keep when u < 1 - p, kept values scaled by 1/(1 - p), others set to 0.
// p == 0 draws nothing and changes nothing; p == 1 zeroes all (no draws). Requires 0 <= p <= 1.
void dropout_inplace(float* data, std::size_t n, double p, Generator& gen);

// The same draws as dropout_inplace, kept as the noise tensor backward needs: noise[i] is
// 1/(1 - p) where element i is kept and 0 where it is dropped (dropout_inplace(x) = x · noise).
// Requires 0 <= p < 1; p == 0 draws nothing.
void dropout_noise(float* noise, std::size_t n, double p, Generator& gen);

}  // namespace mha
