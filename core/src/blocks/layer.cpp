// One transformer layer: pre-norm, post-norm or parallel residual (blocks.hpp's Residual), the one
// place the families' attention, MLP and norms meet the residual stream.
#include "blocks/blocks.hpp"

namespace mha::blocks {

namespace {

void add_into(float* x, const float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] += y[i];
}

// out[T, D] = block(norm(h)) for the attention or the MLP, h unchanged.
std::vector<float> normed(const Norm& norm, const float* h, std::size_t T, std::size_t D) {
  std::vector<float> a(h, h + T * D);
  normalize(norm, a.data(), T, D);
  return a;
}

}  // namespace

void layer(const Layer& layer, float* h, std::size_t T, const HeadEdits& edits, float* probs, const Rope* rope) {
  const std::size_t D = layer.attn.o.out, n = T * D;
  std::vector<float> out(n);
  switch (layer.residual) {
    case Residual::PreNorm: {
      attention(layer.attn, normed(layer.norm_1, h, T, D).data(), T, edits, probs, out.data(), rope);
      if (layer.post_attn.weight) normalize(layer.post_attn, out.data(), T, D);  // Gemma 2's sandwich
      add_into(h, out.data(), n);
      mlp(layer.mlp, normed(layer.norm_2, h, T, D).data(), T, out.data());
      if (layer.post_mlp.weight) normalize(layer.post_mlp, out.data(), T, D);
      add_into(h, out.data(), n);
      break;
    }
    case Residual::PostNorm: {
      attention(layer.attn, h, T, edits, probs, out.data(), rope);
      add_into(h, out.data(), n);
      normalize(layer.norm_1, h, T, D);
      mlp(layer.mlp, h, T, out.data());
      add_into(h, out.data(), n);
      normalize(layer.norm_2, h, T, D);
      break;
    }
    case Residual::Parallel: {
      const std::vector<float> a = normed(layer.norm_1, h, T, D);
      std::vector<float> m(n);
      attention(layer.attn, a.data(), T, edits, probs, out.data(), rope);
      mlp(layer.mlp, layer.norm_2.weight ? normed(layer.norm_2, h, T, D).data() : a.data(), T, m.data());
      add_into(h, out.data(), n);  // h = h + attn + mlp
      add_into(h, m.data(), n);
      break;
    }
  }
}

std::vector<TraceStep> layer_trace(const Layer& layer, std::size_t T, int tag) {
  const std::size_t D = layer.attn.o.out;
  std::vector<TraceStep> steps;
  const auto step = [&](const char* op) { steps.push_back({op, Layout::contiguous({1, T, D}), {}, tag}); };
  const auto attn = [&] {
    for (const TraceStep& s : attention_trace(layer.attn, T, D, tag)) steps.push_back(s);
  };
  switch (layer.residual) {
    case Residual::PreNorm:
      if (layer.norm_1.weight) step("norm");  // ModernBERT's first layer: no attn_norm
      attn();
      if (layer.post_attn.weight) step("post_norm");
      for (const char* op : {"residual", "norm", "mlp"}) step(op);
      if (layer.post_mlp.weight) step("post_norm");
      step("residual");
      break;
    case Residual::PostNorm:
      attn();
      for (const char* op : {"residual", "norm", "mlp", "residual", "norm"}) step(op);
      break;
    case Residual::Parallel:
      step("norm"), attn();
      if (layer.norm_2.weight) step("norm");
      for (const char* op : {"mlp", "residual"}) step(op);
      break;
  }
  return steps;
}

}  // namespace mha::blocks
