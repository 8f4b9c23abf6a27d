#include "mha/train.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "mha/kernels.hpp"

// Keeps clang (the wasm builds) from vectorizing a loop; GCC never fuses the scalar updates here.
#if defined(__clang__)
#define MHA_NO_VECTORIZE _Pragma("clang loop vectorize(disable)")
#else
#define MHA_NO_VECTORIZE
#endif

namespace mha {
namespace {

constexpr std::size_t kMaxVocab = 512, kMaxSeqLen = 512, kMaxBatch = 1024, kMaxLayers = 4;
constexpr std::uint64_t kProbeSeed = 1234;  // the role-score probe batch has its own stream
constexpr std::size_t kProbeBatch = 16;
constexpr float kMaskFill = -1e9f;  // the lessons' masked_fill(mask == 0, -1e9)

std::string number(double x) {
  std::ostringstream out;
  out.precision(17);
  out << x;
  return out.str();
}

// A Python float literal that parses back to exactly x.
std::string py_float(double x) {
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

namespace {
// dst += src, both contiguous of the same shape.
void add_into(Tensor& dst, const Tensor& src) {
  float* d = dst.data();
  const float* x = src.data();
  for (std::size_t i = 0, n = dst.numel(); i < n; ++i) d[i] += x[i];
}
}  // namespace

// ---- Cross-entropy ---------------------------------------------------------------------------

CrossEntropyResult cross_entropy(const float* logits, std::size_t N, std::size_t C, const std::int64_t* targets,
                                 float* dlogits) {
  CrossEntropyResult r;
  for (std::size_t i = 0; i < N; ++i) {
    if (targets[i] == kIgnoreIndex) continue;
    if (targets[i] < 0 || static_cast<std::size_t>(targets[i]) >= C) {
      throw Error("target " + std::to_string(targets[i]) + " is out of bounds: targets must be class indices 0.." +
                  std::to_string(C - 1) + " or -100 (ignored)");
    }
    ++r.counted;
  }
  // log_softmax per row: x - max - log(Σ exp(x - max)); nll: mean of -logp[target] (summed in double).
  std::vector<float> e(C);  // exp(x - max) of the current row
  double total = 0.0;
  const float g = r.counted ? -1.0f / static_cast<float>(r.counted) : 0.0f;
  for (std::size_t i = 0; i < N; ++i) {
    const float* x = logits + i * C;
    float* d = dlogits ? dlogits + i * C : nullptr;
    if (targets[i] == kIgnoreIndex) {
      if (d) std::fill(d, d + C, 0.0f);
      continue;
    }
    const std::size_t t = static_cast<std::size_t>(targets[i]);
    float m = -std::numeric_limits<float>::infinity();
    std::size_t argmax = 0;
    for (std::size_t j = 0; j < C; ++j) {
      if (x[j] > m) {
        m = x[j];
        argmax = j;
      }
    }
    float sum = 0.0f;
    for (std::size_t j = 0; j < C; ++j) {
      e[j] = std::exp(x[j] - m);
      sum += e[j];
    }
    const float log_sum = std::log(sum);
    total -= x[t] - m - log_sum;
    if (argmax == t) ++r.correct;
    // log_softmax backward with the nll gradient g at the target (Σ grad = g): g·onehot - softmax·g,
    // softmax = exp(log_softmax) formed as exp(x - max) / Σ (one exp per element; equal to rounding).
    if (d) {
      const float inv = 1.0f / sum;
      for (std::size_t j = 0; j < C; ++j) d[j] = (j == t ? g : 0.0f) - (e[j] * inv) * g;
    }
  }
  r.loss = r.counted ? static_cast<float>(total / static_cast<double>(r.counted)) : std::numeric_limits<float>::quiet_NaN();
  return r;
}

// ---- Optimizers --------------------------------------------------------------------------------

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
  check(std::isfinite(o.weight_decay) && o.weight_decay >= 0.0, "Invalid weight_decay value: " + number(o.weight_decay));
  if (o.kind == OptimizerKind::SGD) {
    check(std::isfinite(o.momentum) && o.momentum >= 0.0, "Invalid momentum value: " + number(o.momentum));
    check(std::isfinite(o.dampening), "Invalid dampening value: " + number(o.dampening));
    check(!o.nesterov || (o.momentum > 0.0 && o.dampening == 0.0), "Nesterov momentum requires a momentum and zero dampening");
  } else {
    check(std::isfinite(o.eps) && o.eps >= 0.0, "Invalid epsilon value: " + number(o.eps));
    check(o.beta1 >= 0.0 && o.beta1 < 1.0, "Invalid beta parameter at index 0: " + number(o.beta1));
    check(o.beta2 >= 0.0 && o.beta2 < 1.0, "Invalid beta parameter at index 1: " + number(o.beta2));
  }
}

Optimizer::Optimizer(std::shared_ptr<Module> module, const OptimizerOptions& o) : module_(std::move(module)), options_(o) {
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
          if (adamw)
            p[i] = p[i] * decay;  // param.mul_(1 - lr * weight_decay)
          else
            g = g + wd * p[i];  // grad.add(param, alpha=weight_decay)
        }
        if (o.legacy_first_moment)
          m[i] = m[i] * b1 + w1 * g;  // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)   (PyTorch < 2.1)
        else
          m[i] = m[i] + w1 * (g - m[i]);  // exp_avg.lerp_(grad, 1 - beta1), |weight| < 0.5 branch
        v[i] = v[i] * b2 + w2 * g * g;    // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        const float denom = std::sqrt(v[i]) / bc2_sqrt + eps;  // (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
        p[i] = p[i] + step_size * m[i] / denom;                // param.addcdiv_(exp_avg, denom, value=-step_size)
      }
    }
  });
}

