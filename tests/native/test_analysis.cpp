// Generation, sampling, the logit lens, attribution, patching and mean ablation (mha/analysis.hpp) against
// tests/models/heads_reference.py's references (build/heads/<case>.json: float64 values from the rules,
// checked there against TransformerLens and transformers, with bounds from a running error analysis).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "analysis/taps.hpp"
#include "ground/json.hpp"
#include "mha/analysis.hpp"
#include "mha/error.hpp"
#include "test_model_fixtures.hpp"

namespace {

using mha::json::Value;

const std::string kHeads = MHA_HEADS_FIXTURES;
const char* const kCases[] = {"gpt2", "llama", "tinystories", "pythia", "opt", "qwen3", "gemma2", "gemma3"};

Value reference(const std::string& c) {
  return mha::json::parse(mha_test::read_text(kHeads + "/" + c + ".json"), c + ".json", std::size_t(1) << 26);
}
const Value& at(const Value& v, const char* key) {
  const Value* m = v.find(key);
  if (!m) FAIL("the reference has no " << key);
  return *m;
}
std::vector<std::int32_t> ids_of(const Value& v) {
  std::vector<std::int32_t> out;
  for (const Value& i : v.items) out.push_back(std::int32_t(i.number()));
  return out;
}
std::vector<double> flat(const Value& v) {
  std::vector<double> out;
  std::function<void(const Value&)> walk = [&](const Value& x) {
    if (x.kind == Value::Array)
      for (const Value& i : x.items) walk(i);
    else out.push_back(x.number());
  };
  walk(v);
  return out;
}
int eos_of(const std::string& dir) {
  const Value g = mha::json::parse(mha_test::read_text(dir + "/generation_config.json"), "generation_config.json");
  const Value* e = g.find("eos_token_id");
  return e && e->kind == Value::Number ? int(e->number()) : -1;
}
struct Loaded {
  mha_test::Checkpoint ck;
  std::unique_ptr<mha::Model> model;
  explicit Loaded(const std::string& dir) : ck(mha_test::read_checkpoint(dir)) {
    model = std::make_unique<mha::Model>(ck.config, ck.weights);
  }
};

}  // namespace

TEST_CASE("greedy generation equals transformers' generate(do_sample=False) token for token") {
  for (const char* c : kCases) {
    const std::string dir = mha_test::kModelFixtures + "/" + c;
    Loaded m(dir);
    const Value ref = reference(c);
    for (const Value& g : at(ref, "generate").items) {
      mha::GenerateOptions o;
      o.max_new_tokens = 20;
      o.eos = eos_of(dir);
      const mha::GenerateResult r = mha::generate(*m.model, ids_of(at(g, "prompt")), o);
      const std::vector<std::int32_t> want = ids_of(at(g, "new"));
      const std::vector<double> clear = flat(at(g, "clear"));
      INFO(c << ": prompt of " << at(g, "prompt").items.size() << " tokens");
      REQUIRE(r.ids.size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        if (!clear[i]) break;  // the float64 top two within the bounds: either token is right; the rest follows it
        CHECK(r.ids[i] == want[i]);
      }
    }
  }
}

TEST_CASE("sampling's filtered distribution equals transformers' warpers within the bounds") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    for (const Value& f : at(ref, "filters").items) {
      mha::ModelForwardOptions fo;
      fo.attentions = false;
      const std::vector<std::int32_t> ids = ids_of(at(f, "prompt"));
      const mha::ModelOutput out = m.model->forward(ids, fo);
      mha::SamplingOptions s{at(f, "temperature").number(), std::size_t(at(f, "top_k").number()),
                             at(f, "top_p").number()};
      const std::vector<float> p = mha::filtered_probs(out.logits.data(), m.ck.config.vocab, s);
      const std::vector<double> want = flat(at(f, "probs")), bound = flat(at(f, "bound"));
      INFO(c << ": T " << s.temperature << " top_k " << s.top_k << " top_p " << s.top_p);
      if (at(f, "clear").text != "true") continue;  // a kept set within the bounds of a cut: either is right
      for (std::size_t v = 0; v < want.size(); ++v) {
        INFO("token " << v);
        CHECK(std::abs(double(p[v]) - want[v]) <= bound[v]);
        CHECK((p[v] == 0.0f) == (want[v] == 0.0));
      }
    }
  }
}

