// GPT-NeoX (Pythia 14m–12b and its training checkpoints) as transformers' modeling_gpt_neox.py computes it:
// LayerNorms, query_key_value fused and interleaved by head (view(T, H, 3·hd).chunk(3)), rotary embeddings on
// the first rotary_ndims features of each head, the parallel residual h + attn(ln_1(h)) + mlp(ln_2(h)) (or the
// sequential one: use_parallel_residual false), a final_layer_norm, and the untied LM head (embed_out.weight
// in Pythia's files, lm_head.weight as 5.x saves it).
#include "mha/error.hpp"
#include "models/network.hpp"

namespace mha::models {

namespace {

class GptNeoX final : public TokenEmbeddings {
 public:
  explicit GptNeoX(Binder& b) : TokenEmbeddings(b, "embed_in.weight") {
    const std::size_t D = c_.d_model;
    const float eps = float(c_.norm_eps);
    const bool bias = c_.attention_bias;
    for (std::size_t l = 0; l < c_.layers; ++l) {
      const std::string p = "layers." + std::to_string(l) + ".";
      blocks::Layer layer = layer_of(b, p + "input_layernorm", p + "post_attention_layernorm");
      layer.residual = c_.parallel_residual ? blocks::Residual::Parallel : blocks::Residual::PreNorm;
      layer.attn.qkv = b.linear(p + "attention.query_key_value", D, 3 * D, bias);
      layer.attn.qkv_interleaved = true;
      layer.attn.o = b.linear(p + "attention.dense", D, D, bias);
      layer.attn.rotary_dim = c_.rotary_dim;
      layer.attn.rope_theta = c_.rope_theta;
      layer.mlp.up = b.linear(p + "mlp.dense_h_to_4h", D, c_.d_ff, true);
      layer.mlp.down = b.linear(p + "mlp.dense_4h_to_h", c_.d_ff, D, true);
      layers_.push_back(layer);
    }
    final_norm_ = b.norm("final_layer_norm", D, eps);
    if (c_.tie_word_embeddings) {
      bind_lm_head(b, tokens_);
      return;
    }
    // Pythia's files name the head embed_out.weight, 5.x's save_pretrained lm_head.weight (both looked up, so
    // that model_reads_tensor names both)
    const WeightRef* head = b.maybe_head("embed_out.weight", {c_.vocab, D});
    if (const WeightRef* saved = b.maybe_head("lm_head.weight", {c_.vocab, D}); saved) head = saved;
    if (!head)
      throw Error(
          "the checkpoint has neither 'embed_out.weight' nor 'lm_head.weight': the LM head of a gpt_neox model (tie_word_embeddings is false)");
    lm_head_ = {head, nullptr, false, D, c_.vocab};
  }
};

}  // namespace

std::unique_ptr<Network> bind_gpt_neox(Binder& binder) { return std::make_unique<GptNeoX>(binder); }

}  // namespace mha::models
