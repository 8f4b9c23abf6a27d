// Native timing of our MultiHeadAttention forward (the same C++ core the wasm builds compile),
// for scripts/bench. Built as the CMake target bench_forward of the native preset (Release: -O3 -DNDEBUG).
//   bench_forward --shape B,S,D,H [--runs N] [--warmup N] [--seed N] [--need-weights] [--output FILE]
// Weights and input come from mha::Generator(seed) exactly as the JS API draws them
// (new Generator(seed); new MultiHeadAttention({...generator}); g.randn([B,S,D])), so the output
// can be compared with ours in wasm. Prints one JSON object: {"median_ms","min_ms","runs",...}.
// --output writes the [B,S,D] output as raw little-endian float32.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mha/attention.hpp"
#include "mha/kernels.hpp"
#include "mha/random.hpp"

int main(int argc, char** argv) {
  std::size_t B = 1, S = 16, D = 64, H = 4;
  int runs = 20, warmup = 2;
  unsigned long long seed = 0;
  bool need_weights = false;
  const char* output = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_forward: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--shape") {
      if (std::sscanf(next(), "%zu,%zu,%zu,%zu", &B, &S, &D, &H) != 4) {
        std::fprintf(stderr, "bench_forward: --shape B,S,D,H\n");
        return 2;
      }
    } else if (a == "--runs") runs = std::atoi(next());
    else if (a == "--warmup") warmup = std::atoi(next());
    else if (a == "--seed") seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--need-weights") need_weights = true;
    else if (a == "--output") output = next();
    else {
      std::fprintf(stderr, "bench_forward: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    auto gen = std::make_shared<mha::Generator>(seed);
    mha::MhaConfig cfg;
    cfg.d_model = D;
    cfg.num_heads = H;
    cfg.bias = true;
    cfg.dropout = 0.0;
    mha::MultiHeadAttention m(cfg, gen);
    m.eval();
    mha::Tensor x({B, S, D});
    mha::normal_fill(x.data(), x.numel(), 0.0, 1.0, *gen);
    mha::AttentionOptions opt;
    opt.need_weights = need_weights;
    mha::ForwardResult r;
    for (int i = 0; i < warmup; ++i) r = m.forward(x, x, x, opt);
    std::vector<double> ms;
    for (int i = 0; i < std::max(runs, 1); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      r = m.forward(x, x, x, opt);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    const double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    if (output) {
      const mha::Tensor out = r.output.contiguous();
      std::FILE* f = std::fopen(output, "wb");
      if (!f || std::fwrite(out.data(), sizeof(float), out.numel(), f) != out.numel()) {
        std::fprintf(stderr, "bench_forward: cannot write %s\n", output);
        return 1;
      }
      std::fclose(f);
    }
    std::printf(
        "{\"shape\":[%zu,%zu,%zu,%zu],\"median_ms\":%.6f,\"min_ms\":%.6f,\"runs\":%zu,\"need_weights\":%s,\"kernels\":\"%s\"}\n",
        B, S, D, H, median, ms[0], n, need_weights ? "true" : "false", mha::kernels::implementation());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_forward: %s\n", e.what());
    return 1;
  }
  return 0;
}
