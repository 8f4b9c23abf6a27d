// Scaled dot-product attention, every mask convention, the MultiHeadAttention module, the shape
// trace, and the messages for bad input.
#include "test_support.hpp"

#include <memory>

using namespace mha;
using Catch::Matchers::WithinAbs;

namespace {

struct Qkv {
  Tensor q, k, v;
};

Qkv make_qkv(const Shape& batch, std::size_t Sq, std::size_t Skv, std::size_t dk, std::size_t dv, std::uint64_t seed) {
  Generator gen(seed);
  auto with = [&](std::size_t rows, std::size_t cols) {
    Shape s = batch;
    s.push_back(rows);
    s.push_back(cols);
    return mha_test::randn(s, gen);
  };
  return {with(Sq, dk), with(Skv, dk), with(Skv, dv)};
}

AttentionOptions masked(const Tensor& mask, MaskMode mode, float fill = -INFINITY) {
  AttentionOptions o;
  o.mask = mask;
  o.mask_mode = mode;
  o.fill = fill;
  return o;
}

}  // namespace

TEST_CASE("attention matches a double-precision reference, self and cross") {
  for (auto [Sq, Skv] : {std::pair<std::size_t, std::size_t>{5, 5}, {3, 7}, {9, 2}}) {
    const Qkv t = make_qkv({2}, Sq, Skv, 8, 6, 11);
    const AttentionResult r = scaled_dot_product_attention(t.q, t.k, t.v, {});
    REQUIRE(r.output.shape() == Shape{2, Sq, 6});
    REQUIRE(r.weights.shape() == Shape{2, Sq, Skv});
    for (std::size_t b = 0; b < 2; ++b) {
      std::vector<double> w;
      const auto ref = mha_test::reference_attention(
          t.q.data() + b * Sq * 8, t.k.data() + b * Skv * 8, t.v.data() + b * Skv * 6, Sq, Skv, 8, 6, 0,
          [](auto, auto) { return false; }, &w);
      mha_test::require_close(r.output.select(0, b).to_vector(), ref, 1e-5);
      mha_test::require_close(r.weights.select(0, b).to_vector(), w, 1e-5);
    }
  }
}

TEST_CASE("every mask convention blocks the same positions") {
  const std::size_t S = 6;
  const Qkv t = make_qkv({2, 3}, S, S, 4, 4, 5);
  const Tensor keep = tril(ones({S, S}));      // lessons 000/002/004: 0 blocks
  const Tensor block = triu(ones({S, S}), 1);  // lesson 003: 1 blocks
  Tensor additive = mul(block, 1.0f);
  for (std::size_t i = 0; i < additive.numel(); ++i) additive.data()[i] = additive.data()[i] ? -INFINITY : 0.0f;
  AttentionOptions causal;
  causal.causal = true;

  const AttentionResult by_keep = scaled_dot_product_attention(t.q, t.k, t.v, masked(keep, MaskMode::Keep));
  for (const AttentionOptions& o :
       {masked(block, MaskMode::Block), masked(block, MaskMode::Bool), masked(additive, MaskMode::Additive), causal}) {
    const AttentionResult r = scaled_dot_product_attention(t.q, t.k, t.v, o);
    mha_test::require_close(r.weights, by_keep.weights, 1e-6);
    mha_test::require_close(r.output, by_keep.output, 1e-6);
  }
  // Causal rows: zero above the diagonal, each row sums to 1.
  const std::vector<float> w = by_keep.weights.to_vector();
  for (std::size_t row = 0; row < w.size() / S; ++row) {
    double total = 0;
    for (std::size_t j = 0; j < S; ++j) {
      if (j > row % S) CHECK(w[row * S + j] == 0.0f);
      total += w[row * S + j];
    }
    CHECK_THAT(total, WithinAbs(1.0, 1e-6));
  }
}

