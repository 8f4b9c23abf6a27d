// The lessons' attention (mha/attention.hpp): scaled_dot_product_attention, split/merge_heads, the shape trace and
// MultiHeadAttention (forward, forward_heads for a worker's share of heads, backward, lesson 002's forward_loop).
// Every forward goes through attend(), which picks the kernels: Q·Kᵀ, mask, softmax and weights·V when the weights
// are returned (the page always asks for them), the streaming f32_attention_online when they are not. The page's
// forward and each layer of the lab's TinyAttentionModel run here; a real checkpoint's attention is
// core/src/blocks/attention.cpp.
#include "mha/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>

#include "mha/kernels.hpp"

namespace mha {
namespace {

// Score matrices above this many elements (4 MiB) per head use the streaming kernel when the
// weights are not returned.
constexpr std::size_t kStreamingThreshold = std::size_t{1} << 20;
// Heads up to this d_k stream whatever the sequence length (see attend()).
constexpr std::size_t kStreamingAlwaysMaxDk = 32;

std::string list_divisors(std::size_t n) {
  std::ostringstream out;
  bool first = true;
  for (std::size_t h = 1; h <= n; ++h) {
    if (n % h == 0) {
      out << (first ? "" : ", ") << h;
      first = false;
    }
  }
  return out.str();
}

// Offset (in elements) of the flat batch index `flat` in a tensor whose leading dims are `batch`.
std::ptrdiff_t batch_offset(const Tensor& t, std::size_t flat, const Shape& batch) {
  std::ptrdiff_t offset = 0;
  for (std::size_t d = batch.size(); d-- > 0;) {
    offset += static_cast<std::ptrdiff_t>(flat % batch[d]) * t.strides()[d];
    flat /= batch[d];
  }
  return offset;
}

// A tensor whose last dimension is unit-stride, so kernel rows can be addressed by a leading dim.
Tensor rows_unit_stride(const Tensor& t) {
  return t.strides().back() == 1 || t.shape().back() == 1 ? t : t.contiguous();
}

Shape with_matrix(Shape batch, std::size_t rows, std::size_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// Rows where no key survives: every key blocked, or every additive entry -inf.
std::size_t count_fully_masked_rows(const kernels::f32_score_mask& m, std::size_t Sq, std::size_t Skv) {
  if (!m.add && !m.blocked) return 0;  // a causal mask alone always leaves key 0 open
  std::size_t rows = 0;
  for (std::size_t i = 0; i < Sq; ++i) {
    bool any_open = false;
    for (std::size_t j = 0; j < Skv && !any_open; ++j) {
      const auto ii = static_cast<std::ptrdiff_t>(i), jj = static_cast<std::ptrdiff_t>(j);
      any_open = !m.blocks(ii, jj) && !(m.add && m.add[ii * m.add_ld + jj] == -std::numeric_limits<float>::infinity());
    }
    rows += any_open ? 0 : 1;
  }
  return rows;
}

// The per-slice masks in the form the kernels take, rebuilt only when the source slice changes
// (a [Sq, Skv] mask broadcast over B and H is converted once).
class SliceMasks {
 public:
  SliceMasks(const AttentionOptions& options, const Shape& batch, std::size_t Sq, std::size_t Skv)
      : options_(options), batch_(batch), Sq_(Sq), Skv_(Skv) {
    const Shape scores = with_matrix(batch, Sq, Skv);
    if (options.mask) {
      if (options.mask->dim() < 2 || !broadcasts_to(options.mask->shape(), scores)) {
        throw Error("the attention mask has shape " + to_string(options.mask->shape()) +
                    ", which does not broadcast to the scores' shape " + to_string(scores) + "; expected " +
                    to_string(Shape{Sq, Skv}) + " or " + to_string(with_matrix(Shape(batch.size(), 1), Sq, Skv)) +
                    " or " + to_string(scores) + " (or 1 in any batch or head position)");
      }
      mask_ = options.mask->expand(scores);
    }
    if (options.key_padding_mask) {
      const Tensor& kpm = *options.key_padding_mask;
      const std::size_t B = batch.empty() ? 1 : batch[0];
      if (kpm.dim() != 2 || kpm.size(0) != B || kpm.size(1) != Skv) {
        throw Error("key_padding_mask has shape " + to_string(kpm.shape()) +
                    "; expected [batch, key length] = " + to_string(Shape{B, Skv}));
      }
      Shape view_shape{kpm.size(0)};
      for (std::size_t d = 1; d < batch.size(); ++d) view_shape.push_back(1);
      view_shape.push_back(1);
      view_shape.push_back(Skv);
      Sizes sizes(view_shape.begin(), view_shape.end());
      if (batch.empty()) sizes.erase(sizes.begin());
      kpm_ = kpm.contiguous().view(sizes).expand(scores);
    }
  }

  bool any() const { return mask_ || kpm_ || options_.causal; }

  // Fully masked query rows of the mask last returned by for_slice, counted once per distinct mask.
  std::size_t fully_masked_rows() {
    if (count_stale_) fully_masked_ = count_fully_masked_rows(kernel_mask_, Sq_, Skv_);
    count_stale_ = false;
    return fully_masked_;
  }

  // The kernel mask for the flat batch index `slice`.
  const kernels::f32_score_mask& for_slice(std::size_t slice) {
    kernel_mask_ = kernels::f32_score_mask{};
    kernel_mask_.causal = options_.causal;
    kernel_mask_.fill = options_.fill;
    const std::ptrdiff_t mask_at = mask_ ? batch_offset(*mask_, slice, batch_) : -1;
    const std::ptrdiff_t kpm_at = kpm_ ? batch_offset(*kpm_, slice, batch_) : -1;
    const bool additive = mask_ && options_.mask_mode == MaskMode::Additive;
    if (additive) {
      if (mask_at != add_from_) {
        add_.resize(Sq_ * Skv_);
        const float* m = mask_->data() + mask_at;
        for (std::size_t i = 0; i < Sq_; ++i)
          for (std::size_t j = 0; j < Skv_; ++j)
            add_[i * Skv_ + j] = m[i * mask_->strides()[mask_->dim() - 2] + j * mask_->strides().back()];
        add_from_ = mask_at;
        count_stale_ = true;
      }
      kernel_mask_.add = add_.data();
      kernel_mask_.add_ld = static_cast<std::ptrdiff_t>(Skv_);
    }
    if ((mask_ && !additive) || kpm_) {
      if (mask_at != blocked_from_mask_ || kpm_at != blocked_from_kpm_ || blocked_.empty()) {
        blocked_.assign(Sq_ * Skv_, 0);
        if (mask_ && !additive) {
          const float* m = mask_->data() + mask_at;
          const std::ptrdiff_t rs = mask_->strides()[mask_->dim() - 2], cs = mask_->strides().back();
          for (std::size_t i = 0; i < Sq_; ++i) {
            for (std::size_t j = 0; j < Skv_; ++j) {
              const float value = m[static_cast<std::ptrdiff_t>(i) * rs + static_cast<std::ptrdiff_t>(j) * cs];
              bool blocked = false;
              switch (options_.mask_mode) {
                case MaskMode::Keep: blocked = value == 0.0f; break;   // masked_fill(mask == 0, fill)
                case MaskMode::Block: blocked = value == 1.0f; break;  // masked_fill(mask == 1, fill)
                case MaskMode::Bool: blocked = value != 0.0f; break;   // True blocks
                case MaskMode::Additive: break;
              }
              blocked_[i * Skv_ + j] = blocked;
            }
          }
        }
        if (kpm_) {
          const float* m = kpm_->data() + kpm_at;
          for (std::size_t i = 0; i < Sq_; ++i)
            for (std::size_t j = 0; j < Skv_; ++j)
              if (m[j] != 0.0f) blocked_[i * Skv_ + j] = 1;
        }
        blocked_from_mask_ = mask_at;
        blocked_from_kpm_ = kpm_at;
        count_stale_ = true;
      }
      kernel_mask_.blocked = blocked_.data();
      kernel_mask_.blocked_ld = static_cast<std::ptrdiff_t>(Skv_);
    }
    return kernel_mask_;
  }

 private:
  const AttentionOptions& options_;
  Shape batch_;
  std::size_t Sq_, Skv_;
  std::optional<Tensor> mask_, kpm_;
  std::vector<float> add_;
  std::vector<std::uint8_t> blocked_;
  std::ptrdiff_t add_from_ = -2, blocked_from_mask_ = -2, blocked_from_kpm_ = -2;
  kernels::f32_score_mask kernel_mask_;
  std::size_t fully_masked_ = 0;
  bool count_stale_ = true;
};

void check_dropout(double p) {
  if (!(p >= 0.0 && p < 1.0)) {
    std::ostringstream out;
    out << "dropout must be in [0, 1) (a probability of dropping each weight), got " << p;
    throw Error(out.str());
  }
}

}  // namespace

void check_heads(std::size_t d_model, std::size_t num_heads) {
  if (d_model == 0 || d_model > kMaxDModel) {
    throw Error("d_model must be between 1 and " + std::to_string(kMaxDModel) + ", got " + std::to_string(d_model));
  }
  if (num_heads == 0) throw Error("num_heads must be at least 1, got 0");
  if (num_heads > d_model || d_model % num_heads != 0) {
    throw Error("d_model (" + std::to_string(d_model) + ") must be divisible by num_heads (" +
                std::to_string(num_heads) + "); head counts that work: " + list_divisors(d_model));
  }
}

namespace {

// Where attend() writes the output of batch slice (b, h).
enum class OutputLayout {
  Contiguous,  // [..., Sq, dv], as scaled_dot_product_attention returns it
  HeadsLast,   // storage [B, Sq, H, dv] returned as its [B, H, Sq, dv] view: the heads are already
               // merged in memory, so MultiHeadAttention's transpose(1, 2).contiguous() copies nothing
};

// probs and noise, when given, receive the softmax output before dropout and dropout's noise
// (a training forward keeps them for backward); they force the weights to be formed.
AttentionResult attend(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in, const AttentionOptions& options,
                       double dropout, Generator* generator, OutputLayout layout, Tensor* probs = nullptr,
                       Tensor* noise = nullptr) {
  check_dropout(dropout);
  if (q_in.dim() < 2 || k_in.dim() < 2 || v_in.dim() < 2) {
    throw Error("attention needs q, k and v with at least 2 dimensions [..., seq, dim]; got " +
                to_string(q_in.shape()) + ", " + to_string(k_in.shape()) + " and " + to_string(v_in.shape()));
  }
  const std::size_t Sq = q_in.size(-2), dk = q_in.size(-1), Skv = k_in.size(-2), dv = v_in.size(-1);
  if (k_in.size(-1) != dk) {
    throw Error("q has shape " + to_string(q_in.shape()) + " and k has shape " + to_string(k_in.shape()) +
                ": their last dimensions (d_k) must match");
  }
  if (v_in.size(-2) != Skv) {
    throw Error("k has shape " + to_string(k_in.shape()) + " and v has shape " + to_string(v_in.shape()) +
                ": they must have the same number of keys (dimension -2)");
  }
  const Shape batch = broadcast_shapes(broadcast_shapes(Shape(q_in.shape().begin(), q_in.shape().end() - 2),
                                                        Shape(k_in.shape().begin(), k_in.shape().end() - 2)),
                                       Shape(v_in.shape().begin(), v_in.shape().end() - 2));
  for (std::size_t s : {Sq, dk, Skv, dv}) {
    if (s == 0)
      throw Error("attention inputs must not be empty; got q " + to_string(q_in.shape()) + ", k " +
                  to_string(k_in.shape()) + ", v " + to_string(v_in.shape()));
  }
  const bool use_dropout = dropout > 0.0 && generator != nullptr;
  const bool materialize = options.need_weights || use_dropout || probs != nullptr;
  const Shape out_shape = with_matrix(batch, Sq, dv);
  check_shape(out_shape, "the attention output");
  if (materialize) {
    try {
      check_shape(with_matrix(batch, Sq, Skv), "the attention weights");
    } catch (const Error& e) {
      throw Error(std::string(e.what()) +
                  " Pass needWeights: false to use the streaming path, which never forms this matrix.");
    }
  } else if (options.mask || options.key_padding_mask) {
    check_shape({Sq, Skv}, "the attention mask for one head");
  }
  const Tensor q = rows_unit_stride(q_in.expand(with_matrix(batch, Sq, dk)));
  const Tensor k = rows_unit_stride(k_in.expand(with_matrix(batch, Skv, dk)));
  const Tensor v = rows_unit_stride(v_in.expand(with_matrix(batch, Skv, dv)));
  const std::size_t slices = Layout::contiguous(batch).numel();
  AttentionResult result;
  const bool heads_last = layout == OutputLayout::HeadsLast && batch.size() == 2;
  // out(s) = where slice s's [Sq, dv] output starts; its rows are ldo apart.
  std::size_t ldo = dv;
  if (heads_last) {
    result.output = Tensor::empty({batch[0], Sq, batch[1], dv}).transpose(1, 2);
    ldo = batch[1] * dv;
  } else {
    result.output = Tensor::empty(out_shape);
  }
  const auto out = [&](std::size_t s) {
    return heads_last ? result.output.data() + (s / batch[1]) * Sq * ldo + (s % batch[1]) * dv
                      : result.output.data() + s * Sq * dv;
  };
  if (materialize) result.weights = Tensor::empty(with_matrix(batch, Sq, Skv));
  if (probs) *probs = use_dropout ? Tensor::empty(with_matrix(batch, Sq, Skv)) : result.weights;
  if (noise) *noise = use_dropout ? Tensor::empty(with_matrix(batch, Sq, Skv)) : Tensor();

  SliceMasks masks(options, batch, Sq, Skv);
  // Without weights to return: narrow heads (d_k <= 32) always stream, since the kernel measured up
  // to 20% faster than GEMM + softmax + GEMM there (d_k = 16). Wider heads go through one reused
  // scratch matrix while it is small: up to 5% faster at d_k = 64 inside the module (heads strided
  // in the projections' output), 13% at d_k = 128. Long sequences always stream: the matrix would
  // not fit in cache, or in memory.
  const bool stream = !materialize && (dk <= kStreamingAlwaysMaxDk || Sq * Skv > kStreamingThreshold);
  const std::unique_ptr<float[]> scratch(!materialize && !stream ? new float[Sq * Skv] : nullptr);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  const std::size_t ldq = static_cast<std::size_t>(q.strides()[q.dim() - 2]);
  const std::size_t ldk = static_cast<std::size_t>(k.strides()[k.dim() - 2]);
  const std::size_t ldv = static_cast<std::size_t>(v.strides()[v.dim() - 2]);
  for (std::size_t s = 0; s < slices; ++s) {
    const float* qs = q.data() + batch_offset(q, s, batch);
    const float* ks = k.data() + batch_offset(k, s, batch);
    const float* vs = v.data() + batch_offset(v, s, batch);
    float* os = out(s);
    const kernels::f32_score_mask& mask = masks.for_slice(s);
    if (masks.any()) result.fully_masked_rows += masks.fully_masked_rows();
    if (stream) {
      kernels::f32_attention_online(Sq, Skv, dk, dv, scale, qs, ldq, ks, ldk, vs, ldv, mask, os, ldo);
      continue;
    }
    // 1. scores = q kᵀ / sqrt(dk)            (Sq, Skv)
    float* w = materialize ? result.weights.data() + s * Sq * Skv : scratch.get();
    kernels::f32_gemm_nt(Sq, Skv, dk, scale, qs, ldq, ks, ldk, nullptr, w, Skv);
    // 2. masked_fill / additive mask / causal
    kernels::f32_score_mask_apply(mask, 0, Sq, Skv, w, Skv);
    // 3. softmax over keys
    kernels::f32_softmax(Sq, Skv, w, Skv);
    // 4. dropout on the weights, drawn in row-major order as PyTorch draws for the whole tensor
    if (use_dropout && noise) {
      float* ps = probs->data() + s * Sq * Skv;
      float* ns = noise->data() + s * Sq * Skv;
      std::copy(w, w + Sq * Skv, ps);
      dropout_noise(ns, Sq * Skv, dropout, *generator);
      for (std::size_t i = 0; i < Sq * Skv; ++i) w[i] = w[i] * ns[i];  // input * noise, as ATen
    } else if (use_dropout) {
      dropout_inplace(w, Sq * Skv, dropout, *generator);
    }
    // 5. output = weights · v                 (Sq, dv)
    kernels::f32_gemm_nn(Sq, dv, Skv, w, Skv, vs, ldv, os, ldo);
  }
  if (!options.need_weights && !probs) result.weights = Tensor();
  return result;
}

}  // namespace

AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const AttentionOptions& options, double dropout, Generator* generator) {
  return attend(q, k, v, options, dropout, generator, OutputLayout::Contiguous);
}

Tensor split_heads(const Tensor& t, std::size_t H) {
  if (t.dim() != 3)
    throw Error("split_heads expects a [batch, seq_len, d_model] tensor, got shape " + to_string(t.shape()));
  check_heads(t.size(2), H);
  const auto i64 = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  return t.view({i64(t.size(0)), i64(t.size(1)), i64(H), i64(t.size(2) / H)}).transpose(1, 2);
}

Tensor merge_heads(const Tensor& t) {
  if (t.dim() != 4)
    throw Error("merge_heads expects a [batch, heads, seq_len, d_k] tensor, got shape " + to_string(t.shape()));
  const auto i64 = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  return t.transpose(1, 2).contiguous().view({i64(t.size(0)), i64(t.size(2)), i64(t.size(1) * t.size(3))});
}

std::vector<TraceStep> shape_trace(std::size_t B, std::size_t S, std::size_t D, std::size_t H, std::size_t kv_len) {
  check_heads(D, H);
  check_shape({B, S, D}, "the input x");
  if (kv_len == 0) kv_len = S;
  const std::size_t dk = D / H;
  const auto i64 = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  std::vector<TraceStep> trace;
  const Layout x = Layout::contiguous({B, S, D});
  const Layout projected = x;  // Linear keeps [B, S, D] and writes a fresh contiguous tensor
  const Layout split = projected.view({i64(B), i64(S), i64(H), i64(dk)});
  const Layout heads = split.transpose(1, 2);
  const Layout attended = Layout::contiguous({B, H, S, dk});
  const Layout swapped = attended.transpose(1, 2);
  const Layout merged = Layout::contiguous(swapped.shape).view({i64(B), i64(S), i64(D)});
  const Layout output = merged;
  trace.push_back({"input", x});
  trace.push_back({"linear", projected});
  trace.push_back({"view", split});
  trace.push_back({"transpose", heads});
  trace.push_back({"attention", attended, {B, H, S, kv_len}});
  trace.push_back({"transpose", swapped});
  trace.push_back({"contiguous_view", merged});
  trace.push_back({"linear", output});
  return trace;
}

MultiHeadAttention::MultiHeadAttention(const MhaConfig& config, std::shared_ptr<Generator> generator)
    : config_(config), generator_(std::move(generator)) {
  check_heads(config.d_model, config.num_heads);
  check_dropout(config.dropout);
  if (!generator_) throw Error("MultiHeadAttention needs a generator to draw its weights");
  const std::size_t D = config.d_model;
  // Four nn.Linear(D, D), each drawn weight then bias, in the order the lesson's __init__ builds them.
  Linear* layers[] = {&W_q, &W_k, &W_v, &W_o};
  const char* names[] = {"W_q", "W_k", "W_v", "W_o"};
  for (std::size_t l = 0; l < 4; ++l) {
    const std::size_t w = register_parameter(std::string(names[l]) + ".weight", {D, D});
    const std::size_t b = config.bias ? register_parameter(std::string(names[l]) + ".bias", {D}) : 0;
    linear_init(param(w).value.data(), config.bias ? param(b).value.data() : nullptr, D, D, *generator_);
    *layers[l] = Linear(param(w), config.bias ? &param(b) : nullptr);
  }
  ablated_.assign(config.num_heads, false);
}

void MultiHeadAttention::parameters_changed() {
  for (Linear* layer : {&W_q, &W_k, &W_v, &W_o}) layer->repack();
}

void MultiHeadAttention::ablate(std::size_t head, bool on) {
  if (head >= config_.num_heads) {
    throw Error("head " + std::to_string(head) + " does not exist: this module has " +
                std::to_string(config_.num_heads) + " heads, numbered 0 to " + std::to_string(config_.num_heads - 1));
  }
  ablated_[head] = on;
}

void MultiHeadAttention::check_inputs(const Tensor& q, const Tensor& k, const Tensor& v) const {
  const std::size_t D = config_.d_model;
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"query", &q}, {"key", &k}, {"value", &v}}) {
    if (t->dim() != 3 || t->size(2) != D) {
      throw Error(std::string("the ") + name + " must have shape [batch, seq_len, d_model] with d_model = " +
                  std::to_string(D) + ", got " + to_string(t->shape()));
    }
  }
  if (k.shape() != v.shape()) {
    throw Error("key and value must have the same shape, got " + to_string(k.shape()) + " and " + to_string(v.shape()));
  }
  if (q.size(0) != k.size(0)) {
    throw Error("query and key must have the same batch size, got " + to_string(q.shape()) + " and " +
                to_string(k.shape()));
  }
}