// ---- Tasks ---------------------------------------------------------------------------------------

const char* task_name(Task task) {
  switch (task) {
    case Task::TwoOffsets: return "two-offsets";
    case Task::FirstAndPrevious: return "first-and-previous";
    case Task::Reverse: return "reverse";
    case Task::Induction: return "induction";
  }
  return "?";
}

Task task_from_name(const std::string& name) {
  for (Task t : {Task::TwoOffsets, Task::FirstAndPrevious, Task::Reverse, Task::Induction})
    if (name == task_name(t)) return t;
  throw Error("unknown task '" + name + "'; the tasks are two-offsets, first-and-previous, reverse, induction");
}

std::size_t task_readouts(Task task) { return task == Task::TwoOffsets || task == Task::FirstAndPrevious ? 2 : 1; }

ModelConfig model_defaults(Task task) {
  ModelConfig c;
  c.task = task;
  if (task == Task::Reverse) {
    c.num_heads = 1;
    c.causal = false;
  }
  if (task == Task::Induction) {
    c.vocab = 16;
    c.seq_len = 16;
    c.d_model = 32;
    c.layers = 2;
  }
  return c;
}

namespace {

constexpr std::size_t kMinPeriod = 3, kMaxPeriod = 7;

void check_config(const ModelConfig& c) {
  const auto range = [](std::size_t v, std::size_t lo, std::size_t hi, const char* what) {
    if (v < lo || v > hi) {
      throw Error(std::string(what) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                  std::to_string(v));
    }
  };
  range(c.vocab, 2, kMaxVocab, "vocab");
  range(c.seq_len, 2, kMaxSeqLen, "seqLen");
  range(c.layers, 1, kMaxLayers, "layers");
  check_heads(c.d_model, c.num_heads);
  if (c.task == Task::Induction) {
    if (c.vocab < kMaxPeriod) throw Error("the induction task repeats up to 7 distinct tokens: vocab must be at least 7, got " + std::to_string(c.vocab));
    if (c.seq_len < 2 * kMaxPeriod) throw Error("the induction task needs seqLen of at least 14 (two periods of 7), got " + std::to_string(c.seq_len));
  }
  if (c.task == Task::Reverse && c.causal) {
    throw Error("the reverse task needs to see later tokens: turn the causal mask off (x[T-1-t] lies in the future for early t)");
  }
}

// torch.randint(low, high, (n,)) on CPU: low + random() % (high - low), one 32-bit draw each, in order.
std::int64_t randint(std::int64_t low, std::int64_t high, Generator& gen) {
  return low + static_cast<std::int64_t>(gen.random() % static_cast<std::uint32_t>(high - low));
}

// torch.randperm(n) on CPU (n small): Fisher–Yates from the front with random() % (n - i).
std::vector<std::int64_t> randperm(std::size_t n, Generator& gen) {
  std::vector<std::int64_t> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = static_cast<std::int64_t>(i);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::size_t z = gen.random() % static_cast<std::uint32_t>(n - i);
    std::swap(r[i], r[z + i]);
  }
  return r;
}

}  // namespace

