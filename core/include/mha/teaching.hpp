// The lessons' teaching pieces, computed by the core so the page shows numbers, not prose.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mha/attention.hpp"
#include "mha/random.hpp"
#include "mha/tensor.hpp"

namespace mha {

// Lesson 002's parameter scenarios at (d_model, num_heads) and the module's totals.
struct ParameterScenarios {
  std::size_t full;          // A: each head has its own D×D Q, K, V matrices: 3·H·D²
  std::size_t reduced;       // B: each head has D×d_k Q, K, V matrices: 3·H·D·d_k
  std::size_t actual;        // C: one D×D matrix each for Q, K, V, split afterwards: 3·D²
  std::size_t with_bias;     // the module's 4 Linear layers with biases: 4·(D² + D)
  std::size_t without_bias;  // ... without biases: 4·D²
};
ParameterScenarios parameter_scenarios(std::size_t d_model, std::size_t num_heads);

// Lesson 002's mix demonstration: x0 = randn(D); W = randn(D, D); q0 = x0 @ W; one output
// dimension equals the dot product of x0 with W's column over ALL input dimensions.
struct MixThenSplit {
  Tensor x0, W, q0, column;
  std::size_t output_index;
  float q0_at_index;  // q0[output_index] from the matmul
  float manual;       // sum_i x0[i] * W[i, output_index]
};
MixThenSplit mix_then_split(Generator& gen, std::size_t d_model, std::size_t output_index);

// Lesson 002's hand-built heads on a sentence: head 1 (semantic: it → mat, soft → mat) and head 2
// (syntactic: sat → cat, cat → sat); others attend to themselves with logit 5.
struct HandBuiltHead {
  std::string name;
  Tensor logits, weights;  // [n, n]
  struct Pattern {
    std::size_t from, to;
    float weight;
  };
  std::vector<Pattern> patterns;  // each query's top key when its weight is above 0.5
};
std::vector<HandBuiltHead> head_specialization(const std::vector<std::string>& tokens);
// The lesson's sentence: "The cat sat on the mat because it was soft", split on spaces.
std::vector<std::string> lesson_sentence();

// Lesson 002's verification: the loop-over-heads implementation against the vectorized module.
struct LoopVsVectorized {
  Tensor vectorized, loop;
  float max_abs_diff, mean_abs_diff;
};
LoopVsVectorized loop_vs_vectorized(const MultiHeadAttention& mha, const Tensor& x, const AttentionOptions& options);

// The message PyTorch gives for x.transpose(1, 2).view(2, 12) on a [2, 3, 4] tensor.
std::string view_error_message();

}  // namespace mha
