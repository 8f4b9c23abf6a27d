// Tests for mha/random.hpp. Printed PyTorch values (4 decimals) are checked within 5e-5; exact bit
// checks use only independent sources (std::mt19937, the C++ standard's 10000th-draw value).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "mha/random.hpp"

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

std::vector<float> randn(std::size_t n, mha::Generator& gen) {
  std::vector<float> out(n);
  mha::normal_fill(out.data(), n, 0.0, 1.0, gen);
  return out;
}

std::vector<float> rand_unit(std::size_t n, mha::Generator& gen) {
  std::vector<float> out(n);
  mha::uniform_fill(out.data(), n, 0.0, 1.0, gen);
  return out;
}

void check_close(const std::vector<float>& actual, const std::vector<float>& expected, std::size_t offset = 0,
                 std::size_t stride = 1) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("index " << offset + i * stride);
    CHECK_THAT(actual.at(offset + i * stride), WithinAbs(expected[i], 5e-5));
  }
}

void skip_draws(mha::Generator& gen, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) gen.random();
}

}  // namespace

TEST_CASE("engine equals std::mt19937 seeded with the low 32 bits", "[random][engine]") {
  for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, 5489ULL, 0xffffffffULL, 0x123456789abcdefULL}) {
    mha::Generator gen(seed);
    std::mt19937 reference(static_cast<std::uint32_t>(seed & 0xffffffffU));
    for (int i = 0; i < 5000; ++i) {
      INFO("seed " << seed << " draw " << i);
      REQUIRE(gen.random() == reference());
    }
    CHECK(gen.initial_seed() == seed);
  }
}

TEST_CASE("engine golden values from the mt19937 reference", "[random][engine]") {
  mha::Generator gen(5489);
  CHECK(gen.random() == 3499211612U);
  skip_draws(gen, 9998);
  CHECK(gen.random() == 4123659995U);  // [rand.predef]: the 10000th draw of mt19937(5489)
}

TEST_CASE("random64 puts the first draw in the high word", "[random][engine]") {
  mha::Generator gen(7);
  std::mt19937 reference(7);
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t hi = reference();
    const std::uint64_t lo = reference();
    REQUIRE(gen.random64() == ((hi << 32) | lo));
  }
}

TEST_CASE("manual_seed restarts the stream and forgets the cached normal", "[random][engine]") {
  mha::Generator gen(3);
  const std::uint32_t first = gen.random();
  std::vector<float> one(1);
  mha::normal_fill(one.data(), 1, 0.0, 1.0, gen);
  REQUIRE(gen.next_double_normal_sample.has_value());
  gen.manual_seed(3);
  CHECK_FALSE(gen.next_double_normal_sample.has_value());
  CHECK(gen.random() == first);

  mha::Generator high_bits((std::uint64_t{1} << 32) | 3U);
  CHECK(high_bits.random() == first);
}

TEST_CASE("rand: one 32-bit draw per element, 24-bit mantissa, exact", "[random][uniform]") {
  mha::Generator gen(0);
  const auto values = rand_unit(1000, gen);
  std::mt19937 reference(0);
  for (float v : values) {
    const float expected = static_cast<float>(reference() & 0xffffffU) / 16777216.0f;
    REQUIRE(v == expected);
  }
  CHECK(gen.random() == reference());
}

TEST_CASE("rand matches PyTorch", "[random][uniform][torch]") {
  mha::Generator gen(0);
  check_close(rand_unit(5, gen), {0.4963f, 0.7682f, 0.0885f, 0.1320f, 0.3074f});
  gen.manual_seed(0);
  check_close(rand_unit(3, gen), {0.4963f, 0.7682f, 0.0885f});
}

TEST_CASE("uniform_fill rejects from > to and draws nothing for n == 0", "[random][uniform]") {
  mha::Generator gen(0);
  float unused = 0.0f;
  CHECK_THROWS_AS(mha::uniform_fill(&unused, 1, 1.0, 0.0, gen), std::invalid_argument);
  mha::uniform_fill(nullptr, 0, 0.0, 1.0, gen);
  CHECK(gen.random() == std::mt19937(0)());
}

TEST_CASE("randn below 16 elements matches PyTorch (double Box-Muller)", "[random][normal][torch]") {
  mha::Generator gen(0);
  check_close(randn(3, gen), {1.5410f, -0.2934f, -2.1788f});
  gen.manual_seed(42);
  check_close(randn(3, gen), {0.3367f, 0.1288f, 0.2345f});
}