Batch draw_batch(const ModelConfig& c, std::size_t B, Generator& gen) {
  if (B < 1 || B > kMaxBatch) throw Error("batchSize must be between 1 and " + std::to_string(kMaxBatch) + ", got " + std::to_string(B));
  const std::size_t T = c.seq_len;
  const auto V = static_cast<std::int64_t>(c.vocab);
  Batch batch;
  batch.batch = B;
  batch.seq_len = T;
  batch.tokens.resize(B * T);
  batch.targets.assign(task_readouts(c.task), std::vector<std::int64_t>(B * T, kIgnoreIndex));
  auto& x = batch.tokens;
  if (c.task == Task::Induction) {
    std::vector<std::int64_t> periods(B);
    for (auto& p : periods) p = randint(kMinPeriod, kMaxPeriod + 1, gen);  // torch.randint(3, 8, (B,))
    for (std::size_t b = 0; b < B; ++b) {
      const auto p = static_cast<std::size_t>(periods[b]);
      const std::vector<std::int64_t> perm = randperm(c.vocab, gen);  // motif = torch.randperm(V)[:p]
      for (std::size_t t = 0; t < T; ++t) x[b * T + t] = perm[t % p];
      for (std::size_t t = p - 1; t + 1 < T; ++t) batch.targets[0][b * T + t] = x[b * T + t + 1];
    }
    return batch;
  }
  for (auto& v : x) v = randint(0, V, gen);  // torch.randint(0, V, (B, T))
  for (std::size_t b = 0; b < B; ++b) {
    const std::int64_t* xb = x.data() + b * T;
    for (std::size_t t = 0; t < T; ++t) {
      const std::size_t at = b * T + t;
      switch (c.task) {
        case Task::TwoOffsets:
          if (t >= 1) batch.targets[0][at] = xb[t - 1];
          if (t >= 2) batch.targets[1][at] = xb[t - 2];
          break;
        case Task::FirstAndPrevious:
          batch.targets[0][at] = xb[0];
          if (t >= 1) batch.targets[1][at] = xb[t - 1];
          break;
        case Task::Reverse: batch.targets[0][at] = xb[T - 1 - t]; break;
        case Task::Induction: break;
      }
    }
  }
  return batch;
}

// ---- The model ---------------------------------------------------------------------------------

// One forward: the residual stream before each layer and after the last, each layer's activations.
struct TinyAttentionModel::Forward {
  std::vector<Tensor> h;  // layers + 1 tensors [B, T, D]
  std::vector<MhaActivations> acts;
  std::vector<Tensor> weights;  // per layer [B, H, T, T]
  std::vector<Tensor> logits;   // per readout [B, T, V]
};