TEST_CASE("masks broadcast as in PyTorch: [S,S], [1,1,S,S], [B,1,S,S], [B,H,S,S]") {
  const std::size_t B = 2, H = 3, S = 4;
  const Qkv t = make_qkv({B, H}, S, S, 4, 4, 9);
  Generator gen(2);
  Tensor per_head({B, H, S, S});
  uniform_fill(per_head.data(), per_head.numel(), 0, 1, gen);
  for (std::size_t i = 0; i < per_head.numel(); ++i) per_head.data()[i] = per_head.data()[i] < 0.3f ? 0.0f : 1.0f;
  for (std::size_t i = 0; i < B * H * S; ++i) per_head.data()[i * S] = 1.0f;  // every row keeps key 0

  const AttentionResult full = scaled_dot_product_attention(t.q, t.k, t.v, masked(per_head, MaskMode::Keep));
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const Tensor m = per_head.select(0, b).select(0, h).contiguous();
      std::vector<double> w;
      mha_test::reference_attention(
          t.q.select(0, b).select(0, h).data(), t.k.select(0, b).select(0, h).data(),
          t.v.select(0, b).select(0, h).data(), S, S, 4, 4, -INFINITY,
          [&](std::size_t i, std::size_t j) {
            return m.at({i, j}) == 0.0f;
          },
          &w);
      mha_test::require_close(full.weights.select(0, b).select(0, h).to_vector(), w, 1e-5);
    }
  // The same [S,S] mask in each broadcastable form gives the same result.
  const Tensor square = per_head.select(0, 0).select(0, 0).contiguous();
  const AttentionResult base = scaled_dot_product_attention(t.q, t.k, t.v, masked(square, MaskMode::Keep));
  for (const Tensor& form : {square.view({1, 1, 4, 4}), square.view({1, 1, 4, 4}).expand({B, 1, S, S}).contiguous(),
                             square.view({1, 1, 4, 4}).expand({B, H, S, S}).contiguous()}) {
    mha_test::require_close(scaled_dot_product_attention(t.q, t.k, t.v, masked(form, MaskMode::Keep)).weights,
                            base.weights, 0);
  }
  REQUIRE_ERROR_MENTIONS(scaled_dot_product_attention(t.q, t.k, t.v, masked(ones({3, 4}), MaskMode::Keep)), "[3, 4]",
                         "[2, 3, 4, 4]", "expected [4, 4]");
}

TEST_CASE("fully masked rows follow the fill: NaN with -inf, uniform with -1e9, and are reported") {
  const Qkv t = make_qkv({1}, 3, 4, 4, 4, 1);
  Tensor keep = ones({3, 4});
  for (std::size_t j = 0; j < 4; ++j) keep.data()[4 + j] = 0.0f;  // query 1 sees nothing
  const AttentionResult inf = scaled_dot_product_attention(t.q, t.k, t.v, masked(keep, MaskMode::Keep, -INFINITY));
  CHECK(inf.fully_masked_rows == 1);
  CHECK(std::isnan(inf.weights.at({0, 1, 0})));
  CHECK(std::isnan(inf.output.at({0, 1, 2})));
  CHECK_FALSE(std::isnan(inf.output.at({0, 0, 0})));
  const AttentionResult big = scaled_dot_product_attention(t.q, t.k, t.v, masked(keep, MaskMode::Keep, -1e9f));
  CHECK(big.fully_masked_rows == 1);
  for (std::size_t j = 0; j < 4; ++j) CHECK_THAT(big.weights.at({0, 1, j}), WithinAbs(0.25, 1e-7));
  AttentionOptions streaming = masked(keep, MaskMode::Keep, -1e9f);
  streaming.need_weights = false;
  const AttentionResult fused = scaled_dot_product_attention(t.q, t.k, t.v, streaming);
  CHECK(fused.fully_masked_rows == 1);
  CHECK(fused.weights.numel() == 0);
  mha_test::require_close(fused.output, big.output, 1e-5);
}

TEST_CASE("key padding mask blocks keys per batch — need_weights=false gives the same output") {
  const std::size_t B = 2, H = 2, S = 5;
  const Qkv t = make_qkv({B, H}, S, S, 4, 4, 21);
  Tensor padding({B, S});
  padding.data()[3] = padding.data()[4] = 1.0f;  // batch 0: last two keys are padding
  AttentionOptions o;
  o.key_padding_mask = padding;
  const AttentionResult r = scaled_dot_product_attention(t.q, t.k, t.v, o);
  CHECK(r.weights.at({0, 1, 2, 3}) == 0.0f);
  CHECK(r.weights.at({1, 1, 2, 3}) > 0.0f);
  o.need_weights = false;
  mha_test::require_close(scaled_dot_product_attention(t.q, t.k, t.v, o).output, r.output, 1e-5);
  REQUIRE_ERROR_MENTIONS(scaled_dot_product_attention(t.q, t.k, t.v,
                                                      [&] {
                                                        AttentionOptions bad;
                                                        bad.key_padding_mask = ones({S, B});
                                                        return bad;
                                                      }()),
                         "key_padding_mask", "[5, 2]", "[2, 5]");
}

TEST_CASE("nn.Linear init order: W_q of MultiHeadAttention(4, 1) is torch.manual_seed(0) — nn.Linear(4, 4)") {
  MultiHeadAttention m({4, 1}, std::make_shared<Generator>(0));
  mha_test::require_close(m.W_q.weight().select(0, 0).to_vector(), {-0.0037, 0.2682, -0.4115, -0.3680}, 2e-4);
  mha_test::require_close(m.W_q.bias()->to_vector(), {0.1977, 0.3000, -0.3390, -0.2177}, 2e-4);
}