TEST_CASE("randn(8) then randn(8, 8) with seed 1 matches PyTorch", "[random][normal][torch]") {
  mha::Generator gen(1);
  check_close(randn(8, gen), {0.6614f, 0.2669f, 0.0617f, 0.6213f, -0.4519f, -0.1661f, -1.5228f, 0.3817f});
  const auto w = randn(64, gen);
  check_close(w, {-0.6970f, -1.1608f, 0.6995f, 0.1991f, 0.8657f, 0.2444f, -0.6629f, 0.8073f});
  check_close(w, {0.1991f, -1.4465f, -0.7735f, -0.0288f, -0.4370f, -0.6446f, -1.0055f, -0.8313f}, 3, 8);
}

TEST_CASE("randn(16) with seed 0 matches PyTorch (16-wide path)", "[random][normal][torch]") {
  mha::Generator gen(0);
  check_close(randn(16, gen), {-1.1258f, -1.1524f, -0.2506f, -0.4339f});
}

TEST_CASE("the cached normal survives across calls", "[random][normal]") {
  mha::Generator split(11);
  auto values = randn(3, split);
  const auto second = randn(3, split);
  values.insert(values.end(), second.begin(), second.end());

  mha::Generator whole(11);
  const auto reference = randn(6, whole);
  for (std::size_t i = 0; i < 6; ++i) REQUIRE(values[i] == reference[i]);
  // Three pairs were drawn in both cases: 6 random64 = 12 draws, nothing cached afterwards.
  CHECK(split.random() == whole.random());
  CHECK_FALSE(split.next_double_normal_sample.has_value());

  mha::Generator odd(11);
  randn(1, odd);
  REQUIRE(odd.next_double_normal_sample.has_value());
  CHECK(static_cast<float>(*odd.next_double_normal_sample) == reference[1]);
}

TEST_CASE("randn of 16 or more uses 24-bit uniforms and ignores the cache", "[random][normal]") {
  mha::Generator gen(5);
  randn(1, gen);  // leaves a cached sample
  const std::uint64_t draws_before = 4;
  const auto block = randn(32, gen);
  CHECK(gen.next_double_normal_sample.has_value());  // untouched by the 16-wide path
  mha::Generator fresh(5);
  skip_draws(fresh, draws_before);
  const auto reference = randn(32, fresh);
  for (std::size_t i = 0; i < 32; ++i) REQUIRE(block[i] == reference[i]);
  CHECK(gen.random() == fresh.random());
}

TEST_CASE("randn with n % 16 != 0 redraws and recomputes the last 16", "[random][normal]") {
  for (std::size_t n : {17U, 31U, 33U, 47U}) {
    INFO("n = " << n);
    const std::size_t full = n / 16 * 16;
    mha::Generator gen(9);
    const auto values = randn(n, gen);

    // Elements before the recomputed block come from the full 16-wide blocks of the first draws.
    mha::Generator prefix_gen(9);
    const auto prefix = randn(full, prefix_gen);
    for (std::size_t i = 0; i < n - 16; ++i) REQUIRE(values[i] == prefix[i]);

    // The last 16 are a fresh randn(16) on the draws that follow the first n.
    mha::Generator tail_gen(9);
    skip_draws(tail_gen, n);
    const auto tail = randn(16, tail_gen);
    for (std::size_t i = 0; i < 16; ++i) REQUIRE(values[n - 16 + i] == tail[i]);

    CHECK(gen.random() == tail_gen.random());  // n + 16 draws consumed in total
  }
}

TEST_CASE("normal_fill applies mean and std", "[random][normal]") {
  for (std::size_t n : {5U, 40U}) {
    mha::Generator a(21), b(21);
    std::vector<float> scaled(n);
    mha::normal_fill(scaled.data(), n, 1.5, 0.25, a);
    const auto unit = randn(n, b);
    for (std::size_t i = 0; i < n; ++i) CHECK_THAT(scaled[i], WithinAbs(unit[i] * 0.25f + 1.5f, 1e-6));
  }
  mha::Generator gen(0);
  float unused = 0.0f;
  CHECK_THROWS_AS(mha::normal_fill(&unused, 1, 0.0, -1.0, gen), std::invalid_argument);
  mha::normal_fill(nullptr, 0, 0.0, 1.0, gen);
  CHECK(gen.random() == std::mt19937(0)());
}

TEST_CASE("randn statistics are sane on both paths", "[random][normal]") {
  for (std::size_t chunk : {7U, 4096U}) {
    mha::Generator gen(123);
    double sum = 0.0, sum_sq = 0.0;
    const std::size_t total = 200000;
    std::vector<float> buffer(chunk);
    for (std::size_t done = 0; done < total; done += chunk) {
      mha::normal_fill(buffer.data(), chunk, 0.0, 1.0, gen);
      for (float v : buffer) {
        REQUIRE(std::isfinite(v));
        sum += v;
        sum_sq += static_cast<double>(v) * v;
      }
    }
    const double count = static_cast<double>((total + chunk - 1) / chunk * chunk);
    CHECK_THAT(sum / count, WithinAbs(0.0, 0.01));
    CHECK_THAT(sum_sq / count, WithinAbs(1.0, 0.01));
  }
}