TinyAttentionModel::TinyAttentionModel(const ModelConfig& config, std::shared_ptr<Generator> generator)
    : config_(config), generator_(std::move(generator)) {
  check_config(config_);
  if (!generator_) throw Error("TinyAttentionModel needs a generator to draw its weights and batches");
  seed_ = generator_->initial_seed();
  fresh_seed_ = generator_->fresh();
  const std::size_t V = config_.vocab, T = config_.seq_len, D = config_.d_model;
  // nn.Embedding(V, D) then nn.Embedding(T, D): normal_(0, 1), as torch.randn draws.
  tok_ = register_parameter("tok.weight", {V, D});
  normal_fill(param(tok_).value.data(), V * D, 0.0, 1.0, *generator_);
  pos_ = register_parameter("pos.weight", {T, D});
  normal_fill(param(pos_).value.data(), T * D, 0.0, 1.0, *generator_);
  for (std::size_t l = 0; l < config_.layers; ++l) {
    layers_.push_back(std::make_unique<MultiHeadAttention>(MhaConfig{D, config_.num_heads, true, 0.0}, generator_));
    adopt("layers." + std::to_string(l) + ".", *layers_.back());
  }
  for (std::size_t r = 0; r < task_readouts(config_.task); ++r) {
    const std::size_t w = register_parameter("readouts." + std::to_string(r) + ".weight", {V, D});
    const std::size_t b = register_parameter("readouts." + std::to_string(r) + ".bias", {V});
    linear_init(param(w).value.data(), param(b).value.data(), D, V, *generator_);
    readouts_.emplace_back(param(w), &param(b));
  }
  Generator probe(kProbeSeed);
  probe_ = draw_batch(config_, kProbeBatch, probe);
}

void TinyAttentionModel::parameters_changed() {
  for (Linear& r : readouts_) r.repack();
}

MultiHeadAttention& TinyAttentionModel::layer(std::size_t l) {
  if (l >= layers_.size()) {
    throw Error("layer " + std::to_string(l) + " does not exist: this model has " + std::to_string(layers_.size()) +
                " layer(s), numbered from 0");
  }
  return *layers_[l];
}

void TinyAttentionModel::ablate(std::size_t l, std::size_t head, bool on) { layer(l).ablate(head, on); }

void TinyAttentionModel::check_tokens(const std::vector<std::int64_t>& tokens, std::size_t B, std::size_t T) const {
  if (T < 1 || T > config_.seq_len) {
    throw Error("a sequence must have between 1 and " + std::to_string(config_.seq_len) + " tokens (the model's seqLen), got " +
                std::to_string(T));
  }
  if (tokens.size() != B * T) throw Error("expected " + std::to_string(B * T) + " tokens, got " + std::to_string(tokens.size()));
  for (std::int64_t v : tokens) {
    if (v < 0 || static_cast<std::size_t>(v) >= config_.vocab) {
      throw Error("token " + std::to_string(v) + " is not in the vocabulary: tokens are whole numbers from 0 to " +
                  std::to_string(config_.vocab - 1));
    }
  }
}

void TinyAttentionModel::run(const std::vector<std::int64_t>& x, std::size_t B, std::size_t T, Forward& f, bool keep) const {
  const std::size_t D = config_.d_model, V = config_.vocab;
  // h = tok(x) + pos(arange(T))
  Tensor h = Tensor::empty({B, T, D});
  const float* tok = parameters()[tok_].value.data();
  const float* pos = parameters()[pos_].value.data();
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t t = 0; t < T; ++t) {
      const float* e = tok + static_cast<std::size_t>(x[b * T + t]) * D;
      float* out = h.data() + (b * T + t) * D;
      for (std::size_t d = 0; d < D; ++d) out[d] = e[d] + pos[t * D + d];
    }
  AttentionOptions options;
  options.causal = config_.causal;
  options.fill = kMaskFill;
  f.h = {h};
  f.acts.assign(keep ? layers_.size() : 0, MhaActivations{});
  f.weights.clear();
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    // h = h + layer(h, h, h, mask)
    const ForwardResult r = layers_[l]->forward(h, h, h, options, keep ? &f.acts[l] : nullptr);
    h = h.clone();
    add_into(h, r.output);
    f.h.push_back(h);
    f.weights.push_back(r.weights);
  }
  f.logits.clear();
  for (const Linear& readout : readouts_) f.logits.push_back(readout(h).view({static_cast<std::int64_t>(B), static_cast<std::int64_t>(T), static_cast<std::int64_t>(V)}));
}

