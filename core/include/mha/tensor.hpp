// N-d float32 tensors with PyTorch's shape semantics.
//
// A Tensor is a strided view (shape, strides, offset) onto shared storage held in an xtensor
// container. view/transpose/expand never copy; contiguous() copies only when needed. Shapes
// and strides are in elements, as torch.Tensor.stride() reports them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "mha/error.hpp"

namespace mha {

using Shape = std::vector<std::size_t>;
using Strides = std::vector<std::ptrdiff_t>;

// Largest tensor the core will allocate: 2^26 floats (256 MiB). WebAssembly has at most 2 GiB
// and a page runs several such buffers at once, so larger requests fail early with a message.
constexpr std::size_t kMaxElements = std::size_t{1} << 26;
// Largest single dimension, so that a typo like 1e12 is caught before any multiplication.
constexpr std::size_t kMaxDim = std::size_t{1} << 24;

// Shape and strides without data: enough to answer every question a lesson asks about layout.
struct Layout {
  Shape shape;
  Strides strides;

  std::size_t numel() const;
  bool is_contiguous() const;
  static Layout contiguous(const Shape& shape);
  // The layouts PyTorch's view/transpose would give. view throws PyTorch's message when the
  // strides cannot express the new shape; -1 in sizes is inferred.
  Layout view(const std::vector<std::int64_t>& sizes) const;
  Layout transpose(int dim0, int dim1) const;
};

std::string to_string(const Shape& shape);      // "[2, 10, 512]"
std::string to_string(const Strides& strides);  // "[5120, 64, 512, 1]"

class Tensor {
 public:
  Tensor();  // an empty 1-d tensor of zero elements
  explicit Tensor(const Shape& shape, float fill = 0.0f);
  // Like torch.empty: contiguous storage left uninitialized, for results whose every element is
  // written before it is read (kernel outputs, copies).
  static Tensor empty(const Shape& shape);
  static Tensor from_vector(const Shape& shape, std::vector<float> values);

  const Shape& shape() const { return layout_.shape; }
  const Strides& strides() const { return layout_.strides; }
  const Layout& layout() const { return layout_; }
  std::size_t dim() const { return layout_.shape.size(); }
  std::size_t numel() const { return layout_.numel(); }
  std::size_t size(int dim) const;  // negative dims count from the end
  bool is_contiguous() const { return layout_.is_contiguous(); }

  // Pointer to element [0, ..., 0]; for a contiguous tensor the row-major data.
  const float* data() const { return storage_->data() + offset_; }
  float* data() { return storage_->data() + offset_; }
  float at(const std::vector<std::size_t>& index) const;  // bounds-checked
  std::vector<float> to_vector() const;                   // row-major copy

  // PyTorch's view: no copy; throws when the strides cannot express the new shape.
  Tensor view(const std::vector<std::int64_t>& sizes) const;
  // PyTorch's reshape: a view when possible, else a contiguous copy.
  Tensor reshape(const std::vector<std::int64_t>& sizes) const;
  Tensor transpose(int dim0, int dim1) const;
  Tensor unsqueeze(int dim) const;
  // Broadcast to `shape` with stride 0 on expanded dimensions (torch.Tensor.expand).
  Tensor expand(const Shape& shape) const;
  Tensor contiguous() const;
  Tensor clone() const;  // always a fresh contiguous copy
  // Tensor[..., index, ...] along `dim`, as a view (the dimension is removed).
  Tensor select(int dim, std::size_t index) const;

 private:
  Tensor(std::shared_ptr<xt::xtensor<float, 1>> storage, std::size_t offset, Layout layout);
  std::shared_ptr<xt::xtensor<float, 1>> storage_;
  std::size_t offset_ = 0;
  Layout layout_;
};

// Shape of broadcasting a and b together, as torch.broadcast_shapes; throws naming both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// True when a tensor of shape `from` broadcasts to exactly `to` (torch.Tensor.expand rules).
bool broadcasts_to(const Shape& from, const Shape& to);
// Normalizes a possibly negative dim for a tensor of `ndim` dimensions; throws if out of range.
std::size_t normalize_dim(int dim, std::size_t ndim);
// Throws unless every size is in [1, kMaxDim] and the product is at most kMaxElements.
void check_shape(const Shape& shape, const char* what);

// Elementwise ops with PyTorch broadcasting.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, float s);
Tensor abs(const Tensor& a);
Tensor eq(const Tensor& a, float value);  // 1 where a == value, else 0
float sum(const Tensor& a);
float mean(const Tensor& a);
float max(const Tensor& a);  // NaN if any element is NaN, as torch.max
Tensor ones(const Shape& shape);

// torch.matmul: 1-d, 2-d and batched operands with broadcast batch dimensions.
Tensor matmul(const Tensor& a, const Tensor& b);
// torch.softmax(x, dim).
Tensor softmax(const Tensor& x, int dim);
// Tensor.masked_fill(mask, value): where mask != 0 (broadcast to x), the value replaces x.
Tensor masked_fill(const Tensor& x, const Tensor& mask, float value);
// torch.tril / torch.triu on the last two dimensions.
Tensor tril(const Tensor& x, std::int64_t diagonal = 0);
Tensor triu(const Tensor& x, std::int64_t diagonal = 0);
// torch.cat along dim.
Tensor cat(const std::vector<Tensor>& tensors, int dim);

}  // namespace mha
