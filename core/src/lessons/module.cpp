// Module's one list of named parameters (state_dict, load_state_dict, counting, gradients) and Linear, whose forward
// is the packed GEMM kernel (mha/module.hpp).
#include "mha/module.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace mha {

std::size_t Module::register_parameter(const std::string& name, const Shape& shape) {
  params_.push_back({name, Tensor(shape), Tensor(shape)});
  return params_.size() - 1;
}

void Module::adopt(const std::string& prefix, Module& child) {
  for (const Parameter& p : child.params_) params_.push_back({prefix + p.name, p.value, p.grad});
  children_.push_back(&child);
}

void Module::changed() {
  for (Module* child : children_) child->changed();
  parameters_changed();
}

const Parameter& Module::parameter(const std::string& name) const {
  for (const Parameter& p : params_)
    if (p.name == name) return p;
  std::string known;
  for (const Parameter& p : params_) known += (known.empty() ? "" : ", ") + p.name;
  throw Error("no parameter named '" + name + "'; this module has " + known);
}

std::size_t Module::parameter_count() const {
  std::size_t n = 0;
  for (const Parameter& p : params_) n += p.value.numel();
  return n;
}

void Module::zero_grad() {
  for (Parameter& p : params_) std::fill(p.grad.data(), p.grad.data() + p.grad.numel(), 0.0f);
}

std::vector<NamedTensor> Module::state_dict() const {
  std::vector<NamedTensor> out;
  out.reserve(params_.size());
  for (const Parameter& p : params_) out.push_back({p.name, p.value.clone()});
  return out;
}

void Module::load_state_dict(const std::vector<NamedTensor>& state) {
  std::map<std::string, const Tensor*> given;
  std::vector<std::string> duplicated, unexpected, missing, misshaped;
  std::set<std::string> expected;
  for (const Parameter& p : params_) expected.insert(p.name);
  for (const NamedTensor& t : state) {
    if (!given.emplace(t.name, &t.value).second) duplicated.push_back("'" + t.name + "'");
    else if (!expected.count(t.name)) unexpected.push_back("'" + t.name + "'");
  }
  for (const Parameter& p : params_) {
    const auto it = given.find(p.name);
    if (it == given.end()) {
      missing.push_back("'" + p.name + "'");
    } else if (it->second->shape() != p.value.shape()) {
      misshaped.push_back("'" + p.name + "' has shape " + to_string(it->second->shape()) + " but the module needs " +
                          to_string(p.value.shape()));
    }
  }
  if (!duplicated.empty() || !unexpected.empty() || !missing.empty() || !misshaped.empty()) {
    const auto list = [](const std::vector<std::string>& items) {
      std::string s;
      for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
      return s;
    };
    std::string message = "these weights do not fit this model:";
    if (!missing.empty()) message += " missing " + list(missing) + ";";
    if (!unexpected.empty()) message += " unexpected " + list(unexpected) + ";";
    if (!misshaped.empty()) message += " " + list(misshaped) + ";";
    if (!duplicated.empty()) message += " given twice " + list(duplicated) + ";";
    message.back() = '.';
    throw Error(message);
  }
  for (Parameter& p : params_) {
    const Tensor src = given.at(p.name)->contiguous();
    std::copy(src.data(), src.data() + src.numel(), p.value.data());
  }
  changed();
}

Linear::Linear(const Parameter& weight, const Parameter* bias) : weight_(weight.value), weight_grad_(weight.grad) {
  if (bias) {
    bias_ = bias->value;
    bias_grad_ = bias->grad;
  }
  repack();
}

void Linear::repack() { kernels::f32_pack_nt(out_features(), in_features(), weight_.data(), in_features(), packed_); }

Tensor Linear::operator()(const Tensor& x_in) const {
  const std::size_t in = in_features(), out = out_features();
  if (x_in.dim() == 0 || x_in.size(-1) != in) {
    throw Error("mat1 and mat2 shapes cannot be multiplied: the input has shape " + to_string(x_in.shape()) +
                " but this Linear layer expects its last dimension to be " + std::to_string(in));
  }
  const Tensor x = x_in.contiguous();
  Shape shape = x.shape();
  shape.back() = out;
  Tensor y = Tensor::empty(shape);
  kernels::f32_gemm_nt_packed(x.numel() / in, 1.0f, x.data(), in, packed_, bias_ ? bias_->data() : nullptr, y.data(),
                              out);
  return y;
}

Tensor Linear::out_rows(const Tensor& x_in, std::size_t r0, std::size_t n) const {
  const std::size_t in = in_features();
  if (x_in.dim() == 0 || x_in.size(-1) != in || r0 + n > out_features())
    throw Error("Linear::out_rows: shapes do not fit");
  const Tensor x = x_in.contiguous();
  Shape shape = x.shape();
  shape.back() = n;
  Tensor y = Tensor::empty(shape);
  kernels::f32_gemm_nt(x.numel() / in, n, in, 1.0f, x.data(), in, weight_.data() + r0 * in, in,
                       bias_ ? bias_->data() + r0 : nullptr, y.data(), n);
  return y;
}

Tensor Linear::in_cols(const Tensor& x_in, std::size_t c0, bool with_bias) const {
  const std::size_t in = in_features(), out = out_features();
  const std::size_t n = x_in.dim() == 0 ? 0 : x_in.size(-1);
  if (n == 0 || c0 + n > in) throw Error("Linear::in_cols: shapes do not fit");
  const Tensor x = x_in.contiguous();
  Shape shape = x.shape();
  shape.back() = out;
  Tensor y = Tensor::empty(shape);
  kernels::f32_gemm_nt(x.numel() / n, out, n, 1.0f, x.data(), n, weight_.data() + c0, in,
                       with_bias && bias_ ? bias_->data() : nullptr, y.data(), out);
  return y;
}

Tensor Linear::backward(const Tensor& x, const Tensor& dy) {
  const std::size_t in = in_features(), out = out_features(), rows = x.numel() / in;
  // dW[out, in] += dy[rows, out]ᵀ · x[rows, in]
  kernels::f32_gemm_tn(out, in, rows, dy.data(), out, x.data(), in, true, weight_grad_.data(), in);
  if (bias_grad_) {
    float* db = bias_grad_->data();
    std::vector<float> sum(out, 0.0f);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < out; ++j) sum[j] += dy.data()[r * out + j];
    for (std::size_t j = 0; j < out; ++j) db[j] += sum[j];
  }
  // dx[rows, in] = dy[rows, out] · W[out, in]
  Tensor dx = Tensor::empty(x.shape());
  kernels::f32_gemm_nn(rows, in, out, dy.data(), out, weight_.data(), in, dx.data(), in);
  return dx;
}

}  // namespace mha
