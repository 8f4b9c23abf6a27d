// Parameters as PyTorch names them: every module keeps one ordered list of named parameters
// (state_dict() order and names), and counting, export, loading, gradients and optimizer state
// all come from that list. Values are written only through Module (load_state_dict,
// update_parameters), which then rebuilds whatever is derived from them (packed GEMM copies),
// so nothing derived is ever stale.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "mha/kernels.hpp"
#include "mha/safetensors.hpp"
#include "mha/tensor.hpp"

namespace mha {

// One entry of the list: its state_dict name, its value and its gradient (same shape; both
// contiguous and never reallocated, so layers hold views of them).
struct Parameter {
  std::string name;
  Tensor value;
  Tensor grad;
};

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;  // layers hold views of the list's storage
  Module& operator=(const Module&) = delete;
  virtual ~Module() = default;

  const std::vector<Parameter>& parameters() const { return params_; }
  const Parameter& parameter(const std::string& name) const;  // throws naming the known ones
  std::size_t parameter_count() const;
  // Gradients back to zero (they accumulate over backward calls until then, as in PyTorch).
  void zero_grad();
  // Copies of every value, in the list's order, named as PyTorch's state_dict().
  std::vector<NamedTensor> state_dict() const;
  // Strict load: every name present once with its shape, nothing else. On any mismatch nothing is
  // written and the message lists every missing, unexpected and mis-shaped entry.
  void load_state_dict(const std::vector<NamedTensor>& state);
  // Runs update(params) (an optimizer step writes values; it may read grads), then rebuilds what
  // is derived from the values.
  template <class F>
  void update_parameters(F&& update) {
    update(params_);
    changed();
  }

 protected:
  // Appends a zero-filled parameter; returns its index in the list (stable).
  std::size_t register_parameter(const std::string& name, const Shape& shape);
  // Appends a submodule's parameters named prefix + their name (the same storage), as PyTorch
  // names a child's entries ("layers.0." + "W_q.weight"); the child is refreshed with this module.
  void adopt(const std::string& prefix, Module& child);
  Parameter& param(std::size_t index) { return params_[index]; }
  // Rebuilds whatever is derived from the values (called after every write through Module).
  virtual void parameters_changed() {}

 private:
  void changed();
  std::vector<Parameter> params_;
  std::vector<Module*> children_;
};

// nn.Linear over parameters of a Module: y = x Wᵀ + b, weight [out, in], optional bias [out].
// Holds views of the values and gradients; the weight is also packed in the GEMM kernel's
// layout, rebuilt by repack() (the owning module calls it whenever values change).
class Linear {
 public:
  Linear() = default;
  Linear(const Parameter& weight, const Parameter* bias);
  const Tensor& weight() const { return weight_; }
  const std::optional<Tensor>& bias() const { return bias_; }
  std::size_t in_features() const { return weight_.size(1); }
  std::size_t out_features() const { return weight_.size(0); }
  Tensor operator()(const Tensor& x) const;  // x [..., in] → [..., out]
  // Output features [r0, r0 + n) only: x [..., in] → x · W[r0:r0+n, :]ᵀ + b[r0:r0+n], [..., n]. Each value is
  // the one operator() gives (the same dot product in the same order).
  Tensor out_rows(const Tensor& x, std::size_t r0, std::size_t n) const;
  // Input features [c0, c0 + n) only: x [..., n] → x · W[:, c0:c0+n]ᵀ (+ b when with_bias), [..., out]: one
  // term of operator()'s sum split by input features (MultiHeadAttention::forward_heads' share of W_o).
  Tensor in_cols(const Tensor& x, std::size_t c0, bool with_bias) const;
  // Backward of y = x Wᵀ + b for a contiguous x [..., in] and dy [..., out]:
  // dW += dyᵀ·x, db += Σ_rows dy (accumulated, as PyTorch accumulates .grad); returns dx = dy·W.
  Tensor backward(const Tensor& x, const Tensor& dy);
  void repack();

 private:
  Tensor weight_, weight_grad_;
  std::optional<Tensor> bias_, bias_grad_;
  kernels::f32_packed_nt packed_;
};

}  // namespace mha
