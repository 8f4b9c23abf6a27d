// The lessons' teaching pieces (mha/teaching.hpp): parameter counts, mix-then-split, hand-built heads, loop vs
// vectorized, the view() error PyTorch prints; the page shows their numbers.
#include "mha/teaching.hpp"

#include <algorithm>

namespace mha {

ParameterScenarios parameter_scenarios(std::size_t D, std::size_t H) {
  check_heads(D, H);
  const std::size_t dk = D / H;
  return ParameterScenarios{3 * H * D * D, 3 * H * D * dk, 3 * D * D, 4 * (D * D + D), 4 * D * D};
}

MixThenSplit mix_then_split(Generator& gen, std::size_t D, std::size_t index) {
  check_shape({D, D}, "the mix matrix W");
  if (index >= D) {
    throw Error("output_index " + std::to_string(index) + " is out of range for d_model " + std::to_string(D) +
                " (valid: 0 to " + std::to_string(D - 1) + ")");
  }
  MixThenSplit r{Tensor({D}), Tensor({D, D}), Tensor(), Tensor(), index, 0.0f, 0.0f};
  normal_fill(r.x0.data(), D, 0.0, 1.0, gen);
  normal_fill(r.W.data(), D * D, 0.0, 1.0, gen);
  r.q0 = matmul(r.x0, r.W);
  r.column = r.W.select(1, index).contiguous();
  r.q0_at_index = r.q0.at({index});
  r.manual = sum(mul(r.x0, r.column));
  return r;
}

std::vector<std::string> lesson_sentence() {
  return {"The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "soft"};
}

std::vector<HandBuiltHead> head_specialization(const std::vector<std::string>& tokens) {
  const std::size_t n = tokens.size();
  if (n == 0) throw Error("head specialization needs at least one token");
  check_shape({n, n}, "the hand-built attention");
  const auto find = [&](const char* word) -> std::optional<std::size_t> {
    const auto it = std::find(tokens.begin(), tokens.end(), word);
    return it == tokens.end() ? std::nullopt : std::optional<std::size_t>(it - tokens.begin());
  };
  // Each head: (query word, key word, logit) links; everyone else attends to itself with logit 5.
  struct Link {
    const char *from, *to;
    float logit;
  };
  const auto build = [&](std::string name, std::vector<Link> links) {
    HandBuiltHead head{std::move(name), Tensor({n, n}), Tensor(), {}};
    std::vector<bool> linked(n, false);
    for (const Link& link : links) {
      const auto from = find(link.from), to = find(link.to);
      if (!from || !to) continue;
      head.logits.data()[*from * n + *to] = link.logit;
    }
    for (const Link& link : links) {
      for (std::size_t i = 0; i < n; ++i) linked[i] = linked[i] || tokens[i] == link.from;
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!linked[i]) head.logits.data()[i * n + i] = 5.0f;
    head.weights = softmax(head.logits, -1);
    for (std::size_t i = 0; i < n; ++i) {
      const float* row = head.weights.data() + i * n;
      const std::size_t best =
          static_cast<std::size_t>(std::max_element(row, row + n) - row);  // first maximum, as torch.argmax
      if (row[best] > 0.5f) head.patterns.push_back({i, best, row[best]});
    }
    return head;
  };
  return {build("Semantic Expert", {{"it", "mat", 8.0f}, {"soft", "mat", 6.0f}}),
          build("Syntactic Expert", {{"sat", "cat", 8.0f}, {"cat", "sat", 6.0f}})};
}

LoopVsVectorized loop_vs_vectorized(const MultiHeadAttention& mha, const Tensor& x, const AttentionOptions& options) {
  if (mha.training() && mha.config().dropout > 0.0) {
    throw Error(
        "compare the loop and vectorized implementations in eval mode: dropout draws different random numbers on each run");
  }
  LoopVsVectorized r{mha.forward(x, x, x, options).output, mha.forward_loop(x, x, x, options), 0.0f, 0.0f};
  const Tensor diff = abs(sub(r.vectorized, r.loop));
  r.max_abs_diff = max(diff);
  r.mean_abs_diff = mean(diff);
  return r;
}

std::string view_error_message() {
  try {
    Tensor(Shape{2, 3, 4}).transpose(1, 2).view({2, 12});
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace mha