StepResult TinyAttentionModel::evaluate(const Batch& batch, bool backward) {
  const std::size_t B = batch.batch, T = batch.seq_len, D = config_.d_model, V = config_.vocab;
  if (T != config_.seq_len) throw Error("a training batch must have seqLen " + std::to_string(config_.seq_len) + " tokens per sequence");
  if (batch.targets.size() != readouts_.size()) throw Error("the batch has the wrong number of target rows for this task");
  check_tokens(batch.tokens, B, T);
  Forward f;
  run(batch.tokens, B, T, f, backward);
  StepResult result;
  std::size_t counted = 0, correct = 0;
  Tensor dh = backward ? Tensor({B, T, D}) : Tensor();
  for (std::size_t r = 0; r < readouts_.size(); ++r) {
    Tensor dlogits = backward ? Tensor::empty({B, T, V}) : Tensor();
    const CrossEntropyResult ce =
        cross_entropy(f.logits[r].data(), B * T, V, batch.targets[r].data(), backward ? dlogits.data() : nullptr);
    result.loss = r == 0 ? ce.loss : result.loss + ce.loss;  // sum(F.cross_entropy(...) for each readout)
    counted += ce.counted;
    correct += ce.correct;
    if (backward) add_into(dh, readouts_[r].backward(f.h.back(), dlogits));
  }
  result.accuracy = counted ? static_cast<double>(correct) / static_cast<double>(counted) : 0.0;
  if (!backward) return result;
  for (std::size_t l = layers_.size(); l-- > 0;) {
    // h_{l+1} = h_l + layer(h_l): dh_l = dh_{l+1} + dquery + dkey + dvalue
    const MhaInputGrads g = layers_[l]->backward(f.acts[l], dh);
    dh = dh.clone();
    add_into(dh, g.dquery);
    add_into(dh, g.dkey);
    add_into(dh, g.dvalue);
  }
  // Embedding backward: scatter-add into the rows that were gathered.
  float* dtok = param(tok_).grad.data();
  float* dpos = param(pos_).grad.data();
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t t = 0; t < T; ++t) {
      const float* g = dh.data() + (b * T + t) * D;
      float* row = dtok + static_cast<std::size_t>(batch.tokens[b * T + t]) * D;
      for (std::size_t d = 0; d < D; ++d) {
        row[d] += g[d];
        dpos[t * D + d] += g[d];
      }
    }
  return result;
}

StepResult TinyAttentionModel::train_step(Optimizer& optimizer, std::size_t batch_size) {
  if (&optimizer.module() != this) throw Error("this optimizer was made for another model");
  const Batch batch = draw_batch(config_, batch_size, *generator_);
  optimizer.zero_grad();
  const StepResult r = evaluate(batch, true);
  optimizer.step();
  return r;
}

namespace {
// Item 0 of each [1, ...] tensor, without the batch dimension.
std::vector<Tensor> first_items(const std::vector<Tensor>& batched) {
  std::vector<Tensor> out;
  for (const Tensor& t : batched) out.push_back(t.select(0, 0).clone());
  return out;
}
}  // namespace

std::vector<Tensor> TinyAttentionModel::predict(const std::vector<std::int64_t>& tokens) {
  check_tokens(tokens, 1, tokens.size());
  Forward f;
  run(tokens, 1, tokens.size(), f, false);
  return first_items(f.logits);
}

std::vector<Tensor> TinyAttentionModel::attention(const std::vector<std::int64_t>& tokens) {
  check_tokens(tokens, 1, tokens.size());
  Forward f;
  run(tokens, 1, tokens.size(), f, false);
  return first_items(f.weights);
}

