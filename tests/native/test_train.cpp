// Training: parameters in state_dict form, the backward passes against finite differences in
// double-checked float, cross-entropy, torch.optim's formulas, the tasks' batches and the model.
// Real PyTorch is the oracle in tests/node/training.test.mjs and tests/torch/; here the
// formulas are checked against their definitions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "mha/mha.hpp"
#include "test_support.hpp"

using namespace mha;

namespace {

// Loss = Σ out ⊙ w for a fixed random w, so d(loss)/d(out) = w.
double weighted_sum(const Tensor& out, const Tensor& w) {
  double s = 0.0;
  for (std::size_t i = 0; i < out.numel(); ++i) s += double(out.data()[i]) * w.data()[i];
  return s;
}

}  // namespace

TEST_CASE("MultiHeadAttention parameters are named as its state_dict, in nn.Module order") {
  MultiHeadAttention m({8, 2}, std::make_shared<Generator>(0));
  std::vector<std::string> names;
  for (const Parameter& p : m.parameters()) names.push_back(p.name);
  REQUIRE(names == std::vector<std::string>{"W_q.weight", "W_q.bias", "W_k.weight", "W_k.bias", "W_v.weight",
                                            "W_v.bias", "W_o.weight", "W_o.bias"});
  REQUIRE(m.parameter_count() == 4 * (64 + 8));
  MultiHeadAttention no_bias({8, 2, false}, std::make_shared<Generator>(0));
  REQUIRE(no_bias.parameters().size() == 4);
  REQUIRE(no_bias.parameter_count() == 4 * 64);
}

TEST_CASE("load_state_dict writes every weight and nothing derived goes stale") {
  auto gen = std::make_shared<Generator>(0);
  MultiHeadAttention a({8, 2}, gen), b({8, 2}, gen);
  const Tensor x = mha_test::randn({2, 3, 8}, *gen);
  AttentionOptions o;
  const Tensor ya = a.forward(x, x, x, o).output;
  REQUIRE(b.forward(x, x, x, o).output.to_vector() != ya.to_vector());
  b.load_state_dict(a.state_dict());
  // The packed GEMM copy of every weight follows the load: same output, bit for bit.
  REQUIRE(b.forward(x, x, x, o).output.to_vector() == ya.to_vector());
}

TEST_CASE("load_state_dict names every missing, unexpected and mis-shaped entry and writes nothing") {
  auto gen = std::make_shared<Generator>(0);
  MultiHeadAttention m({8, 2}, gen);
  const auto before = m.state_dict();
  auto sd = m.state_dict();
  sd.erase(sd.begin() + 1);                      // W_q.bias missing
  sd.push_back({"W_x.weight", Tensor({8, 8})});  // unexpected
  sd[0].value = Tensor({8, 4});                  // W_q.weight mis-shaped
  REQUIRE_ERROR_MENTIONS(m.load_state_dict(sd), "missing 'W_q.bias'", "unexpected 'W_x.weight'",
                         "'W_q.weight' has shape [8, 4] but the module needs [8, 8]");
  const auto after = m.state_dict();
  for (std::size_t i = 0; i < before.size(); ++i) REQUIRE(after[i].value.to_vector() == before[i].value.to_vector());
}