ForwardResult MultiHeadAttention::forward(const Tensor& q, const Tensor& k, const Tensor& v,
                                          const AttentionOptions& options, MhaActivations* keep) const {
  check_inputs(q, k, v);
  const std::size_t B = q.size(0), D = config_.d_model, H = config_.num_heads, dk = d_k();
  const auto i64 = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  const Sizes split{i64(B), -1, i64(H), i64(dk)};
  // 1. Project: [B, S, D] (a self-attention input is projected from one contiguous copy)
  const Tensor qc = q.contiguous();
  const Tensor kc = &k == &q ? qc : k.contiguous();
  const Tensor vc = &v == &k ? kc : &v == &q ? qc : v.contiguous();
  const Tensor Qp = W_q(qc), Kp = W_k(kc), Vp = W_v(vc);
  // 2. Split: [B, S, D] → [B, S, H, d_k] → [B, H, S, d_k] (views, no copies); attention per head:
  //    weights [B, H, Sq, Skv], output [B, H, Sq, d_k]
  const double p = training_ ? config_.dropout : 0.0;
  AttentionResult attended =
      attend(Qp.view(split).transpose(1, 2), Kp.view(split).transpose(1, 2), Vp.view(split).transpose(1, 2), options, p,
             generator_.get(), OutputLayout::HeadsLast, keep ? &keep->probs : nullptr, keep ? &keep->noise : nullptr);
  // 3. Concatenate: [B, H, Sq, d_k] → [B, Sq, H, d_k] → [B, Sq, D] (attend() already wrote the heads
  //    in [B, Sq, H, d_k] order, so contiguous() is free here)
  Tensor merged = attended.output.transpose(1, 2).contiguous().view({i64(B), -1, i64(D)});
  const std::size_t rows = merged.numel() / D;
  for (std::size_t h = 0; h < H; ++h) {
    if (!ablated_[h]) continue;
    for (std::size_t r = 0; r < rows; ++r) std::fill_n(merged.data() + r * D + h * dk, dk, 0.0f);
  }
  // 4. Final projection
  ForwardResult result;
  result.output = W_o(merged);
  result.weights = options.need_weights ? std::move(attended.weights) : Tensor();
  result.fully_masked_rows = attended.fully_masked_rows;
  if (keep) {
    keep->query = qc;
    keep->key = kc;
    keep->value = vc;
    keep->Q = Qp;
    keep->K = Kp;
    keep->V = Vp;
    keep->merged = merged;
    keep->options = options;
  }
  return result;
}

