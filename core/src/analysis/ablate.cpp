// Ways to switch a head off, as TransformerLens's hooks on hook_z do: zeroed, its mean over the text's positions
// (mean ablation), or its output on another text (resample ablation). The values come from the full model's forward
// (no head off), so heads switched off together do not see each other's ablation in their replacements.
#include <string>

#include "mha/analysis.hpp"
#include "mha/error.hpp"

namespace mha {

const char* ablation_name(Ablation kind) {
  switch (kind) {
    case Ablation::Zero: return "zero";
    case Ablation::Mean: return "mean";
    case Ablation::Resample: return "resample";
  }
  return "?";
}

ModelForwardOptions ablation_options(Model& model, const std::vector<std::int32_t>& ids,
                                     const std::vector<HeadRef>& heads, Ablation kind,
                                     const std::vector<std::int32_t>& other) {
  ModelForwardOptions o;
  if (kind == Ablation::Zero || heads.empty()) {
    o.heads_off = heads;
    return o;
  }
  if (kind == Ablation::Resample && other.size() != ids.size())
    throw Error("resampling a head takes its output on another text of the same token count: the text has " +
                std::to_string(ids.size()) + " tokens and the other " + std::to_string(other.size()));
  ModelForwardOptions read;
  read.keep_z = heads;
  read.attentions = false;
  const ModelOutput src = model.forward(kind == Ablation::Mean ? ids : other, read);
  const std::size_t T = ids.size(), hd = model.config().head_dim;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    std::vector<float> z = src.z[i];
    if (kind == Ablation::Mean)
      for (std::size_t f = 0; f < hd; ++f) {  // z[:, h].mean(positions), in double
        double sum = 0.0;
        for (std::size_t t = 0; t < T; ++t) sum += z[t * hd + f];
        for (std::size_t t = 0; t < T; ++t) z[t * hd + f] = float(sum / double(T));
      }
    o.head_values.push_back({heads[i], std::move(z)});
  }
  return o;
}

}  // namespace mha
