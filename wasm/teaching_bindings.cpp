// embind bindings of the lessons' demonstrations (mha/teaching.hpp) and the shape trace: conversion and
// validation only. mixThenSplit and loopVsVectorized are bound on GeneratorCore and MultiHeadAttentionCore
// (attention_bindings.cpp).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "mha/attention.hpp"
#include "mha/teaching.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

val js_shape_trace(double B, double S, double D, double H, double Skv) {
  return guarded([&] {
    return trace_to_js(mha::shape_trace(to_count(B, "batch", mha::kMaxDim), to_count(S, "seqLen", mha::kMaxDim),
                                        to_count(D, "dModel", 4096), to_count(H, "numHeads", 4096),
                                        to_count(Skv, "kvLen", mha::kMaxDim)));
  });
}

val js_parameter_scenarios(double D, double H) {
  return guarded([&] {
    const mha::ParameterScenarios p =
        mha::parameter_scenarios(to_count(D, "dModel", 4096), to_count(H, "numHeads", 4096));
    val out = val::object();
    out.set("full", static_cast<double>(p.full));
    out.set("reduced", static_cast<double>(p.reduced));
    out.set("actual", static_cast<double>(p.actual));
    out.set("withBias", static_cast<double>(p.with_bias));
    out.set("withoutBias", static_cast<double>(p.without_bias));
    return out;
  });
}

val js_head_specialization(val tokens) {
  return guarded([&] {
    if (!tokens.isArray()) throw mha::Error("headSpecialization expects an array of token strings");
    std::vector<std::string> words;
    const std::size_t n = to_count(tokens["length"].as<double>(), "the number of tokens", kMaxSpecializationTokens);
    for (std::size_t i = 0; i < n; ++i) {
      if (!tokens[i].isString()) throw mha::Error("headSpecialization: every token must be a string");
      words.push_back(tokens[i].as<std::string>());
    }
    val heads = val::array();
    std::size_t h = 0;
    for (const mha::HandBuiltHead& head : mha::head_specialization(words)) {
      val entry = val::object();
      entry.set("name", head.name);
      entry.set("logits", tensor_to_js(head.logits));
      entry.set("weights", tensor_to_js(head.weights));
      val patterns = val::array();
      for (std::size_t i = 0; i < head.patterns.size(); ++i) {
        val p = val::object();
        p.set("from", static_cast<double>(head.patterns[i].from));
        p.set("to", static_cast<double>(head.patterns[i].to));
        p.set("weight", head.patterns[i].weight);
        patterns.set(i, p);
      }
      entry.set("patterns", patterns);
      heads.set(h++, entry);
    }
    return heads;
  });
}

std::string js_view_error() { return mha::view_error_message(); }

}  // namespace

namespace mha_js {

val js_mix_then_split(mha::Generator& gen, double D, double index) {
  return guarded([&] {
    const mha::MixThenSplit r =
        mha::mix_then_split(gen, to_count(D, "dModel", 4096), to_count(index, "outputIndex", 4096));
    val out = val::object();
    out.set("x0", tensor_to_js(r.x0));
    out.set("W", tensor_to_js(r.W));
    out.set("q0", tensor_to_js(r.q0));
    out.set("column", tensor_to_js(r.column));
    out.set("outputIndex", static_cast<double>(r.output_index));
    out.set("q0AtIndex", r.q0_at_index);
    out.set("manual", r.manual);
    return out;
  });
}

val js_loop_vs_vectorized(const mha::MultiHeadAttention& m, double x, bool causal, double fill, double mask_mode,
                          double mask, double key_padding) {
  return guarded([&] {
    const mha::LoopVsVectorized r = mha::loop_vs_vectorized(
        m, tensor_from_block(x, "x"), raw_options(true, causal, fill, mask_mode, mask, key_padding));
    val out = val::object();
    out.set("maxAbsDiff", r.max_abs_diff);
    out.set("meanAbsDiff", r.mean_abs_diff);
    out.set("vectorized", tensor_to_js(r.vectorized));
    out.set("loop", tensor_to_js(r.loop));
    return out;
  });
}

}  // namespace mha_js

EMSCRIPTEN_BINDINGS(mha_teaching) {
  using namespace emscripten;
  function("shapeTrace", &js_shape_trace);
  function("parameterScenarios", &js_parameter_scenarios);
  function("headSpecialization", &js_head_specialization);
  function("viewError", &js_view_error);
}
