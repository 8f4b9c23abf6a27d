// The shape trace's row: one step of a forward (the lessons' MultiHeadAttention, the lab's model, a real
// checkpoint), its layout and, for attention, its weights' shape. On the ground floor, so that the lessons
// (mha/attention.hpp) and the real checkpoints (mha/models.hpp, core/src/blocks/) share it without
// including each other.
#pragma once

#include <string>

#include "mha/tensor.hpp"

namespace mha {

// One row of the lesson 004 shape table: structured data; the page words it.
struct TraceStep {
  std::string op;      // input | linear | view | transpose | attention | contiguous_view;
                       // a model's trace adds tokens | embedding | residual | readout;
                       // a real checkpoint's (mha/models.hpp) per layer: norm (LayerNorm/RMSNorm
                       // [1, T, D]) | qkv (GPT-2's fused c_attn [1, T, 3D]) | query | key | value
                       // (projections [1, T, H·d] or [1, T, KV·d]; GPT-2's are strided views of qkv) |
                       // query_heads | key_heads | value_heads (view + transpose: [1, H or KV, T, d]) |
                       // rope_query | rope_key (rotary embeddings) | repeat_kv_key | repeat_kv_value
                       // (grouped-query attention: [1, H, T, d]) | scores [1, H, T, T] | softcap (Gemma 2's
                       // tanh(scores / c) · c [1, H, T, T]) | window
                       // (a local layer's keys before its window masked: [1, H, T, T]) | softmax
                       // (weights [1, H, T, T]) | context (softmax · v [1, H, T, d]) | merge
                       // ([1, T, H·d]) | output (projection [1, T, D]) | mlp ([1, T, D]) | post_norm (Gemma 2's
                       // norm of the attention's or the MLP's output before its residual add [1, T, D])
  Layout layout;       // shape, strides, contiguity of the step's result
  Shape weights = {};  // attention: the weights' shape [B, H, Sq, Skv]; empty otherwise
  int layer = -1;      // a model's trace: the attention layer the step belongs to (-1: none)
};

}  // namespace mha
