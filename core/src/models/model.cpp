// mha::Model: a family's network bound to a checkpoint, the forward's checks and its output. (The lab's tiny
// model is core/src/training/tiny_model.cpp.)
#include <algorithm>
#include <array>
#include <cstring>

#include "mha/error.hpp"
#include "mha/models.hpp"
#include "models/network.hpp"

namespace mha {

namespace {

using BindFn = std::unique_ptr<models::Network> (*)(models::Binder&);
constexpr std::array<BindFn, 11> kBind{models::bind_gpt2,  models::bind_bert,      models::bind_distilbert,
                                       models::bind_llama, models::bind_gpt_neox,  models::bind_gpt_neo,
                                       models::bind_opt,   models::bind_phi,       models::bind_roberta,
                                       models::bind_gemma, models::bind_modernbert};
static_assert(kBind.size() == static_cast<std::size_t>(Family::COUNT), "a binding for every Family");

BindFn bind_of(Family family) { return kBind.at(static_cast<std::size_t>(family)); }

std::string ends_replaced(const std::string& name, const std::string& tail, const std::string& with) {
  if (name.size() < tail.size() || name.compare(name.size() - tail.size(), tail.size(), tail) != 0) return name;
  return name.substr(0, name.size() - tail.size()) + with;
}

void check_text(const CheckpointConfig& c, const std::vector<std::int32_t>& ids) {
  if (ids.empty()) throw Error("the model needs at least one token");
  if (ids.size() > c.max_positions)
    throw Error(std::to_string(ids.size()) + " tokens are more than this model's " + std::to_string(c.max_positions) +
                " positions (max_position_embeddings): shorten the text");
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || std::size_t(ids[t]) >= c.vocab)
      throw Error("token " + std::to_string(t) + " has id " + std::to_string(ids[t]) +
                  ", outside the vocabulary (ids 0 to " + std::to_string(c.vocab - 1) + ")");
}

void check_head(const CheckpointConfig& c, const HeadRef& r) {
  if (r.layer >= c.layers || r.head >= c.heads)
    throw Error("there is no head " + std::to_string(r.head) + " in layer " + std::to_string(r.layer) +
                ": this model has " + std::to_string(c.layers) + " layers of " + std::to_string(c.heads) +
                " heads, numbered from 0");
}

// Each layer's edits: heads off and replaced (checked: each head once, a value of T·head_dim floats).
std::vector<blocks::HeadEdits> edits_of(const CheckpointConfig& c, const std::vector<HeadRef>& off,
                                        const std::vector<HeadValue>& values, std::size_t T) {
  std::vector<blocks::HeadEdits> out(c.layers);
  for (blocks::HeadEdits& e : out) e.off.assign(c.heads, false), e.value.assign(c.heads, nullptr);
  for (const HeadRef& r : off) check_head(c, r), out[r.layer].off[r.head] = true;
  for (const HeadValue& v : values) {
    check_head(c, v.head);
    blocks::HeadEdits& e = out[v.head.layer];
    if (e.off[v.head.head] || e.value[v.head.head])
      throw Error("layer " + std::to_string(v.head.layer) + " head " + std::to_string(v.head.head) +
                  " is switched off or replaced twice");
    if (v.z.size() != T * c.head_dim)
      throw Error("a replaced head's output is " + std::to_string(T) + " × " + std::to_string(c.head_dim) +
                  " values, got " + std::to_string(v.z.size()));
    e.value[v.head.head] = v.z.data();
  }
  return out;
}

// The lowest layer whose heads are edited or read; layers when none is.
std::size_t first_layer_off(const std::vector<blocks::HeadEdits>& edits) {
  for (std::size_t l = 0; l < edits.size(); ++l)
    if (edits[l].any()) return l;
  return edits.size();
}

}  // namespace

// (Named, not anonymous: Model::Impl holds one, and under the unity build this file is an include.)
namespace model_detail {

// The full model's (no head off) hidden state entering each layer l, and leaving the last at
// l = L, for `ids`: states[l] [T, D] holds it for l < known.
struct ActivationCache {
  std::vector<std::int32_t> ids;
  std::vector<float> states;  // [L + 1, T, D]
  std::size_t known = 0, stride = 0;

  // Forgets what it holds unless it is for `ids`. Forgotten before the new memory is asked for: when
  // that throws (out of memory), the cache is empty and matches no ids (a forward has T >= 1).
  void use_for(const std::vector<std::int32_t>& for_ids, std::size_t L, std::size_t D) {
    if (ids == for_ids) return;
    ids.clear();
    known = 0;
    states = std::vector<float>();  // the old T's memory goes back first
    states.resize((L + 1) * for_ids.size() * D);
    ids = for_ids;
    stride = for_ids.size() * D;
  }
  // h[T, D] is the full model's state at l: kept when it is the next one unknown.
  void offer(std::size_t l, const float* h) {
    if (l != known) return;
    std::memcpy(states.data() + l * stride, h, stride * sizeof(float));
    ++known;
  }
  const float* at(std::size_t l) const { return states.data() + l * stride; }
};

}  // namespace model_detail

