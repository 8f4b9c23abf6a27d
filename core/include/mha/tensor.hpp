// N-d float32 tensors with PyTorch's shape semantics.
//
// A Tensor is a strided view (shape, strides, offset) onto shared storage held in an xtensor
// container. view/transpose/expand never copy; contiguous() copies only when needed. Shapes
// and strides are in elements, as torch.Tensor.stride() reports them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "mha/error.hpp"

namespace mha {

// Most dimensions a tensor may have (the JS API's limit as well).
constexpr std::size_t kMaxDims = 8;

// A sequence of at most kMaxDims numbers stored inline: shapes, strides and view sizes are
// copied in every view and result, and a std::vector there cost a heap allocation each time
// (about a fifth of a small forward in wasm). The std::vector subset the core uses; growing past
// kMaxDims throws mha::Error.
template <class T>
class Dims {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using iterator = T*;
  using const_iterator = const T*;

  Dims() = default;
  explicit Dims(size_type n, const T& value = T()) { resize(n, value); }
  Dims(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  template <class It, class = std::enable_if_t<!std::is_integral<It>::value>>
  Dims(It first, It last) {
    assign(first, last);
  }
  Dims(const std::vector<T>& values) {
    assign(values.begin(), values.end());
  }  // implicit: a std::vector still works as a Shape

  size_type size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  T& operator[](size_type i) { return data_[i]; }
  const T& operator[](size_type i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& value) {
    grow(1);
    data_[size_++] = value;
  }
  void resize(size_type n, const T& value = T()) {
    if (n > kMaxDims) too_many(n);
    for (size_type i = size_; i < n; ++i) data_[i] = value;
    size_ = static_cast<std::uint32_t>(n);
  }
  iterator insert(const_iterator pos, T value) { return insert(pos, &value, &value + 1); }  // by value: may alias
  iterator insert(const_iterator pos, std::initializer_list<T> values) {
    return insert(pos, values.begin(), values.end());
  }
  iterator erase(const_iterator pos) {
    T* at = data_ + (pos - data_);
    std::copy(at + 1, end(), at);
    --size_;
    return at;
  }

  friend bool operator==(const Dims& a, const Dims& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend bool operator!=(const Dims& a, const Dims& b) { return !(a == b); }

 private:
  template <class It>
  void assign(It first, It last) {
    for (; first != last; ++first) push_back(static_cast<T>(*first));
  }
  iterator insert(const_iterator pos, const T* first, const T* last) {
    const size_type at = static_cast<size_type>(pos - data_), n = static_cast<size_type>(last - first);
    grow(n);
    std::copy_backward(data_ + at, end(), end() + n);
    std::copy(first, last, data_ + at);
    size_ += static_cast<std::uint32_t>(n);
    return data_ + at;
  }
  void grow(size_type n) const {
    if (size_ + n > kMaxDims) too_many(size_ + n);
  }
  [[noreturn]] static void too_many(size_type n) {
    throw Error("a tensor can have at most " + std::to_string(kMaxDims) + " dimensions; this operation needs " +
                std::to_string(n));
  }

  T data_[kMaxDims] = {};
  std::uint32_t size_ = 0;
};

using Shape = Dims<std::size_t>;
using Strides = Dims<std::ptrdiff_t>;
using Sizes = Dims<std::int64_t>;  // view/reshape arguments: sizes with at most one -1

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
  Layout view(const Sizes& sizes) const;
  Layout transpose(int dim0, int dim1) const;
};

// "[2, 10, 512]" (shapes), "[5120, 64, 512, 1]" (strides), "[2, -1, 4, 8]" (view sizes).
template <class T>
std::string to_string(const Dims<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

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
  Tensor view(const Sizes& sizes) const;
  // PyTorch's reshape: a view when possible, else a contiguous copy.
  Tensor reshape(const Sizes& sizes) const;
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
