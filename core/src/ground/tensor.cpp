// Tensor (mha/tensor.hpp): Layout's view/transpose/broadcast rules with PyTorch's messages, storage on xtensor, and the
// elementwise ops, matmul (through the kernels' GEMM) and softmax the lessons' code calls.
#include "mha/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>

#include "mha/kernels.hpp"

namespace mha {
namespace {

Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  std::ptrdiff_t running = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = running;
    running *= static_cast<std::ptrdiff_t>(std::max<std::size_t>(shape[d], 1));
  }
  return strides;
}

// An xtensor expression over a tensor's strided view (no copy). The adaptor's size must be the
// shape's product (xtensor checks it), even for broadcast views whose strides are 0.
auto xview(const Tensor& t) {
  std::vector<std::size_t> shape(t.shape().begin(), t.shape().end());
  std::vector<std::ptrdiff_t> strides(t.strides().begin(), t.strides().end());
  return xt::adapt(const_cast<float*>(t.data()), t.numel(), xt::no_ownership(), shape, strides);
}

template <class Expression>
Tensor from_expression(const Shape& shape, Expression&& expression) {
  xt::xarray<float> evaluated = std::forward<Expression>(expression);
  return Tensor::from_vector(shape, std::vector<float>(evaluated.begin(), evaluated.end()));
}

}  // namespace

std::size_t Layout::numel() const {
  // Saturates instead of wrapping (size_t is 32 bits in wasm32), so a too-large shape can never
  // pass a size check by overflowing to a small number.
  std::size_t n = 1;
  for (std::size_t s : shape) {
    if (s == 0) return 0;
    n = n > std::numeric_limits<std::size_t>::max() / s ? std::numeric_limits<std::size_t>::max() : n * s;
  }
  return n;
}

bool Layout::is_contiguous() const {
  // PyTorch's rule: dimensions of size 1 may have any stride.
  std::ptrdiff_t expected = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return true;
    if (shape[d] != 1) {
      if (strides[d] != expected) return false;
      expected *= static_cast<std::ptrdiff_t>(shape[d]);
    }
  }
  return true;
}

Layout Layout::contiguous(const Shape& shape) { return Layout{shape, contiguous_strides(shape)}; }