ForwardResult MultiHeadAttention::forward_heads(const Tensor& q, const Tensor& k, const Tensor& v,
                                                const AttentionOptions& options, std::size_t h0, std::size_t h1) const {
  const std::size_t H = config_.num_heads;
  if (!(h0 < h1 && h1 <= H)) {
    throw Error("heads must be a range [start, end) with 0 <= start < end <= num_heads (" + std::to_string(H) +
                "); got [" + std::to_string(h0) + ", " + std::to_string(h1) + ")");
  }
  if (h0 == 0 && h1 == H) return forward(q, k, v, options);
  if (training_ && config_.dropout > 0) {
    throw Error(
        "a forward of some heads only runs without dropout (eval(), or dropout 0): dropout draws its masks for all heads in order");
  }
  check_inputs(q, k, v);
  const std::size_t B = q.size(0), dk = d_k(), nh = h1 - h0, c0 = h0 * dk, cols = nh * dk;
  const auto i64 = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  const Sizes split{i64(B), -1, i64(nh), i64(dk)};
  const Tensor qc = q.contiguous();
  const Tensor kc = &k == &q ? qc : k.contiguous();
  const Tensor vc = &v == &k ? kc : &v == &q ? qc : v.contiguous();
  const Tensor Qp = W_q.out_rows(qc, c0, cols), Kp = W_k.out_rows(kc, c0, cols), Vp = W_v.out_rows(vc, c0, cols);
  // A mask with one entry per head ([..., H, Sq, Skv]): the part's heads, copied.
  AttentionOptions part = options;
  if (options.mask && options.mask->dim() >= 3 && options.mask->size(-3) == H && H > 1) {
    const Tensor m = options.mask->contiguous();
    Shape shape = m.shape();
    const std::size_t plane = m.size(-1) * m.size(-2), outer = m.numel() / (H * plane);
    shape[shape.size() - 3] = nh;
    Tensor sliced = Tensor::empty(shape);
    for (std::size_t o = 0; o < outer; ++o)
      std::copy_n(m.data() + (o * H + h0) * plane, nh * plane, sliced.data() + o * nh * plane);
    part.mask = sliced;
  }
  AttentionResult attended = attend(Qp.view(split).transpose(1, 2), Kp.view(split).transpose(1, 2),
                                    Vp.view(split).transpose(1, 2), part, 0.0, nullptr, OutputLayout::HeadsLast);
  Tensor merged = attended.output.transpose(1, 2).contiguous().view({i64(B), -1, i64(cols)});
  const std::size_t rows = merged.numel() / cols;
  for (std::size_t h = h0; h < h1; ++h) {
    if (!ablated_[h]) continue;
    for (std::size_t r = 0; r < rows; ++r) std::fill_n(merged.data() + r * cols + (h - h0) * dk, dk, 0.0f);
  }
  ForwardResult result;
  result.output = W_o.in_cols(merged, c0, h0 == 0);
  result.weights = options.need_weights ? std::move(attended.weights) : Tensor();
  result.fully_masked_rows = attended.fully_masked_rows;
  return result;
}

