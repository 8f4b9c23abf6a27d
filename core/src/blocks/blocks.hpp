// The blocks floor: the pieces transformer layers are built from, each as transformers' eager code
// computes it (its modeling_*.py files are the specification), on float32 activations and stored
// weights of any dtype (mha/weights.hpp: half-precision weights are widened inside the kernels).
//
// Activations are row-major float buffers: x[T, D] means T rows of D floats. Functions write to
// their outputs without reading them first unless they say "in place".
//
// Floors: kernels (mha/kernels.hpp), the ground (mha/trace.hpp, the trace format) and loading (mha/weights.hpp)
// → blocks → model families (core/src/models/). Nothing here knows a family or a tensor's name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mha/kernels.hpp"
#include "mha/trace.hpp"
#include "mha/weights.hpp"

namespace mha::blocks {

// ---- Stored weights ---------------------------------------------------------------------------

// A stored tensor as the kernels read it: rows of its last dimension.
kernels::weight_matrix matrix(const WeightRef& w);
// A stored vector (bias, norm weight, embedding row block) widened to float32.
std::vector<float> widen(const WeightRef& w);
// Rows [r0, r0 + rows) of a stored 2-d tensor [R, C] widened into out[rows, C].
void widen_rows(const WeightRef& w, std::size_t r0, std::size_t rows, float* out);

// nn.Linear (weight [out, in]: y = x·Wᵀ + b) or GPT-2's Conv1D (weight [in, out]: y = x·W + b).
struct Linear {
  const WeightRef* weight = nullptr;
  const WeightRef* bias = nullptr;  // [out], or nullptr for bias=False
  bool conv1d = false;
  std::size_t in = 0, out = 0;
};
// y[rows, out] = linear(x[rows, in]).
void linear(const Linear& layer, const float* x, std::size_t rows, float* y);

// ---- Norms ------------------------------------------------------------------------------------

// Layer: nn.LayerNorm; Rms: LlamaRMSNorm (weight · normed); RmsPlusOne: GemmaRMSNorm ((1 + weight) · normed, 1 + weight
// in float32, as 1.0 + weight.float())
enum class NormKind : std::uint8_t { Layer, Rms, RmsPlusOne };

struct Norm {
  const WeightRef* weight = nullptr;  // [D]
  const WeightRef* bias = nullptr;    // [D] (LayerNorm), nullptr (RMSNorm, LayerNorm(bias=False))
  float eps = 0.0f;
  NormKind kind = NormKind::Layer;
};
// nn.LayerNorm, in place on x[rows, D]: (x - mean) / sqrt(var + eps) · weight + bias (biased variance; no bias: + 0).
void layer_norm(const Norm& norm, float* x, std::size_t rows, std::size_t D);
// LlamaRMSNorm, in place on x[rows, D]: weight · (x · rsqrt(mean(x²) + eps)), the variance in float32.
void rms_norm(const Norm& norm, float* x, std::size_t rows, std::size_t D);
// The factor a norm multiplies each normed feature by: weight, or (RmsPlusOne) 1 + weight. [D]
std::vector<float> norm_scale(const Norm& norm);
// The norm's kind, in place on x[rows, D]; a norm without weight is nn.Identity.
void normalize(const Norm& norm, float* x, std::size_t rows, std::size_t D);

// ---- Activations ------------------------------------------------------------------------------

enum class Activation : std::uint8_t {
  GeluErf,   // "gelu": x/2 · (1 + erf(x/√2)) (BERT, DistilBERT)
  GeluTanh,  // "gelu_new", "gelu_pytorch_tanh": x/2 · (1 + tanh(√(2/π)(x + 0.044715x³))) (GPT-2)
  Relu,      // "relu"
  Silu,      // "silu", "swish": x · sigmoid(x) (Llama, Qwen2)
  COUNT
};
// transformers' ACT2FN name → Activation; throws mha::Error naming it and listing the supported names.
Activation activation_from_name(const std::string& name);
// The names activation_from_name accepts, comma-separated.
std::string activation_names();
// In place on x[n].
void activate(Activation act, float* x, std::size_t n);

// ---- Rotary position embeddings (Llama, GPT-NeoX, Phi) ---------------------------------------

// cos and sin [T, dim] of transformers' default rope over `dim` rotary features (head_dim, or GPT-NeoX's
// and Phi's partial rotary_ndims): inv_freq[i] = 1 / θ^(2i/dim) and freqs = position · inv_freq built in
// float32, emb = cat(freqs, freqs); positions start, start + 1, ... (a forward from the first token: 0).
// linear_factor: rope_type "linear" (Gemma 3's full layers on 4b and up), inv_freq /= factor in float32.
struct Rope {
  std::size_t dim = 0;
  std::vector<float> cos, sin;
};
Rope rope_table(std::size_t T, std::size_t dim, double theta, std::size_t start = 0, double linear_factor = 1.0);
// In place on x[T, heads · head_dim] (row stride ld), the first rope.dim features of each head:
// x·cos + rotate_half(x)·sin with rotate_half(x) = cat(-x[half:], x[:half]) (halves, not interleaved
// pairs); the features past rope.dim pass unchanged (apply_rotary_pos_emb on query[..., :rotary_ndims]).
void apply_rope(const Rope& rope, float* x, std::size_t T, std::size_t heads, std::size_t head_dim, std::size_t ld);

// ---- MLPs -------------------------------------------------------------------------------------

// GPT-2's c_fc/c_proj, BERT's intermediate/output, DistilBERT's lin1/lin2: down(act(up(x))); with a gate
// (gate.weight set), Llama's SwiGLU: down(act(gate(x)) · up(x)); fused_glu: ModernBERT's Wi [2·d_ff, D] as up,
// input, gate = up(x).chunk(2) and down(act(input) · gate).
struct Mlp {
  Linear up, down;
  Linear gate;  // unused unless gate.weight is set
  Activation act = Activation::GeluErf;
  bool fused_glu = false;
};
// y[T, D] = mlp(x[T, D]).
void mlp(const Mlp& block, const float* x, std::size_t T, float* y);

// ---- The model attention ----------------------------------------------------------------------

// finfo(float32).min: what transformers fills (GPT-2, DistilBERT) or adds (Llama) at masked scores.
constexpr float kFinfoMin = -3.40282347e38f;

struct Attention {
  std::size_t heads = 0, kv_heads = 0, head_dim = 0;
  Linear q, k, v;                // separate projections (BERT, DistilBERT, Llama; Qwen2's carry biases)
  Linear qkv;                    // fused: GPT-2's c_attn [D, 3·D] as q‖k‖v; used when qkv.weight is set
  bool qkv_interleaved = false;  // GPT-NeoX's query_key_value: per head q_h‖k_h‖v_h (view(T, H, 3·hd).chunk(3))
  Linear o;                      // the output projection
  bool causal = false;
  bool scale = true;           // divide by √head_dim (GPT-2's scale_attn_weights may turn it off; GPT-Neo: never)
  bool scale_query = false;    // DistilBERT: q / √head_dim before the product; else the scores
  std::size_t rotary_dim = 0;  // rotary embeddings on the first rotary_dim features of q's and k's heads (0: none)
  double rope_theta = 0.0;     // their base θ
  double rope_factor = 1.0;    // rope_type "linear": inv_freq / rope_factor (1: the default rope)
  std::size_t window = 0;      // query i sees keys j > i - window only (GPT-Neo's local layers), or when not causal
                               // |i - j| < window (ModernBERT's local layers); 0: every key
  Norm q_norm, k_norm;         // Qwen3: each query and key head normalized over head_dim before RoPE (weight set)
  float scaling = 0.0f;        // Gemma 2: scores times this (query_pre_attn_scalar^-0.5); 0: as `scale` says
  float softcap = 0.0f;        // Gemma 2: scores = tanh(scores / softcap) · softcap before the mask; 0: none
};
// scores[n] (q · k products) scaled as the attention says (scaling, or / √head_dim unless scale_query or !scale),
// then soft-capped: what the mask and the softmax read.
void scale_scores(const Attention& attention, float* scores, std::size_t n);
// In place on x[T, heads · head_dim] (row stride ld, heads hs apart): norm over each head's head_dim features.
void normalize_heads(const Norm& norm, float* x, std::size_t T, std::size_t heads, std::size_t head_dim, std::size_t hs,
                     std::size_t ld);

// What becomes of the heads' outputs (TransformerLens's hook_z, before the output projection), and what is read
// out on the way. Empty fields: every head as computed.
struct HeadEdits {
  std::vector<bool> off;            // [H]: head h's output zeroed (switched off)
  std::vector<const float*> value;  // [H]: nullptr, or head h's output replaced by value[h], [T, head_dim]
  float* kept = nullptr;            // receives the heads' outputs as computed, [T, H·hd], before off and value
  float* writes = nullptr;          // receives ‖v_j·W_O^h‖ [H, T]: the norm of what key j writes through head h
  float* keys = nullptr;            // receive the keys (after k_norm and RoPE) and the values, [T, KV·hd] each: a
  float* values = nullptr;          // key/value cache's rows
  bool any() const;                 // whether a field asks anything
};

// y[T, D] = attention(x[T, D]), as transformers' eager attention: q/k/v projections, split heads,
// RoPE, repeat_kv (query head h reads key/value head h / (heads / kv_heads)), scores / √head_dim,
// the causal mask (and the window's) at finfo(float32).min, softmax in float32, · v, the heads' outputs
// edited (HeadEdits), merge, output projection.
// probs[H, T, T] receives the softmax, as output_attentions returns it. rope: the table of the T
// positions when block.rotary_dim (nullptr: rope_table(T, rotary_dim, rope_theta, 0, rope_factor), positions 0..T-1).
void attention(const Attention& block, const float* x, std::size_t T, const HeadEdits& edits, float* probs, float* y,
               const Rope* rope = nullptr);

// The same attention up to the merged heads: context[T, H·hd], the heads' outputs before the output
// projection (TransformerLens's hook_z); attention() is this and linear(block.o).
void attention_context(const Attention& block, const float* x, std::size_t T, const HeadEdits& edits, float* probs,
                       float* context, const Rope* rope = nullptr);

// The causal attention of rows start..start+R-1 (x[R, D]) of a text whose earlier rows' keys and values are known:
// keys, values [start + R, KV·hd] (after k_norm and RoPE) with rows < start filled; fills rows start.. and writes
// context[R, H·hd]. The formulas of attention_context (row i sees keys j <= start + i, a local layer's last
// `window`), another order of summation: a key/value cache's step, or a patched run's changed rows.
void attention_rows(const Attention& block, const float* x, std::size_t R, std::size_t start, float* keys,
                    float* values, float* context);

// The steps of that attention at T tokens, as TraceSteps tagged with `layer` (see TraceStep's ops; with q_norm,
// query_norm and key_norm [1, H or KV, T, hd] after the heads' split).
std::vector<TraceStep> attention_trace(const Attention& block, std::size_t T, std::size_t D, int layer);

// ---- Layers -----------------------------------------------------------------------------------

// How a layer's attention and MLP meet the residual stream h.
enum class Residual : std::uint8_t {
  PreNorm,   // h += attn(norm_1(h)); h += mlp(norm_2(h))                       (GPT-2, Llama, GPT-NeoX sequential)
  PostNorm,  // h = norm_1(h + attn(h)); h = norm_2(h + mlp(h))                  (BERT, DistilBERT)
  Parallel,  // h += attn(norm_1(h)) + mlp(norm_2(h)), both read the same h      (GPT-NeoX, Phi: norm_2 absent,
             //                                                                   norm_1 serves both)
};

// One transformer layer of any family: the family binds the pieces (core/src/models/*.cpp fill in
// Layers, models/network.hpp's Stack runs them in order), the layer says how they meet. Code that runs
// a layer on other positions (a key/value cache) passes attention()/layer() a rope table made with
// rope_table(T, attn.rotary_dim, attn.rope_theta, start, attn.rope_factor).
struct Layer {
  Residual residual = Residual::PreNorm;
  Norm norm_1, norm_2;  // see Residual; a Parallel layer without norm_2.weight feeds norm_1(h) to the MLP too
  // Gemma 2's sandwich (PreNorm only): the attention's and the MLP's outputs normalized before their residual adds
  // (post_attention_layernorm, post_feedforward_layernorm); unused unless weight set
  Norm post_attn, post_mlp;
  Attention attn;
  Mlp mlp;
};

// Layer `layer` in place on h[T, D] (D = attn.o.out). probs[H, T, T] receives the softmax; edits change the heads'
// outputs before the output projection (as a pre-hook on o_proj / dense does); rope: as attention()'s.
void layer(const Layer& layer, float* h, std::size_t T, const HeadEdits& edits, float* probs,
           const Rope* rope = nullptr);
// Its steps at T tokens (TraceStep ops: norm, the attention's, residual, mlp), tagged with `tag`.
std::vector<TraceStep> layer_trace(const Layer& layer, std::size_t T, int tag);

}  // namespace mha::blocks