TEST_CASE("lesson 000: rand(1, 5, 64) then MultiHeadAttention(64, 8) gives [1, 5, 64] and [1, 8, 5, 5]") {
  auto gen = std::make_shared<Generator>(0);
  Tensor x({1, 5, 64});
  uniform_fill(x.data(), x.numel(), 0, 1, *gen);
  CHECK_THAT(x.data()[0], WithinAbs(0.4963, 1e-4));
  MultiHeadAttention m({64, 8}, gen);
  const ForwardResult r = m.forward(x, x, x, {});
  CHECK(r.output.shape() == Shape{1, 5, 64});
  CHECK(r.weights.shape() == Shape{1, 8, 5, 5});
  CHECK(m.parameter_count() == 16640);
}

TEST_CASE("MultiHeadAttention equals the lesson's forward written with tensor ops, and the loop over heads") {
  auto gen = std::make_shared<Generator>(123);
  MultiHeadAttention m({32, 4}, gen);
  const Tensor x = mha_test::randn({2, 6, 32}, *gen);
  AttentionOptions causal = masked(tril(ones({6, 6})).view({1, 1, 6, 6}), MaskMode::Keep, -1e9f);
  for (const AttentionOptions& o : {AttentionOptions{}, causal}) {
    const ForwardResult r = m.forward(x, x, x, o);
    // The lesson's vectorized forward, step by step with tensor ops.
    const Tensor Q = m.W_q(x).view({2, -1, 4, 8}).transpose(1, 2);
    const Tensor K = m.W_k(x).view({2, -1, 4, 8}).transpose(1, 2);
    const Tensor V = m.W_v(x).view({2, -1, 4, 8}).transpose(1, 2);
    Tensor scores = mul(matmul(Q, K.transpose(-2, -1)), 1.0f / std::sqrt(8.0f));
    if (o.mask) scores = masked_fill(scores, eq(*o.mask, 0.0f), -1e9f);
    const Tensor attn = softmax(scores, -1);
    const Tensor expected = m.W_o(matmul(attn, V).transpose(1, 2).contiguous().view({2, -1, 32}));
    mha_test::require_close(r.weights, attn, 1e-5);
    mha_test::require_close(r.output, expected, 1e-5);
    const LoopVsVectorized lv = loop_vs_vectorized(m, x, o);
    CHECK(lv.max_abs_diff <= 1e-6f);
  }
  CHECK(m.parameter_count() == 4224);
  MultiHeadAttention no_bias({32, 4, false}, gen);
  CHECK(no_bias.parameter_count() == 4096);
  CHECK_FALSE(no_bias.W_o.bias().has_value());
}

TEST_CASE("cross-attention: query length differs from key length") {
  auto gen = std::make_shared<Generator>(7);
  MultiHeadAttention m({16, 4}, gen);
  const Tensor q = mha_test::randn({2, 3, 16}, *gen);
  const Tensor kv = mha_test::randn({2, 7, 16}, *gen);
  const ForwardResult r = m.forward(q, kv, kv, {});
  CHECK(r.output.shape() == Shape{2, 3, 16});
  CHECK(r.weights.shape() == Shape{2, 4, 3, 7});
  CHECK(shape_trace(2, 3, 16, 4, 7)[4].weights == Shape{2, 4, 3, 7});
  REQUIRE_ERROR_MENTIONS(m.forward(q, kv, mha_test::randn({2, 6, 16}, *gen), {}), "[2, 7, 16]", "[2, 6, 16]");
}

TEST_CASE("dropout on the weights in training mode only") {
  auto gen = std::make_shared<Generator>(0);
  MultiHeadAttention m({16, 2, true, 0.5}, gen);
  const Tensor x = mha_test::randn({1, 8, 16}, *gen);
  m.eval();
  const ForwardResult clean = m.forward(x, x, x, {});
  m.train();
  const ForwardResult dropped = m.forward(x, x, x, {});
  std::size_t zeros = 0;
  for (std::size_t i = 0; i < clean.weights.numel(); ++i) {
    const float d = dropped.weights.data()[i], c = clean.weights.data()[i];
    if (d == 0.0f) ++zeros;
    else CHECK_THAT(d, Catch::Matchers::WithinRel(c * 2.0f, 1e-6f));
  }
  CHECK(zeros > 20);
  CHECK(zeros < 108);
}

