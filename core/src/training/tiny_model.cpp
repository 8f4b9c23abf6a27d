// The tiny attention model: embeddings, residual attention layers, readouts; its training step, views
// of its heads and their roles (mha/train.hpp). What each task asks is in tasks.cpp. (A real checkpoint's
// mha::Model is core/src/models/model.cpp.)
#include "mha/train.hpp"

#include <string>

namespace mha {

namespace {

constexpr std::uint64_t kProbeSeed = 1234;  // the role-score probe batch has its own stream
constexpr std::size_t kProbeBatch = 16;
constexpr float kMaskFill = -1e9f;  // the lessons' masked_fill(mask == 0, -1e9)

// dst += src, both contiguous of the same shape.
void add_into(Tensor& dst, const Tensor& src) {
  float* d = dst.data();
  const float* x = src.data();
  for (std::size_t i = 0, n = dst.numel(); i < n; ++i) d[i] += x[i];
}
}  // namespace

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
    throw Error("a sequence must have between 1 and " + std::to_string(config_.seq_len) +
                " tokens (the model's seqLen), got " + std::to_string(T));
  }
  if (tokens.size() != B * T)
    throw Error("expected " + std::to_string(B * T) + " tokens, got " + std::to_string(tokens.size()));
  for (std::int64_t v : tokens) {
    if (v < 0 || static_cast<std::size_t>(v) >= config_.vocab) {
      throw Error("token " + std::to_string(v) + " is not in the vocabulary: tokens are whole numbers from 0 to " +
                  std::to_string(config_.vocab - 1));
    }
  }
}

void TinyAttentionModel::run(const std::vector<std::int64_t>& x, std::size_t B, std::size_t T, Forward& f,
                             bool keep) const {
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
  for (const Linear& readout : readouts_)
    f.logits.push_back(
        readout(h).view({static_cast<std::int64_t>(B), static_cast<std::int64_t>(T), static_cast<std::int64_t>(V)}));
}

StepResult TinyAttentionModel::evaluate(const Batch& batch, bool backward) {
  const std::size_t B = batch.batch, T = batch.seq_len, D = config_.d_model, V = config_.vocab;
  if (T != config_.seq_len)
    throw Error("a training batch must have seqLen " + std::to_string(config_.seq_len) + " tokens per sequence");
  if (batch.targets.size() != readouts_.size())
    throw Error("the batch has the wrong number of target rows for this task");
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
    throw Error("a sequence for this model has 1 to " + std::to_string(config_.seq_len) + " tokens, got " +
                std::to_string(T));
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
  for (std::size_t r = 0; r < readouts_.size(); ++r)
    trace.push_back({"readout", Layout::contiguous({1, T, config_.vocab})});
  return trace;
}

std::vector<RoleScore> TinyAttentionModel::role_scores() {
  const std::size_t B = probe_.batch, T = probe_.seq_len, H = config_.num_heads;
  Forward f;
  run(probe_.tokens, B, T, f, false);
  // A role's score: the mean, over the probe's queries it says something about, of the attention
  // mass it predicts (the task's Role::mass).
  const TaskInfo& task = task_info(config_.task);
  std::vector<RoleScore> out;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    for (std::size_t h = 0; h < H; ++h) {
      RoleScore best{l, h, "", -1.0};
      for (const Role& role : task.roles) {
        if (!role.name) break;
        double sum = 0.0;
        std::size_t n = 0;
        for (std::size_t b = 0; b < B; ++b) {
          const float* A = f.weights[l].data() + ((b * H + h) * T) * T;
          const std::int64_t* x = probe_.tokens.data() + b * T;
          for (std::size_t t = 0; t < T; ++t) {
            double m = 0.0;
            if (!role.mass(A + t * T, x, t, T, m)) continue;
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

}  // namespace mha
