// MHA Explorer core: multi-head attention that computes what PyTorch computes.
//
// Usage (lesson 002's "testing the module" cell):
//
//   #include "mha/mha.hpp"
//
//   auto gen = std::make_shared<mha::Generator>(0);                  // torch.manual_seed(0)
//   mha::MultiHeadAttention attention({/*d_model*/ 32, /*num_heads*/ 4}, gen);  // 4 nn.Linear
//   mha::Tensor x({2, 5, 32});
//   mha::normal_fill(x.data(), x.numel(), 0.0, 1.0, *gen);          // torch.randn(2, 5, 32)
//   mha::ForwardResult r = attention.forward(x, x, x, {});
//   // r.output [2, 5, 32], r.weights [2, 4, 5, 5]; mha::shape_trace(2, 5, 32, 4): the shape table
//   float diff = mha::mean(mha::abs(mha::sub(r.output, x)));     // the lesson's "mean abs diff"
//   attention.parameter_count();                                  // 4224
//
// Contracts:
// - Every invalid argument throws mha::Error with a message written for a student; nothing
//   aborts. Sizes are capped (tensor.hpp: kMaxElements, kMaxDim, kMaxDims; d_model <= 4096).
// - A Generator reproduces torch.manual_seed's CPU stream; objects that draw (module init,
//   dropout) draw in PyTorch's order.
// - Kernels (kernels.hpp) are picked at compile time: SIMD128 under Emscripten with -msimd128,
//   scalar otherwise.
#pragma once

#include "mha/analysis.hpp"
#include "mha/attention.hpp"
#include "mha/checkpoint.hpp"
#include "mha/error.hpp"
#include "mha/kernels.hpp"
#include "mha/models.hpp"
#include "mha/module.hpp"
#include "mha/random.hpp"
#include "mha/safetensors.hpp"
#include "mha/teaching.hpp"
#include "mha/tensor.hpp"
#include "mha/train.hpp"
#include "mha/weights.hpp"
