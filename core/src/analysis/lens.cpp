// The logit lens over the network's layers, one at a time (models/network.hpp): each layer's output through the
// final norm and the head (pre-norm models), or through the MLM head alone (post-norm encoders, already normed).
#include <cstring>
#include <string>

#include "mha/analysis.hpp"
#include "mha/error.hpp"
#include "models/network.hpp"

namespace mha {

namespace {

// A causal model's LM head, or an encoder's MLM head (the lens of BERT-style models reads each layer through it).
void check_head(const Model& model) {
  if (!model.has_lm_head())
    throw Error("the logit lens needs a language-model head (a causal LM's, or an encoder's MLM head: " +
                model.config().model_type + " without one has nothing to read the layers through)");
}

// The residual stream entering each layer, and leaving the last: [L + 1][T·D].
std::vector<std::vector<float>> residuals(const Model& model, const std::vector<std::int32_t>& ids) {
  const CheckpointConfig& c = model.config();
  const models::Network& net = models_network(model);
  const std::size_t T = ids.size(), n = T * c.d_model;
  std::vector<std::vector<float>> out(c.layers + 1, std::vector<float>(n));
  std::vector<float> probs(c.heads * T * T);
  const blocks::HeadEdits none;
  net.embed(ids, out[0].data());
  for (std::size_t l = 0; l < c.layers; ++l) {
    out[l + 1] = out[l];
    net.layer(l, out[l + 1].data(), T, none, probs.data());
  }
  return out;
}

// logits[P, V] at `at` of the stream h[T, D] through the final norm and the head (h is copied).
std::vector<float> readout(const Model& model, const std::vector<float>& h, std::size_t T,
                           const std::vector<std::size_t>& at) {
  const models::Network& net = models_network(model);
  std::vector<float> x(h), out(at.size() * model.config().vocab);
  net.finish(x.data(), T);
  net.logits(x.data(), at, out.data(), false);  // accumulated_resid @ W_U: no soft cap
  return out;
}

void check_ids(const Model& model, const std::vector<std::int32_t>& ids) { model.check_ids(ids); }

}  // namespace

LogitLens::LogitLens(Model& model, const std::vector<std::int32_t>& ids) : model_(model), positions_(ids.size()) {
  check_head(model);
  check_ids(model, ids);
  resid_ = residuals(model, ids);
}

Tensor LogitLens::row(std::size_t l) const {
  if (l >= rows()) throw Error("the lens has rows 0 to " + std::to_string(rows() - 1) + ", not " + std::to_string(l));
  std::vector<std::size_t> all(positions_);
  for (std::size_t t = 0; t < positions_; ++t) all[t] = t;
  const std::vector<float> z = readout(model_, resid_[l], positions_, all);
  Tensor out = Tensor::empty({positions_, model_.config().vocab});
  std::memcpy(out.data(), z.data(), z.size() * sizeof(float));
  return out;
}

Tensor logit_lens(Model& model, const std::vector<std::int32_t>& ids) {
  const LogitLens lens(model, ids);
  const std::size_t n = ids.size() * model.config().vocab;
  Tensor out = Tensor::empty({lens.rows(), ids.size(), model.config().vocab});
  for (std::size_t l = 0; l < lens.rows(); ++l) std::memcpy(out.data() + l * n, lens.row(l).data(), n * sizeof(float));
  return out;
}

}  // namespace mha