TEST_CASE("MultiHeadAttention backward equals central differences for every mask convention, with and without bias") {
  // Gradients of L = Σ out ⊙ w checked against (L(θ + h) - L(θ - h)) / 2h in float, per parameter
  // element and per input element (a sample of them), for self and cross attention.
  struct Case {
    const char* name;
    bool bias, cross, causal;
    MaskMode mode;
    bool mask, kpm;
    float fill;
  };
  const Case cases[] = {
      {"plain", true, false, false, MaskMode::Keep, false, false, -INFINITY},
      {"no bias, cross", false, true, false, MaskMode::Keep, false, false, -INFINITY},
      {"causal -1e9", true, false, true, MaskMode::Keep, false, false, -1e9f},
      {"keep mask", true, false, false, MaskMode::Keep, true, false, -INFINITY},
      {"block mask", true, false, false, MaskMode::Block, true, false, -1e9f},
      {"bool mask + key padding", true, true, false, MaskMode::Bool, true, true, -INFINITY},
      {"additive", true, false, false, MaskMode::Additive, true, false, -INFINITY},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    auto gen = std::make_shared<Generator>(3);
    MultiHeadAttention m({8, 2, c.bias}, gen);
    const std::size_t B = 2, Sq = 3, Skv = c.cross ? 5 : 3;
    const Tensor q = mha_test::randn({B, Sq, 8}, *gen);
    const Tensor kv = c.cross ? mha_test::randn({B, Skv, 8}, *gen) : q;
    const Tensor w = mha_test::randn({B, Sq, 8}, *gen);
    AttentionOptions o;
    o.causal = c.causal;
    o.fill = c.fill;
    o.mask_mode = c.mode;
    if (c.mask) {
      Tensor mask({Sq, Skv});
      for (std::size_t i = 0; i < Sq * Skv; ++i) {
        const bool on = (i * 7) % 3 == 0 && i % Skv != 0;  // key 0 stays open for every query
        mask.data()[i] = c.mode == MaskMode::Additive ? (on ? -2.5f : 0.5f)
                         : c.mode == MaskMode::Keep   ? (on ? 0.0f : 1.0f)
                                                      : (on ? 1.0f : 0.0f);
      }
      o.mask = mask;
    }
    if (c.kpm) {
      Tensor kpm({B, Skv});
      kpm.data()[Skv - 1] = 1.0f;  // batch 0's last key is padding
      o.key_padding_mask = kpm;
    }
    MhaActivations acts;
    m.zero_grad();
    m.forward(q, kv, kv, o, &acts);
    const MhaInputGrads g = m.backward(acts, w);
    const auto loss = [&] { return weighted_sum(m.forward(q, kv, kv, o).output, w); };
    const float h = 1e-2f;
    for (std::size_t k = 0; k < m.parameters().size(); ++k) {
      const Parameter& p = m.parameters()[k];
      for (std::size_t i = 0; i < p.value.numel(); i += 5) {
        const float saved = p.value.data()[i];
        double plus = 0, minus = 0;
        m.update_parameters([&](std::vector<Parameter>& ps) { ps[k].value.data()[i] = saved + h; });
        plus = loss();
        m.update_parameters([&](std::vector<Parameter>& ps) { ps[k].value.data()[i] = saved - h; });
        minus = loss();
        m.update_parameters([&](std::vector<Parameter>& ps) { ps[k].value.data()[i] = saved; });
        const double numeric = (plus - minus) / (2.0 * h);
        INFO(p.name << "[" << i << "]");
        REQUIRE(std::fabs(p.grad.data()[i] - numeric) <= 2e-3 * (1.0 + std::fabs(numeric)));
      }
    }
    // Input gradients: perturb q (and k, v when cross); self-attention sums the three.
    Tensor qp = q.clone();
    for (std::size_t i = 0; i < qp.numel(); i += 3) {
      const float saved = qp.data()[i];
      const auto at = [&](float v) {
        qp.data()[i] = v;
        const Tensor& kvp = c.cross ? kv : qp;
        return weighted_sum(m.forward(qp, kvp, kvp, o).output, w);
      };
      const double numeric = (at(saved + h) - at(saved - h)) / (2.0 * h);
      qp.data()[i] = saved;
      const double analytic =
          c.cross ? g.dquery.data()[i] : double(g.dquery.data()[i]) + g.dkey.data()[i] + g.dvalue.data()[i];
      INFO("input element " << i);
      REQUIRE(std::fabs(analytic - numeric) <= 2e-3 * (1.0 + std::fabs(numeric)));
    }
  }
}

