// torch.optim's SGD, Adam and AdamW, element by element as ATen rounds them (mha/train.hpp).
#include "mha/train.hpp"

#include <cmath>
#include <sstream>
#include <string>

// Keeps clang (the wasm builds) from vectorizing a loop; GCC never fuses the scalar updates here.
#if defined(__clang__)
#define MHA_NO_VECTORIZE _Pragma("clang loop vectorize(disable)")
#else
#define MHA_NO_VECTORIZE
#endif

namespace mha {
namespace {

std::string number(double x) {
  std::ostringstream out;
  out.precision(17);
  out << x;
  return out.str();
}

}  // namespace

OptimizerOptions optimizer_defaults(OptimizerKind kind, double lr) {
  OptimizerOptions o;
  o.kind = kind;
  o.lr = lr;
  if (kind == OptimizerKind::AdamW) o.weight_decay = 1e-2;
  return o;
}

const char* optimizer_name(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::SGD: return "SGD";
    case OptimizerKind::Adam: return "Adam";
    case OptimizerKind::AdamW: return "AdamW";
  }
  return "?";
}

void check_optimizer_options(const OptimizerOptions& o) {
  const auto check = [](bool ok, const std::string& message) {
    if (!ok) throw Error(message);
  };
  check(std::isfinite(o.lr) && o.lr >= 0.0, "Invalid learning rate: " + number(o.lr) + " (lr must be >= 0)");
  check(std::isfinite(o.weight_decay) && o.weight_decay >= 0.0,
        "Invalid weight_decay value: " + number(o.weight_decay));
  if (o.kind == OptimizerKind::SGD) {
    check(std::isfinite(o.momentum) && o.momentum >= 0.0, "Invalid momentum value: " + number(o.momentum));
    check(std::isfinite(o.dampening), "Invalid dampening value: " + number(o.dampening));
    check(!o.nesterov || (o.momentum > 0.0 && o.dampening == 0.0),
          "Nesterov momentum requires a momentum and zero dampening");
  } else {
    check(std::isfinite(o.eps) && o.eps >= 0.0, "Invalid epsilon value: " + number(o.eps));
    check(o.beta1 >= 0.0 && o.beta1 < 1.0, "Invalid beta parameter at index 0: " + number(o.beta1));
    check(o.beta2 >= 0.0 && o.beta2 < 1.0, "Invalid beta parameter at index 1: " + number(o.beta2));
  }
}

Optimizer::Optimizer(std::shared_ptr<Module> module, const OptimizerOptions& o)
    : module_(std::move(module)), options_(o) {
  if (!module_) throw Error("an optimizer needs a model");
  check_optimizer_options(o);
  for (const Parameter& p : module_->parameters()) {
    first_.emplace_back(p.value.numel(), 0.0f);
    second_.emplace_back(o.kind == OptimizerKind::SGD ? 0 : p.value.numel(), 0.0f);
  }
}

void Optimizer::step() {
  ++steps_;
  const OptimizerOptions& o = options_;
  const float lr = static_cast<float>(o.lr), wd = static_cast<float>(o.weight_decay);
  module_->update_parameters([&](std::vector<Parameter>& params) {
    for (std::size_t k = 0; k < params.size(); ++k) {
      float* p = params[k].value.data();
      const float* grad = params[k].grad.data();
      float* m = first_[k].data();
      const std::size_t n = params[k].value.numel();
      if (o.kind == OptimizerKind::SGD) {
        const float momentum = static_cast<float>(o.momentum), keep = static_cast<float>(1.0 - o.dampening);
        // Not vectorized: dist/mha-relaxed.js fuses f32x4 multiply-adds (wasm/relax.mjs), and these
        // updates must round as ATen's plain kernels do (an update is O(parameters), never the cost).
        MHA_NO_VECTORIZE
        for (std::size_t i = 0; i < n; ++i) {
          float g = grad[i];
          if (o.weight_decay != 0.0) g = g + wd * p[i];  // grad.add(param, alpha=weight_decay)
          if (o.momentum != 0.0) {
            m[i] = steps_ == 1 ? g : m[i] * momentum + keep * g;  // clone, then mul_(m).add_(g, alpha=1-d)
            g = o.nesterov ? g + momentum * m[i] : m[i];
          }
          p[i] = p[i] + (-lr) * g;  // param.add_(grad, alpha=-lr)
        }
        continue;
      }
      float* v = second_[k].data();
      const double t = static_cast<double>(steps_);
      const double bc1 = 1.0 - std::pow(o.beta1, t), bc2 = 1.0 - std::pow(o.beta2, t);
      const float step_size = static_cast<float>(-(o.lr / bc1));
      const float bc2_sqrt = static_cast<float>(std::sqrt(bc2));
      const float decay = static_cast<float>(1.0 - o.lr * o.weight_decay);
      const float w1 = static_cast<float>(1.0 - o.beta1), b1 = static_cast<float>(o.beta1);
      const float b2 = static_cast<float>(o.beta2), w2 = static_cast<float>(1.0 - o.beta2);
      const float eps = static_cast<float>(o.eps);
      const bool adamw = o.kind == OptimizerKind::AdamW;
      MHA_NO_VECTORIZE
      for (std::size_t i = 0; i < n; ++i) {
        float g = grad[i];
        if (o.weight_decay != 0.0) {
          if (adamw) p[i] = p[i] * decay;  // param.mul_(1 - lr * weight_decay)
          else g = g + wd * p[i];          // grad.add(param, alpha=weight_decay)
        }
        if (o.legacy_first_moment)
          m[i] = m[i] * b1 + w1 * g;         // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)   (PyTorch < 2.1)
        else m[i] = m[i] + w1 * (g - m[i]);  // exp_avg.lerp_(grad, 1 - beta1), |weight| < 0.5 branch
        v[i] = v[i] * b2 + w2 * g * g;       // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        const float denom = std::sqrt(v[i]) / bc2_sqrt + eps;  // (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
        p[i] = p[i] + step_size * m[i] / denom;                // param.addcdiv_(exp_avg, denom, value=-step_size)
      }
    }
  });
}

}  // namespace mha
