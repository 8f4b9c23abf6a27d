// Torch-compatible random numbers. Each piece names the ATen function it mirrors; see random.hpp.
//
// Floating-point contract: PyTorch's x86-64 wheels run the AVX2 build of the CPU kernels
// (DistributionKernels.cpp is compiled per CPU capability, with -mavx2 -mfma), and GCC contracts
// a*b + c into one fused multiply-add there. The places where that changes bits are written
// here as explicit std::fma calls, and no other product feeds an addition, so the results do
// not depend on this file's own -ffp-contract setting or on the target having FMA (wasm).
#include "mha/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mha {

namespace {

constexpr int kStateSize = 624;  // at::MERSENNE_STATE_N
constexpr int kShift = 397;      // at::MERSENNE_STATE_M
constexpr std::uint32_t kMatrixA = 0x9908b0dfU;
constexpr std::uint32_t kUpperMask = 0x80000000U;
constexpr std::uint32_t kLowerMask = 0x7fffffffU;

std::uint32_t twist(std::uint32_t u, std::uint32_t v) {
  const std::uint32_t mixed = (u & kUpperMask) | (v & kLowerMask);
  return (mixed >> 1) ^ ((v & 1U) ? kMatrixA : 0U);
}

std::uint32_t float_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

float bits_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// at::transformation::uniform_real<float> with a 32-bit draw: 24 random bits, computed in float
// (DistAccumType<float> is float). The AVX2 build contracts x * (to - from) + from into an FMA.
float uniform_real_float(std::uint32_t draw, float from, float to) {
  constexpr std::uint32_t kMask = (1U << 24) - 1U;
  constexpr float kDivisor = 1.0f / static_cast<float>(1U << 24);
  const float x = static_cast<float>(draw & kMask) * kDivisor;
  return std::fma(x, to - from, from);
}

// at::transformation::uniform_real<double> on [0, 1) with a random64() draw: 53 random bits.
double uniform_unit_double(std::uint64_t draw) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << 53) - 1U;
  constexpr double kDivisor = 1.0 / static_cast<double>(std::uint64_t{1} << 53);
  return static_cast<double>(draw & kMask) * kDivisor;
}

// at::normal_distribution<double>::operator(): double Box–Muller, the sine half cached in the
// generator. transformation::normal (val * std + mean) is contracted in the AVX2 build.
double normal_double(double mean, double stdv, Generator& gen) {
  if (gen.next_double_normal_sample) {
    const double cached = *gen.next_double_normal_sample;
    gen.next_double_normal_sample.reset();
    return std::fma(cached, stdv, mean);
  }
  constexpr double kPi = 3.14159265358979323846;
  const double u1 = uniform_unit_double(gen.random64());
  const double u2 = uniform_unit_double(gen.random64());
  const double radius = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * kPi * u1;
  gen.next_double_normal_sample = radius * std::sin(theta);
  return std::fma(radius * std::cos(theta), stdv, mean);
}

// Scalar, bit-exact rendering of one lane of log256_ps (ATen native/cpu/avx_mathfun.h, Cephes
// logf) as GCC compiles it for the AVX2 capability: the Horner steps and the final corrections
// are fused multiply-adds, e * q1 and z * z are separate products.
float cephes_log_avx2(float x) {
  constexpr float kMinNormPos = 1.17549435e-38f;  // 0x00800000
  constexpr float kSqrtHalf = 0.707106781186547524f;
  constexpr float kP[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                           -1.2420140846E-1f, +1.4249322787E-1f, -1.6668057665E-1f,
                           +2.0000714765E-1f, -2.4999993993E-1f, +3.3333331174E-1f};
  constexpr float kQ1 = -2.12194440e-4f;
  constexpr float kQ2 = 0.693359375f;

  const bool invalid = x <= 0.0f;
  x = x > kMinNormPos ? x : kMinNormPos;  // _mm256_max_ps(x, min_norm_pos) for ordered x
  const std::uint32_t bits = float_bits(x);
  float e = static_cast<float>(static_cast<std::int32_t>(bits >> 23) - 0x7f);
  x = bits_float((bits & ~0x7f800000U) | float_bits(0.5f));
  e = e + 1.0f;
  const bool below_sqrt_half = x < kSqrtHalf;
  const float x_if_below = below_sqrt_half ? x : 0.0f;
  x = x - 1.0f;
  e = e - (below_sqrt_half ? 1.0f : 0.0f);
  x = x + x_if_below;

  const float z = x * x;
  float y = kP[0];
  for (int k = 1; k < 9; ++k) y = std::fma(y, x, kP[k]);
  y = y * x;
  y = std::fma(y, z, e * kQ1);
  y = std::fma(-z, 0.5f, y);
  x = x + y;
  x = std::fma(e, kQ2, x);
  return invalid ? bits_float(0xffffffffU) : x;  // or-ed with the all-ones mask: NaN
}

