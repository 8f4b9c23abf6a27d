// What every embind file shares (wasm/bindings.cpp: the lessons' API; wasm/model_bindings.cpp:
// real checkpoints): {value}/{error} results, numbers validated as doubles, fresh JS copies.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "mha/attention.hpp"
#include "mha/error.hpp"
#include "mha/tensor.hpp"

namespace mha_js {

using emscripten::val;

constexpr const char* kOutOfMemory =
    "out of memory: the browser could not give this tab enough memory for that size; try a smaller one";

// {value: compute()} or {error: message}: C++ exceptions never cross into JS (catching them there leaks).
template <class F>
val guarded(F&& compute) {
  val result = val::object();
  try {
    result.set("value", compute());
  } catch (const std::bad_alloc&) {
    result.set("error", std::string(kOutOfMemory));
  } catch (const std::exception& e) {
    result.set("error", std::string(e.what()));
  }
  return result;
}

// A JS number that must be a whole number in [0, max_value] (embind would coerce NaN, -1, 2.5 silently).
inline std::size_t to_count(double x, const std::string& what, double max_value) {
  if (!std::isfinite(x) || x != std::floor(x) || x < 0 || x > max_value) {
    throw mha::Error(what + " must be a whole number between 0 and " + std::to_string(static_cast<long long>(max_value)) +
                     ", got " + (std::isnan(x) ? std::string("NaN") : std::to_string(x)));
  }
  return static_cast<std::size_t>(x);
}

// A fresh JS array of numbers.
template <class Seq>
val array_from(const Seq& values) {
  val out = val::array();
  for (std::size_t i = 0; i < values.size(); ++i) out.set(i, static_cast<double>(values[i]));
  return out;
}

// {shape, data}: data is a copy (a view into wasm memory would die when memory grows).
inline val tensor_to_js(const mha::Tensor& t) {
  const mha::Tensor c = t.contiguous();
  val out = val::object();
  out.set("shape", array_from(c.shape()));
  out.set("data", val::global("Float32Array").new_(val(emscripten::typed_memory_view(c.numel(), c.data()))));
  return out;
}

// [{step, op, shape, strides, contiguous, weights?, layer?}]: the page's trace format.
inline val trace_to_js(const std::vector<mha::TraceStep>& trace) {
  val out = val::array();
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const mha::TraceStep& s = trace[i];
    val step = val::object();
    step.set("step", static_cast<double>(i));
    step.set("op", s.op);
    step.set("shape", array_from(s.layout.shape));
    step.set("strides", array_from(s.layout.strides));
    step.set("contiguous", s.layout.is_contiguous());
    if (!s.weights.empty()) step.set("weights", array_from(s.weights));
    if (s.layer >= 0) step.set("layer", s.layer);
    out.set(i, step);
  }
  return out;
}

}  // namespace mha_js
