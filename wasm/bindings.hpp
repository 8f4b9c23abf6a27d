// What the embind files share. Each file binds one concern and registers its own classes and functions:
// wasm/bindings.cpp the protocol (protocol(), tensor blocks in wasm memory, the result slot, the mask modes and the
// attention options), attention_bindings.cpp tensors, the generator and MultiHeadAttention, teaching_bindings.cpp the
// lessons' demonstrations, state_dict_bindings.cpp state dicts and safetensors files, training_bindings.cpp the lab's
// model and optimizers, model_bindings.cpp real checkpoints. All of them: conversion and validation only;
// {value}/{error} results, numbers validated as doubles, fresh JS copies.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "mha/attention.hpp"
#include "mha/error.hpp"
#include "mha/random.hpp"
#include "mha/tensor.hpp"
#include "mha/trace.hpp"

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
    throw mha::Error(what + " must be a whole number between 0 and " +
                     std::to_string(static_cast<long long>(max_value)) + ", got " +
                     (std::isnan(x) ? std::string("NaN") : std::to_string(x)));
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

// headSpecialization's hand-built heads and the lab's token lists take at most this many tokens.
constexpr std::size_t kMaxSpecializationTokens = 4096;

// ---- The protocol (bindings.cpp) ------------------------------------------------------------

// A JS seed (a whole number within ±(2^53 - 1)) as torch.manual_seed takes it.
std::uint64_t to_seed(double seed);

// A tensor block api.js wrote into wasm memory (uint32 rank, uint32 dims[8], then the floats), copied out.
mha::Tensor tensor_from_block(double address, const std::string& what);
std::optional<mha::Tensor> optional_block(double address, const std::string& what);  // 0: none

// q, k and v from their blocks; a block passed again (self-attention) is read once.
struct Qkv {
  mha::Tensor q, k, v;
};
Qkv qkv_from_blocks(double q, double k, double v, const char* q_name, const char* k_name, const char* v_name);

// The attention options as api.js sends them (the mask mode by its index in protocol().maskModes, the masks as
// blocks, 0 for none).
mha::AttentionOptions raw_options(bool need_weights, bool causal, double fill, double mask_mode, double mask,
                                  double key_padding);

// The result slot: a tensor function stores its output [0] and weights [1] there; api.js copies them out.
void store(std::size_t which, const mha::Tensor& t);
void store_attention(const mha::Tensor& output, const mha::Tensor& weights, bool need_weights,
                     std::size_t fully_masked_rows);
void slot_begin();                  // empties the slot before a call
void slot_fail(std::string error);  // drops what a failed call stored, keeps its message

// Runs `compute` (which stores its tensors); false with the message in the slot on failure.
template <class F>
bool into_slot(F&& compute) {
  slot_begin();
  std::string error;
  try {
    compute();
    return true;
  } catch (const std::bad_alloc&) {
    error = kOutOfMemory;
  } catch (const std::exception& e) {
    error = e.what();
  }
  slot_fail(std::move(error));
  return false;
}

// ---- Shared by the module classes (state_dict_bindings.cpp; bound per class: embind takes `this` as the class) --

template <class M>
val state_dict_to_js(const M& m);
template <class M>
val module_load_state_dict(M& m, val names, val addrs);
template <class M>
val module_to_safetensors(const M& m);
template <class M>
double module_parameter_count(const M& m) {
  return static_cast<double>(m.parameter_count());
}
template <class M>
void module_zero_grad(M& m) {
  m.zero_grad();
}

// ---- Bound on other files' classes ----------------------------------------------------------

val tasks_to_js();                                                   // training_bindings.cpp, for protocol()
val js_mix_then_split(mha::Generator& gen, double D, double index);  // teaching_bindings.cpp, on GeneratorCore
val js_loop_vs_vectorized(const mha::MultiHeadAttention& m, double x, bool causal, double fill, double mask_mode,
                          double mask, double key_padding);  // teaching_bindings.cpp, on MultiHeadAttentionCore

}  // namespace mha_js
