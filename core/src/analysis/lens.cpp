// The logit lens and residual-stream patching over the network's layers, one at a time
// (models/network.hpp): the residual stream entering each layer kept, a patched run resumed there.
#include <cstring>

#include "mha/analysis.hpp"
#include "mha/error.hpp"
#include "models/network.hpp"

namespace mha {

namespace {

void check_causal(const Model& model, const char* what) {
  if (!model.config().causal || !model.has_lm_head())
    throw Error(std::string(what) + " needs a causal model with a language-model head (this is a " +
                model.config().model_type + ")");
}

// The residual stream entering each layer, and leaving the last: [L + 1][T·D].
std::vector<std::vector<float>> residuals(const Model& model, const std::vector<std::int32_t>& ids) {
  const CheckpointConfig& c = model.config();
  const models::Network& net = models_network(model);
  const std::size_t T = ids.size(), n = T * c.d_model;
  std::vector<std::vector<float>> out(c.layers + 1, std::vector<float>(n));
  std::vector<float> probs(c.heads * T * T);
  const std::vector<bool> none(c.heads, false);
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
  net.logits(x.data(), at, out.data());
  return out;
}

void check_ids(const Model& model, const std::vector<std::int32_t>& ids) {
  ModelForwardOptions f;  // the forward's own checks and messages (count, positions, vocabulary)
  f.attentions = false;
  const_cast<Model&>(model).forward(ids, f);
}

void check_tokens(const Model& model, const std::vector<std::int32_t>& tokens) {
  if (tokens.size() != 2) throw Error("the metric needs two tokens (logit[a] - logit[b])");
  for (std::int32_t t : tokens)
    if (t < 0 || std::size_t(t) >= model.config().vocab)
      throw Error("token id " + std::to_string(t) + " is outside the vocabulary (0 to " +
                  std::to_string(model.config().vocab - 1) + ")");
}

}  // namespace

Tensor logit_lens(Model& model, const std::vector<std::int32_t>& ids) {
  check_causal(model, "the logit lens");
  check_ids(model, ids);
  const CheckpointConfig& c = model.config();
  const std::size_t T = ids.size(), V = c.vocab;
  const std::vector<std::vector<float>> resid = residuals(model, ids);
  std::vector<std::size_t> all(T);
  for (std::size_t t = 0; t < T; ++t) all[t] = t;
  Tensor out = Tensor::empty({c.layers + 1, T, V});
  for (std::size_t l = 0; l <= c.layers; ++l) {
    const std::vector<float> z = readout(model, resid[l], T, all);
    std::memcpy(out.data() + l * T * V, z.data(), z.size() * sizeof(float));
  }
  return out;
}

Tensor patch_resid(Model& model, const std::vector<std::int32_t>& clean, const std::vector<std::int32_t>& corrupted,
                   const std::vector<std::int32_t>& tokens,
                   const std::function<bool(std::size_t, std::size_t)>& progress) {
  check_causal(model, "patching");
  check_tokens(model, tokens);
  check_ids(model, clean);
  check_ids(model, corrupted);
  if (clean.size() != corrupted.size())
    throw Error("the clean text has " + std::to_string(clean.size()) + " tokens and the corrupted one " +
                std::to_string(corrupted.size()) + ": patching needs the same count");
  const CheckpointConfig& c = model.config();
  const models::Network& net = models_network(model);
  const std::size_t L = c.layers, T = clean.size(), D = c.d_model, V = c.vocab;
  const auto metric = [&](const std::vector<float>& h) {
    const std::vector<float> z = readout(model, h, T, {T - 1});
    return double(z[std::size_t(tokens[0])]) - double(z[std::size_t(tokens[1])]);
  };
  const auto k_res = residuals(model, clean), c_res = residuals(model, corrupted);
  const double k = metric(k_res[L]), cm = metric(c_res[L]);
  if (k == cm) throw Error("the clean and corrupted runs give the same metric: nothing to normalise by");
  Tensor out = Tensor::empty({L, T});
  std::vector<float> probs(c.heads * T * T);
  const std::vector<bool> none(c.heads, false);
  for (std::size_t l = 0; l < L; ++l) {
    for (std::size_t t = 0; t < T; ++t) {
      if (progress && !progress(l * T + t, L * T)) throw Error("cancelled");
      std::vector<float> h = c_res[l];  // the corrupted stream entering layer l, row t the clean one's
      std::memcpy(h.data() + t * D, k_res[l].data() + t * D, D * sizeof(float));
      for (std::size_t m = l; m < L; ++m) net.layer(m, h.data(), T, none, probs.data());
      out.data()[l * T + t] = float((metric(h) - cm) / (k - cm));
    }
  }
  (void)V;
  return out;
}

}  // namespace mha
