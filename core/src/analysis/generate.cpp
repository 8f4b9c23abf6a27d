// Generation: transformers' generate loop (greedy argmax, or the warpers and one multinomial draw per
// token), stopping after max_new_tokens, after the end-of-text token, or at the model's last position; each
// token's logits from the key/value cache (kv_cache.cpp).
#include <algorithm>

#include "mha/analysis.hpp"
#include "mha/error.hpp"

namespace mha {

Generation::Generation(Model& model, std::vector<std::int32_t> ids, const GenerateOptions& options)
    : model_(model), seq_(std::move(ids)), options_(options), gen_(options.seed) {
  const CheckpointConfig& c = model.config();
  if (!c.causal || !model.has_lm_head())
    throw Error("generation needs a causal model with a language-model head (this is a " + c.model_type + ")");
  if (options.sample) check_sampling(options.sampling);
  model.check_ids(seq_);  // the forward's checks of the prompt (count, positions, vocabulary), without its cost
}

std::int32_t Generation::step() {
  const CheckpointConfig& c = model_.config();
  if (!stopped_.empty()) return -1;
  if (made_ >= options_.max_new_tokens) return stop("length");
  if (seq_.size() >= c.max_positions) return stop("positions");
  const std::vector<float> logits = cached_logits(model_, cache_, seq_);  // one position's forward per token
  const float* z = logits.data();
  probs_ = filtered_probs(z, c.vocab, options_.sample ? options_.sampling : SamplingOptions{});
  const std::size_t next = options_.sample ? draw_one(probs_, gen_) : std::size_t(std::max_element(z, z + c.vocab) - z);
  seq_.push_back(std::int32_t(next));
  ++made_;
  if (options_.eos >= 0 && std::int32_t(next) == options_.eos) stopped_ = "eos";
  return std::int32_t(next);
}

std::int32_t Generation::stop(const char* why) {
  stopped_ = why;
  return -1;
}

GenerateResult generate(Model& model, const std::vector<std::int32_t>& ids, const GenerateOptions& options) {
  Generation g(model, ids, options);
  GenerateResult out;
  for (std::int32_t id = g.step(); id >= 0; id = g.step()) {
    out.ids.push_back(id);
    if (options.on_token && !options.on_token(id, g.probs())) {
      g.stop("stopped");
      break;
    }
  }
  out.stopped = g.stopped();
  return out;
}

}  // namespace mha
