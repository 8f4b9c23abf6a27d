// Kernel microbenchmarks; prints markdown tables of GFLOP/s (single thread).
//   (1) f32x4 mul+add peak: independent chains acc = acc·c + d (no FMA in base SIMD128)
//   (2) each kernel at MHA-relevant sizes, and an MHA forward composed from the kernels
// Build and run with bench/cpp/build.sh (native g++, em++ -msimd128, em++ without SIMD).
// Arguments: [min seconds per measurement, default 0.25] [cpu|wall timer, default cpu].
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "mha/kernels.hpp"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#else
#include <time.h>
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace k = mha::kernels;

namespace {

double g_min_seconds = 0.25;
volatile float g_sink;

// Seconds of CPU time of this process (node: process.cpuUsage), so that a shared, busy machine
// (preemption) does not distort single-thread rates. argv[2] = "wall" switches to wall time.
bool g_wall = false;
double now() {
  if (!g_wall) {
#if defined(__EMSCRIPTEN__)
    return EM_ASM_DOUBLE({
      const u = process.cpuUsage();
      return (u.user + u.system) * 1e-6;
    });
#else
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
#endif
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best seconds per call: batches of ~2 ms (short enough to often run unpreempted on a shared
// machine), repeated for at least g_min_seconds; the minimum batch average wins.
template <class F>
double time_call(F&& fn) {
  fn();  // warm-up: tier-up in V8, scratch buffers allocated
  double best = 1e30, total = 0.0;
  std::size_t reps = 1;
  while (total < g_min_seconds) {
    const double t0 = now();
    for (std::size_t r = 0; r < reps; ++r) fn();
    const double dt = now() - t0;
    total += dt;
    best = std::min(best, dt / double(reps));
    if (dt < 0.002) reps *= 2;
  }
  return best;
}

std::vector<float> rnd(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// ---- (1) peak ----------------------------------------------------------------------------
#if defined(__wasm_simd128__)
using vec4 = v128_t;
inline vec4 vsplat(float x) { return wasm_f32x4_splat(x); }
inline vec4 vmuladd(vec4 a, vec4 c, vec4 d) { return wasm_f32x4_add(wasm_f32x4_mul(a, c), d); }
inline float vlane0(vec4 a) { return wasm_f32x4_extract_lane(a, 0); }
constexpr int kLanes = 4;
#elif defined(__EMSCRIPTEN__)
using vec4 = float;  // scalar wasm build: one lane
inline vec4 vsplat(float x) { return x; }
inline vec4 vmuladd(vec4 a, vec4 c, vec4 d) { return a * c + d; }
inline float vlane0(vec4 a) { return a; }
constexpr int kLanes = 1;
#else
typedef float vec4 __attribute__((vector_size(16)));  // native: may be contracted to FMA
inline vec4 vsplat(float x) { return vec4{x, x, x, x}; }
inline vec4 vmuladd(vec4 a, vec4 c, vec4 d) { return a * c + d; }
inline float vlane0(vec4 a) { return a[0]; }
constexpr int kLanes = 4;
#endif

// noinline: V8 has no on-stack replacement for wasm, so a hot loop inlined into main() would
// stay in the baseline (Liftoff) tier; a function called repeatedly tiers up to TurboFan.
template <int kChains>
__attribute__((noinline)) void peak_loop(std::size_t iters, float c0, float d0) {
  vec4 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = vsplat(float(i) * 0.01f);
  const vec4 c = vsplat(c0), d = vsplat(d0);
  for (std::size_t it = 0; it < iters; ++it)
    for (int i = 0; i < kChains; ++i) acc[i] = vmuladd(acc[i], c, d);
  float s = 0.0f;
  for (int i = 0; i < kChains; ++i) s += vlane0(acc[i]);
  g_sink = s;
}

template <int kChains>
double peak_gflops() {
  const std::size_t iters = 1 << 12;
  const double t = time_call([&] { peak_loop<kChains>(iters, 0.999f, 0.001f); });
  return 2.0 * kLanes * kChains * double(iters) / t * 1e-9;
}

// ---- (2) kernels -------------------------------------------------------------------------
double bench_gemm_nt(std::size_t M, std::size_t N, std::size_t K) {
  const auto A = rnd(M * K, 1), B = rnd(N * K, 2), bias = rnd(N, 3);
  std::vector<float> C(M * N);
  const double t =
      time_call([&] { k::f32_gemm_nt(M, N, K, 0.5f, A.data(), K, B.data(), K, bias.data(), C.data(), N); });
  return 2.0 * double(M) * double(N) * double(K) / t * 1e-9;
}

double bench_gemm_nn(std::size_t M, std::size_t N, std::size_t K) {
  const auto A = rnd(M * K, 1), B = rnd(K * N, 2);
  std::vector<float> C(M * N);
  const double t = time_call([&] { k::f32_gemm_nn(M, N, K, A.data(), K, B.data(), N, C.data(), N); });
  return 2.0 * double(M) * double(N) * double(K) / t * 1e-9;
}

// Rows of n elements per second, in Gelem/s.
double bench_softmax(std::size_t rows, std::size_t n) {
  const auto x0 = rnd(rows * n, 4);
  std::vector<float> x = x0;
  const double t = time_call([&] { k::f32_softmax(rows, n, x.data(), n); });
  return double(rows) * double(n) / t * 1e-9;
}

// FLOPs counted as 4·Sq·Skv·d (QKᵀ and P·V); causal counts the same (full-matrix convention)
// so the causal column shows the time saved as a higher rate.
double bench_attention(std::size_t S, std::size_t d, bool causal) {
  const auto q = rnd(S * d, 5), kk = rnd(S * d, 6), v = rnd(S * d, 7);
  std::vector<float> out(S * d);
  k::f32_score_mask m;
  m.causal = causal;
  const double t = time_call([&] {
    k::f32_attention_online(S, S, d, d, 1.0f / std::sqrt(float(d)), q.data(), d, kk.data(), d, v.data(), d, m,
                            out.data(), d);
  });
  return 4.0 * double(S) * double(S) * double(d) / t * 1e-9;
}

// nn.MultiheadAttention-style forward for batch 1: Q/K/V projections (gemm_nt + bias, the 1/√dk
// scale folded into the attention), H fused heads over strided column slices, output projection.
double bench_mha(std::size_t S, std::size_t D, std::size_t H) {
  const std::size_t dk = D / H;
  const auto x = rnd(S * D, 8), w = rnd(4 * D * D, 9), b = rnd(4 * D, 10);
  std::vector<float> qkv(3 * S * D), att(S * D), y(S * D);
  const double t = time_call([&] {
    for (std::size_t p = 0; p < 3; ++p)
      k::f32_gemm_nt(S, D, D, 1.0f, x.data(), D, w.data() + p * D * D, D, b.data() + p * D, qkv.data() + p * S * D, D);
    for (std::size_t h = 0; h < H; ++h)
      k::f32_attention_online(S, S, dk, dk, 1.0f / std::sqrt(float(dk)), qkv.data() + h * dk, D,
                              qkv.data() + S * D + h * dk, D, qkv.data() + 2 * S * D + h * dk, D, k::f32_score_mask{},
                              att.data() + h * dk, D);
    k::f32_gemm_nt(S, D, D, 1.0f, att.data(), D, w.data() + 3 * D * D, D, b.data() + 3 * D, y.data(), D);
  });
  const double flops = 4.0 * 2.0 * double(S) * double(D) * double(D) + 4.0 * double(S) * double(S) * double(D);
  return flops / t * 1e-9;
}

// The long-sequence forward (1, S, 256, 8) composed from the kernels, attention per head either
// through an S×S score matrix in memory (gemm_nt, softmax, gemm_nn: what forming the weights
// costs, without the copy) or tiled (f32_attention_online: what needWeights = false runs).
double bench_mha_long(std::size_t S, bool tiled) {
  const std::size_t D = 256, H = 8, dk = D / H;
  const auto x = rnd(S * D, 8), w = rnd(4 * D * D, 9), b = rnd(4 * D, 10);
  std::vector<float> qkv(3 * S * D), att(S * D), y(S * D), scores(tiled ? 0 : S * S);
  const float scale = 1.0f / std::sqrt(float(dk));
  const double t = time_call([&] {
    for (std::size_t p = 0; p < 3; ++p)
      k::f32_gemm_nt(S, D, D, 1.0f, x.data(), D, w.data() + p * D * D, D, b.data() + p * D, qkv.data() + p * S * D, D);
    for (std::size_t h = 0; h < H; ++h) {
      const float *q = qkv.data() + h * dk, *kk = q + S * D, *v = q + 2 * S * D;
      if (tiled) {
        k::f32_attention_online(S, S, dk, dk, scale, q, D, kk, D, v, D, k::f32_score_mask{}, att.data() + h * dk, D);
      } else {
        k::f32_gemm_nt(S, S, dk, scale, q, D, kk, D, nullptr, scores.data(), S);
        k::f32_softmax(S, S, scores.data(), S);
        k::f32_gemm_nn(S, dk, S, scores.data(), S, v, D, att.data() + h * dk, D);
      }
    }
    k::f32_gemm_nt(S, D, D, 1.0f, att.data(), D, w.data() + 3 * D * D, D, b.data() + 3 * D, y.data(), D);
  });
  const double flops = 4.0 * 2.0 * double(S) * double(D) * double(D) + 4.0 * double(S) * double(S) * double(D);
  return flops / t * 1e-9;
}

std::string build_name() {
#if defined(__wasm_simd128__)
  return "wasm simd128";
#elif defined(__EMSCRIPTEN__)
  return "wasm scalar";
#else
  return "native";
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_min_seconds = std::atof(argv[1]);
  g_wall = argc > 2 && std::string(argv[2]) == "wall";
  const std::string b = build_name();
  std::printf("### %s (kernels: %s, %s time)\n\n", b.c_str(), k::implementation(), g_wall ? "wall" : "CPU");

  std::printf("| peak f32 mul+add, chains | 8 | 10 | 12 | 14 |\n|---|---|---|---|---|\n");
  const double peaks[] = {peak_gflops<8>(), peak_gflops<10>(), peak_gflops<12>(), peak_gflops<14>()};
  const double peak = *std::max_element(std::begin(peaks), std::end(peaks));
  std::printf("| GFLOP/s (%s) | %.1f | %.1f | %.1f | %.1f |\n\n", b.c_str(), peaks[0], peaks[1], peaks[2], peaks[3]);

  std::printf("| kernel | shape | GFLOP/s |\n|---|---|---|\n");
  for (auto s : {std::vector<std::size_t>{128, 512, 512}, {512, 512, 512}, {2048, 256, 256}, {16, 64, 64}})
    std::printf("| gemm_nt | M,N,K = %zu,%zu,%zu | %.2f |\n", s[0], s[1], s[2], bench_gemm_nt(s[0], s[1], s[2]));
  for (auto s : {std::vector<std::size_t>{512, 64, 512}, {128, 512, 512}})
    std::printf("| gemm_nn | M,N,K = %zu,%zu,%zu | %.2f |\n", s[0], s[1], s[2], bench_gemm_nn(s[0], s[1], s[2]));
  for (std::size_t S : {128, 512, 2048})
    std::printf("| attention_online | S=%zu dk=64 | %.2f |\n", S, bench_attention(S, 64, false));
  for (std::size_t S : {512, 2048})
    std::printf("| attention_online causal | S=%zu dk=64 (full-matrix FLOPs) | %.2f |\n", S,
                bench_attention(S, 64, true));
  for (std::size_t S : {128, 512})
    std::printf("| MHA forward | B,S,D,H = 1,%zu,512,8 | %.2f |\n", S, bench_mha(S, 512, 8));
  std::printf("| softmax | 512 rows x 512 (Gelem/s) | %.3f |\n", bench_softmax(512, 512));
  std::printf("\n");

  // Long sequences: % of the peak measured above (the best chain count).
  std::printf(
      "| long sequence (1,S,256,8) | S×S in memory GFLOP/s | %% of peak | tiled GFLOP/s | %% of peak |\n"
      "|---|---|---|---|---|\n");
  for (std::size_t S : {128, 256, 512, 1024, 2048}) {
    const double mat = bench_mha_long(S, false), til = bench_mha_long(S, true);
    std::printf("| long S=%zu | %.2f | %.1f%% | %.2f | %.1f%% |\n", S, mat, 100.0 * mat / peak, til,
                100.0 * til / peak);
  }
  std::printf("\n");
  return 0;
}