TEST_CASE("sampled generation draws generate(do_sample=True)'s tokens under torch.manual_seed") {
  for (const char* c : kCases) {
    const std::string dir = mha_test::kModelFixtures + "/" + c;
    Loaded m(dir);
    const Value ref = reference(c);
    for (const Value& g : at(ref, "sampled").items) {
      mha::GenerateOptions o;
      o.max_new_tokens = 20;
      o.sample = true;
      o.sampling = {at(g, "temperature").number(), std::size_t(at(g, "top_k").number()), at(g, "top_p").number()};
      o.seed = std::uint64_t(at(g, "seed").number());
      o.eos = eos_of(dir);
      const mha::GenerateResult r = mha::generate(*m.model, ids_of(at(g, "prompt")), o);
      const std::vector<std::int32_t> want = ids_of(at(g, "new"));
      const std::vector<double> clear = flat(at(g, "clear"));
      INFO(c << ": seed " << o.seed);
      for (std::size_t i = 0; i < want.size() && i < r.ids.size(); ++i) {
        if (!clear[i]) break;
        CHECK(r.ids[i] == want[i]);
      }
    }
  }
}

// A logit z soft-capped at cap (0: none) as the model reads it, and its bound: tanh's slope is at most 1, and the
// float32 cap (a division, tanh within 4 ulp, a product) adds at most 10 u of the result.
double capped(double z, double cap) { return cap == 0.0 ? z : std::tanh(z / cap) * cap; }
double capped_bound(double z, double bound, double cap) {
  return cap == 0.0 ? bound : bound + 10.0 * std::ldexp(std::abs(capped(z, cap)), -24);
}

TEST_CASE("the key/value cache's logits equal the whole forward's at every position, within the bounds") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const std::vector<std::int32_t> ids = ids_of(at(at(ref, "ioi"), "clean"));
    const std::vector<double> want = flat(at(at(ref, "lens"), "logits")), bound = flat(at(at(ref, "lens"), "bound"));
    const std::size_t L = m.ck.config.layers, T = ids.size(), V = m.ck.config.vocab;
    const double cap = m.ck.config.final_softcap;  // Gemma 2: the lens's rows are before it
    mha::KvCache cache;
    for (std::size_t t = 1; t <= T; ++t) {  // one position at a time: the lens's last row is the model's logits
      const std::vector<float> z = mha::cached_logits(*m.model, cache, {ids.begin(), ids.begin() + std::ptrdiff_t(t)});
      REQUIRE(cache.ids.size() == t);
      for (std::size_t v = 0; v < V; ++v) {
        const std::size_t i = (L * T + t - 1) * V + v;
        INFO(c << ": position " << t - 1 << ", token " << v);
        CHECK(std::abs(double(z[v]) - capped(want[i], cap)) <= capped_bound(want[i], bound[i], cap));
      }
    }
    const std::size_t kv = m.ck.config.kv_heads * m.ck.config.head_dim;
    CHECK(cache.bytes() == 2 * L * T * kv * sizeof(float));
  }
}

TEST_CASE(
    "the key/value cache of local and sliding windows, Qwen3's q/k norms, Gemma 2 and Gemma 3: the oracle's logits, "
    "within its bounds") {
  // tinystories: local windows of 5 keys, mistral of 4, qwen2-sliding-bf16 of 3 (layer 1), gemma2 of 3 (layer 0,
  // with Gemma 2's scaling, soft caps and sandwich norms), gemma3 (its (1 + w) q/k norms, a rope base per kind of
  // layer; -bf16: the full layer's linear factor), texts longer than that
  for (const char* c :
       {"tinystories", "qwen3", "mistral", "qwen2-sliding-bf16", "gemma2", "gemma2-bf16", "gemma3", "gemma3-bf16"}) {
    const std::string dir = mha_test::kModelFixtures + "/" + c;
    Loaded m(dir);
    for (int k = 0; k < 3; ++k) {
      const mha_test::OracleFile o = mha_test::read_oracle(dir + "/oracle-" + std::to_string(k) + ".safetensors");
      const auto meta = [&](const char* key) {  // a JSON value of the file's metadata
        return mha::json::parse("{\"v\": " + o.meta.at(key) + "}", key).members.at(0).second;
      };
      const std::vector<std::int32_t> ids = ids_of(meta("ids"));
      const Value at_rows = meta("logits_at");
      const std::vector<double>&want = o.f64("logits"), &bound = o.f64("logits.bound");
      const std::size_t V = m.ck.config.vocab;
      mha::KvCache cache;
      for (std::size_t r = 0; r < at_rows.items.size(); ++r) {
        const std::size_t t = std::size_t(at_rows.items[r].number()) + 1;  // the logits of position t - 1
        const std::vector<float> z =
            mha::cached_logits(*m.model, cache, {ids.begin(), ids.begin() + std::ptrdiff_t(t)});
        for (std::size_t v = 0; v < V; ++v) {
          INFO(c << " oracle-" << k << ": position " << t - 1 << ", token " << v);
          CHECK(std::abs(double(z[v]) - want[r * V + v]) <= bound[r * V + v]);
        }
      }
    }
  }
}