TEST_CASE("gradients accumulate over backward calls until zero_grad, as in PyTorch") {
  auto gen = std::make_shared<Generator>(1);
  MultiHeadAttention m({8, 2}, gen);
  const Tensor x = mha_test::randn({1, 4, 8}, *gen), w = mha_test::randn({1, 4, 8}, *gen);
  MhaActivations acts;
  m.forward(x, x, x, {}, &acts);
  m.backward(acts, w);
  const std::vector<float> once = m.parameters()[0].grad.to_vector();
  m.backward(acts, w);
  const std::vector<float> twice = m.parameters()[0].grad.to_vector();
  for (std::size_t i = 0; i < once.size(); ++i) REQUIRE(twice[i] == Approx(2 * once[i]).margin(1e-6));
  m.zero_grad();
  for (float v : m.parameters()[0].grad.to_vector()) REQUIRE(v == 0.0f);
}

TEST_CASE(
    "dropout in a training forward: backward uses the forward's mask (central differences with a replayed generator)") {
  auto gen = std::make_shared<Generator>(5);
  MultiHeadAttention m({8, 2, true, 0.4}, gen);
  const Tensor x = mha_test::randn({1, 4, 8}, *gen), w = mha_test::randn({1, 4, 8}, *gen);
  const Generator start = *gen;
  MhaActivations acts;
  m.forward(x, x, x, {}, &acts);
  REQUIRE(acts.noise.numel() == 2 * 4 * 4);
  m.backward(acts, w);
  const Parameter& p = m.parameters()[4];  // W_v.weight
  const float h = 1e-2f;
  for (std::size_t i = 0; i < p.value.numel(); i += 7) {
    const float saved = p.value.data()[i];
    const auto at = [&](float v) {
      m.update_parameters([&](std::vector<Parameter>& ps) { ps[4].value.data()[i] = v; });
      *gen = start;  // the same dropout mask
      return weighted_sum(m.forward(x, x, x, {}).output, w);
    };
    const double numeric = (at(saved + h) - at(saved - h)) / (2.0 * h);
    at(saved);
    REQUIRE(std::fabs(p.grad.data()[i] - numeric) <= 2e-3 * (1.0 + std::fabs(numeric)));
  }
}

TEST_CASE("cross_entropy: mean over targets not equal to -100, gradient softmax - onehot over the count") {
  const float logits[] = {1.0f, 2.0f, 0.5f, /**/ 0.0f, 0.0f, 0.0f, /**/ -1.0f, 3.0f, 1.0f};
  const std::int64_t targets[] = {1, kIgnoreIndex, 0};
  float d[9];
  const CrossEntropyResult r = cross_entropy(logits, 3, 3, targets, d);
  const auto lse = [](double a, double b, double c) { return std::log(std::exp(a) + std::exp(b) + std::exp(c)); };
  const double l0 = lse(1, 2, 0.5) - 2, l2 = lse(-1, 3, 1) + 1;
  REQUIRE(r.counted == 2);
  REQUIRE(r.correct == 1);
  REQUIRE(r.loss == Approx((l0 + l2) / 2).epsilon(1e-6));
  for (int j = 3; j < 6; ++j) REQUIRE(d[j] == 0.0f);
  REQUIRE(d[1] == Approx((std::exp(2 - lse(1, 2, 0.5)) - 1) / 2).epsilon(1e-5));
  REQUIRE(d[6] == Approx((std::exp(-1 - lse(-1, 3, 1)) - 1) / 2).epsilon(1e-5));
  const std::int64_t bad[] = {3, 0, 0};
  REQUIRE_ERROR_MENTIONS(cross_entropy(logits, 3, 3, bad), "target 3 is out of bounds");
}