MhaInputGrads MultiHeadAttention::backward(const MhaActivations& a, const Tensor& dout_in) {
  const std::size_t B = a.query.size(0), Sq = a.query.size(1), Skv = a.key.size(1), D = config_.d_model,
                    H = config_.num_heads;
  const std::size_t dk = d_k();
  if (a.probs.numel() == 0) throw Error("backward needs the activations of a training forward (forward with keep)");
  if (dout_in.shape() != Shape{B, Sq, D}) {
    throw Error("the output gradient has shape " + to_string(dout_in.shape()) + "; the forward's output had shape " +
                to_string(Shape{B, Sq, D}));
  }
  const Tensor dout = dout_in.contiguous();
  // 4. W_o: d_merged [B, Sq, D]; ablated heads passed nothing on, so they get no gradient.
  Tensor dmerged = W_o.backward(a.merged, dout);
  for (std::size_t h = 0; h < H; ++h) {
    if (!ablated_[h]) continue;
    for (std::size_t r = 0; r < B * Sq; ++r) std::fill_n(dmerged.data() + r * D + h * dk, dk, 0.0f);
  }
  // 2–3. Per (b, h): with A = probs·noise (dropout) the weights that multiplied V,
  //   dA = dO·Vᵀ, dV = Aᵀ·dO, dP = dA·noise, dS = softmax_backward(P, dP), zero where masked_fill
  //   wrote the fill, dS *= 1/sqrt(d_k), dQ = dS·K, dK = dSᵀ·Q.
  Tensor dQ = Tensor::empty({B, Sq, D}), dK = Tensor::empty({B, Skv, D}), dV = Tensor::empty({B, Skv, D});
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  SliceMasks masks(a.options, {B, H}, Sq, Skv);
  std::vector<float> dS(Sq * Skv), weights(a.noise.numel() ? Sq * Skv : 0);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t s = b * H + h;
      const float* P = a.probs.data() + s * Sq * Skv;
      const float* A = P;
      if (!weights.empty()) {
        const float* noise = a.noise.data() + s * Sq * Skv;
        for (std::size_t i = 0; i < Sq * Skv; ++i) weights[i] = P[i] * noise[i];
        A = weights.data();
      }
      const std::size_t q0 = b * Sq * D + h * dk, kv0 = b * Skv * D + h * dk;
      const float* dO = dmerged.data() + q0;
      kernels::f32_gemm_nt(Sq, Skv, dk, 1.0f, dO, D, a.V.data() + kv0, D, nullptr, dS.data(), Skv);
      kernels::f32_gemm_tn(Skv, dk, Sq, A, Skv, dO, D, false, dV.data() + kv0, D);
      if (!weights.empty()) {
        const float* noise = a.noise.data() + s * Sq * Skv;
        for (std::size_t i = 0; i < Sq * Skv; ++i) dS[i] *= noise[i];
      }
      kernels::f32_softmax_backward(Sq, Skv, P, Skv, dS.data(), Skv, dS.data(), Skv);
      const kernels::f32_score_mask& mask = masks.for_slice(s);
      for (std::size_t i = 0; i < Sq; ++i)
        for (std::size_t j = 0; j < Skv; ++j) {
          float& g = dS[i * Skv + j];
          g = mask.blocks(static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(j)) ? 0.0f : g * scale;
        }
      kernels::f32_gemm_nn(Sq, dk, Skv, dS.data(), Skv, a.K.data() + kv0, D, dQ.data() + q0, D);
      kernels::f32_gemm_tn(Skv, dk, Sq, dS.data(), Skv, a.Q.data() + q0, D, false, dK.data() + kv0, D);
    }
  }
  // 1. The projections.
  MhaInputGrads grads;
  grads.dquery = W_q.backward(a.query, dQ);
  grads.dkey = W_k.backward(a.key, dK);
  grads.dvalue = W_v.backward(a.value, dV);
  return grads;
}