TEST_CASE("the logit lens equals accumulated_resid(apply_ln=True) @ W_U within the bounds") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const mha::Tensor lens = mha::logit_lens(*m.model, ids_of(at(at(ref, "ioi"), "clean")));
    const std::vector<double> want = flat(at(at(ref, "lens"), "logits")), bound = flat(at(at(ref, "lens"), "bound"));
    REQUIRE(lens.numel() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO(c << ": element " << i);
      CHECK(std::abs(double(lens.data()[i]) - want[i]) <= bound[i]);
    }
  }
}

TEST_CASE(
    "an encoder's lens is its MLM head on each hidden state, as transformers gives it, and one without a head is told") {
  for (const char* c : {"bert", "distilbert", "modernbert"}) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const mha::Tensor lens = mha::logit_lens(*m.model, ids_of(at(ref, "ids")));
    const std::vector<double> want = flat(at(at(ref, "lens"), "logits")), bound = flat(at(at(ref, "lens"), "bound"));
    REQUIRE(lens.numel() == want.size());
    const std::size_t row = want.size() / (m.ck.config.layers + 1);
    std::size_t off_by_one = 0;  // a realistic mistake: row l read from layer l + 1's output
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO(c << ": element " << i);
      CHECK(std::abs(double(lens.data()[i]) - want[i]) <= bound[i]);
      if (i + row < want.size() && std::abs(double(lens.data()[i + row]) - want[i]) > bound[i]) ++off_by_one;
    }
    CHECK(off_by_one > row / 2);
  }
  Loaded headless(mha_test::kModelFixtures + "/bert-noprefix");
  CHECK_THROWS_WITH(mha::logit_lens(*headless.model, {2, 5, 6, 3}), Catch::Contains("needs a language-model head"));
}

TEST_CASE("every patching map equals TransformerLens's patching module, normalised, within the bounds") {
  const std::pair<mha::PatchKind, const char*> kinds[] = {{mha::PatchKind::Resid, "resid"},
                                                          {mha::PatchKind::Attn, "attn"},
                                                          {mha::PatchKind::Mlp, "mlp"},
                                                          {mha::PatchKind::Heads, "heads"}};
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const Value& ioi = at(ref, "ioi");
    for (const auto& [kind, name] : kinds) {
      std::size_t calls = 0;
      const mha::Tensor map = mha::patch(*m.model, ids_of(at(ioi, "clean")), ids_of(at(ioi, "corrupted")),
                                         ids_of(at(ioi, "tokens")), kind, [&](std::size_t, std::size_t) {
                                           ++calls;
                                           return true;
                                         });
      const std::vector<double> want = flat(at(at(ref, "patching"), name));
      const std::vector<double> bound = flat(at(at(ref, "patching"), (std::string(name) + "_bound").c_str()));
      REQUIRE(map.numel() == want.size());
      CHECK(calls == want.size() + 1);  // before each patched run and once done
      for (std::size_t i = 0; i < want.size(); ++i) {
        INFO(c << " " << name << ": element " << i);
        CHECK(std::abs(double(map.data()[i]) - want[i]) <= bound[i]);
      }
    }
  }
}

TEST_CASE(
    "a patched run recomputes the rows from the first one its patch changes: every row of the last layer's "
    "output within the bounds") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const Value& ioi = at(ref, "ioi");
    const auto view = mha::analysis::view_of(*m.model, "patching");
    const auto clean = mha::analysis::run(view, ids_of(at(ioi, "clean")), true);
    const auto corrupted = mha::analysis::run(view, ids_of(at(ioi, "corrupted")), true);
    const std::size_t T = ids_of(at(ioi, "clean")).size(), D = m.model->config().d_model;
    using Kind = mha::analysis::Patch::Kind;
    const std::map<std::string, Kind> kinds = {
        {"z", Kind::Z}, {"resid", Kind::Resid}, {"attn", Kind::Attn}, {"mlp", Kind::Mlp}};
    std::vector<float> z;
    for (const Value& e : at(ref, "patched_streams").items) {
      const std::string kind = at(e, "kind").text;
      const mha::analysis::Patch p =
          mha::analysis::patch_from(clean, kinds.at(kind), std::size_t(at(e, "layer").number()),
                                    std::size_t(at(e, "index").number()), T, m.model->config().head_dim, z);
      const std::vector<float> got = mha::analysis::resume(view, corrupted, T, p);
      const std::vector<double> want = flat(at(e, "stream")), bound = flat(at(e, "bound"));
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        INFO(c << " " << kind << " at layer " << p.layer << ", " << p.index << ": row " << i / D);
        CHECK(std::abs(double(got[i]) - want[i]) <= bound[i]);
      }
    }
  }
}