std::vector<TraceStep> TinyAttentionModel::shape_trace(std::size_t T) const {
  if (T < 1 || T > config_.seq_len) {
    throw Error("a sequence for this model has 1 to " + std::to_string(config_.seq_len) + " tokens, got " + std::to_string(T));
  }
  const std::size_t D = config_.d_model;
  std::vector<TraceStep> trace{{"tokens", Layout::contiguous({1, T})}, {"embedding", Layout::contiguous({1, T, D})}};
  const std::vector<TraceStep> steps = mha::shape_trace(1, T, D, config_.num_heads);  // the same in every layer
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    for (std::size_t i = 1; i < steps.size(); ++i) {  // its input is the previous step's output
      trace.push_back(steps[i]);
      trace.back().layer = static_cast<int>(l);
    }
    trace.push_back({"residual", Layout::contiguous({1, T, D}), {}, static_cast<int>(l)});
  }
  for (std::size_t r = 0; r < readouts_.size(); ++r) trace.push_back({"readout", Layout::contiguous({1, T, config_.vocab})});
  return trace;
}

std::vector<RoleScore> TinyAttentionModel::role_scores() {
  const std::size_t B = probe_.batch, T = probe_.seq_len, H = config_.num_heads;
  Forward f;
  run(probe_.tokens, B, T, f, false);
  // A role's score: the mean, over the probe's queries it says something about, of the attention
  // mass it predicts.
  enum class Kind { Offset, First, Mirror, PrefixMatch };
  struct Role {
    const char* name;
    Kind kind;
    std::size_t offset;  // Offset: k tokens back
  };
  const Role back1{"1 token back", Kind::Offset, 1}, back2{"2 tokens back", Kind::Offset, 2};
  const Role first{"first token", Kind::First, 0}, mirror{"mirror", Kind::Mirror, 0};
  const Role induction{"induction", Kind::PrefixMatch, 0};
  const std::vector<Role> roles = config_.task == Task::TwoOffsets         ? std::vector<Role>{back1, back2}
                                  : config_.task == Task::FirstAndPrevious ? std::vector<Role>{first, back1}
                                  : config_.task == Task::Reverse          ? std::vector<Role>{mirror}
                                                                           : std::vector<Role>{back1, induction};
  // The mass on query t's keys for `role`; false when the role says nothing about t.
  const auto mass = [T](const Role& role, const float* row, const std::int64_t* x, std::size_t t, double& out) {
    switch (role.kind) {
      case Kind::Offset:
        if (t < role.offset) return false;
        out = row[t - role.offset];
        return true;
      case Kind::First:
        if (t == 0) return false;
        out = row[0];
        return true;
      case Kind::Mirror: out = row[T - 1 - t]; return true;
      case Kind::PrefixMatch: {
        // Olsson et al.: keys j whose previous token is the current one (what followed it before).
        bool any = false;
        out = 0.0;
        for (std::size_t j = 1; j <= t; ++j) {
          if (x[j - 1] == x[t] && j - 1 < t) {
            out += row[j];
            any = true;
          }
        }
        return any;
      }
    }
    return false;
  };
  std::vector<RoleScore> out;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    for (std::size_t h = 0; h < H; ++h) {
      RoleScore best{l, h, "", -1.0};
      for (const Role& role : roles) {
        double sum = 0.0;
        std::size_t n = 0;
        for (std::size_t b = 0; b < B; ++b) {
          const float* A = f.weights[l].data() + ((b * H + h) * T) * T;
          const std::int64_t* x = probe_.tokens.data() + b * T;
          for (std::size_t t = 0; t < T; ++t) {
            double m = 0.0;
            if (!mass(role, A + t * T, x, t, m)) continue;
            sum += m;
            ++n;
          }
        }
        const double score = n ? sum / static_cast<double>(n) : 0.0;
        if (score > best.score) best = {l, h, role.name, score};
      }
      out.push_back(best);
    }
  }
  return out;
}