TEST_CASE("nn.Linear(4, 4) init matches PyTorch", "[random][linear][torch]") {
  mha::Generator gen(0);
  std::vector<float> weight(16), bias(4);
  mha::linear_init(weight.data(), bias.data(), 4, 4, gen);
  check_close(weight, {-0.0037f, 0.2682f, -0.4115f, -0.3680f});
  check_close(bias, {0.1977f, 0.3000f, -0.3390f, -0.2177f});
  for (float w : weight) CHECK(std::fabs(w) < 0.5f);
}

TEST_CASE("linear_init draws the weight then the bias with float-cast bounds", "[random][linear]") {
  const std::size_t in = 3, out = 5;
  mha::Generator gen(17);
  std::vector<float> weight(in * out), bias(out);
  mha::linear_init(weight.data(), bias.data(), in, out, gen);

  mha::Generator reference(17);
  const double a = std::sqrt(5.0);
  const double bound = std::sqrt(3.0) * (std::sqrt(2.0 / (1.0 + a * a)) / std::sqrt(3.0));
  std::vector<float> expected_weight(in * out), expected_bias(out);
  mha::uniform_fill(expected_weight.data(), in * out, -bound, bound, reference);
  mha::uniform_fill(expected_bias.data(), out, -1.0 / std::sqrt(3.0), 1.0 / std::sqrt(3.0), reference);
  for (std::size_t i = 0; i < weight.size(); ++i) REQUIRE(weight[i] == expected_weight[i]);
  for (std::size_t i = 0; i < out; ++i) REQUIRE(bias[i] == expected_bias[i]);

  mha::Generator no_bias(17);
  std::vector<float> weight_only(in * out);
  mha::linear_init(weight_only.data(), nullptr, in, out, no_bias);
  CHECK(weight_only == weight);
  std::mt19937 after_weight(17);
  after_weight.discard(in * out);
  CHECK(no_bias.random() == after_weight());
}

TEST_CASE("dropout p = 0 draws nothing, p = 1 zeroes without drawing", "[random][dropout]") {
  std::vector<float> x = {1.0f, -2.0f, 3.5f};
  mha::Generator gen(4);
  mha::dropout_inplace(x.data(), x.size(), 0.0, gen);
  CHECK(x == std::vector<float>{1.0f, -2.0f, 3.5f});
  mha::dropout_inplace(x.data(), x.size(), 1.0, gen);
  for (float v : x) CHECK(v == 0.0f);
  mha::dropout_inplace(nullptr, 0, 0.5, gen);
  CHECK(gen.random() == std::mt19937(4)());
}

TEST_CASE("dropout rejects p outside [0, 1] and NaN", "[random][dropout]") {
  mha::Generator gen(0);
  float x = 1.0f;
  CHECK_THROWS_AS(mha::dropout_inplace(&x, 1, -0.1, gen), std::invalid_argument);
  CHECK_THROWS_AS(mha::dropout_inplace(&x, 1, 1.5, gen), std::invalid_argument);
  CHECK_THROWS_AS(mha::dropout_inplace(&x, 1, std::nan(""), gen), std::invalid_argument);
  CHECK(x == 1.0f);
}

TEST_CASE("dropout: one random64 per element, 53-bit uniform < 1 - p keeps", "[random][dropout]") {
  for (double p : {0.1, 0.5, 0.9}) {
    INFO("p = " << p);
    const std::size_t n = 100000;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) * 0.37f - 11.0f;
    const std::vector<float> original = x;
    mha::Generator gen(2024);
    mha::dropout_inplace(x.data(), n, p, gen);

    std::mt19937 reference(2024);
    const float scale = 1.0f / static_cast<float>(1.0 - p);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t hi = reference();
      const std::uint64_t draw = (hi << 32) | reference();
      const double u = static_cast<double>(draw & ((std::uint64_t{1} << 53) - 1)) / 9007199254740992.0;
      if (u < 1.0 - p) {
        ++kept;
        REQUIRE(x[i] == original[i] * scale);
      } else {
        REQUIRE(x[i] == 0.0f);
      }
    }
    CHECK_THAT(static_cast<double>(kept) / n, WithinAbs(1.0 - p, 0.01));
    CHECK(gen.random() == reference());
  }
}