namespace {

// One parameter p with gradient g, stepped n times by `o`.
std::vector<float> optimize(OptimizerOptions o, float p0, float g, int n) {
  struct One : Module {
    One() { register_parameter("p", {1}); }
  };
  auto m = std::make_shared<One>();
  m->update_parameters([&](std::vector<Parameter>& ps) { ps[0].value.data()[0] = p0; });
  Optimizer opt(m, o);
  std::vector<float> out;
  for (int i = 0; i < n; ++i) {
    m->update_parameters([&](std::vector<Parameter>& ps) { ps[0].grad.data()[0] = g; });
    opt.step();
    out.push_back(m->parameters()[0].value.data()[0]);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "Adam follows torch/optim/adam.py (2.x): lerp first moment, bias corrections in double, eps after the division") {
  OptimizerOptions o = optimizer_defaults(OptimizerKind::Adam, 0.1);
  const std::vector<float> got = optimize(o, 1.0f, 0.5f, 3);
  // The same float32 operations written out (s = Python scalars cast to float).
  float p = 1.0f, m = 0.0f, v = 0.0f;
  for (int t = 1; t <= 3; ++t) {
    const float g = 0.5f;
    m = m + 0.1f * (g - m);  // lerp weight 1 - 0.9 = 0.09999999999999998 → 0.1f
    v = v * 0.999f + static_cast<float>(1.0 - 0.999) * g * g;
    const double bc1 = 1.0 - std::pow(0.9, t), bc2 = 1.0 - std::pow(0.999, t);
    const float denom = std::sqrt(v) / static_cast<float>(std::sqrt(bc2)) + 1e-8f;
    p = p + static_cast<float>(-(0.1 / bc1)) * m / denom;
    REQUIRE(got[t - 1] == p);
  }
  // Constant gradient: Adam moves by lr per step.
  REQUIRE(got[0] == Approx(0.9).epsilon(1e-6));
  // The 1.13 form (mul_ then add_) differs only in the last bits.
  o.legacy_first_moment = true;
  const std::vector<float> legacy = optimize(o, 1.0f, 0.5f, 3);
  for (int t = 0; t < 3; ++t) REQUIRE(legacy[t] == Approx(got[t]).epsilon(1e-6));
}

TEST_CASE("AdamW decays the weight first (param.mul_(1 - lr·wd)) — Adam adds wd·param to the gradient") {
  OptimizerOptions w = optimizer_defaults(OptimizerKind::AdamW, 0.1);
  REQUIRE(w.weight_decay == 1e-2);
  const float adamw = optimize(w, 2.0f, 0.0f, 1)[0];
  REQUIRE(adamw == 2.0f * static_cast<float>(1.0 - 0.1 * 1e-2));  // zero gradient: only the decay
  OptimizerOptions a = optimizer_defaults(OptimizerKind::Adam, 0.1);
  a.weight_decay = 0.5;
  REQUIRE(optimize(a, 2.0f, 0.0f, 1)[0] == Approx(1.9).epsilon(1e-6));  // g = 0 + 0.5·2: moves by lr
}

TEST_CASE("SGD: plain, momentum (first buffer is the gradient), dampening, nesterov, weight decay") {
  OptimizerOptions o = optimizer_defaults(OptimizerKind::SGD, 0.1);
  REQUIRE(optimize(o, 1.0f, 2.0f, 1)[0] == 1.0f + -0.1f * 2.0f);
  o.momentum = 0.9;
  const auto mom = optimize(o, 1.0f, 2.0f, 2);
  REQUIRE(mom[0] == 1.0f + -0.1f * 2.0f);
  REQUIRE(mom[1] == mom[0] + -0.1f * (2.0f * 0.9f + 1.0f * 2.0f));
  o.dampening = 0.5;
  REQUIRE(optimize(o, 1.0f, 2.0f, 2)[1] == Approx(0.8 - 0.1 * (1.8 + 1.0)).epsilon(1e-6));
  o.dampening = 0.0;
  o.nesterov = true;
  REQUIRE(optimize(o, 1.0f, 2.0f, 1)[0] == 1.0f + -0.1f * (2.0f + 0.9f * 2.0f));
  o.nesterov = false;
  o.momentum = 0.0;
  o.weight_decay = 0.5;
  REQUIRE(optimize(o, 1.0f, 2.0f, 1)[0] == 1.0f + -0.1f * (2.0f + 0.5f * 1.0f));
  o.nesterov = true;
  REQUIRE_ERROR_MENTIONS(optimize(o, 1.0f, 1.0f, 1), "Nesterov momentum requires a momentum and zero dampening");
  REQUIRE_ERROR_MENTIONS(optimize(optimizer_defaults(OptimizerKind::Adam, -1.0), 1.0f, 1.0f, 1),
                         "Invalid learning rate");
}

TEST_CASE("task batches: targets at the right offsets, -100 where there is none, induction motifs distinct") {
  Generator gen(0);
  ModelConfig c = model_defaults(Task::TwoOffsets);
  const Batch b = draw_batch(c, 4, gen);
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t t = 0; t < 8; ++t) {
      const std::int64_t* x = b.tokens.data() + s * 8;
      REQUIRE(b.targets[0][s * 8 + t] == (t >= 1 ? x[t - 1] : kIgnoreIndex));
      REQUIRE(b.targets[1][s * 8 + t] == (t >= 2 ? x[t - 2] : kIgnoreIndex));
    }
  // torch.manual_seed(0); torch.randint(0, 8, (4, 8))[0] (checked with PyTorch 1.13).
  REQUIRE(std::vector<std::int64_t>(b.tokens.begin(), b.tokens.begin() + 8) ==
          std::vector<std::int64_t>{4, 7, 5, 0, 3, 3, 3, 7});
  c = model_defaults(Task::Induction);
  const Batch ind = draw_batch(c, 8, gen);
  for (std::size_t s = 0; s < 8; ++s) {
    const std::int64_t* x = ind.tokens.data() + s * 16;
    std::size_t p = 1;
    while (x[p] != x[0]) ++p;  // the motif's tokens are distinct, so the first repeat ends it
    REQUIRE(p >= 3);
    REQUIRE(p <= 7);
    for (std::size_t t = 0; t < 16; ++t) {
      REQUIRE(x[t] == x[t % p]);
      REQUIRE(ind.targets[0][s * 16 + t] == (t + 1 >= p && t + 1 < 16 ? x[t + 1] : kIgnoreIndex));
    }
  }
}

TEST_CASE("the task table covers the enum in order — every entry is complete and its defaults build") {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kTaskCount; ++i) {
    const TaskInfo& t = task_info(static_cast<Task>(i));
    INFO("task " << i << " " << t.name);
    REQUIRE(&t == &task_table()[i]);
    REQUIRE(t.task == static_cast<Task>(i));
    REQUIRE(names.insert(t.name).second);
    REQUIRE(task_from_name(t.name) == t.task);
    REQUIRE(std::string(t.title).size() > 0);
    REQUIRE(std::string(t.brief).size() > 20);
    REQUIRE(task_readouts(t.task) >= 1);
    REQUIRE(task_roles(t.task) >= 1);
    REQUIRE(t.goal_steps >= 50);
    REQUIRE(std::string(t.pytorch).rfind("def make_batch(B):\n", 0) == 0);
    const ModelConfig c = model_defaults(t.task);
    REQUIRE(c.task == t.task);
    check_config(c);
    ModelConfig wide = c;  // the limits protocol() publishes are the ones check_config enforces
    wide.d_model = kMaxModelDModel * 2;
    wide.num_heads = 1;
    REQUIRE_THROWS_WITH(check_config(wide), "dModel must be between 1 and 1024, got 2048");
    ModelConfig deep = c;
    deep.layers = kMaxLayers + 1;
    REQUIRE_THROWS_WITH(check_config(deep), "layers must be between 1 and 4, got 5");
    Generator gen(0);
    const Batch b = draw_batch(c, 3, gen);
    REQUIRE(b.tokens.size() == 3 * c.seq_len);
    REQUIRE(b.targets.size() == task_readouts(t.task));
    // the targets are a function of each sequence's tokens (what the lab shows under its probe)
    const std::vector<std::int64_t> first(b.tokens.begin(), b.tokens.begin() + static_cast<std::ptrdiff_t>(c.seq_len));
    const auto rows = task_targets(t.task, first);
    for (std::size_t r = 0; r < rows.size(); ++r)
      REQUIRE(rows[r] == std::vector<std::int64_t>(b.targets[r].begin(),
                                                   b.targets[r].begin() + static_cast<std::ptrdiff_t>(c.seq_len)));
    REQUIRE(task_example(c).size() == c.seq_len);
    TinyAttentionModel model(c, std::make_shared<Generator>(0));
    REQUIRE(model.role_scores().size() == c.layers * c.num_heads);
  }
  REQUIRE_ERROR_MENTIONS(task_from_name("copy"),
                         "the tasks are two-offsets, first-and-previous, reverse, induction, next-larger");
}