Tensor MultiHeadAttention::forward_loop(const Tensor& q, const Tensor& k, const Tensor& v,
                                        const AttentionOptions& options) const {
  check_inputs(q, k, v);
  const std::size_t B = q.size(0), Sq = q.size(1), Skv = k.size(1), H = config_.num_heads, dk = d_k();
  const auto i64 = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  // Split into heads without transposing, to make slicing intuitive: [B, S, H, d_k]
  const Tensor Qs = W_q(q).view({i64(B), i64(Sq), i64(H), i64(dk)});
  const Tensor Ks = W_k(k).view({i64(B), i64(Skv), i64(H), i64(dk)});
  const Tensor Vs = W_v(v).view({i64(B), i64(Skv), i64(H), i64(dk)});
  std::optional<Tensor> mask;
  if (options.mask) {
    if (!broadcasts_to(options.mask->shape(), {B, H, Sq, Skv})) {
      throw Error("the attention mask has shape " + to_string(options.mask->shape()) +
                  ", which does not broadcast to the scores' shape " + to_string(Shape{B, H, Sq, Skv}));
    }
    mask = options.mask->expand({B, H, Sq, Skv});
  }
  std::vector<Tensor> heads;
  for (std::size_t h = 0; h < H; ++h) {
    const Tensor qh = Qs.select(2, h), kh = Ks.select(2, h), vh = Vs.select(2, h);                    // [B, S, d_k]
    Tensor scores = mul(matmul(qh, kh.transpose(-2, -1)), 1.0f / std::sqrt(static_cast<float>(dk)));  // [B, Sq, Skv]
    if (mask) {
      const Tensor mh = mask->select(1, h);  // [B, Sq, Skv]
      switch (options.mask_mode) {
        case MaskMode::Keep: scores = masked_fill(scores, eq(mh, 0.0f), options.fill); break;
        case MaskMode::Block: scores = masked_fill(scores, eq(mh, 1.0f), options.fill); break;
        case MaskMode::Bool: scores = masked_fill(scores, sub(ones({1}), eq(mh, 0.0f)), options.fill); break;
        case MaskMode::Additive: scores = add(scores, mh); break;
      }
    }
    if (options.causal) scores = masked_fill(scores, triu(ones({Sq, Skv}), 1), options.fill);
    if (options.key_padding_mask) {
      scores = masked_fill(scores, sub(ones({1}), eq(options.key_padding_mask->unsqueeze(1), 0.0f)), options.fill);
    }
    heads.push_back(matmul(softmax(scores, -1), vh));  // [B, Sq, d_k]
  }
  return W_o(cat(heads, -1));  // [B, Sq, D]
}

}  // namespace mha
