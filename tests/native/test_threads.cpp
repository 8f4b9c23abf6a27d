// The kernels' thread pool (mha/kernels.hpp's Threads): every item once, nested calls inline, and the
// results of 1 and N threads bit for bit: the stored-weight GEMMs at the column blocks' and tiles' boundaries,
// and the forward of every model case the oracle writes (tests/models/make_checkpoints.py, build/models/).
#include "test_model_cases.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <random>
#include <vector>

#include "mha/kernels.hpp"
#include "mha/models.hpp"

using namespace mha;
namespace k = mha::kernels;

namespace {

// Restores one thread and the default threshold when a test ends.
struct ThreadsFor {
  std::size_t threshold = k::split_threshold();
  explicit ThreadsFor(std::size_t n) {
    k::set_threads(n);
    k::set_split_threshold(0);  // every call split, however small
  }
  ~ThreadsFor() {
    k::set_threads(1);
    k::set_split_threshold(threshold);
  }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  if (a.numel() == 0) return true;  // an empty tensor's data() may be null: memcmp must not see it (UBSan)
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.data(), cb.data(), ca.numel() * sizeof(float)) == 0;
}

std::vector<float> randoms(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

// The top halves of float32 values (bfloat16) or their float16 roundings' bits, for a stored weight.
std::vector<std::uint16_t> halves(const std::vector<float>& v, k::wtype type) {
  std::vector<std::uint16_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    if (type == k::wtype::bf16) out[i] = std::uint16_t(bits >> 16);
    else {  // |x| <= 1: a normal float16 or a subnormal rounded toward zero (the test needs bits, not rounding)
      const std::uint32_t sign = (bits >> 16) & 0x8000u, exp = (bits >> 23) & 0xffu, mant = bits & 0x7fffffu;
      out[i] = std::uint16_t(exp < 113 ? sign : sign | ((exp - 112) << 10) | (mant >> 13));
    }
  }
  return out;
}

// C = A · Wᵀ or A · W (+ bias) through the stored-weight GEMMs on `threads` threads.
std::vector<float> stored_gemm(bool nt, k::wtype type, std::size_t M, std::size_t N, std::size_t K, bool bias,
                               std::size_t threads) {
  const std::vector<float> A = randoms(M * K, 1), W = randoms(N * K, 2), b = randoms(N, 3);
  const std::vector<std::uint16_t> h = halves(W, type);
  k::weight_matrix w{type == k::wtype::f32 ? static_cast<const void*>(W.data()) : h.data(), type, nt ? K : N};
  std::vector<float> C(M * N, -7.0f);
  ThreadsFor t(threads);
  if (nt) k::f32_gemm_nt_w(M, N, K, A.data(), K, w, bias ? b.data() : nullptr, C.data(), N);
  else k::f32_gemm_nn_w(M, N, K, A.data(), K, w, bias ? b.data() : nullptr, C.data(), N);
  return C;
}

}  // namespace

TEST_CASE("the pool runs every item once, nested calls inline, and clamps its size", "[threads]") {
  const std::size_t most = k::max_threads();
  REQUIRE(most >= 1);
  CHECK(k::set_threads(0) == 1);
  CHECK(k::set_threads(most + 100) == most);
  CHECK(k::threads() == most);
  for (std::size_t n : {0, 1, 2, 3, 7, 64, 1000}) {
    std::vector<std::atomic<int>> hits(n);
    std::atomic<int> nested{0};
    k::parallel_for(n, 0, [&](std::size_t i) {
      hits[i].fetch_add(1);
      k::parallel_for(3, 0, [&](std::size_t) { nested.fetch_add(1); });
    });
    for (std::size_t i = 0; i < n; ++i) CHECK(hits[i].load() == 1);
    CHECK(nested.load() == int(3 * n));
  }
  k::set_threads(1);
  CHECK(k::threads() == 1);
}

TEST_CASE("stored-weight GEMMs on N threads give one thread's bits at every block and tile boundary", "[threads]") {
  const std::size_t most = std::min<std::size_t>(k::max_threads(), 4);
  if (most < 2) {
    WARN("this build runs one thread: nothing to compare");
    return;
  }
  for (bool nt : {true, false})
    for (k::wtype type : {k::wtype::f32, k::wtype::f16, k::wtype::bf16})
      for (std::size_t M : {1, 2, 3, 4, 5, 17})
        for (std::size_t N : {1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 127, 129, 200})
          for (std::size_t K : {1, 7, 64}) {
            const bool bias = (M + N) % 2 == 0;
            const std::vector<float> one = stored_gemm(nt, type, M, N, K, bias, 1);
            for (std::size_t t = 2; t <= most; ++t) {
              INFO((nt ? "nt" : "nn") << " type " << int(type) << " M=" << M << " N=" << N << " K=" << K << " on " << t
                                      << " threads");
              CHECK(same_bits(stored_gemm(nt, type, M, N, K, bias, t), one));
            }
          }
}

TEST_CASE("every model case's forward on N threads gives one thread's bits", "[threads][models]") {
  const std::size_t most = std::min<std::size_t>(k::max_threads(), 3);
  if (most < 2) {
    WARN("this build runs one thread: nothing to compare");
    return;
  }
  for (const mha_test::ModelCase& c : mha_test::model_cases()) {
    const std::string& name = c.name;
    DYNAMIC_SECTION(name << " (" << c.family << ")") {
      const mha_test::Checkpoint ck = mha_test::read_checkpoint(mha_test::kModelFixtures + "/" + name);
      const std::size_t T = std::min<std::size_t>(ck.config.max_positions, 40), V = ck.config.vocab;
      std::vector<std::int32_t> ids(T);
      for (std::size_t i = 0; i < T; ++i) ids[i] = std::int32_t((i * 7919 + 3) % V);
      ModelForwardOptions options;
      for (std::size_t p = 0; p < T; ++p) options.logits_at.push_back(p);
      if (!Model(ck.config, ck.weights).has_lm_head()) options.logits_at.clear();
      options.heads_off = {{0, 0}};
      const auto run = [&](std::size_t threads) {
        ThreadsFor t(threads);
        return Model(ck.config, ck.weights).forward(ids, options);
      };
      const ModelOutput one = run(1);
      for (std::size_t t = 2; t <= most; ++t) {
        INFO(t << " threads, " << T << " tokens");
        const ModelOutput many = run(t);
        CHECK(same_bits(many.attentions, one.attentions));
        CHECK(same_bits(many.hidden, one.hidden));
        CHECK(same_bits(many.logits, one.logits));
      }
    }
  }
}
