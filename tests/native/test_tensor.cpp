// Tensors with PyTorch's shape semantics: view, reshape, transpose, contiguous, matmul, softmax,
// masked_fill, tril/triu, and the messages for misuse.
#include "test_support.hpp"

using namespace mha;
using mha_test::arange;

TEST_CASE("transpose changes strides, not data — view then needs contiguous() (lesson 002)") {
  const Tensor x = arange({2, 3, 4});
  const Tensor xt = x.transpose(1, 2);
  CHECK(xt.shape() == Shape{2, 4, 3});
  CHECK(xt.strides() == Strides{12, 1, 4});
  CHECK_FALSE(xt.is_contiguous());
  CHECK(xt.data() == x.data());  // no copy
  CHECK(xt.at({1, 3, 2}) == x.at({1, 2, 3}));

  REQUIRE_ERROR_MENTIONS(xt.view({2, 12}),
                         "view size is not compatible with input tensor's size and stride (at least one dimension "
                         "spans across two contiguous subspaces). Use .reshape(...) instead.");
  const Tensor xc = xt.contiguous();
  CHECK(xc.is_contiguous());
  CHECK(xc.view({2, 12}).shape() == Shape{2, 12});
  CHECK(xt.reshape({2, 12}).to_vector() == xc.view({2, 12}).to_vector());
}

TEST_CASE("view infers -1 and keeps strides of the chunks it can express") {
  const Tensor q = arange({2, 10, 512});
  const Tensor split = q.view({2, -1, 8, 64});
  CHECK(split.shape() == Shape{2, 10, 8, 64});
  CHECK(split.strides() == Strides{5120, 512, 64, 1});
  const Tensor heads = split.transpose(1, 2);
  CHECK(heads.strides() == Strides{5120, 64, 512, 1});
  CHECK_FALSE(heads.is_contiguous());
  // A view that only splits the innermost, still-contiguous dimension works on the transposed tensor.
  CHECK(heads.view({2, 8, 10, 8, 8}).strides() == Strides{5120, 64, 512, 8, 1});
  REQUIRE_ERROR_MENTIONS(q.view({3, -1}), "shape '[3, -1]' is invalid for input of size 10240");
  REQUIRE_ERROR_MENTIONS(q.view({-1, -1}), "only one dimension can be inferred");
}

TEST_CASE("contiguity follows PyTorch: size-1 dimensions may have any stride") {
  const Tensor x = arange({1, 4});
  CHECK(x.transpose(0, 1).is_contiguous());
  CHECK(arange({3, 1, 2}).transpose(0, 1).is_contiguous());  // [1, 3, 2] with strides [2, 2, 1]
  CHECK_FALSE(arange({3, 2, 2}).transpose(0, 1).is_contiguous());
  CHECK(x.unsqueeze(0).shape() == Shape{1, 1, 4});
}

TEST_CASE("matmul broadcasts batch dimensions and matches a double reference") {
  Generator gen(3);
  const Tensor a = mha_test::randn({2, 1, 3, 4}, gen);
  const Tensor b = mha_test::randn({5, 4, 2}, gen);
  const Tensor c = matmul(a, b);
  REQUIRE(c.shape() == Shape{2, 5, 3, 2});
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 5; ++j)
      for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t col = 0; col < 2; ++col) {
          double ref = 0;
          for (std::size_t t = 0; t < 4; ++t) ref += double(a.at({i, 0, r, t})) * b.at({j, t, col});
          CHECK_THAT(c.at({i, j, r, col}), Catch::Matchers::WithinAbs(ref, 1e-5));
        }
}

TEST_CASE("matmul with 1-d operands and transposed views") {
  const Tensor x0 = arange({3}, 1.0f);
  const Tensor W = arange({3, 2});
  const Tensor q0 = matmul(x0, W);
  CHECK(q0.shape() == Shape{2});
  CHECK(q0.to_vector() == std::vector<float>{1 * 0 + 2 * 2 + 3 * 4.0f, 1 * 1 + 2 * 3 + 3 * 5.0f});
  CHECK(matmul(x0, x0).numel() == 1);
  const Tensor sq = matmul(W.transpose(0, 1), W);  // Wᵀ W through a strided view
  CHECK(sq.to_vector() == std::vector<float>{0 + 4 + 16, 0 + 6 + 20, 0 + 6 + 20, 1 + 9 + 25});
  REQUIRE_ERROR_MENTIONS(matmul(arange({2, 3}), arange({2, 3})), "2x3 and 2x3", "[2, 3] and [2, 3]");
  REQUIRE_ERROR_MENTIONS(matmul(arange({2, 2, 3}), arange({3, 3, 2})), "cannot be broadcast", "[2] and [3]");
}