struct Model::Impl {
  CheckpointConfig config;
  std::shared_ptr<const Weights> weights;
  std::unique_ptr<models::Network> network;
  model_detail::ActivationCache cache;

  // h[T, D] = the state entering layer `stop` (stop = L: leaving the last, before the final norm) with heads `off`
  // switched off; probs(l) [H, T, T] receives layer l's softmax. Starts at the highest layer <= the first head off
  // whose input the cache holds when `resume`, else at the embeddings; offers the cache every state of the full
  // model it computes. Returns where it started.
  template <class Probs>
  std::size_t advance(const std::vector<std::int32_t>& ids, const std::vector<blocks::HeadEdits>& off, bool resume,
                      float* h, Probs probs, std::size_t stop) {
    const std::size_t T = ids.size(), first_off = first_layer_off(off);
    cache.use_for(ids, config.layers, config.d_model);
    const std::size_t start = resume && cache.known ? std::min({first_off, cache.known - 1, stop}) : 0;
    if (resume && cache.known) std::memcpy(h, cache.at(start), cache.stride * sizeof(float));
    else network->embed(ids, h);
    for (std::size_t l = start; l <= stop; ++l) {
      if (l <= first_off) cache.offer(l, h);
      if (l < stop) network->layer(l, h, T, off[l], probs(l));
    }
    return start;
  }
  // h[T, D] = last_hidden_state (advance to L, then the final norm).
  template <class Probs>
  std::size_t run(const std::vector<std::int32_t>& ids, const std::vector<blocks::HeadEdits>& off, bool resume,
                  float* h, Probs probs) {
    const std::size_t start = advance(ids, off, resume, h, probs, config.layers);
    network->finish(h, ids.size());
    return start;
  }
};

namespace {

// out[H, s, s] = each [T, T] map of probs[H, T, T] pooled (Pool's comment in mha/models.hpp).
void pool_maps(const float* probs, std::size_t H, std::size_t T, std::size_t s, Pool pool, float* out) {
  for (std::size_t h = 0; h < H; ++h) {
    const float* m = probs + h * T * T;
    for (std::size_t a = 0; a < s; ++a) {
      const std::size_t r0 = a * T / s, r1 = (a + 1) * T / s;
      for (std::size_t b = 0; b < s; ++b) {
        const std::size_t c0 = b * T / s, c1 = (b + 1) * T / s;
        double acc = 0.0;  // probabilities are >= 0
        for (std::size_t r = r0; r < r1; ++r)
          for (std::size_t c = c0; c < c1; ++c)
            acc = pool == Pool::Max ? std::max(acc, double(m[r * T + c])) : acc + m[r * T + c];
        if (pool == Pool::Mean) acc /= double((r1 - r0) * (c1 - c0));
        out[(h * s + a) * s + b] = float(acc);
      }
    }
  }
}

}  // namespace

const char* pool_name(Pool pool) { return pool == Pool::Max ? "max" : "mean"; }

bool model_reads_tensor(const CheckpointConfig& config, const std::string& name) {
  const std::string prefix = models::family_prefix(config.family).prefix;
  models::Binder names(config, nullptr, prefix);
  bind_of(config.family)(names);
  const std::string canonical = ends_replaced(ends_replaced(name, ".gamma", ".weight"), ".beta", ".bias");
  for (const std::string& n : names.names()) {
    if (n == canonical) return true;
    if (n.compare(0, prefix.size(), prefix) == 0 && n.compare(prefix.size(), std::string::npos, canonical) == 0)
      return true;
  }
  return false;
}

Model::Model(CheckpointConfig config, std::shared_ptr<const Weights> weights) : impl_(std::make_unique<Impl>()) {
  if (!weights) throw Error("a model needs its weights");
  const models::FamilyPrefix body = models::family_prefix(config.family);
  models::Binder binder(config, weights.get(), models::body_prefix(*weights, body.prefix, body.probe));
  impl_->network = bind_of(config.family)(binder);
  impl_->config = std::move(config);
  impl_->weights = std::move(weights);
}

Model::~Model() = default;

const CheckpointConfig& Model::config() const { return impl_->config; }

const models::Network& models_network(const Model& model) { return *model.impl_->network; }

bool Model::has_lm_head() const { return impl_->network->has_head(); }
void Model::check_ids(const std::vector<std::int32_t>& ids) const { check_text(impl_->config, ids); }