TEST_CASE("direct logit attribution equals stack_head_results(apply_ln=True) and adds up to the logit") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const std::vector<std::int32_t> ids = ids_of(at(at(ref, "ioi"), "clean"));
    for (const Value& want : at(ref, "attribution").items) {
      const std::vector<std::int32_t> tokens = ids_of(at(want, "tokens"));
      const mha::Attribution got = mha::attribute(*m.model, ids, ids.size() - 1, tokens);
      INFO(c << ": " << tokens.size() << " token(s)");
      const std::vector<double> heads = flat(at(want, "heads")), hb = flat(at(want, "heads_bound"));
      REQUIRE(got.heads.size() == heads.size());
      for (std::size_t i = 0; i < heads.size(); ++i) CHECK(std::abs(got.heads[i] - heads[i]) <= hb[i]);
      const std::vector<double> mlps = flat(at(want, "mlps")), mb = flat(at(want, "mlps_bound"));
      for (std::size_t i = 0; i < mlps.size(); ++i) CHECK(std::abs(got.mlps[i] - mlps[i]) <= mb[i]);
      for (const char* k : {"embed", "biases", "sum", "logit", "centred"}) {
        const double g = std::string(k) == "embed"    ? got.embed
                         : std::string(k) == "biases" ? got.biases
                         : std::string(k) == "sum"    ? got.sum
                         : std::string(k) == "logit"  ? got.logit
                                                      : got.centred;
        INFO(k);
        CHECK(std::abs(g - at(want, k).number()) <= at(want, (std::string(k) + "_bound").c_str()).number());
      }
      CHECK(std::abs(got.sum - got.centred) <= at(want, "sum_bound").number() + at(want, "centred_bound").number());
    }
  }
}

TEST_CASE("mean ablation equals a hook on hook_z replacing a head by its mean over positions") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const Value& ioi = at(ref, "ioi");
    const mha::Tensor got = mha::mean_ablation(*m.model, ids_of(at(ioi, "clean")), ids_of(at(ioi, "tokens")));
    const std::vector<double> want = flat(at(at(ref, "mean_ablation"), "metric"));
    const std::vector<double> bound = flat(at(at(ref, "mean_ablation"), "metric_bound"));
    REQUIRE(got.numel() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO(c << ": head " << i);
      CHECK(std::abs(double(got.data()[i]) - want[i]) <= bound[i]);
    }
  }
}

namespace {

mha::Ablation ablation_of(const std::string& name) {
  for (mha::Ablation k : mha::kAblations)
    if (name == mha::ablation_name(k)) return k;
  FAIL("no ablation " << name);
  return mha::Ablation::Zero;
}
std::vector<mha::HeadRef> heads_of(const Value& v) {
  std::vector<mha::HeadRef> out;
  for (const Value& p : v.items) out.push_back({std::size_t(p.items[0].number()), std::size_t(p.items[1].number())});
  return out;
}

}  // namespace

TEST_CASE("heads switched off by zero, mean or resample equal hooks on hook_z, within the bounds") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    const std::vector<std::int32_t> clean = ids_of(at(at(ref, "ioi"), "clean")),
                                    corrupted = ids_of(at(at(ref, "ioi"), "corrupted"));
    for (const Value& e : at(ref, "ablation").items) {
      const std::string mode = at(e, "mode").text;
      mha::ModelForwardOptions o =
          mha::ablation_options(*m.model, clean, heads_of(at(e, "heads")), ablation_of(mode), corrupted);
      o.logits_at = {clean.size() - 1};
      const mha::ModelOutput out = m.model->forward(clean, o);
      const std::vector<double> want = flat(at(e, "logits")), bound = flat(at(e, "bound"));
      REQUIRE(out.logits.numel() == want.size());
      std::size_t bad = 0;
      for (std::size_t i = 0; i < want.size(); ++i) bad += std::abs(double(out.logits.data()[i]) - want[i]) > bound[i];
      INFO(c << ": " << mode << " ablation");
      CHECK(bad == 0);
    }
  }
}

