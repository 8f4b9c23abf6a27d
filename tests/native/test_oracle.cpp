// Differential tests against real PyTorch: fixtures that tests/torch/make_fixtures.py writes with
// Debian's PyTorch before this suite runs (CTest fixture torch.fixtures).
//
// - MultiHeadAttention forward and backward on 40 random configurations (200 in scripts/test --stress),
//   once per CPU path PyTorch can take on this machine (its own pick, plain C++, AVX2, AVX-512): every
//   output and gradient, element by element, within a bound on the rounding error of any float32
//   implementation, which make_fixtures.py derives from the magnitudes that flow into each value
//   (running error analysis of the float64 run). The bound never comes from the value itself, so
//   quantities that are zero in exact arithmetic (the key bias's gradient, masked rows) are checked
//   as |value| <= bound. PyTorch's own float32 result must meet the same bound: that keeps the bound
//   honest on every CPU path.
// - SGD, Adam and AdamW: three steps bit for bit as PyTorch 1.13 computes them (Adam's first moment in
//   1.13's mul/add form), and within a few ulps with the 2.x lerp form the core follows.
// - torch.randint / torch.randperm streams and the induction task's batch, bit for bit.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "mha/mha.hpp"

#ifndef MHA_TORCH_FIXTURES
#error "MHA_TORCH_FIXTURES must name the folder make_fixtures.py writes"
#endif

using namespace mha;

namespace {

struct Fixture {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> meta;
  const Tensor& at(const std::string& name) const {
    const auto it = tensors.find(name);
    if (it == tensors.end()) FAIL("fixture has no tensor " << name);
    return it->second;
  }
  bool has(const std::string& name) const { return tensors.count(name) > 0; }
};

Fixture load(const std::string& file) {
  const std::string path = std::string(MHA_TORCH_FIXTURES) + "/" + file;
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path << " (written by tests/torch/make_fixtures.py)");
  REQUIRE(in.good());
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const SafetensorsFile f = read_safetensors(bytes.data(), bytes.size());
  Fixture out;
  for (const NamedTensor& t : f.tensors) out.tensors.emplace(t.name, t.value);
  for (const auto& [k, v] : f.metadata) out.meta[k] = v;
  return out;
}

constexpr double kUnitRoundoff = 0x1p-24;

struct Agreement {
  double error = 0.0;         // max |x - ref|
  double worst_ratio = 0.0;   // max |x - ref| / bound: at most 1 when x is within the bound everywhere
  bool nan_mismatch = false;  // NaN in one of x and ref but not in the other
};

// x against ref = hi + lo (double) with bound[i] * 2^-24 allowed at element i.
Agreement agreement(const Tensor& x, const Tensor& hi, const Tensor& lo, const Tensor& bound) {
  Agreement a;
  for (std::size_t i = 0; i < x.numel(); ++i) {
    const double ref = double(hi.data()[i]) + double(lo.data()[i]), v = x.data()[i];
    if (std::isnan(ref) || std::isnan(v)) {
      a.nan_mismatch = a.nan_mismatch || std::isnan(ref) != std::isnan(v);
      continue;
    }
    const double error = std::fabs(v - ref), allowed = double(bound.data()[i]) * kUnitRoundoff;
    a.error = std::max(a.error, error);
    // The smallest normal float is the floor: below it float32 has no relative precision.
    a.worst_ratio = std::max(a.worst_ratio, error / std::max(allowed, double(FLT_MIN)));
  }
  return a;
}

void check_against_torch(const Fixture& f, const std::string& name, const Tensor& ours) {
  const Tensor& theirs = f.at(name);
  const Tensor& hi = f.at(name + ".ref");
  const Tensor& lo = f.at(name + ".ref.lo");
  const Tensor& bound = f.at(name + ".bound");
  REQUIRE(ours.shape() == theirs.shape());
  const Agreement us = agreement(ours.contiguous(), hi, lo, bound), them = agreement(theirs, hi, lo, bound);
  INFO(name << ": our error " << us.error << ", PyTorch's " << them.error << " (float64 reference, max-norm); "
            << "worst error / bound: ours " << us.worst_ratio << ", PyTorch's " << them.worst_ratio);
  CHECK_FALSE(them.nan_mismatch);
  CHECK(them.worst_ratio <= 1.0);
  REQUIRE_FALSE(us.nan_mismatch);
  REQUIRE(us.worst_ratio <= 1.0);
}