TEST_CASE(
    "every task: at its goal_steps the heads hold the task's roles, the clearest >= 0.85, on at least 3 of 5 seeds",
    "[convergence]") {
  for (const TaskInfo& t : task_table()) {
    int good = 0;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      auto model = std::make_shared<TinyAttentionModel>(t.defaults, std::make_shared<Generator>(seed));
      Optimizer adam(model, optimizer_defaults(OptimizerKind::Adam, 1e-2));
      for (std::size_t i = 0; i < t.goal_steps; ++i) model->train_step(adam, 32);
      std::set<std::string> held;
      double clearest = 0.0;
      for (const RoleScore& r : model->role_scores()) {
        held.insert(r.role);
        clearest = std::max(clearest, r.score);
      }
      good += held.size() == task_roles(t.task) && clearest >= 0.85 ? 1 : 0;
    }
    INFO(t.name << ": " << good << " of 5 seeds");
    REQUIRE(good >= 3);
  }
}

TEST_CASE(
    "next larger: distinct tokens — each target is the smallest larger token of its sequence, -100 for the largest") {
  Generator gen(0);
  const ModelConfig c = model_defaults(Task::NextLarger);
  const Batch b = draw_batch(c, 16, gen);
  // torch.manual_seed(0); torch.randperm(16)[:8] (checked with PyTorch 1.13).
  REQUIRE(std::vector<std::int64_t>(b.tokens.begin(), b.tokens.begin() + 8) ==
          std::vector<std::int64_t>{12, 10, 9, 6, 11, 8, 13, 5});
  REQUIRE(std::vector<std::int64_t>(b.targets[0].begin(), b.targets[0].begin() + 8) ==
          std::vector<std::int64_t>{13, 11, 10, 8, 12, 9, kIgnoreIndex, 6});
  for (std::size_t s = 0; s < 16; ++s) {
    const std::int64_t* x = b.tokens.data() + s * c.seq_len;
    REQUIRE(std::set<std::int64_t>(x, x + c.seq_len).size() == c.seq_len);
    for (std::size_t t = 0; t < c.seq_len; ++t) {
      std::int64_t want = kIgnoreIndex;
      for (std::size_t j = 0; j < c.seq_len; ++j)
        if (x[j] > x[t] && (want == kIgnoreIndex || x[j] < want)) want = x[j];
      REQUIRE(b.targets[0][s * c.seq_len + t] == want);
    }
  }
  REQUIRE_ERROR_MENTIONS(TinyAttentionModel({Task::NextLarger, 6, 8, 32, 1, 1, false}, std::make_shared<Generator>(0)),
                         "vocab must be at least seqLen");
  REQUIRE_ERROR_MENTIONS(TinyAttentionModel({Task::NextLarger, 16, 8, 32, 1, 1, true}, std::make_shared<Generator>(0)),
                         "turn the causal mask off");
}

