// embind bindings of mha/analysis.hpp (generation, the logit lens, attribution, patching): conversion and
// validation only. wasm/api/analysis.js drives them: a Generation or a Patching session takes one step per
// call, so that the JS API can report progress, await between steps and stop on its signal.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
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
    out[i] =
        std::int32_t(to_count(ids[i].as<double>(), std::string(what) + " " + std::to_string(i), double(c.vocab - 1)));
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

struct LensSession {
  std::shared_ptr<LoadedModel> owner;
  std::unique_ptr<mha::LogitLens> lens;
};

val lens_create(std::shared_ptr<LoadedModel> m, val ids) {
  return guarded([&] {
    auto s = std::make_shared<LensSession>();
    s->owner = m;
    s->lens = std::make_unique<mha::LogitLens>(m->model, ids_from(m->model.config(), ids, "token id"));
    return val(s);
  });
}

double lens_rows(const LensSession& s) { return double(s.lens->rows()); }

val lens_row(const LensSession& s, double row) {
  return guarded([&] { return tensor_to_js(s.lens->row(to_count(row, "row", double(s.lens->rows() - 1)))); });
}

std::vector<std::int32_t> two_tokens(const mha::CheckpointConfig& c, const val& tokens, std::size_t max_count) {
  const std::vector<std::int32_t> out = ids_from(c, tokens, "token");
  if (out.empty() || out.size() > max_count)
    throw mha::Error("tokens must be " + std::string(max_count == 1 ? "one" : "one or two") + " token ids");
  return out;
}

// {heads: [L * H], mlps: [L], embed, biases, sum, logit, centred}
val model_attribute(LoadedModel& m, val ids, double position, val tokens) {
  return guarded([&] {
    const mha::CheckpointConfig& c = m.model.config();
    const mha::Attribution a =
        mha::attribute(m.model, ids_from(c, ids, "token id"), to_count(position, "position", double(c.max_positions)),
                       two_tokens(c, tokens, 2));
    val out = val::object();
    out.set("heads", array_from(a.heads));
    out.set("mlps", array_from(a.mlps));
    out.set("embed", a.embed);
    out.set("biases", a.biases);
    out.set("sum", a.sum);
    out.set("logit", a.logit);
    out.set("centred", a.centred);
    return out;
  });
}

struct PatchingSession {
  std::shared_ptr<LoadedModel> owner;
  std::unique_ptr<mha::Patching> p;
};

val patching_create(std::shared_ptr<LoadedModel> m, val clean, val corrupted, val tokens, std::string what) {
  return guarded([&] {
    const mha::CheckpointConfig& c = m->model.config();
    const mha::PatchKind* kind = std::find_if(std::begin(mha::kPatchKinds), std::end(mha::kPatchKinds),
                                              [&](mha::PatchKind k) { return what == mha::patch_kind_name(k); });
    if (kind == std::end(mha::kPatchKinds)) {
      std::string kinds;
      for (mha::PatchKind k : mha::kPatchKinds)
        kinds += std::string(kinds.empty() ? "" : ", ") + mha::patch_kind_name(k);
      throw mha::Error("what must be one of " + kinds + " (got " + what + ")");
    }
    auto s = std::make_shared<PatchingSession>();
    s->owner = m;
    s->p =
        std::make_unique<mha::Patching>(m->model, ids_from(c, clean, "clean token"),
                                        ids_from(c, corrupted, "corrupted token"), ids_from(c, tokens, "token"), *kind);
    return val(s);
  });
}

// {done, total}; after the last, also {shape, data}.
val patching_step(PatchingSession& s) {
  return guarded([&] {
    s.p->step();
    val out = val::object();
    out.set("done", double(s.p->done()));
    out.set("total", double(s.p->total()));
    if (s.p->done() == s.p->total()) out.set("map", tensor_to_js(s.p->result()));
    return out;
  });
}

val model_mean_ablation(LoadedModel& m, val ids, val tokens) {
  return guarded([&] {
    const mha::CheckpointConfig& c = m.model.config();
    return tensor_to_js(mha::mean_ablation(m.model, ids_from(c, ids, "token id"), ids_from(c, tokens, "token")));
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
  class_<LensSession>("LensCore")
      .smart_ptr<std::shared_ptr<LensSession>>("LensCorePtr")
      .function("rows", &lens_rows)
      .function("row", &lens_row);
  function("lensCreate", &lens_create);
  class_<PatchingSession>("PatchingCore")
      .smart_ptr<std::shared_ptr<PatchingSession>>("PatchingCorePtr")
      .function("step", &patching_step);
  function("patchingCreate", &patching_create);
  function("modelAttribute", &model_attribute);
  function("modelMeanAblation", &model_mean_ablation);
}