// The fixtures' mask mode (tests/torch/make_fixtures.py's MODES) as the core's MaskMode; a mode added there and not
// here fails by name rather than running as another mode.
MaskMode mask_mode_named(const std::string& name) {
  const std::map<std::string, MaskMode> modes = {
      {"keep", MaskMode::Keep}, {"block", MaskMode::Block}, {"bool", MaskMode::Bool}, {"additive", MaskMode::Additive}};
  const auto it = modes.find(name);
  if (it == modes.end())
    throw std::runtime_error("tests/native/test_oracle.cpp: mask_mode_named has no MaskMode for the fixtures' mode '" +
                             name + "'");
  return it->second;
}

// "<path>/mha_NNN.safetensors" for every CPU path and case that make_fixtures.py lists in paths.txt.
std::vector<std::string> mha_case_files() {
  std::ifstream in(std::string(MHA_TORCH_FIXTURES) + "/paths.txt");
  INFO("reading paths.txt (written by tests/torch/make_fixtures.py)");
  REQUIRE(in.good());
  std::vector<std::string> files;
  std::string path;
  int count = 0, paths = 0;
  for (; in >> path >> count; ++paths) {
    for (int i = 0; i < count; ++i) {
      char file[32];
      std::snprintf(file, sizeof file, "/mha_%03d.safetensors", i);
      files.push_back(path + file);
    }
  }
  REQUIRE(paths >= 2);  // PyTorch's own pick and the plain kernels, at least
  return files;
}

}  // namespace

TEST_CASE(
    "MultiHeadAttention forward and backward against PyTorch on random configurations and 2 fully masked ones, on every CPU path",
    "[oracle][torch]") {
  for (const std::string& file : mha_case_files()) {
    const Fixture f = load(file);
    const std::size_t D = std::stoul(f.meta.at("d_model")), H = std::stoul(f.meta.at("num_heads"));
    const bool bias = f.meta.at("bias") == "1", cross = f.meta.at("cross") == "1";
    std::ostringstream label;
    for (const auto& [k, v] : f.meta) label << k << "=" << v << " ";
    INFO(file << ": " << label.str());
    MultiHeadAttention m({D, H, bias}, std::make_shared<Generator>(0));
    std::vector<NamedTensor> state;
    for (const Parameter& p : m.parameters()) state.push_back({p.name, f.at(p.name)});
    m.load_state_dict(state);
    AttentionOptions o;
    const std::string mode = f.meta.at("mask_mode");
    if (mode != "none") {
      o.mask = f.at("mask");
      o.mask_mode = mask_mode_named(mode);
    }
    o.causal = f.meta.at("causal") == "1";
    o.fill = f.meta.at("fill") == "-inf" ? -INFINITY : -1e9f;
    if (f.has("key_padding_mask")) o.key_padding_mask = f.at("key_padding_mask");
    const Tensor& q = f.at("q");
    const Tensor& k = cross ? f.at("k") : q;
    const Tensor& v = cross ? f.at("v") : q;
    MhaActivations acts;
    const ForwardResult r = m.forward(q, k, v, o, &acts);
    check_against_torch(f, "out", r.output);
    const MhaInputGrads g = m.backward(acts, f.at("dout"));
    if (cross) {
      check_against_torch(f, "grad.q", g.dquery);
      check_against_torch(f, "grad.k", g.dkey);
      check_against_torch(f, "grad.v", g.dvalue);
    } else {
      check_against_torch(f, "grad.q", add(add(g.dquery, g.dkey), g.dvalue));
    }
    for (const Parameter& p : m.parameters()) check_against_torch(f, "grad." + p.name, p.grad);
  }
}