TEST_CASE(
    "next larger: >= 99 % held-out accuracy within 600 Adam steps on 10 of 10 seeds — its head attends by content (>= 0.85) on at least 8",
    "[convergence]") {
  int learned = 0, by_content = 0;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    auto model =
        std::make_shared<TinyAttentionModel>(model_defaults(Task::NextLarger), std::make_shared<Generator>(seed));
    Optimizer adam(model, optimizer_defaults(OptimizerKind::Adam, 1e-2));
    double best = 0.0;
    for (int step = 1; step <= 600; ++step) {
      model->train_step(adam, 32);
      if (step % 50 == 0) {
        Generator held(1);
        best = std::max(best, model->evaluate(draw_batch(model->config(), 256, held)).accuracy);
      }
    }
    const RoleScore role = model->role_scores()[0];
    INFO("seed " << seed << ": best accuracy " << best << ", " << role.role << " " << role.score);
    learned += best >= 0.99 ? 1 : 0;
    by_content += role.role == "next larger token" && role.score >= 0.85 ? 1 : 0;
  }
  REQUIRE(learned == 10);
  REQUIRE(by_content >= 8);
}

TEST_CASE(
    "two offsets: 99 % within 150 Adam steps with two specialized heads for at least 8 of 10 seeds — one head does not get there",
    "[convergence]") {
  int good = 0;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    auto gen = std::make_shared<Generator>(seed);
    auto model = std::make_shared<TinyAttentionModel>(model_defaults(Task::TwoOffsets), gen);
    Optimizer adam(model, optimizer_defaults(OptimizerKind::Adam, 1e-2));
    bool reached = false;
    for (int i = 0; i < 150 && !reached; ++i) reached = model->train_step(adam, 32).accuracy >= 0.99;
    const auto roles = model->role_scores();
    const bool specialized = roles[0].role != roles[1].role && roles[0].score >= 0.85 && roles[1].score >= 0.85;
    good += reached && specialized ? 1 : 0;
  }
  REQUIRE(good >= 8);
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    ModelConfig one = model_defaults(Task::TwoOffsets);
    one.num_heads = 1;
    auto model = std::make_shared<TinyAttentionModel>(one, std::make_shared<Generator>(seed));
    Optimizer adam(model, optimizer_defaults(OptimizerKind::Adam, 1e-2));
    double best = 0.0;
    for (int i = 0; i < 150; ++i) best = std::max(best, model->train_step(adam, 32).accuracy);
    INFO("one head, seed " << seed);
    REQUIRE(best < 0.9);
  }
}

