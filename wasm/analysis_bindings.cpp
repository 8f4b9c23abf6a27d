// embind bindings of mha/analysis.hpp (generation, the logit lens, attribution, patching): conversion and
// validation only. wasm/api/analysis.js drives them: a Generation or a Patching session takes one step per
// call, so that the JS API can report progress, await between steps and stop on its signal.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "loaded_model.hpp"
#include "mha/analysis.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

std::vector<std::int32_t> ids_from(const mha::CheckpointConfig& c, const val& ids, const char* what) {
  if (!ids.isArray()) throw mha::Error(std::string(what) + " must be an array of token ids");
  const std::size_t T = to_count(ids["length"].as<double>(), std::string("the length of ") + what, 1e7);
  std::vector<std::int32_t> out(T);
  for (std::size_t i = 0; i < T; ++i)
    out[i] = std::int32_t(to_count(ids[i].as<double>(), std::string(what) + " " + std::to_string(i), double(c.vocab - 1)));
  return out;
}

// The `n` most probable tokens of probs as [[id, prob], ...].
val top_of(const std::vector<float>& probs, std::size_t n) {
  std::vector<std::size_t> order(probs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  n = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(n), order.end(),
                    [&](std::size_t a, std::size_t b) { return probs[a] > probs[b]; });
  val out = val::array();
  for (std::size_t i = 0; i < n; ++i) {
    val pair = val::array();
    pair.set(0, double(order[i]));
    pair.set(1, double(probs[order[i]]));
    out.set(i, pair);
  }
  return out;
}

// A generation holding its model alive.
struct GenerationSession {
  std::shared_ptr<LoadedModel> owner;
  mha::GenerateOptions options;
  std::unique_ptr<mha::Generation> g;
};

val generation_create(std::shared_ptr<LoadedModel> m, val ids, double max_new, bool sample, double temperature,
                      double top_k, double top_p, double seed, double eos) {
  return guarded([&] {
    auto s = std::make_shared<GenerationSession>();
    s->owner = m;
    const mha::CheckpointConfig& c = m->model.config();
    s->options.max_new_tokens = to_count(max_new, "maxNewTokens", double(c.max_positions));
    s->options.sample = sample;
    s->options.sampling = {temperature, to_count(top_k, "topK", double(c.vocab)), top_p};
    s->options.seed = to_count(seed, "seed", 9007199254740991.0);
    s->options.eos = eos < 0 ? -1 : int(to_count(eos, "the end-of-text id", double(c.vocab - 1)));
    s->g = std::make_unique<mha::Generation>(m->model, ids_from(c, ids, "token id"), s->options);
    return val(s);
  });
}

// {id, top: [[id, prob] x 5]} for the next token, or {id: -1, stopped}.
val generation_step(GenerationSession& s) {
  return guarded([&] {
    const std::int32_t id = s.g->step();
    val out = val::object();
    out.set("id", double(id));
    out.set("stopped", s.g->stopped());
    if (id >= 0) out.set("top", top_of(s.g->probs(), 5));
    return out;
  });
}

val model_lens(LoadedModel& m, val ids) {
  return guarded([&] { return tensor_to_js(mha::logit_lens(m.model, ids_from(m.model.config(), ids, "token id"))); });
}

val model_patch_resid(LoadedModel& m, val clean, val corrupted, double a, double b) {
  return guarded([&] {
    const mha::CheckpointConfig& c = m.model.config();
    const std::vector<std::int32_t> tokens{std::int32_t(to_count(a, "token a", double(c.vocab - 1))),
                                           std::int32_t(to_count(b, "token b", double(c.vocab - 1)))};
    return tensor_to_js(
        mha::patch_resid(m.model, ids_from(c, clean, "clean token"), ids_from(c, corrupted, "corrupted token"), tokens));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_analysis) {
  using namespace emscripten;
  class_<GenerationSession>("GenerationCore")
      .smart_ptr<std::shared_ptr<GenerationSession>>("GenerationCorePtr")
      .function("step", &generation_step);
  function("generationCreate", &generation_create);
  function("modelLens", &model_lens);
  function("modelPatchResid", &model_patch_resid);
}