TEST_CASE("SGD, Adam and AdamW steps are PyTorch 1.13's bit for bit (1.13's first moment), and 2.x's lerp within ulps",
          "[oracle][torch]") {
  for (int i = 0; i < 7; ++i) {
    char file[32];
    std::snprintf(file, sizeof file, "optim_%02d.safetensors", i);
    const Fixture f = load(file);
    const std::string kind = f.meta.at("kind");
    INFO(file << ": " << kind);
    OptimizerOptions o = optimizer_defaults(kind == "SGD"    ? OptimizerKind::SGD
                                            : kind == "Adam" ? OptimizerKind::Adam
                                                             : OptimizerKind::AdamW);
    const auto num = [&](const char* key, double fallback) {
      return f.meta.count(key) ? std::stod(f.meta.at(key)) : fallback;
    };
    o.lr = num("lr", o.lr);
    o.momentum = num("momentum", 0.0);
    o.dampening = num("dampening", 0.0);
    o.nesterov = f.meta.count("nesterov") && f.meta.at("nesterov") == "True";
    o.weight_decay = num("weight_decay", o.weight_decay);
    o.eps = num("eps", o.eps);
    if (f.meta.count("betas")) {
      const std::string b = f.meta.at("betas");
      o.beta1 = std::stod(b.substr(0, b.find(',')));
      o.beta2 = std::stod(b.substr(b.find(',') + 1));
    }
    for (bool legacy : {true, false}) {
      struct One : Module {
        explicit One(std::size_t n) { register_parameter("p", {n}); }
      };
      const Tensor& p0 = f.at("p0");
      auto m = std::make_shared<One>(p0.numel());
      m->load_state_dict({{"p", p0}});
      o.legacy_first_moment = legacy;
      Optimizer opt(m, o);
      for (int step = 1; step <= 3; ++step) {
        const Tensor& g = f.at("g" + std::to_string(step));
        m->update_parameters(
            [&](std::vector<Parameter>& ps) { std::copy(g.data(), g.data() + g.numel(), ps[0].grad.data()); });
        opt.step();
        const Tensor& expected = f.at("p" + std::to_string(step));
        const float* got = m->parameters()[0].value.data();
        for (std::size_t j = 0; j < expected.numel(); ++j) {
          INFO("step " << step << " element " << j << (legacy ? " (1.13 form)" : " (2.x lerp)"));
          if (legacy || kind == "SGD") REQUIRE(got[j] == expected.data()[j]);
          else REQUIRE(std::fabs(got[j] - expected.data()[j]) <= 8 * std::ldexp(std::fabs(expected.data()[j]), -23));
        }
      }
    }
  }
}

TEST_CASE("torch.randint, torch.randperm and the induction batch are PyTorch's streams bit for bit",
          "[oracle][torch]") {
  const Fixture f = load("draws.safetensors");
  // Two-offsets batches are torch.randint(0, V, (B, T)).
  Generator gen(5);
  ModelConfig c = model_defaults(Task::TwoOffsets);
  c.vocab = 8;
  const Batch b = draw_batch(c, 4, gen);
  const Tensor& x = f.at("randint_0_8_4x8");
  for (std::size_t i = 0; i < 32; ++i) REQUIRE(b.tokens[i] == static_cast<std::int64_t>(x.data()[i]));
  Generator ind(11);
  c = model_defaults(Task::Induction);
  const Batch bi = draw_batch(c, 6, ind);
  const Tensor& xi = f.at("induction_seed11_x");
  for (std::size_t i = 0; i < 6 * 16; ++i) REQUIRE(bi.tokens[i] == static_cast<std::int64_t>(xi.data()[i]));
}

TEST_CASE("rand, randn (both paths), nn.Linear and nn.Embedding draws are PyTorch's bit for bit", "[oracle][torch]") {
  const Fixture f = load("vectors.safetensors");
  const auto same = [&](const std::string& name, const std::vector<float>& ours) {
    const Tensor& t = f.at(name);
    INFO(name);
    REQUIRE(t.numel() == ours.size());
    for (std::size_t i = 0; i < ours.size(); ++i) REQUIRE(ours[i] == t.data()[i]);
  };
  const auto fill = [](std::size_t n, Generator& g, bool normal) {
    std::vector<float> v(n);
    if (normal) normal_fill(v.data(), n, 0.0, 1.0, g);
    else uniform_fill(v.data(), n, 0.0, 1.0, g);
    return v;
  };
  Generator g(0);
  same("seed0.rand5", fill(5, g, false));
  g.manual_seed(0);
  same("seed0.randn3", fill(3, g, true));
  same("seed0.randn3.next", fill(3, g, true));
  g.manual_seed(1);
  same("seed1.randn8", fill(8, g, true));
  same("seed1.randn8x8", fill(64, g, true));
  g.manual_seed(0);
  same("seed0.randn16", fill(16, g, true));
  g.manual_seed(7);
  for (std::size_t n : {1, 15, 16, 17, 31, 33, 100}) same("seed7.randn" + std::to_string(n), fill(n, g, true));
  const auto linear = [&](const std::string& name, std::size_t in, std::size_t out) {
    std::vector<float> w(in * out), b(out);
    linear_init(w.data(), b.data(), in, out, g);
    same(name + ".weight", w);
    same(name + ".bias", b);
  };
  g.manual_seed(0);
  linear("seed0.linear4x4", 4, 4);
  g.manual_seed(3);
  linear("seed3.linear33x17", 33, 17);
  same("seed3.embedding9x20", fill(180, g, true));
}