TEST_CASE("two offsets: two heads specialize on t-1 and t-2 within 150 Adam steps — ablating one costs accuracy",
          "[convergence]") {
  auto gen = std::make_shared<Generator>(0);
  auto model = std::make_shared<TinyAttentionModel>(model_defaults(Task::TwoOffsets), gen);
  REQUIRE(model->parameters()[0].name == "tok.weight");
  REQUIRE(model->parameters()[2].name == "layers.0.W_q.weight");
  REQUIRE(model->parameters().back().name == "readouts.1.bias");
  Optimizer adam(model, optimizer_defaults(OptimizerKind::Adam, 1e-2));
  StepResult r;
  for (int i = 0; i < 150; ++i) r = model->train_step(adam, 32);
  REQUIRE(r.accuracy >= 0.99);
  const auto roles = model->role_scores();
  REQUIRE(roles.size() == 2);
  REQUIRE(roles[0].role != roles[1].role);
  REQUIRE(roles[0].score >= 0.85);
  REQUIRE(roles[1].score >= 0.85);
  Generator probe(99);
  const Batch b = draw_batch(model->config(), 64, probe);
  const double full = model->evaluate(b).accuracy;
  model->ablate(0, 0, true);
  REQUIRE(model->evaluate(b).accuracy < full - 0.2);
  model->ablate(0, 0, false);
  REQUIRE(model->evaluate(b).accuracy == full);
}

TEST_CASE("the training script needs a freshly seeded generator, and says so") {
  auto gen = std::make_shared<Generator>(0);
  gen->random();
  TinyAttentionModel model(model_defaults(Task::Reverse), gen);
  REQUIRE_ERROR_MENTIONS(model.to_pytorch({}), "build the model right after seeding its generator");
  REQUIRE_ERROR_MENTIONS(TinyAttentionModel({Task::Reverse, 8, 8, 16, 1, 1, true}, gen),
                         "the reverse task needs to see later tokens");
  REQUIRE_ERROR_MENTIONS(TinyAttentionModel({Task::Induction, 4, 16, 16, 2, 2, true}, gen), "vocab must be at least 7");
}