// Scalar, bit-exact rendering of one lane of sincos256_ps (avx_mathfun.h, Cephes sinf/cosf) as
// GCC compiles it for AVX2: the 3-part reduction and the polynomials use fused multiply-adds.
void cephes_sincos_avx2(float x, float& sine, float& cosine) {
  constexpr float kFourOverPi = 1.27323954473516f;
  constexpr float kMinusDp1 = -0.78515625f;
  constexpr float kMinusDp2 = -2.4187564849853515625e-4f;
  constexpr float kMinusDp3 = -3.77489497744594108e-8f;
  constexpr float kSinP0 = -1.9515295891E-4f, kSinP1 = 8.3321608736E-3f, kSinP2 = -1.6666654611E-1f;
  constexpr float kCosP0 = 2.443315711809948E-005f, kCosP1 = -1.388731625493765E-003f, kCosP2 = 4.166664568298827E-002f;

  std::uint32_t sign_sin = float_bits(x) & 0x80000000U;
  x = bits_float(float_bits(x) & 0x7fffffffU);
  std::int32_t octant = static_cast<std::int32_t>(x * kFourOverPi);  // cvttps: truncation
  octant = (octant + 1) & ~1;
  const float y_octant = static_cast<float>(octant);
  sign_sin ^= static_cast<std::uint32_t>(octant & 4) << 29;
  const bool use_sine_poly = (octant & 2) == 0;  // poly_mask
  const std::uint32_t sign_cos = static_cast<std::uint32_t>(~(octant - 2) & 4) << 29;

  x = std::fma(y_octant, kMinusDp1, x);
  x = std::fma(y_octant, kMinusDp2, x);
  x = std::fma(y_octant, kMinusDp3, x);

  const float z = x * x;
  const float half_z = z * 0.5f;
  float cos_poly = std::fma(std::fma(kCosP0, z, kCosP1), z, kCosP2);
  cos_poly = z * cos_poly;
  cos_poly = std::fma(z, cos_poly, -half_z);
  cos_poly = cos_poly + 1.0f;
  float sin_poly = std::fma(std::fma(kSinP0, z, kSinP1), z, kSinP2);
  sin_poly = z * sin_poly;
  sin_poly = std::fma(x, sin_poly, x);

  // The blend is arithmetic in the source (masked values are +0), kept as such for signed zeros.
  const float sin_from_sin_poly = use_sine_poly ? sin_poly : 0.0f;
  const float sin_from_cos_poly = use_sine_poly ? 0.0f : cos_poly;
  const float cos_from_sin_poly = sin_poly - sin_from_sin_poly;
  const float cos_from_cos_poly = cos_poly - sin_from_cos_poly;
  sine = bits_float(float_bits(sin_from_cos_poly + sin_from_sin_poly) ^ sign_sin);
  cosine = bits_float(float_bits(cos_from_cos_poly + cos_from_sin_poly) ^ sign_cos);
}

// normal_fill_16_AVX2 (native/cpu/DistributionTemplates.h): the first 8 uniforms give the radius,
// the next 8 the angle; cosines go to the first half, sines to the second.
void normal_fill_16_avx2(float* data, float mean, float stdv) {
  const float two_pi = static_cast<float>(2.0 * 3.14159265358979323846);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_log_avx2(u1));
    float sine, cosine;
    cephes_sincos_avx2(two_pi * u2, sine, cosine);
    data[j] = std::fma(radius * cosine, stdv, mean);
    data[j + 8] = std::fma(radius * sine, stdv, mean);
  }
}

void fill_unit_uniforms(float* data, std::size_t n, Generator& gen) {
  for (std::size_t i = 0; i < n; ++i) data[i] = uniform_real_float(gen.random(), 0.0f, 1.0f);
}

}  // namespace

Generator::Generator(std::uint64_t seed) { manual_seed(seed); }

// CPUGeneratorImpl::set_current_seed + mt19937_engine::init_with_uint32: only the low 32 bits
// seed the state, the full value is kept as the initial seed.
void Generator::manual_seed(std::uint64_t seed) {
  next_double_normal_sample.reset();
  seed_ = seed;
  state_[0] = static_cast<std::uint32_t>(seed & 0xffffffffU);
  for (int j = 1; j < kStateSize; ++j) {
    const std::uint32_t prev = state_[j - 1];
    state_[j] = 1812433253U * (prev ^ (prev >> 30)) + static_cast<std::uint32_t>(j);
  }
  left_ = 1;
  next_ = 0;
}

// mt19937_engine::next_state.
void Generator::next_state() {
  left_ = kStateSize;
  next_ = 0;
  for (int j = 0; j < kStateSize - kShift; ++j) {
    state_[j] = state_[j + kShift] ^ twist(state_[j], state_[j + 1]);
  }
  for (int j = kStateSize - kShift; j < kStateSize - 1; ++j) {
    state_[j] = state_[j + kShift - kStateSize] ^ twist(state_[j], state_[j + 1]);
  }
  state_[kStateSize - 1] = state_[kShift - 1] ^ twist(state_[kStateSize - 1], state_[0]);
}