TEST_CASE("shape trace at B=2, S=10, D=512, H=8 is lesson 004's table") {
  const std::vector<TraceStep> trace = shape_trace(2, 10, 512, 8);
  REQUIRE(trace.size() == 8);
  const std::vector<Shape> shapes{{2, 10, 512},   {2, 10, 512},   {2, 10, 8, 64}, {2, 8, 10, 64},
                                  {2, 8, 10, 64}, {2, 10, 8, 64}, {2, 10, 512},   {2, 10, 512}};
  for (std::size_t i = 0; i < 8; ++i) CHECK(trace[i].layout.shape == shapes[i]);
  CHECK(trace[2].op == "view");
  CHECK(trace[3].layout.strides == Strides{5120, 64, 512, 1});
  CHECK_FALSE(trace[3].layout.is_contiguous());
  CHECK(trace[5].layout.strides == Strides{5120, 64, 640, 1});
  CHECK_FALSE(trace[5].layout.is_contiguous());
  CHECK(trace[6].op == "contiguous_view");
  CHECK(trace[6].layout.is_contiguous());
  // The trace describes what the module's own tensors do.
  const Tensor heads = Tensor({2, 10, 512}).view({2, -1, 8, 64}).transpose(1, 2);
  CHECK(heads.strides() == trace[3].layout.strides);
}

TEST_CASE("bad input gets a message a student understands") {
  auto gen = std::make_shared<Generator>(0);
  REQUIRE_ERROR_MENTIONS(MultiHeadAttention({10, 3}, gen), "d_model (10) must be divisible by num_heads (3)",
                         "head counts that work: 1, 2, 5, 10");
  REQUIRE_ERROR_MENTIONS(MultiHeadAttention({0, 1}, gen), "d_model must be between 1 and 4096, got 0");
  REQUIRE_ERROR_MENTIONS(MultiHeadAttention({100000, 4}, gen), "d_model must be between 1 and 4096");
  REQUIRE_ERROR_MENTIONS(MultiHeadAttention({8, 0}, gen), "num_heads must be at least 1");
  REQUIRE_ERROR_MENTIONS(MultiHeadAttention({8, 2, true, 1.0}, gen), "dropout must be in [0, 1)");
  REQUIRE_ERROR_MENTIONS(MultiHeadAttention({8, 2, true, -0.1}, gen), "dropout must be in [0, 1)");
  REQUIRE_ERROR_MENTIONS(MultiHeadAttention({8, 2, true, std::nan("")}, gen), "dropout must be in [0, 1)");
  MultiHeadAttention m({8, 2}, gen);
  REQUIRE_ERROR_MENTIONS(m.forward(Tensor({2, 4, 6}), Tensor({2, 4, 6}), Tensor({2, 4, 6}), {}), "d_model = 8",
                         "[2, 4, 6]");
  REQUIRE_ERROR_MENTIONS(m.forward(Tensor({4, 8}), Tensor({4, 8}), Tensor({4, 8}), {}), "[batch, seq_len, d_model]",
                         "[4, 8]");
  REQUIRE_ERROR_MENTIONS(m.forward(Tensor({2, 4, 8}), Tensor({3, 4, 8}), Tensor({3, 4, 8}), {}), "batch size",
                         "[2, 4, 8]", "[3, 4, 8]");
  const Tensor x({1, 4, 8});
  REQUIRE_ERROR_MENTIONS(m.forward(x, x, x, masked(ones({5, 5}), MaskMode::Keep)), "[5, 5]", "expected [4, 4]");
  REQUIRE_ERROR_MENTIONS(scaled_dot_product_attention(Tensor({2, 3}), Tensor({2, 4}), Tensor({2, 4}), {}), "[2, 3]",
                         "[2, 4]", "d_k");
  REQUIRE_ERROR_MENTIONS(shape_trace(1, 1u << 20, 4096, 8), "memory cap");
  // Weights too large to form: the message points at the streaming path.
  const Tensor q({1, 1, 8192, 1});
  REQUIRE_ERROR_MENTIONS(
      scaled_dot_product_attention(q.expand({1, 2, 8192, 1}), q.expand({1, 2, 8192, 1}), q.expand({1, 2, 8192, 1}), {}),
      "needWeights: false");
}

TEST_CASE("without weights, small heads use a scratch matrix and long ones the streaming kernel — both match") {
  // 1100 × 1000 scores per head is above the streaming threshold (2^20); 100 × 90 is below.
  for (auto [Sq, Skv] : {std::pair<std::size_t, std::size_t>{1100, 1000}, {100, 90}}) {
    const Qkv t = make_qkv({2}, Sq, Skv, 8, 8, 31);
    Tensor padding({2, Skv});
    padding.data()[Skv - 1] = padding.data()[Skv + 3] = 1.0f;
    AttentionOptions o;
    o.causal = true;
    o.key_padding_mask = padding;
    o.fill = -1e9f;
    const AttentionResult with_weights = scaled_dot_product_attention(t.q, t.k, t.v, o);
    o.need_weights = false;
    const AttentionResult without = scaled_dot_product_attention(t.q, t.k, t.v, o);
    CHECK(without.weights.numel() == 0);
    CHECK(without.fully_masked_rows == with_weights.fully_masked_rows);
    mha_test::require_close(without.output, with_weights.output, 1e-5);
  }
}