ModelOutput Model::forward(const std::vector<std::int32_t>& ids, const ModelForwardOptions& options) {
  const CheckpointConfig& c = impl_->config;
  check_text(c, ids);
  const std::size_t T = ids.size(), HD = c.heads * c.head_dim;
  std::vector<blocks::HeadEdits> off = edits_of(c, options.heads_off, options.head_values, T);
  ModelOutput out;
  std::vector<std::vector<float>> kept(c.layers);  // [T, H·hd] of the layers keep_z reads
  for (const HeadRef& r : options.keep_z) {
    check_head(c, r);
    if (kept[r.layer].empty()) kept[r.layer].resize(T * HD), off[r.layer].kept = kept[r.layer].data();
  }
  out.writes = options.writes ? Tensor::empty({c.layers, c.heads, T}) : Tensor(Shape{0});
  for (std::size_t l = 0; options.writes && l < c.layers; ++l) off[l].writes = out.writes.data() + l * c.heads * T;
  if (options.keep_kv) {
    out.keys.assign(c.layers, std::vector<float>(T * c.kv_heads * c.head_dim));
    out.values = out.keys;
    for (std::size_t l = 0; l < c.layers; ++l) off[l].keys = out.keys[l].data(), off[l].values = out.values[l].data();
  }
  out.logits_at = options.logits_at;
  if (out.logits_at.empty() && c.causal) out.logits_at = {T - 1};
  if (!out.logits_at.empty() && !has_lm_head())
    throw Error("this checkpoint has no language-model head (its file holds the encoder only): it gives no logits");
  for (std::size_t p : out.logits_at)
    if (p >= T) throw Error("logits asked at position " + std::to_string(p) + " of " + std::to_string(T) + " tokens");
  out.hidden = Tensor::empty({1, T, c.d_model});
  const std::size_t HTT = c.heads * T * T, s = std::min(options.thumbnail, T), Hss = c.heads * s * s;
  out.thumbnails = s ? Tensor::empty({c.layers, c.heads, s, s}) : Tensor(Shape{0});
  if (options.attentions) out.attentions = Tensor::empty({c.layers, 1, c.heads, T, T});
  std::vector<float> scratch(options.attentions ? 0 : HTT);  // one layer's softmax, overwritten by the next
  // Layer l's softmax goes to its place in attentions (or scratch); the previous layer's is pooled first.
  std::size_t pending = c.layers;
  const auto pool_pending = [&] {
    if (!s || pending == c.layers) return;
    const float* p = options.attentions ? out.attentions.data() + pending * HTT : scratch.data();
    pool_maps(p, c.heads, T, s, options.pool, out.thumbnails.data() + pending * Hss);
  };
  const auto probs = [&](std::size_t l) {
    pool_pending();
    pending = l;
    return options.attentions ? out.attentions.data() + l * HTT : scratch.data();
  };
  const bool resume = !options.attentions && !s;  // every layer's maps asked: from the embeddings
  out.first_layer = impl_->run(ids, off, resume, out.hidden.data(), probs);
  pool_pending();
  const std::size_t P = out.logits_at.size();
  out.logits = P ? Tensor::empty({P, c.vocab}) : Tensor(Shape{0, c.vocab});
  if (P) impl_->network->logits(out.hidden.data(), out.logits_at, out.logits.data(), true);
  out.trace = impl_->network->trace(T, P);
  for (const HeadRef& r : options.keep_z) {  // head r's columns of its layer's [T, H·hd]
    std::vector<float>& z = out.z.emplace_back(T * c.head_dim);
    for (std::size_t t = 0; t < T; ++t)
      std::memcpy(&z[t * c.head_dim], &kept[r.layer][t * HD + r.head * c.head_dim], c.head_dim * sizeof(float));
  }
  return out;
}

Tensor Model::attention(const std::vector<std::int32_t>& ids, std::size_t layer, const std::vector<HeadRef>& heads_off,
                        const std::vector<HeadValue>& head_values) {
  const CheckpointConfig& c = impl_->config;
  check_text(c, ids);
  if (layer >= c.layers)
    throw Error("there is no layer " + std::to_string(layer) + ": this model has layers 0 to " +
                std::to_string(c.layers - 1));
  const std::size_t T = ids.size();
  const std::vector<blocks::HeadEdits> off = edits_of(c, heads_off, head_values, T);
  Tensor out = Tensor::empty({1, c.heads, T, T});
  std::vector<float> h(T * c.d_model), scratch(c.heads * T * T);
  impl_->advance(
      ids, off, true, h.data(), [&](std::size_t) { return scratch.data(); }, layer);
  impl_->network->layer(layer, h.data(), T, off[layer], out.data());
  if (layer + 1 <= first_layer_off(off)) impl_->cache.offer(layer + 1, h.data());  // the next layer's call: one layer
  return out;
}

}  // namespace mha