TEST_CASE("softmax along any dim — all -inf rows are NaN as in PyTorch") {
  const Tensor x = Tensor::from_vector({2, 3}, {1, 2, 3, -INFINITY, -INFINITY, -INFINITY});
  const Tensor y = softmax(x, -1);
  const double e = std::exp(1.0), e2 = std::exp(2.0);
  const double total = 1 + e + e2;
  CHECK_THAT(y.at({0, 0}), Catch::Matchers::WithinRel(1 / total, 1e-6));
  CHECK_THAT(y.at({0, 2}), Catch::Matchers::WithinRel(e2 / total, 1e-6));
  CHECK(std::isnan(y.at({1, 1})));
  const Tensor z = softmax(arange({2, 3}), 0);
  for (std::size_t j = 0; j < 3; ++j) CHECK_THAT(z.at({0, j}) + z.at({1, j}), Catch::Matchers::WithinAbs(1.0, 1e-6));
  REQUIRE_ERROR_MENTIONS(softmax(x, 2), "Dimension out of range", "[-2, 1]", "got 2");
}

TEST_CASE("masked_fill broadcasts the mask — tril and triu build causal masks") {
  const Tensor causal = tril(ones({4, 4}));
  CHECK(causal.to_vector() == std::vector<float>{1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1});
  const Tensor upper = triu(ones({3, 3}), 1);
  CHECK(upper.to_vector() == std::vector<float>{0, 1, 1, 0, 0, 1, 0, 0, 0});
  const Tensor scores = arange({2, 1, 3, 3});
  const Tensor filled = masked_fill(scores, eq(tril(ones({3, 3})), 0.0f), -1e9f);
  CHECK(filled.at({1, 0, 0, 1}) == -1e9f);
  CHECK(filled.at({1, 0, 2, 1}) == scores.at({1, 0, 2, 1}));
  REQUIRE_ERROR_MENTIONS(masked_fill(scores, ones({4, 4}), 0.0f), "[4, 4]", "[2, 1, 3, 3]");
}

TEST_CASE("elementwise ops broadcast — cat joins along a dimension") {
  const Tensor a = arange({2, 3});
  const Tensor b = arange({3}, 10.0f);
  CHECK(add(a, b).to_vector() == std::vector<float>{10, 12, 14, 13, 15, 17});
  CHECK(sum(abs(sub(a, a))) == 0.0f);
  CHECK(mean(a) == 2.5f);
  CHECK(max(a) == 5.0f);
  const Tensor c = cat({a, arange({2, 1}, 100.0f)}, -1);
  CHECK(c.shape() == Shape{2, 4});
  CHECK(c.to_vector() == std::vector<float>{0, 1, 2, 100, 3, 4, 5, 101});
  REQUIRE_ERROR_MENTIONS(add(arange({2, 3}), arange({4})), "[2, 3]", "[4]", "cannot be broadcast");
}

TEST_CASE("absurd sizes are refused before allocating") {
  REQUIRE_ERROR_MENTIONS(check_shape({0, 3}, "x"), "between 1 and");
  REQUIRE_ERROR_MENTIONS(check_shape({1u << 20, 1u << 20}, "x"), "memory cap");
  REQUIRE_ERROR_MENTIONS(arange({2, 3}).at({2, 0}), "out of bounds");
}

TEST_CASE("shapes are stored inline: the vector operations the core uses, and at most 8 dimensions") {
  Shape s{2, 3};
  s.insert(s.begin(), 1);
  s.insert(s.end(), {4, 5});
  CHECK(s == Shape{1, 2, 3, 4, 5});
  s.erase(s.begin() + 2);
  CHECK(s == Shape{1, 2, 4, 5});
  CHECK(to_string(s) == "[1, 2, 4, 5]");
  CHECK(to_string(Sizes{2, -1, 8}) == "[2, -1, 8]");
  CHECK(Shape(std::vector<std::size_t>{7, 9}) == Shape{7, 9});
  CHECK(Shape(3, 1) == Shape{1, 1, 1});
  Shape grown{1, 2, 3};
  grown.insert(grown.begin(), grown.back());  // an element of itself, as std::vector allows
  CHECK(grown == Shape{3, 1, 2, 3});
  grown.resize(6, 7);
  CHECK(grown == Shape{3, 1, 2, 3, 7, 7});
  grown.resize(2);
  CHECK(grown == Shape{3, 1});

  const Tensor x8 = arange({1, 1, 1, 1, 1, 1, 2, 3});
  CHECK(x8.transpose(0, 7).shape() == Shape{3, 1, 1, 1, 1, 1, 2, 1});
  REQUIRE_ERROR_MENTIONS(x8.unsqueeze(0), "at most 8 dimensions; this operation needs 9");
  REQUIRE_ERROR_MENTIONS(x8.view({1, 1, 1, 1, 1, 1, 1, 2, 3}), "at most 8 dimensions");
  Shape full(8, 2);
  REQUIRE_ERROR_MENTIONS(full.push_back(2), "at most 8 dimensions");
  CHECK(full.size() == 8);  // unchanged after the refused push
}