TEST_CASE(
    "an ablation's forward is the model's: resample from the text itself changes nothing, mean as mean_ablation") {
  Loaded m(mha_test::kModelFixtures + "/gpt2");
  const Value ref = reference("gpt2");
  const std::vector<std::int32_t> ids = ids_of(at(at(ref, "ioi"), "clean")),
                                  tokens = ids_of(at(at(ref, "ioi"), "tokens"));
  const std::size_t T = ids.size(), H = m.model->config().heads;
  mha::ModelForwardOptions plain;
  plain.logits_at = {T - 1};
  const mha::ModelOutput full = m.model->forward(ids, plain);
  mha::ModelForwardOptions same = mha::ablation_options(*m.model, ids, {{0, 1}, {1, 0}}, mha::Ablation::Resample, ids);
  same.logits_at = {T - 1};
  const mha::ModelOutput resampled = m.model->forward(ids, same);
  CHECK(std::equal(full.logits.data(), full.logits.data() + full.logits.numel(), resampled.logits.data()));
  CHECK(std::equal(full.attentions.data(), full.attentions.data() + full.attentions.numel(),
                   resampled.attentions.data()));
  const mha::Tensor means = mha::mean_ablation(*m.model, ids, tokens);  // the analysis floor's taps, same bits
  for (std::size_t l = 0; l < m.model->config().layers; ++l)
    for (std::size_t h = 0; h < H; ++h) {
      mha::ModelForwardOptions o = mha::ablation_options(*m.model, ids, {{l, h}}, mha::Ablation::Mean);
      o.logits_at = {T - 1};
      o.attentions = false;
      const mha::ModelOutput out = m.model->forward(ids, o);
      const float* z = out.logits.data();
      INFO("layer " << l << " head " << h);
      CHECK(float(double(z[tokens[0]]) - double(z[tokens[1]])) == means.data()[l * H + h]);
    }
}

TEST_CASE("what each key writes through each head: ‖v_j·W_O^h‖ within the bounds") {
  for (const char* c : kCases) {
    Loaded m(mha_test::kModelFixtures + "/" + c);
    const Value ref = reference(c);
    mha::ModelForwardOptions o;
    o.writes = true;
    o.attentions = false;
    const mha::ModelOutput out = m.model->forward(ids_of(at(at(ref, "ioi"), "clean")), o);
    const std::vector<double> want = flat(at(at(ref, "writes"), "norms")), bound = flat(at(at(ref, "writes"), "bound"));
    REQUIRE(out.writes.numel() == want.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i) bad += std::abs(double(out.writes.data()[i]) - want[i]) > bound[i];
    INFO(c);
    CHECK(bad == 0);
  }
}

TEST_CASE("ablations refuse bad input with messages") {
  Loaded m(mha_test::kModelFixtures + "/gpt2");
  const std::vector<std::int32_t> five{5, 6, 7, 8, 9}, four{5, 6, 7, 8};
  CHECK_THROWS_WITH(mha::ablation_options(*m.model, five, {{0, 0}}, mha::Ablation::Resample, four),
                    Catch::Contains("the text has 5 tokens and the other 4"));
  mha::ModelForwardOptions o;
  o.heads_off = {{0, 0}};
  o.head_values = {{{0, 0}, std::vector<float>(5 * m.model->config().head_dim)}};
  CHECK_THROWS_WITH(m.model->forward(five, o), Catch::Contains("switched off or replaced twice"));
  o.heads_off.clear();
  o.head_values[0].z.resize(3);
  CHECK_THROWS_WITH(m.model->forward(five, o), Catch::Contains("a replaced head's output is 5 × "));
  o.head_values[0].head = {0, 99};
  CHECK_THROWS_WITH(m.model->forward(five, o), Catch::Contains("there is no head 99"));
}

