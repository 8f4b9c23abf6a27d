// A loaded checkpoint as the bindings hold it (model_bindings.cpp makes it, analysis_bindings.cpp reads it).
#pragma once

#include <memory>

#include "mha/models.hpp"
#include "mha/weights.hpp"

namespace mha_js {

// A loaded model; `weights` for info().
struct LoadedModel {
  std::shared_ptr<const mha::Weights> weights;
  mha::Model model;
  LoadedModel(mha::CheckpointConfig config, std::shared_ptr<const mha::Weights> w)
      : weights(w), model(std::move(config), std::move(w)) {}
};

}  // namespace mha_js