// mt19937_engine::operator(): lazy regeneration, then tempering.
std::uint32_t Generator::random() {
  if (--left_ == 0) next_state();
  std::uint32_t y = state_[static_cast<std::size_t>(next_++)];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

// CPUGeneratorImpl::random64: the first draw is the high word.
std::uint64_t Generator::random64() {
  const std::uint64_t hi = random();
  const std::uint64_t lo = random();
  return (hi << 32) | lo;
}

// uniform_impl_ + templates::cpu::uniform_kernel: from/to are cast to float first.
void uniform_fill(float* data, std::size_t n, double from, double to, Generator& gen) {
  if (!(from <= to)) {
    throw std::invalid_argument("uniform_fill: expects from <= to, got from = " + std::to_string(from) +
                                ", to = " + std::to_string(to));
  }
  const float from_f = static_cast<float>(from);
  const float to_f = static_cast<float>(to);
  for (std::size_t i = 0; i < n; ++i) data[i] = uniform_real_float(gen.random(), from_f, to_f);
}

// templates::cpu::normal_kernel for a contiguous float tensor: >= 16 elements take
// normal_fill_AVX2 (REGISTER_NO_AVX512_DISPATCH keeps AVX512 machines on it too), fewer take the
// cached double Box–Muller per element.
void normal_fill(float* data, std::size_t n, double mean, double stdv, Generator& gen) {
  if (!(stdv >= 0.0)) {
    throw std::invalid_argument("normal_fill: expects std >= 0, got " + std::to_string(stdv));
  }
  if (n < 16) {
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(normal_double(mean, stdv, gen));
    return;
  }
  const float mean_f = static_cast<float>(mean);
  const float std_f = static_cast<float>(stdv);
  fill_unit_uniforms(data, n, gen);
  for (std::size_t i = 0; i + 16 <= n; i += 16) normal_fill_16_avx2(data + i, mean_f, std_f);
  if (n % 16 != 0) {
    // As ATen: redraw the last 16 uniforms and recompute that (overlapping) block.
    float* tail = data + n - 16;
    fill_unit_uniforms(tail, 16, gen);
    normal_fill_16_avx2(tail, mean_f, std_f);
  }
}

// nn.Linear.reset_parameters: kaiming_uniform_(weight, a=sqrt(5)) then uniform_(bias), bounds in
// Python doubles exactly as torch/nn/init.py computes them.
void linear_init(float* weight, float* bias, std::size_t in_features, std::size_t out_features, Generator& gen) {
  const double fan_in = static_cast<double>(in_features);
  if (in_features != 0 && out_features != 0) {
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));  // calculate_gain("leaky_relu", a)
    const double std_dev = gain / std::sqrt(fan_in);
    const double bound = std::sqrt(3.0) * std_dev;
    uniform_fill(weight, in_features * out_features, -bound, bound, gen);
  }
  if (bias != nullptr) {
    const double bound = in_features > 0 ? 1.0 / std::sqrt(fan_in) : 0.0;
    uniform_fill(bias, out_features, -bound, bound, gen);
  }
}

// native/Dropout.cpp _dropout_impl on CPU: noise.bernoulli_(1 - p) (bernoulli_distribution<double>,
// one random64 per element), noise.div_(1 - p) in float, then input * noise.
void dropout_noise(float* noise, std::size_t n, double p, Generator& gen) {
  if (!(p >= 0.0 && p < 1.0))
    throw std::invalid_argument("dropout_noise: probability has to be in [0, 1), got " + std::to_string(p));
  const double keep_probability = 1.0 - p;
  const float kept_noise = 1.0f / static_cast<float>(keep_probability);
  if (p == 0.0) {
    std::fill(noise, noise + n, kept_noise);
    return;
  }
  const float dropped_noise = 0.0f / static_cast<float>(keep_probability);
  for (std::size_t i = 0; i < n; ++i)
    noise[i] = uniform_unit_double(gen.random64()) < keep_probability ? kept_noise : dropped_noise;
}

void dropout_inplace(float* data, std::size_t n, double p, Generator& gen) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument("dropout_inplace: probability has to be between 0 and 1, but got " + std::to_string(p));
  }
  if (p == 0.0 || n == 0) return;
  if (p == 1.0) {
    for (std::size_t i = 0; i < n; ++i) data[i] = data[i] * 0.0f;  // input * zeros({})
    return;
  }
  const double keep_probability = 1.0 - p;
  const float kept_noise = 1.0f / static_cast<float>(keep_probability);
  const float dropped_noise = 0.0f / static_cast<float>(keep_probability);
  for (std::size_t i = 0; i < n; ++i) {
    const bool keep = uniform_unit_double(gen.random64()) < keep_probability;
    data[i] = data[i] * (keep ? kept_noise : dropped_noise);
  }
}

std::int64_t randint(std::int64_t low, std::int64_t high, Generator& gen) {
  return low + static_cast<std::int64_t>(gen.random() % static_cast<std::uint32_t>(high - low));
}

std::vector<std::int64_t> randperm(std::size_t n, Generator& gen) {
  std::vector<std::int64_t> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = static_cast<std::int64_t>(i);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::size_t z = gen.random() % static_cast<std::uint32_t>(n - i);
    std::swap(r[i], r[z + i]);
  }
  return r;
}

}  // namespace mha
