// mha::Model: a family's network bound to a checkpoint, the forward's checks and its output. (The lab's tiny
// model is core/src/tiny_model.cpp.)
#include <array>

#include "mha/error.hpp"
#include "mha/models.hpp"
#include "models/network.hpp"

namespace mha {

namespace {

using BindFn = std::unique_ptr<models::Network> (*)(models::Binder&);
constexpr std::array<BindFn, 4> kBind{models::bind_gpt2, models::bind_bert, models::bind_distilbert,
                                      models::bind_llama};
static_assert(kBind.size() == static_cast<std::size_t>(Family::COUNT), "a binding for every Family");

BindFn bind_of(Family family) { return kBind.at(static_cast<std::size_t>(family)); }

std::string ends_replaced(const std::string& name, const std::string& tail, const std::string& with) {
  if (name.size() < tail.size() || name.compare(name.size() - tail.size(), tail.size(), tail) != 0) return name;
  return name.substr(0, name.size() - tail.size()) + with;
}

void check_ids(const CheckpointConfig& c, const std::vector<std::int32_t>& ids) {
  if (ids.empty()) throw Error("the model needs at least one token");
  if (ids.size() > c.max_positions)
    throw Error(std::to_string(ids.size()) + " tokens are more than this model's " + std::to_string(c.max_positions) +
                " positions (max_position_embeddings): shorten the text");
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || std::size_t(ids[t]) >= c.vocab)
      throw Error("token " + std::to_string(t) + " has id " + std::to_string(ids[t]) +
                  ", outside the vocabulary (ids 0 to " + std::to_string(c.vocab - 1) + ")");
}

// head_off[l][h] from the options, each checked.
std::vector<std::vector<bool>> heads_off(const CheckpointConfig& c, const std::vector<HeadRef>& off) {
  std::vector<std::vector<bool>> out(c.layers, std::vector<bool>(c.heads, false));
  for (const HeadRef& r : off) {
    if (r.layer >= c.layers || r.head >= c.heads)
      throw Error("there is no head " + std::to_string(r.head) + " in layer " + std::to_string(r.layer) +
                  ": this model has " + std::to_string(c.layers) + " layers of " + std::to_string(c.heads) +
                  " heads, numbered from 0");
    out[r.layer][r.head] = true;
  }
  return out;
}

}  // namespace

struct Model::Impl {
  CheckpointConfig config;
  std::shared_ptr<const Weights> weights;
  std::unique_ptr<models::Network> network;
};

bool model_reads_tensor(const CheckpointConfig& config, const std::string& name) {
  const models::FamilyNames family = models::family_names(config.family);
  const std::string prefix = family.prefix;
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
  const models::FamilyNames family = models::family_names(config.family);
  models::Binder binder(config, weights.get(), models::body_prefix(*weights, family.prefix, family.probe));
  impl_->network = bind_of(config.family)(binder);
  impl_->config = std::move(config);
  impl_->weights = std::move(weights);
}

Model::~Model() = default;

const CheckpointConfig& Model::config() const { return impl_->config; }

bool Model::has_lm_head() const { return impl_->network->has_head(); }

ModelOutput Model::forward(const std::vector<std::int32_t>& ids, const ModelForwardOptions& options) const {
  const CheckpointConfig& c = impl_->config;
  check_ids(c, ids);
  const std::size_t T = ids.size();
  const std::vector<std::vector<bool>> off = heads_off(c, options.heads_off);
  ModelOutput out;
  out.logits_at = options.logits_at;
  if (out.logits_at.empty() && c.causal) out.logits_at = {T - 1};
  if (!out.logits_at.empty() && !has_lm_head())
    throw Error("this checkpoint has no language-model head (its file holds the encoder only): it gives no logits");
  for (std::size_t p : out.logits_at)
    if (p >= T) throw Error("logits asked at position " + std::to_string(p) + " of " + std::to_string(T) + " tokens");
  out.attentions = Tensor::empty({c.layers, 1, c.heads, T, T});
  out.hidden = Tensor::empty({1, T, c.d_model});
  impl_->network->forward(ids, off, out.attentions.data(), out.hidden.data());
  const std::size_t P = out.logits_at.size();
  out.logits = P ? Tensor::empty({P, c.vocab}) : Tensor(Shape{0, c.vocab});
  if (P) impl_->network->logits(out.hidden.data(), out.logits_at, out.logits.data());
  out.trace = impl_->network->trace(T, P);
  return out;
}

}  // namespace mha
