// The lessons' teaching pieces against the numbers the lessons print.
#include "test_support.hpp"

using namespace mha;
using Catch::Matchers::WithinAbs;

TEST_CASE("lesson 002 parameter scenarios at d_model=512, 8 heads") {
  const ParameterScenarios p = parameter_scenarios(512, 8);
  CHECK(p.full == 6291456);
  CHECK(p.reduced == 786432);
  CHECK(p.actual == 786432);
  CHECK(parameter_scenarios(32, 4).with_bias == 4224);
  CHECK(parameter_scenarios(32, 4).without_bias == 4096);
  CHECK(parameter_scenarios(64, 4).with_bias == 16640);
  REQUIRE_ERROR_MENTIONS(parameter_scenarios(512, 7), "512", "7", "1, 2, 4, 8, 16, 32, 64, 128, 256, 512");
}

TEST_CASE("lesson 002 mix then split: q0 = x0 @ W and q0[3] is a dot product over all inputs") {
  Generator gen(1);
  const MixThenSplit r = mix_then_split(gen, 8, 3);
  mha_test::require_close(r.x0.to_vector(), {0.6614, 0.2669, 0.0617, 0.6213, -0.4519, -0.1661, -1.5228, 0.3817}, 1e-4);
  mha_test::require_close(r.q0.to_vector(), {0.0465, 0.4481, 0.3035, 1.1985, 1.6100, -0.9023, -2.0339, -1.0991}, 1e-4);
  mha_test::require_close(r.column.to_vector(), {0.1991, -1.4465, -0.7735, -0.0288, -0.4370, -0.6446, -1.0055, -0.8313},
                          1e-4);
  CHECK_THAT(r.q0_at_index, WithinAbs(1.1985, 1e-4));
  CHECK_THAT(r.manual, WithinAbs(r.q0_at_index, 1e-5));
  REQUIRE_ERROR_MENTIONS(mix_then_split(gen, 8, 8), "output_index 8", "0 to 7");
}

TEST_CASE("lesson 002 hand-built head specialization on the cat sentence") {
  const std::vector<std::string> tokens = lesson_sentence();
  const std::vector<HandBuiltHead> heads = head_specialization(tokens);
  REQUIRE(heads.size() == 2);
  auto pattern_of = [&](const HandBuiltHead& h, const std::string& word) {
    for (const auto& p : h.patterns)
      if (tokens[p.from] == word) return std::make_pair(tokens[p.to], p.weight);
    return std::make_pair(std::string("-"), 0.0f);
  };
  CHECK(heads[0].patterns.size() == 10);
  CHECK(pattern_of(heads[0], "it").first == "mat");
  CHECK_THAT(pattern_of(heads[0], "it").second, WithinAbs(1.00, 0.005));
  CHECK(pattern_of(heads[0], "soft").first == "mat");
  CHECK_THAT(pattern_of(heads[0], "soft").second, WithinAbs(0.98, 0.005));
  CHECK(pattern_of(heads[0], "The").first == "The");
  CHECK_THAT(pattern_of(heads[0], "The").second, WithinAbs(0.94, 0.005));
  CHECK(pattern_of(heads[1], "cat").first == "sat");
  CHECK_THAT(pattern_of(heads[1], "cat").second, WithinAbs(0.98, 0.005));
  CHECK(pattern_of(heads[1], "sat").first == "cat");
  CHECK_THAT(pattern_of(heads[1], "sat").second, WithinAbs(1.00, 0.005));
  CHECK(pattern_of(heads[1], "it").first == "it");
}

TEST_CASE("lesson 002 contiguous() demo prints PyTorch's view error") {
  CHECK(view_error_message() ==
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead.");
}

TEST_CASE("lesson 002 module test: manual_seed(0), MultiHeadAttention(32, 4), randn(2, 5, 32)") {
  auto gen = std::make_shared<Generator>(0);
  MultiHeadAttention m({32, 4}, gen);
  const Tensor x = mha_test::randn({2, 5, 32}, *gen);
  const ForwardResult r = m.forward(x, x, x, {});
  CHECK(r.output.shape() == Shape{2, 5, 32});
  CHECK(m.parameter_count() == 4224);
  const float diff = mean(abs(sub(r.output, x)));
  CHECK(diff > 0.1f);  // attention mixed the tokens: the output is not the input
}