TEST_CASE("analysis refuses bad input with messages") {
  Loaded m(mha_test::kModelFixtures + "/gpt2");
  const std::vector<std::int32_t> five{5, 6, 7, 8, 9}, four{5, 6, 7, 8};
  const mha::PatchKind resid = mha::PatchKind::Resid;
  CHECK_THROWS_WITH(mha::patch(*m.model, five, four, {5, 6}, resid), Catch::Contains("same count"));
  CHECK_THROWS_WITH(mha::patch(*m.model, five, five, {5}, resid), Catch::Contains("two tokens"));
  CHECK_THROWS_WITH(mha::patch(*m.model, five, {5, 6, 7, 8, 10}, {5, 6}, mha::PatchKind::Heads,
                               [](std::size_t done, std::size_t) { return done < 3; }),
                    Catch::Contains("cancelled"));
  CHECK_THROWS_WITH(mha::attribute(*m.model, five, 5, {5}), Catch::Contains("past the text"));
  CHECK_THROWS_WITH(mha::attribute(*m.model, five, 0, {5, 6, 7}), Catch::Contains("one token, or two"));
  CHECK_THROWS_WITH(mha::attribute(*m.model, five, 0, {100000}), Catch::Contains("outside the vocabulary"));
  mha::SamplingOptions bad;
  bad.temperature = 0.0;
  CHECK_THROWS_WITH(mha::filtered_probs(std::vector<float>(4).data(), 4, bad), Catch::Contains("temperature"));
  bad = {};
  bad.top_p = 1.5;
  CHECK_THROWS_WITH(mha::filtered_probs(std::vector<float>(4).data(), 4, bad), Catch::Contains("top_p"));
  mha::GenerateOptions g;
  g.max_new_tokens = 1000;
  const mha::GenerateResult r = mha::generate(*m.model, five, g);
  CHECK(r.stopped == "positions");
  CHECK(r.ids.size() + five.size() == m.ck.config.max_positions);
}

TEST_CASE("OPT's post-norm layers: attribution, patching and the key/value cache refused by name, the lens computed") {
  Loaded m(mha_test::kModelFixtures + "/opt-postnorm");
  const std::vector<std::int32_t> five{5, 6, 7, 8, 9};
  const auto post_norm = Catch::Contains("not for this post-norm opt");
  CHECK_THROWS_WITH(mha::attribute(*m.model, five, 4, {5}), post_norm);
  CHECK_THROWS_WITH(mha::patch(*m.model, five, {5, 6, 7, 8, 10}, {5, 6}, mha::PatchKind::Resid), post_norm);
  mha::KvCache cache;
  CHECK_THROWS_WITH(mha::cached_logits(*m.model, cache, five), post_norm);
  CHECK(mha::logit_lens(*m.model, five).shape() == mha::Shape{m.ck.config.layers + 1, 5, m.ck.config.vocab});
}

TEST_CASE(
    "Gemma 2: the attribution refused (its post-attention norms and soft cap), the lens's last rows the logits uncapped") {
  Loaded m(mha_test::kModelFixtures + "/gemma2");
  const std::vector<std::int32_t> five{5, 6, 7, 8, 9};
  CHECK_THROWS_WITH(mha::attribute(*m.model, five, 4, {5}), Catch::Contains("do not add up"));
  const mha::Tensor lens = mha::logit_lens(*m.model, five);
  const std::size_t L = m.ck.config.layers, V = m.ck.config.vocab;
  REQUIRE(lens.shape() == mha::Shape{L + 1, 5, V});
  mha::ModelForwardOptions f;
  f.attentions = false;
  f.logits_at = {0, 1, 2, 3, 4};  // the lens's readout: every position through the same head
  const mha::ModelOutput out = m.model->forward(five, f);
  const float cap = float(m.ck.config.final_softcap);  // 1: the lens leaves it out, as TransformerLens's unembed
  REQUIRE(cap == 1.0f);
  bool beyond = false;
  for (std::size_t i = 0; i < 5 * V; ++i) {
    const float z = lens.data()[L * 5 * V + i];
    CHECK(std::tanh(z / cap) * cap == out.logits.data()[i]);
    beyond = beyond || std::abs(z) > cap;
  }
  CHECK(beyond);  // some logit past the cap: the lens is not the capped logits
}

TEST_CASE("one draw consumes the vocabulary's exponentials and picks argmax p / q") {
  // torch.manual_seed(3); torch.empty(8).exponential_() begins 0.0347034559, 0.337909579, 1.48243070 (torch 2.13):
  // with p = one-hot on token 2, the draw is 2, and the next draw starts 8 exponentials (16 words) later.
  mha::Generator a(3), b(3);
  std::vector<float> p(8, 0.0f);
  p[2] = 1.0f;
  CHECK(mha::draw_one(p, a) == 2);
  for (int i = 0; i < 16; ++i) b.random();
  CHECK(a.random() == b.random());
}