std::string TinyAttentionModel::to_pytorch(const TrainingScript& s) const {
  if (!fresh_seed_) {
    throw Error("the PyTorch script starts from torch.manual_seed(seed): build the model right after seeding its generator "
                "(new Generator(seed) or generator.manualSeed(seed)), so that both draw the same weights");
  }
  if (s.steps < 1 || s.steps > 100000) throw Error("steps must be between 1 and 100000, got " + std::to_string(s.steps));
  if (s.batch_size < 1 || s.batch_size > kMaxBatch) {
    throw Error("batchSize must be between 1 and " + std::to_string(kMaxBatch) + ", got " + std::to_string(s.batch_size));
  }
  if (s.loss_digits < 1 || s.loss_digits > 9) throw Error("lossDigits must be between 1 and 9, got " + std::to_string(s.loss_digits));
  check_optimizer_options(s.optimizer);
  const ModelConfig& c = config_;
  const OptimizerOptions& o = s.optimizer;
  std::ostringstream py;
  py << "# MHA Explorer: the " << task_name(c.task) << " task, trained as the page trains it.\n"
     << "# Same seed, same batches, same optimizer: prints the page's loss and accuracy, one line per step.\n"
     << "import math\n\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
     << "class MultiHeadAttention(nn.Module):  # the lessons' module\n"
     << "    def __init__(self, d_model, num_heads):\n"
     << "        super().__init__()\n"
     << "        assert d_model % num_heads == 0, \"d_model must be divisible by num_heads\"\n"
     << "        self.d_model = d_model\n        self.num_heads = num_heads\n        self.d_k = d_model // num_heads\n"
     << "        self.W_q = nn.Linear(d_model, d_model)\n        self.W_k = nn.Linear(d_model, d_model)\n"
     << "        self.W_v = nn.Linear(d_model, d_model)\n        self.W_o = nn.Linear(d_model, d_model)\n\n"
     << "    def forward(self, q, k, v, mask=None):\n"
     << "        batch_size = q.size(0)\n"
     << "        Q = self.W_q(q).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)\n"
     << "        K = self.W_k(k).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)\n"
     << "        V = self.W_v(v).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)\n"
     << "        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)\n"
     << "        if mask is not None:\n            scores = scores.masked_fill(mask == 0, -1e9)\n"
     << "        attn_weights = torch.softmax(scores, dim=-1)\n"
     << "        attn_output = torch.matmul(attn_weights, V)\n"
     << "        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.d_model)\n"
     << "        return self.W_o(attn_output)\n\n\n"
     << "class TinyAttentionModel(nn.Module):\n"
     << "    def __init__(self, vocab, seq_len, d_model, num_heads, layers, readouts):\n"
     << "        super().__init__()\n"
     << "        self.tok = nn.Embedding(vocab, d_model)\n"
     << "        self.pos = nn.Embedding(seq_len, d_model)\n"
     << "        self.layers = nn.ModuleList([MultiHeadAttention(d_model, num_heads) for _ in range(layers)])\n"
     << "        self.readouts = nn.ModuleList([nn.Linear(d_model, vocab) for _ in range(readouts)])\n\n"
     << "    def forward(self, x, mask=None):\n"
     << "        h = self.tok(x) + self.pos(torch.arange(x.size(1)))\n"
     << "        for layer in self.layers:\n            h = h + layer(h, h, h, mask)  # residual\n"
     << "        return [readout(h) for readout in self.readouts]\n\n\n"
     << "V, T, D, H, LAYERS = " << c.vocab << ", " << c.seq_len << ", " << c.d_model << ", " << c.num_heads << ", " << c.layers << "\n"
     << "BATCH, STEPS = " << s.batch_size << ", " << s.steps << "\n\n\n";
  switch (c.task) {
    case Task::TwoOffsets:
      py << "def make_batch(B):\n    \"\"\"Two offsets: predict x[t-1] and x[t-2] (-100: no target, ignored).\"\"\"\n"
         << "    x = torch.randint(0, V, (B, T))\n"
         << "    prev1 = torch.full((B, T), -100)\n    prev1[:, 1:] = x[:, :-1]\n"
         << "    prev2 = torch.full((B, T), -100)\n    prev2[:, 2:] = x[:, :-2]\n"
         << "    return x, [prev1, prev2]\n";
      break;
    case Task::FirstAndPrevious:
      py << "def make_batch(B):\n    \"\"\"First and previous: predict x[0] and x[t-1] (-100: no target, ignored).\"\"\"\n"
         << "    x = torch.randint(0, V, (B, T))\n"
         << "    first = x[:, :1].repeat(1, T)\n"
         << "    prev1 = torch.full((B, T), -100)\n    prev1[:, 1:] = x[:, :-1]\n"
         << "    return x, [first, prev1]\n";
      break;
    case Task::Reverse:
      py << "def make_batch(B):\n    \"\"\"Reverse: predict x[T-1-t].\"\"\"\n"
         << "    x = torch.randint(0, V, (B, T))\n"
         << "    return x, [x.flip(1)]\n";
      break;
    case Task::Induction:
      py << "def make_batch(B):\n"
         << "    \"\"\"Induction: a random period of 3-7 distinct tokens repeated to length T; predict the next token\n"
         << "    wherever it has been seen before (-100 elsewhere, ignored).\"\"\"\n"
         << "    periods = torch.randint(3, 8, (B,))\n"
         << "    x = torch.empty(B, T, dtype=torch.long)\n"
         << "    following = torch.full((B, T), -100)\n"
         << "    for b in range(B):\n"
         << "        p = int(periods[b])\n"
         << "        motif = torch.randperm(V)[:p]\n"
         << "        x[b] = motif.repeat(T // p + 1)[:T]\n"
         << "        following[b, p - 1:T - 1] = x[b, p:]\n"
         << "    return x, [following]\n";
      break;
  }
  py << "\n\ntorch.manual_seed(" << seed_ << ")\n"
     << "model = TinyAttentionModel(V, T, D, H, LAYERS, readouts=" << readouts_.size() << ")\n";
  switch (o.kind) {
    case OptimizerKind::SGD:
      py << "optimizer = torch.optim.SGD(model.parameters(), lr=" << py_float(o.lr) << ", momentum=" << py_float(o.momentum)
         << ", dampening=" << py_float(o.dampening) << ", weight_decay=" << py_float(o.weight_decay)
         << ", nesterov=" << (o.nesterov ? "True" : "False") << ")\n";
      break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
      py << "optimizer = torch.optim." << optimizer_name(o.kind) << "(model.parameters(), lr=" << py_float(o.lr) << ", betas=("
         << py_float(o.beta1) << ", " << py_float(o.beta2) << "), eps=" << py_float(o.eps)
         << ", weight_decay=" << py_float(o.weight_decay) << ")\n";
      break;
  }
  py << "mask = " << (c.causal ? "torch.tril(torch.ones(T, T))  # causal: position t sees 0..t" : "None  # every position sees every other")
     << "\n\nfor step in range(1, STEPS + 1):\n"
     << "    x, targets = make_batch(BATCH)\n"
     << "    logits = model(x, mask)\n"
     << "    loss = sum(F.cross_entropy(l.reshape(-1, V), y.reshape(-1)) for l, y in zip(logits, targets))\n"
     << "    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()\n"
     << "    with torch.no_grad():  # accuracy: argmax (first maximum) = target, over targets that are not -100\n"
     << "        correct = sum(((l.argmax(-1) == y) & (y != -100)).sum().item() for l, y in zip(logits, targets))\n"
     << "        counted = sum((y != -100).sum().item() for y in targets)\n"
     << "    print(f\"step {step} loss {loss.item():." << s.loss_digits << "f} accuracy {correct / counted:.4f}\")\n";
  return py.str();
}

}  // namespace mha