std::size_t normalize_dim(int dim, std::size_t ndim) {
  const auto n = static_cast<int>(std::max<std::size_t>(ndim, 1));
  if (dim < -n || dim >= n) {
    throw Error("Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
  }
  return static_cast<std::size_t>(dim < 0 ? dim + n : dim);
}

void check_shape(const Shape& shape, const char* what) {
  std::size_t total = 1;
  for (std::size_t s : shape) {
    if (s == 0 || s > kMaxDim) {
      throw Error(std::string(what) + " has shape " + to_string(shape) + ": every size must be between 1 and " +
                  std::to_string(kMaxDim) + ".");
    }
    if (s > kMaxElements / total) {
      throw Error(std::string(what) + " of shape " + to_string(shape) + " would hold more than " +
                  std::to_string(kMaxElements) + " numbers (the memory cap of " +
                  std::to_string(kMaxElements * sizeof(float) >> 20) + " MiB per tensor).");
    }
    total *= s;
  }
}

Layout Layout::view(const Sizes& sizes) const {
  const std::size_t total = numel();
  // Infer a single -1 the way torch's infer_size does.
  Shape target(sizes.size());
  std::optional<std::size_t> inferred;
  std::size_t known = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (inferred) throw Error("only one dimension can be inferred");
      inferred = i;
    } else if (sizes[i] < 0) {
      throw Error("invalid shape dimension " + std::to_string(sizes[i]));
    } else {
      target[i] = static_cast<std::size_t>(sizes[i]);
      known *= target[i];
    }
  }
  auto invalid = [&] {
    return Error("shape '" + to_string(sizes) + "' is invalid for input of size " + std::to_string(total));
  };
  if (inferred) {
    if (known == 0 || total % known != 0) throw invalid();
    target[*inferred] = total / known;
  } else if (known != total) {
    throw invalid();
  }

  // PyTorch's computeStride: walk the old dimensions from the back, grouping those that are
  // contiguous with each other into chunks; each chunk must be split exactly by the new sizes.
  Strides new_strides(target.size(), 1);
  if (total == 0 || shape.empty()) return Layout{target, contiguous_strides(target)};
  std::ptrdiff_t view_d = static_cast<std::ptrdiff_t>(target.size()) - 1;
  std::ptrdiff_t chunk_base_stride = strides.back();
  std::size_t tensor_numel = 1;
  std::size_t view_numel = 1;
  for (std::ptrdiff_t tensor_d = static_cast<std::ptrdiff_t>(shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= shape[tensor_d];
    if (tensor_d == 0 || (shape[tensor_d - 1] != 1 &&
                          strides[tensor_d - 1] != static_cast<std::ptrdiff_t>(tensor_numel) * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || target[view_d] == 1)) {
        new_strides[view_d] = static_cast<std::ptrdiff_t>(view_numel) * chunk_base_stride;
        view_numel *= target[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) {
        throw Error(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead.");
      }
      if (tensor_d > 0) {
        chunk_base_stride = strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) {
    throw Error(
        "view size is not compatible with input tensor's size and stride (at least one dimension "
        "spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  return Layout{target, new_strides};
}

Layout Layout::transpose(int dim0, int dim1) const {
  const std::size_t a = normalize_dim(dim0, shape.size());
  const std::size_t b = normalize_dim(dim1, shape.size());
  Layout out = *this;
  if (shape.empty()) return out;
  std::swap(out.shape[a], out.shape[b]);
  std::swap(out.strides[a], out.strides[b]);
  return out;
}

Tensor::Tensor() : Tensor(Shape{0}) {}

Tensor::Tensor(const Shape& shape, float fill)
    : storage_(std::make_shared<xt::xtensor<float, 1>>(
          xt::xtensor<float, 1>::shape_type{Layout::contiguous(shape).numel()}, fill)),
      layout_(Layout::contiguous(shape)) {}

Tensor Tensor::empty(const Shape& shape) {
  Layout layout = Layout::contiguous(shape);
  // xtensor's storage (xt::uvector) leaves trivial types uninitialized unless given a value.
  auto storage = std::make_shared<xt::xtensor<float, 1>>(xt::xtensor<float, 1>::shape_type{layout.numel()});
  return Tensor(std::move(storage), 0, std::move(layout));
}

Tensor::Tensor(std::shared_ptr<xt::xtensor<float, 1>> storage, std::size_t offset, Layout layout)
    : storage_(std::move(storage)), offset_(offset), layout_(std::move(layout)) {}

Tensor Tensor::from_vector(const Shape& shape, std::vector<float> values) {
  Layout layout = Layout::contiguous(shape);
  if (values.size() != layout.numel()) {
    throw Error("a tensor of shape " + to_string(shape) + " needs " + std::to_string(layout.numel()) + " values, but " +
                std::to_string(values.size()) + " were given");
  }
  auto storage = std::make_shared<xt::xtensor<float, 1>>(xt::xtensor<float, 1>::shape_type{values.size()});
  std::copy(values.begin(), values.end(), storage->begin());
  return Tensor(std::move(storage), 0, std::move(layout));
}

std::size_t Tensor::size(int d) const { return shape()[normalize_dim(d, dim())]; }

float Tensor::at(const std::vector<std::size_t>& index) const {
  if (index.size() != dim())
    throw Error("index has " + std::to_string(index.size()) + " entries for a " + std::to_string(dim()) + "-d tensor");
  std::ptrdiff_t offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) {
    if (index[d] >= shape()[d]) {
      throw Error("index " + std::to_string(index[d]) + " is out of bounds for dimension " + std::to_string(d) +
                  " with size " + std::to_string(shape()[d]));
    }
    offset += static_cast<std::ptrdiff_t>(index[d]) * strides()[d];
  }
  return data()[offset];
}

std::vector<float> Tensor::to_vector() const {
  Tensor c = contiguous();
  return std::vector<float>(c.data(), c.data() + c.numel());
}

Tensor Tensor::view(const Sizes& sizes) const { return Tensor(storage_, offset_, layout_.view(sizes)); }

Tensor Tensor::reshape(const Sizes& sizes) const {
  try {
    return view(sizes);
  } catch (const Error&) {
    return contiguous().view(sizes);  // rethrows only for genuinely invalid sizes
  }
}

Tensor Tensor::transpose(int dim0, int dim1) const { return Tensor(storage_, offset_, layout_.transpose(dim0, dim1)); }

Tensor Tensor::unsqueeze(int d) const {
  const std::size_t at = normalize_dim(d, dim() + 1);
  Layout out = layout_;
  std::ptrdiff_t stride = at < dim() ? strides()[at] * static_cast<std::ptrdiff_t>(shape()[at]) : 1;
  out.shape.insert(out.shape.begin() + static_cast<std::ptrdiff_t>(at), 1);
  out.strides.insert(out.strides.begin() + static_cast<std::ptrdiff_t>(at), stride);
  return Tensor(storage_, offset_, out);
}

Tensor Tensor::expand(const Shape& target) const {
  if (target.size() < dim()) {
    throw Error("cannot expand a tensor of shape " + to_string(shape()) + " to the smaller shape " + to_string(target));
  }
  Layout out{target, Strides(target.size(), 0)};
  const std::size_t lead = target.size() - dim();
  for (std::size_t d = 0; d < dim(); ++d) {
    if (shape()[d] == target[lead + d]) {
      out.strides[lead + d] = strides()[d];
    } else if (shape()[d] != 1) {
      throw Error("the shape " + to_string(shape()) + " cannot be broadcast to " + to_string(target));
    }
  }
  return Tensor(storage_, offset_, out);
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = empty(shape());
  if (numel() == 0) return out;
  // Odometer over all dimensions but the last, which is copied as one strided row.
  const std::size_t rank = dim();
  if (rank == 0) {
    out.data()[0] = data()[0];
    return out;
  }
  const std::size_t row = shape().back();
  const std::ptrdiff_t step = strides().back();
  std::vector<std::size_t> index(rank, 0);
  float* dst = out.data();
  for (std::size_t written = 0; written < out.numel(); written += row) {
    std::ptrdiff_t offset = 0;
    for (std::size_t d = 0; d + 1 < rank; ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * strides()[d];
    const float* src = data() + offset;
    for (std::size_t j = 0; j < row; ++j) dst[written + j] = src[static_cast<std::ptrdiff_t>(j) * step];
    for (std::size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < shape()[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

Tensor Tensor::select(int d, std::size_t index) const {
  const std::size_t at = normalize_dim(d, dim());
  if (index >= shape()[at]) {
    throw Error("index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(at) +
                " with size " + std::to_string(shape()[at]));
  }
  Layout out = layout_;
  const std::size_t offset = offset_ + index * static_cast<std::size_t>(strides()[at]);
  out.shape.erase(out.shape.begin() + static_cast<std::ptrdiff_t>(at));
  out.strides.erase(out.strides.begin() + static_cast<std::ptrdiff_t>(at));
  return Tensor(storage_, offset, out);
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::size_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      throw Error("shapes " + to_string(a) + " and " + to_string(b) + " cannot be broadcast together (size " +
                  std::to_string(da) + " vs " + std::to_string(db) + " in dimension " +
                  std::to_string(static_cast<std::ptrdiff_t>(out.size() - 1 - i)) + ")");
    }
    out[out.size() - 1 - i] = std::max(da, db);
  }
  return out;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const std::size_t lead = to.size() - from.size();
  for (std::size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != to[lead + d]) return false;
  return true;
}

Tensor add(const Tensor& a, const Tensor& b) {
  return from_expression(broadcast_shapes(a.shape(), b.shape()), xview(a) + xview(b));
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return from_expression(broadcast_shapes(a.shape(), b.shape()), xview(a) - xview(b));
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return from_expression(broadcast_shapes(a.shape(), b.shape()), xview(a) * xview(b));
}
Tensor mul(const Tensor& a, float s) { return from_expression(a.shape(), xview(a) * s); }
Tensor abs(const Tensor& a) { return from_expression(a.shape(), xt::abs(xview(a))); }
Tensor eq(const Tensor& a, float value) {
  return from_expression(a.shape(), xt::cast<float>(xt::equal(xview(a), value)));
}

namespace {
// Accumulated in double: a teaching number should not depend on summation order.
double total(const Tensor& a) {
  double t = 0.0;
  for (float v : a.to_vector()) t += v;
  return t;
}
}  // namespace

float sum(const Tensor& a) { return static_cast<float>(total(a)); }

float mean(const Tensor& a) {
  if (a.numel() == 0) return std::numeric_limits<float>::quiet_NaN();
  return static_cast<float>(total(a) / static_cast<double>(a.numel()));
}

float max(const Tensor& a) {
  if (a.numel() == 0) throw Error("max() of an empty tensor has no value");
  float best = -std::numeric_limits<float>::infinity();
  for (float v : a.to_vector()) {
    if (std::isnan(v)) return v;
    best = std::max(best, v);
  }
  return best;
}

Tensor ones(const Shape& shape) { return Tensor(shape, 1.0f); }

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  if (a_in.dim() == 0 || b_in.dim() == 0) {
    throw Error("both arguments to matmul need to be at least 1D, but they are " + std::to_string(a_in.dim()) +
                "D and " + std::to_string(b_in.dim()) + "D");
  }
  // 1-d operands become a row (a) or a column (b), removed again from the result.
  const Tensor a = a_in.dim() == 1 ? a_in.unsqueeze(0) : a_in;
  const Tensor b = b_in.dim() == 1 ? b_in.unsqueeze(1) : b_in;
  const std::size_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  if (b.size(-2) != K) {
    throw Error("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(M) + "x" + std::to_string(K) + " and " +
                std::to_string(b.size(-2)) + "x" + std::to_string(N) + "): the inner sizes must match, shapes " +
                to_string(a_in.shape()) + " and " + to_string(b_in.shape()));
  }
  const Shape a_batch(a.shape().begin(), a.shape().end() - 2);
  const Shape b_batch(b.shape().begin(), b.shape().end() - 2);
  const Shape batch = broadcast_shapes(a_batch, b_batch);
  Shape out_shape = batch;
  out_shape.push_back(M);
  out_shape.push_back(N);
  check_shape(out_shape, "the result of matmul");

  Shape a_full = batch, b_full = batch;
  a_full.insert(a_full.end(), {M, K});
  b_full.insert(b_full.end(), {K, N});
  check_shape(a_full, "the broadcast first operand of matmul");
  check_shape(b_full, "the broadcast second operand of matmul");
  const Tensor a_c = a.expand(a_full).contiguous();
  const Tensor b_c = b.expand(b_full).contiguous();
  Tensor out(out_shape);
  const std::size_t batches = Layout::contiguous(batch).numel();
  for (std::size_t i = 0; i < batches; ++i) {
    kernels::f32_gemm_nn(M, N, K, a_c.data() + i * M * K, K, b_c.data() + i * K * N, N, out.data() + i * M * N, N);
  }
  if (a_in.dim() == 1 && b_in.dim() == 1) return out.view({});
  if (a_in.dim() == 1) return out.select(-2, 0).contiguous();
  if (b_in.dim() == 1) return out.select(-1, 0).contiguous();
  return out;
}

Tensor softmax(const Tensor& x, int dim) {
  const std::size_t d = normalize_dim(dim, x.dim());
  if (x.dim() == 0) return Tensor::from_vector({}, {1.0f});
  // Move `dim` last, run the row kernel, move it back.
  const int last = static_cast<int>(x.dim()) - 1;
  Tensor rows = x.transpose(static_cast<int>(d), last).clone();
  const std::size_t n = rows.size(-1);
  kernels::f32_softmax(rows.numel() / std::max<std::size_t>(n, 1), n, rows.data(), n);
  return rows.transpose(static_cast<int>(d), last).contiguous();
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, float value) {
  const Shape& shape = x.shape();
  if (!broadcasts_to(mask.shape(), shape)) {
    throw Error("masked_fill: a mask of shape " + to_string(mask.shape()) +
                " cannot be broadcast to the tensor's shape " + to_string(x.shape()));
  }
  return from_expression(shape, xt::where(xt::not_equal(xview(mask), 0.0f), value, xview(x)));
}

namespace {
Tensor triangle(const Tensor& x, std::int64_t diagonal, bool lower) {
  if (x.dim() < 2) throw Error(std::string(lower ? "tril" : "triu") + ": input tensor must have at least 2 dimensions");
  Tensor out = x.clone();
  const std::size_t rows = x.size(-2), cols = x.size(-1);
  const std::size_t matrices = out.numel() / std::max<std::size_t>(rows * cols, 1);
  for (std::size_t m = 0; m < matrices; ++m) {
    float* p = out.data() + m * rows * cols;
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j) {
        const auto offset = static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i);
        const bool keep = lower ? offset <= diagonal : offset >= diagonal;
        if (!keep) p[i * cols + j] = 0.0f;
      }
    }
  }
  return out;
}
}  // namespace

Tensor tril(const Tensor& x, std::int64_t diagonal) { return triangle(x, diagonal, true); }
Tensor triu(const Tensor& x, std::int64_t diagonal) { return triangle(x, diagonal, false); }

Tensor cat(const std::vector<Tensor>& tensors, int dim) {
  if (tensors.empty()) throw Error("cat expects a non-empty list of tensors");
  const std::size_t d = normalize_dim(dim, tensors[0].dim());
  Shape shape = tensors[0].shape();
  shape[d] = 0;
  for (const Tensor& t : tensors) {
    Shape other = t.shape();
    if (other.size() != shape.size()) throw Error("cat: tensors must have the same number of dimensions");
    for (std::size_t i = 0; i < other.size(); ++i) {
      if (i != d && other[i] != shape[i]) {
        throw Error("cat: sizes of tensors must match except in dimension " + std::to_string(d) + ", got " +
                    to_string(tensors[0].shape()) + " and " + to_string(other));
      }
    }
    shape[d] += other[d];
  }
  Tensor out(shape);
  const std::size_t outer =
      Layout::contiguous(Shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(d))).numel();
  const std::size_t inner =
      Layout::contiguous(Shape(shape.begin() + static_cast<std::ptrdiff_t>(d) + 1, shape.end())).numel();
  std::size_t written = 0;
  for (const Tensor& t : tensors) {
    const Tensor c = t.contiguous();
    const std::size_t block = t.shape()[d] * inner;
    for (std::size_t o = 0; o < outer; ++o) {
      std::copy(c.data() + o * block, c.data() + (o + 1) * block, out.data() + o * shape[d] * inner + written);
    }
    written += block;
  }
  return out;
}

}  // namespace mha
