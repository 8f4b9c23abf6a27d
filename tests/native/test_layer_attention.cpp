// One layer's attention at a time (Model::attention) and the forward's thumbnails (ModelForwardOptions::thumbnail),
// on every oracle case (tests/models/make_checkpoints.py): bit for bit the whole forward's attentions, whatever the
// activations cache holds, and the pooling of those exact maps. (That the attentions equal transformers' is
// test_models.cpp's; at 1024 and 2048 tokens, tests/node/long-attention.test.mjs.)
// First: json.hpp before Catch2 (test_models.cpp says why).
#include "test_model_cases.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>

#include "mha/error.hpp"
#include "mha/models.hpp"

using namespace mha;
using namespace mha_test;

namespace {

bool same_bits(const float* a, const float* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(float)) == 0;
}

// The test's own pooling of probs[H, T, T] (Pool's definition in mha/models.hpp), in double as the core sums.
std::vector<float> pooled(const float* probs, std::size_t H, std::size_t T, std::size_t s, Pool pool) {
  std::vector<float> out(H * s * s);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t a = 0; a < s; ++a)
      for (std::size_t b = 0; b < s; ++b) {
        double best = 0.0, sum = 0.0;
        std::size_t n = 0;
        for (std::size_t r = a * T / s; r < (a + 1) * T / s; ++r)
          for (std::size_t c = b * T / s; c < (b + 1) * T / s; ++c, ++n) {
            const double v = probs[(h * T + r) * T + c];
            best = std::max(best, v);
            sum += v;
          }
        out[(h * s + a) * s + b] = float(pool == Pool::Max ? best : sum / double(n));
      }
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("Model::attention is the forward's attentions[layer] bit for bit, in any order, heads off or not",
          "[models][layer-attention]") {
  for (const ModelCase& mc : model_cases()) {
    const std::string& name = mc.name;
    DYNAMIC_SECTION(name) {
      const Checkpoint c = read_checkpoint(kModelFixtures + "/" + name);
      const std::size_t L = c.config.layers, H = c.config.heads;
      const std::vector<std::int32_t> ids{3, 1, 4, 1, 5, 9, 2};
      const std::size_t T = ids.size(), HTT = H * T * T;
      for (const std::vector<HeadRef>& off : {std::vector<HeadRef>{}, std::vector<HeadRef>{{L / 2, H - 1}}}) {
        INFO(off.size() << " heads off");
        Model whole(c.config, c.weights), one(c.config, c.weights);
        ModelForwardOptions all;
        all.heads_off = off;
        const ModelOutput expected = whole.forward(ids, all);
        // Last layer first (an empty cache: the layers below computed and kept), then every layer upwards.
        std::vector<std::size_t> order{L - 1};
        for (std::size_t l = 0; l < L; ++l) order.push_back(l);
        for (std::size_t l : order) {
          INFO("layer " << l);
          const Tensor got = one.attention(ids, l, off);
          REQUIRE(got.shape() == Shape{1, H, T, T});
          CHECK(same_bits(got.data(), expected.attentions.data() + l * HTT, HTT));
        }
        // The cache it filled serves the forward that resumes from it.
        ModelForwardOptions resumed;
        resumed.heads_off = off;
        resumed.attentions = false;
        CHECK(same_bits(one.forward(ids, resumed).hidden.data(), expected.hidden.data(), T * c.config.d_model));
      }
    }
  }
}

TEST_CASE("the forward's thumbnails: every layer's maps pooled as computed, with or without the attentions",
          "[models][layer-attention]") {
  for (const ModelCase& mc : model_cases()) {
    const std::string& name = mc.name;
    DYNAMIC_SECTION(name) {
      const Checkpoint c = read_checkpoint(kModelFixtures + "/" + name);
      const std::size_t L = c.config.layers, H = c.config.heads;
      Model model(c.config, c.weights);
      const std::vector<std::int32_t> ids{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};  // T = 11: cells of 2 and 3 rows at s = 4
      const std::size_t T = ids.size(), HTT = H * T * T;
      const ModelOutput exact = model.forward(ids, {});
      for (Pool pool : kPools) {
        for (std::size_t s : {std::size_t(4), std::size_t(11), std::size_t(64)}) {
          INFO(pool_name(pool) << " pooled to " << s);
          const std::size_t side = std::min(s, T);
          ModelForwardOptions o;
          o.attentions = false;
          o.thumbnail = s;
          o.pool = pool;
          model.forward(ids, {{{L - 1, 0}}, {}, false});  // the cache filled: thumbnails still compute every layer
          const ModelOutput t = model.forward(ids, o);
          REQUIRE(t.thumbnails.shape() == Shape{L, H, side, side});
          CHECK(t.attentions.numel() == 0);
          CHECK(same_bits(t.hidden.data(), exact.hidden.data(), T * c.config.d_model));
          for (std::size_t l = 0; l < L; ++l) {
            const std::vector<float> want = pooled(exact.attentions.data() + l * HTT, H, T, side, pool);
            CHECK(same_bits(t.thumbnails.data() + l * want.size(), want.data(), want.size()));
          }
          o.attentions = true;
          const ModelOutput both = model.forward(ids, o);
          CHECK(same_bits(both.thumbnails.data(), t.thumbnails.data(), t.thumbnails.numel()));
          CHECK(same_bits(both.attentions.data(), exact.attentions.data(), L * HTT));
          if (side == T && pool == Pool::Max)  // one cell per weight: the maps themselves
            CHECK(same_bits(t.thumbnails.data(), exact.attentions.data(), L * HTT));
        }
      }
    }
  }
}

TEST_CASE("Model::attention refuses a layer, a head or ids the model does not have, by number",
          "[models][layer-attention][errors]") {
  const Checkpoint c = read_checkpoint(kModelFixtures + "/gpt2");
  Model model(c.config, c.weights);
  const std::size_t L = c.config.layers;
  CHECK(error_of([&] {
          model.attention({1, 2}, L);
        }) == "there is no layer " + std::to_string(L) + ": this model has layers 0 to " + std::to_string(L - 1));
  CHECK_THAT(error_of([&] {
               model.attention({1, 2}, 0, {{0, 99}});
             }),
             Catch::Contains("there is no head 99 in layer 0"));
  CHECK_THAT(error_of([&] { model.attention({}, 0); }), Catch::Contains("at least one token"));
  CHECK_THAT(error_of([&] { model.attention({-1}, 0); }), Catch::Contains("outside the vocabulary"));
}
