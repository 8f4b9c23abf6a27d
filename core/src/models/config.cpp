// config.json → CheckpointConfig: the keys each family's configuration_*.py reads (with their defaults),
// checked; any option the core does not compute is refused by name.
#include <array>
#include <cmath>
#include <functional>

#include "blocks/blocks.hpp"
#include "ground/json.hpp"  // the core's one strict JSON parser (on the ground floor, below every other)
#include "mha/error.hpp"
#include "mha/models.hpp"

namespace mha {

namespace {

using json::Json;

constexpr std::array<const char*, 11> kFamilyNames{"gpt2", "bert", "distilbert", "llama", "gpt_neox",  "gpt_neo",
                                                   "opt",  "phi",  "roberta",    "gemma", "modernbert"};
static_assert(kFamilyNames.size() == static_cast<std::size_t>(Family::COUNT), "a name for every Family");

struct ModelType {
  const char* name;
  Family family;
};
constexpr std::array<ModelType, 18> kModelTypes{{{"gpt2", Family::GPT2},
                                                 {"bert", Family::BERT},
                                                 {"distilbert", Family::DistilBERT},
                                                 {"llama", Family::Llama},
                                                 {"qwen2", Family::Llama},
                                                 {"qwen3", Family::Llama},
                                                 {"mistral", Family::Llama},
                                                 {"smollm3", Family::Llama},
                                                 {"gpt_neox", Family::GPTNeoX},
                                                 {"gpt_neo", Family::GPTNeo},
                                                 {"opt", Family::OPT},
                                                 {"phi", Family::Phi},
                                                 {"roberta", Family::RoBERTa},
                                                 {"xlm-roberta", Family::RoBERTa},
                                                 {"gemma", Family::Gemma},
                                                 {"gemma2", Family::Gemma},
                                                 {"gemma3_text", Family::Gemma},
                                                 {"modernbert", Family::ModernBERT}}};

// Sizes beyond these are typos or files of another kind, not models a browser runs.
constexpr double kMaxSize = double(std::size_t{1} << 24);

std::string supported() {
  std::string types;
  for (const ModelType& t : kModelTypes) types += std::string(types.empty() ? "" : ", ") + t.name;
  return "The core computes model_type " + types +
         " with absolute position embeddings (GPT-2, BERT, "
         "DistilBERT, RoBERTa) or default rotary embeddings (rope_type 'default', on all or the first part of each "
         "head), full causal or bidirectional "
         "self-attention (with GPT-Neo's local layers and the sliding windows of Mistral, Qwen2, Qwen3, SmolLM3, Gemma 2, Gemma 3 and ModernBERT; no ALiBi, "
         "no "
         "cross-attention), activations " +
         blocks::activation_names() + ".";
}

[[noreturn]] void refuse(const std::string& option) {
  throw Error("config.json: " + option + " is not supported. " + supported());
}

// A member that is present and not null, else nullptr.
const Json* member(const Json& config, const std::string& key) {
  const Json* v = config.find(key);
  return v && v->kind != Json::Null ? v : nullptr;
}

double number(const Json& config, const std::string& key, double fallback) {
  const Json* v = member(config, key);
  if (!v) return fallback;
  if (v->kind != Json::Number) throw Error("config.json: '" + key + "' must be a number, got " + json::kind_name(*v));
  return v->number();
}

// A whole number >= 1 (the first of `keys` present, else fallback; 0 = required).
std::size_t count(const Json& config, std::initializer_list<const char*> keys, std::size_t fallback = 0) {
  for (const char* key : keys) {
    if (!member(config, key)) continue;
    const double v = number(config, key, 0.0);
    if (!(v >= 1.0 && v <= kMaxSize && v == std::floor(v)))
      throw Error("config.json: '" + std::string(key) + "' must be a whole number from 1 to " +
                  std::to_string(std::size_t(kMaxSize)) + ", got " + member(config, key)->text);
    return std::size_t(v);
  }
  if (fallback == 0) throw Error("config.json has no '" + std::string(*keys.begin()) + "', which a model needs");
  return fallback;
}

bool flag(const Json& config, const std::string& key, bool fallback) {
  const Json* v = member(config, key);
  if (!v) return fallback;
  if (v->kind != Json::Bool) throw Error("config.json: '" + key + "' must be true or false");
  return v->text == "true";
}

std::string text(const Json& config, const std::string& key, const std::string& fallback) {
  const Json* v = member(config, key);
  if (!v) return fallback;
  if (v->kind != Json::String) throw Error("config.json: '" + key + "' must be a string");
  return v->text;
}

void refuse_if(bool on, const std::string& option) {
  if (on) refuse(option);
}

// head_dim = hidden size / heads unless the config set it.
void set_head_dim(CheckpointConfig& m) {
  if (m.head_dim) return;
  if (m.d_model % m.heads != 0)
    throw Error("config.json: the hidden size " + std::to_string(m.d_model) + " is not a multiple of the " +
                std::to_string(m.heads) + " attention heads");
  m.head_dim = m.d_model / m.heads;
}

// The rotary embedding: transformers 5.x writes rope_parameters {"rope_type", "rope_theta",
// "partial_rotary_factor"?}, 4.x the base and the factor at the top (under the family's names) with
// rope_scaling null. Sets rope_theta and rotary_dim (of head_dim, which must be known).
void read_rope(const Json& c, CheckpointConfig& m, const char* theta_key, const char* partial_key, double partial,
               double default_theta = 10000.0) {
  refuse_if(member(c, "rope_scaling") != nullptr, "rope_scaling (only the default rotary embedding is computed)");
  double theta = number(c, theta_key, default_theta);
  partial = number(c, partial_key, partial);
  std::string partial_name = partial_key;
  if (const Json* p = member(c, "rope_parameters")) {
    if (p->kind != Json::Object) throw Error("config.json: 'rope_parameters' must be an object");
    const std::string type = text(*p, "rope_type", "default");
    refuse_if(type != "default", "rope_parameters.rope_type = '" + type + "' (only the default rotary embedding)");
    theta = number(*p, "rope_theta", theta);
    if (member(*p, "partial_rotary_factor")) partial_name = "rope_parameters.partial_rotary_factor";
    partial = number(*p, "partial_rotary_factor", partial);
  }
  if (!(theta > 0.0)) throw Error("config.json: 'rope_theta' must be a positive number");
  if (!(partial > 0.0 && partial <= 1.0))
    throw Error("config.json: '" + partial_name + "' must be above 0 and at most 1 (the share of each head's " +
                "features that rotate), got " + std::to_string(partial));
  m.rope_theta = theta;
  m.rotary_dim = std::size_t(double(m.head_dim) * partial);  // int(head_size * partial_rotary_factor)
  if (m.rotary_dim % 2 != 0 || m.rotary_dim == 0)
    throw Error("config.json: '" + partial_name + "' gives " + std::to_string(m.rotary_dim) + " rotary features of " +
                std::to_string(m.head_dim) + ": rotary embeddings need an even number of them");
}

std::size_t whole(const Json& config, const char* key, std::size_t fallback) {
  if (!member(config, key)) return fallback;
  const double v = number(config, key, 0.0);
  if (!(v >= 0.0 && v <= kMaxSize && v == std::floor(v)))
    throw Error("config.json: '" + std::string(key) + "' must be a whole number from 0, got " +
                member(config, key)->text);
  return std::size_t(v);
}

void read_gpt2(const Json& c, CheckpointConfig& m) {
  m.d_model = count(c, {"n_embd", "hidden_size"});
  m.layers = count(c, {"n_layer", "num_hidden_layers"});
  m.heads = m.kv_heads = count(c, {"n_head", "num_attention_heads"});
  m.d_ff = count(c, {"n_inner"}, 4 * m.d_model);
  m.vocab = count(c, {"vocab_size"});
  m.max_positions = count(c, {"n_positions", "max_position_embeddings"});
  m.norm_eps = number(c, "layer_norm_epsilon", 1e-5);
  m.activation = text(c, "activation_function", "gelu_new");
  m.causal = true;
  m.scale_attention = flag(c, "scale_attn_weights", true);
  refuse_if(flag(c, "scale_attn_by_inverse_layer_idx", false), "scale_attn_by_inverse_layer_idx = true");
  refuse_if(flag(c, "reorder_and_upcast_attn", false), "reorder_and_upcast_attn = true");
  refuse_if(flag(c, "add_cross_attention", false), "add_cross_attention = true");
}

void read_bert(const Json& c, CheckpointConfig& m) {
  m.d_model = count(c, {"hidden_size"});
  m.layers = count(c, {"num_hidden_layers"});
  m.heads = m.kv_heads = count(c, {"num_attention_heads"});
  m.d_ff = count(c, {"intermediate_size"});
  m.vocab = count(c, {"vocab_size"});
  m.max_positions = count(c, {"max_position_embeddings"}, 512);
  m.type_vocab = count(c, {"type_vocab_size"}, 2);
  m.norm_eps = number(c, "layer_norm_eps", 1e-12);
  m.activation = text(c, "hidden_act", "gelu");
  const std::string positions = text(c, "position_embedding_type", "absolute");
  refuse_if(positions != "absolute", "position_embedding_type = '" + positions + "'");
  refuse_if(flag(c, "is_decoder", false), "is_decoder = true");
  refuse_if(flag(c, "add_cross_attention", false), "add_cross_attention = true");
}

// RoBERTa and XLM-R: BERT's keys (their configs inherit BERT's defaults), then position ids from pad_token_id + 1
// (RobertaEmbeddings' padding_idx): max_position_embeddings rows hold pad_token_id + 1 unused ones.
void read_roberta(const Json& c, CheckpointConfig& m) {
  read_bert(c, m);
  const std::size_t table = m.max_positions;
  const std::size_t pad = whole(c, "pad_token_id", 1);
  if (pad >= m.vocab)
    throw Error("config.json: pad_token_id " + std::to_string(pad) + " is not a token of the vocabulary's " +
                std::to_string(m.vocab));
  if (table <= pad + 1)
    throw Error("config.json: max_position_embeddings " + std::to_string(table) + " leaves no position: RoBERTa's " +
                "count from pad_token_id + 1 = " + std::to_string(pad + 1));
  m.padding_idx = std::int64_t(pad);
  m.max_positions = table - pad - 1;
}

void read_distilbert(const Json& c, CheckpointConfig& m) {
  m.d_model = count(c, {"dim"});
  m.layers = count(c, {"n_layers"});
  m.heads = m.kv_heads = count(c, {"n_heads"});
  m.d_ff = count(c, {"hidden_dim"});
  m.vocab = count(c, {"vocab_size"});
  m.max_positions = count(c, {"max_position_embeddings"}, 512);
  m.norm_eps = 1e-12;  // DistilBERT's LayerNorms are built with eps=1e-12, whatever the config says
  m.activation = text(c, "activation", "gelu");
}

// The sizes every config since Llama names alike: hidden_size, num_hidden_layers, num_attention_heads,
// num_key_value_heads (the heads unless set), intermediate_size, vocab_size, max_position_embeddings (or positions).
void read_sizes(const Json& c, CheckpointConfig& m, std::size_t positions) {
  m.d_model = count(c, {"hidden_size"});
  m.layers = count(c, {"num_hidden_layers"});
  m.heads = count(c, {"num_attention_heads"});
  m.kv_heads = count(c, {"num_key_value_heads"}, m.heads);
  m.d_ff = count(c, {"intermediate_size"});
  m.vocab = count(c, {"vocab_size"});
  m.max_positions = count(c, {"max_position_embeddings"}, positions);
  m.causal = true;
}

// A whole number >= 0 (a count that may be 0), else fallback.
// SmolLM3's no_rope_layers as SmolLM3Config expands it: one 0 or 1 a layer (1: rotary embeddings), by default 0 on
// every no_rope_layer_interval-th layer (4 unless set). Returns each layer's "no rotary" flag.
std::vector<bool> smollm3_no_rope(const Json& c, std::size_t layers) {
  std::vector<bool> out(layers, false);
  const Json* list = member(c, "no_rope_layers");
  if (!list) {
    const std::size_t every = count(c, {"no_rope_layer_interval"}, 4);
    for (std::size_t l = 0; l < layers; ++l) out[l] = (l + 1) % every == 0;
    return out;
  }
  if (list->kind != Json::Array || list->items.size() != layers)
    throw Error("config.json: 'no_rope_layers' must be a list of one 0 or 1 per layer (" + std::to_string(layers) +
                " layers)");
  for (std::size_t l = 0; l < layers; ++l) {
    const Json& v = list->items[l];
    if (v.kind != Json::Number || (v.number() != 0.0 && v.number() != 1.0))
      throw Error("config.json: 'no_rope_layers' entry " + std::to_string(l) + " must be 0 (no rotary embeddings) or " +
                  "1, got " + v.text);
    out[l] = v.number() == 0.0;
  }
  return out;
}

// Each layer's sliding window as transformers 5.x's configs give it (0: full attention). Mistral: sliding_window on
// every layer (4096 when the key is absent, none when null; layer_types ignored, as MistralConfig ignores it). Qwen2
// and Qwen3: sliding_window (4096 unless set) only with use_sliding_window, on the layers layer_types names
// "sliding_attention", by default those from max_window_layers (28 unless set) on. SmolLM3: sliding_window (none unless
// set) on the layers layer_types names, by default (with use_sliding_window) those without rotary embeddings. Llama:
// none.
std::vector<std::size_t> llama_windows(const Json& c, const CheckpointConfig& m) {
  std::vector<std::size_t> out(m.layers, 0);
  const bool mistral = m.model_type == "mistral", qwen = m.model_type == "qwen2" || m.model_type == "qwen3";
  const bool smollm3 = m.model_type == "smollm3";
  const Json* key = c.find("sliding_window");
  const bool on = mistral || (qwen && flag(c, "use_sliding_window", false)) || smollm3;
  const std::size_t fallback = smollm3 ? 0 : 4096;
  const std::size_t window = !on ? 0 : !key ? fallback : key->kind == Json::Null ? 0 : count(c, {"sliding_window"});
  if (mistral) return std::vector<std::size_t>(m.layers, window);
  const Json* types = member(c, "layer_types");
  if (!types && smollm3) {
    for (std::size_t l = 0; flag(c, "use_sliding_window", false) && l < m.layers; ++l)
      out[l] = m.no_rope.at(l) ? window : 0;
    return out;
  }
  if (!types) {
    for (std::size_t l = whole(c, "max_window_layers", 28); qwen && window && l < m.layers; ++l) out[l] = window;
    return out;
  }
  if (types->kind != Json::Array || types->items.size() != m.layers)
    throw Error("config.json: 'layer_types' must be a list of one string per layer (" + std::to_string(m.layers) +
                " layers)");
  for (std::size_t l = 0; l < m.layers; ++l) {
    const Json& t = types->items[l];
    const bool sliding = t.kind == Json::String && t.text == "sliding_attention";
    refuse_if(!sliding && !(t.kind == Json::String && (t.text == "full_attention" || t.text == "attention")),
              "layer_types entry '" + t.text + "' (full_attention and sliding_attention are computed)");
    refuse_if(sliding && !qwen && !smollm3, "layer_types entry 'sliding_attention' in a " + m.model_type + " model");
    if (sliding && !window)
      throw Error("config.json: 'layer_types' names layer " + std::to_string(l) +
                  " 'sliding_attention' but the config has no window (use_sliding_window false or sliding_window "
                  "null): transformers refuses it too");
    out[l] = sliding ? window : 0;
  }
  return out;
}

// Llama, Mistral (no biases, sliding_window), Qwen2 (q/k/v biases always, no head_dim key), Qwen3 (head_dim 128
// unless set, q_norm / k_norm) and SmolLM3 (no_rope_layers, rope_theta 2e6 unless set); the sliding windows of
// llama_windows.
void read_llama(const Json& c, CheckpointConfig& m) {
  const bool qwen2 = m.model_type == "qwen2", qwen3 = m.model_type == "qwen3", mistral = m.model_type == "mistral";
  const bool smollm3 = m.model_type == "smollm3";
  read_sizes(c, m, mistral ? 131072 : qwen2 || qwen3 || smollm3 ? 32768 : 2048);
  m.head_dim = qwen2 ? 0 : qwen3 ? count(c, {"head_dim"}, 128) : (member(c, "head_dim") ? count(c, {"head_dim"}) : 0);
  m.norm_eps = number(c, "rms_norm_eps", 1e-6);
  m.activation = text(c, "hidden_act", "silu");
  m.attention_bias = qwen2 || (!mistral && flag(c, "attention_bias", false));
  m.mlp_bias = !qwen2 && !mistral && flag(c, "mlp_bias", false);
  if (smollm3) m.no_rope = smollm3_no_rope(c, m.layers);
  m.windows = llama_windows(c, m);
  set_head_dim(m);
  read_rope(c, m, "rope_theta", "partial_rotary_factor", 1.0, smollm3 ? 2e6 : 1e4);
  refuse_if(m.rotary_dim != m.head_dim, "partial_rotary_factor other than 1");
}

// A soft cap: a positive number, or null (none: 0); fallback when the key is absent.
double softcap(const Json& c, const char* key, double fallback) {
  const Json* v = c.find(key);
  if (v && v->kind == Json::Null) return 0.0;
  if (!v) return fallback;
  const double cap = number(c, key, fallback);
  if (!(cap > 0.0 && std::isfinite(cap)))
    throw Error("config.json: '" + std::string(key) + "' must be a positive number or null, got " + v->text);
  return cap;
}

// One kind of layer's rope parameters (an object {"rope_type", "rope_theta", "factor"?}) over theta and, where
// linear scaling is computed (factor not null), its factor.
void read_rope_kind(const Json* p, const std::string& name, double& theta, double* factor) {
  if (!p) return;
  if (p->kind != Json::Object) throw Error("config.json: '" + name + "' must be an object");
  const std::string type = text(*p, "rope_type", text(*p, "type", "default"));
  theta = number(*p, "rope_theta", theta);
  refuse_if(number(*p, "partial_rotary_factor", 1.0) != 1.0, name + ".partial_rotary_factor other than 1");
  if (type == "linear" && factor) {
    *factor = number(*p, "factor", 0.0);
    if (!(*factor >= 1.0 && std::isfinite(*factor)))
      throw Error("config.json: '" + name + ".factor' must be a number >= 1 (linear rope scaling)");
    return;
  }
  refuse_if(type != "default",
            name + ".rope_type = '" + type + "' (the default rope, and linear on Gemma 3's full layers, are computed)");
}

// A rope base for each kind of layer, as Gemma3TextConfig's and ModernBertConfig's convert_rope_params_to_dict read
// them: 5.x's rope_parameters {"full_attention": {...}, "sliding_attention": {...}}, else 4.x's bases at the top under
// the family's names (with their defaults), and rope_scaling, which updates the full layers' (Gemma 3's 4b and up:
// linear, factor 8) where `linear_full` (ModernBERT's would update both kinds: refused unless default).
struct RopeKeys {
  const char* full;
  double full_default;
  const char* local;
  double local_default;
  bool linear_full;
};

void read_rope_by_type(const Json& c, CheckpointConfig& m, const RopeKeys& keys) {
  double full = number(c, keys.full, keys.full_default), local = number(c, keys.local, keys.local_default);
  double* factor = keys.linear_full ? &m.rope_factor : nullptr;
  if (const Json* p = member(c, "rope_parameters")) {
    if (p->kind != Json::Object) throw Error("config.json: 'rope_parameters' must be an object");
    for (const auto& [key, value] : p->members)
      refuse_if(
          key != "full_attention" && key != "sliding_attention",
          "rope_parameters." + key + " (a " + m.model_type + " model reads full_attention and sliding_attention)");
    read_rope_kind(member(*p, "full_attention"), "rope_parameters.full_attention", full, factor);
    read_rope_kind(member(*p, "sliding_attention"), "rope_parameters.sliding_attention", local, nullptr);
  }
  read_rope_kind(member(c, "rope_scaling"), "rope_scaling", full, factor);
  if (!(full > 0.0 && std::isfinite(full)) || !(local > 0.0 && std::isfinite(local)))
    throw Error("config.json: the rope_theta of the full and the sliding layers must be positive numbers");
  m.rope_theta = full;
  m.rope_local_theta = local;
  m.rotary_dim = m.head_dim;
}

// Each layer's window from layer_types (one "full_attention" or "sliding_attention" a layer), or where the config has
// none, the sliding layers by sliding_by_default(l); a sliding layer's window is `window` (0: the config gives none).
std::vector<std::size_t> typed_windows(const Json& c, std::size_t layers, std::size_t window,
                                       const std::function<bool(std::size_t)>& sliding_by_default) {
  std::vector<std::size_t> out(layers, 0);
  const Json* types = member(c, "layer_types");
  if (types && (types->kind != Json::Array || types->items.size() != layers))
    throw Error("config.json: 'layer_types' must be a list of one string per layer (" + std::to_string(layers) +
                " layers)");
  for (std::size_t l = 0; l < layers; ++l) {
    const std::string t = types ? (types->items[l].kind == Json::String ? types->items[l].text : "?")
                                : (sliding_by_default(l) ? "sliding_attention" : "full_attention");
    refuse_if(t != "sliding_attention" && t != "full_attention",
              "layer_types entry '" + t + "' (full_attention and sliding_attention are computed)");
    if (t == "sliding_attention" && !window)
      throw Error("config.json: 'layer_types' names layer " + std::to_string(l) +
                  " 'sliding_attention' but sliding_window is null");
    out[l] = t == "sliding_attention" ? window : 0;
  }
  return out;
}

// ModernBERT: ModernBertConfig's keys and defaults (norm_eps 1e-5, hidden_activation and classifier_activation gelu,
// no biases but the decoder's, 8192 positions, head_dim hidden_size / heads); layer_types, else every
// global_attn_every_n_layers-th layer (3) full from layer 0 and the others local: |i - j| <= local_attention // 2
// (128 unless set; create_bidirectional_sliding_window_mask); a rope base for each kind of layer (5.x's
// rope_parameters, 4.x's global_rope_theta 160000 and local_rope_theta 10000).
void read_modernbert(const Json& c, CheckpointConfig& m) {
  read_sizes(c, m, 8192);
  m.causal = false;
  m.kv_heads = m.heads;  // ModernBertConfig has no num_key_value_heads
  m.norm_eps = number(c, "norm_eps", 1e-5);
  m.activation = text(c, "hidden_activation", "gelu");
  m.head_activation = text(c, "classifier_activation", "gelu");
  blocks::activation_from_name(m.head_activation);  // throws naming it
  m.norm_bias = flag(c, "norm_bias", false);
  m.attention_bias = flag(c, "attention_bias", false);
  m.mlp_bias = flag(c, "mlp_bias", false);
  m.head_bias = flag(c, "classifier_bias", false);
  m.decoder_bias = flag(c, "decoder_bias", true);
  set_head_dim(m);
  const std::size_t every = count(c, {"global_attn_every_n_layers"}, 3);
  const std::size_t window = count(c, {"local_attention"}, 128) / 2 + 1;  // |i - j| < window
  m.windows = typed_windows(c, m.layers, window, [&](std::size_t l) { return l % every != 0; });
  read_rope_by_type(c, m, {"global_rope_theta", 160000.0, "local_rope_theta", 10000.0, false});
}

// Gemma 2 and Gemma 3: Gemma2Config's and Gemma3TextConfig's keys and defaults (hidden_activation gelu_pytorch_tanh,
// head_dim 256, query_pre_attn_scalar 256, sliding_window 4096 on the layers layer_types names; Gemma 2: soft caps
// 50 on the scores and 30 on the logits, the even layers sliding by default; Gemma 3: no caps, the layers sliding
// but every sliding_window_pattern-th (6), and a rope base for each kind of layer).
void read_gemma2(const Json& c, CheckpointConfig& m) {
  const bool gemma3 = m.model_type == "gemma3_text";
  read_sizes(c, m, gemma3 ? 131072 : 8192);
  m.head_dim = count(c, {"head_dim"}, 256);
  m.norm_eps = number(c, "rms_norm_eps", 1e-6);
  m.activation = text(c, "hidden_activation", "gelu_pytorch_tanh");
  m.attention_bias = flag(c, "attention_bias", false);
  refuse_if(flag(c, "use_bidirectional_attention", false), "use_bidirectional_attention = true");
  m.query_pre_attn_scalar = number(c, "query_pre_attn_scalar", 256.0);
  if (!(m.query_pre_attn_scalar > 0.0 && std::isfinite(m.query_pre_attn_scalar)))
    throw Error("config.json: 'query_pre_attn_scalar' must be a positive number");
  m.attn_softcap = softcap(c, "attn_logit_softcapping", gemma3 ? 0.0 : 50.0);
  m.final_softcap = softcap(c, "final_logit_softcapping", gemma3 ? 0.0 : 30.0);
  const std::size_t pattern = gemma3 ? count(c, {"sliding_window_pattern"}, 6) : 2;
  const Json* key = c.find("sliding_window");
  const std::size_t window = !key ? 4096 : key->kind == Json::Null ? 0 : count(c, {"sliding_window"});
  m.windows =
      typed_windows(c, m.layers, window, [&](std::size_t l) { return gemma3 ? (l + 1) % pattern != 0 : l % 2 == 0; });
  if (gemma3) return read_rope_by_type(c, m, {"rope_theta", 1e6, "rope_local_base_freq", 1e4, true});
  read_rope(c, m, "rope_theta", "partial_rotary_factor", 1.0);
  refuse_if(m.rotary_dim != m.head_dim, "partial_rotary_factor other than 1");
}

// Gemma: GemmaConfig's keys and defaults (head_dim 256, rms_norm_eps 1e-6, rope_theta 1e4, tied embeddings, 8192
// positions); hidden_act "gelu" read as gelu_pytorch_tanh, as GemmaConfig.__post_init__ rewrites it (4.x's
// hidden_activation is gone in 5.x).
void read_gemma(const Json& c, CheckpointConfig& m) {
  if (m.model_type != "gemma") return read_gemma2(c, m);
  read_sizes(c, m, 8192);
  m.head_dim = count(c, {"head_dim"}, 256);
  m.norm_eps = number(c, "rms_norm_eps", 1e-6);
  m.activation = text(c, "hidden_act", "gelu_pytorch_tanh");
  if (m.activation == "gelu") m.activation = "gelu_pytorch_tanh";
  m.attention_bias = flag(c, "attention_bias", false);
  refuse_if(flag(c, "use_bidirectional_attention", false), "use_bidirectional_attention = true");
  read_rope(c, m, "rope_theta", "partial_rotary_factor", 1.0);
  refuse_if(m.rotary_dim != m.head_dim, "partial_rotary_factor other than 1");
}

// GPT-NeoX (Pythia): 4.x's rotary_pct / rotary_emb_base or 5.x's rope_parameters (partial_rotary_factor 0.25 by
// default), use_parallel_residual, attention_bias (query_key_value's and dense's biases).
void read_gpt_neox(const Json& c, CheckpointConfig& m) {
  read_sizes(c, m, 2048);
  m.kv_heads = m.heads;  // GPTNeoXConfig has no num_key_value_heads
  m.norm_eps = number(c, "layer_norm_eps", 1e-5);
  m.activation = text(c, "hidden_act", "gelu");
  m.attention_bias = flag(c, "attention_bias", true);
  m.parallel_residual = flag(c, "use_parallel_residual", true);
  set_head_dim(m);  // hidden_size / num_attention_heads (GPT-NeoX has no head_dim key)
  read_rope(c, m, "rotary_emb_base", "rotary_pct", 0.25);
}

// GPT-Neo's attention_types: [[["global", "local"], n], ...] expanded as expand_attention_types_params does, one
// entry a layer; a local layer's window is window_size.
std::vector<std::size_t> neo_windows(const Json& c, std::size_t layers, std::size_t window) {
  const std::string shape =
      "config.json: 'attention_types' must be a list of [[\"global\" or \"local\", ...], count] pairs";
  std::vector<std::size_t> out;
  const Json* types = member(c, "attention_types");
  if (!types)  // GPTNeoConfig's default [[["global", "local"], 12]]
    for (std::size_t l = 0; l < 24; ++l) out.push_back(l % 2 ? window : 0);
  else if (types->kind != Json::Array) throw Error(shape);
  for (std::size_t i = 0; types && i < types->items.size(); ++i) {
    const Json& item = types->items[i];
    if (item.kind != Json::Array || item.items.size() != 2 || item.items[0].kind != Json::Array ||
        item.items[1].kind != Json::Number)
      throw Error(shape);
    const double n = item.items[1].number();
    if (!(n >= 0 && n <= kMaxSize && n == std::floor(n))) throw Error(shape);
    for (std::size_t r = 0; r < std::size_t(n); ++r)
      for (const Json& t : item.items[0].items) {
        if (t.kind != Json::String || (t.text != "global" && t.text != "local"))
          throw Error("config.json: 'attention_types' names an attention type other than \"global\" and \"local\"");
        if (out.size() == layers) throw Error("config.json: 'attention_types' gives more layers than num_layers");
        out.push_back(t.text == "local" ? window : 0);
      }
  }
  if (out.size() != layers)
    throw Error("config.json: 'attention_types' gives " + std::to_string(out.size()) + " layers, but num_layers is " +
                std::to_string(layers));
  return out;
}

// GPT-Neo (TinyStories): num_layers / num_heads (or their attribute_map names), attention_types, window_size.
void read_gpt_neo(const Json& c, CheckpointConfig& m) {
  m.d_model = count(c, {"hidden_size"});
  m.layers = count(c, {"num_layers", "num_hidden_layers"});
  m.heads = m.kv_heads = count(c, {"num_heads", "num_attention_heads"});
  m.d_ff = count(c, {"intermediate_size"}, 4 * m.d_model);
  m.vocab = count(c, {"vocab_size"});
  m.max_positions = count(c, {"max_position_embeddings"}, 2048);
  m.norm_eps = number(c, "layer_norm_epsilon", 1e-5);
  m.activation = text(c, "activation_function", "gelu_new");
  m.causal = true;
  m.scale_attention = false;  // GPT-Neo's scores are q·k, not divided by √head_dim
  m.windows = neo_windows(c, m.layers, count(c, {"window_size"}, 256));
}

// OPT: ffn_dim, enable_bias, do_layer_norm_before both ways; nn.LayerNorm's eps 1e-5 (OPT has no eps key). opt-350m's
// projected embeddings (word_embed_proj_dim) are refused.
void read_opt(const Json& c, CheckpointConfig& m) {
  m.d_model = count(c, {"hidden_size"});
  m.layers = count(c, {"num_hidden_layers"});
  m.heads = m.kv_heads = count(c, {"num_attention_heads"});
  m.d_ff = count(c, {"ffn_dim"});
  m.vocab = count(c, {"vocab_size"});
  m.max_positions = count(c, {"max_position_embeddings"}, 2048);
  m.norm_eps = 1e-5;
  m.activation = text(c, "activation_function", "relu");
  m.causal = true;
  m.attention_bias = flag(c, "enable_bias", true);
  m.post_norm = !flag(c, "do_layer_norm_before", true);
  refuse_if(count(c, {"word_embed_proj_dim"}, m.d_model) != m.d_model,
            "word_embed_proj_dim other than hidden_size (opt-350m's project_in / project_out)");
  refuse_if(!flag(c, "layer_norm_elementwise_affine", true), "layer_norm_elementwise_affine = false");
  refuse_if(flag(c, "_remove_final_layer_norm", false), "_remove_final_layer_norm = true");
}

// Phi (phi-1_5, phi-2): LayerNorms, partial rotary (partial_rotary_factor 0.5 unless set, 4.x's at the top or 5.x's in
// rope_parameters), gelu_new, the parallel residual; qk_layernorm (no released checkpoint sets it) refused by name.
void read_phi(const Json& c, CheckpointConfig& m) {
  read_sizes(c, m, 2048);
  m.head_dim = member(c, "head_dim") ? count(c, {"head_dim"}) : 0;
  m.norm_eps = number(c, "layer_norm_eps", 1e-5);
  m.activation = text(c, "hidden_act", "gelu_new");
  m.parallel_residual = true;
  refuse_if(flag(c, "qk_layernorm", false), "qk_layernorm = true");
  set_head_dim(m);
  read_rope(c, m, "rope_theta", "partial_rotary_factor", 0.5);
}

void check_sizes(CheckpointConfig& m) {
  set_head_dim(m);
  if (m.heads % m.kv_heads != 0)
    throw Error("config.json: " + std::to_string(m.heads) + " attention heads cannot share " +
                std::to_string(m.kv_heads) +
                " key/value heads (num_attention_heads must be a multiple of num_key_value_heads)");
  if (!(m.norm_eps >= 0.0)) throw Error("config.json: the norm's epsilon must be a number >= 0");
  blocks::activation_from_name(m.activation);  // throws naming it
}

}  // namespace

const char* family_name(Family family) { return kFamilyNames.at(static_cast<std::size_t>(family)); }

CheckpointConfig parse_checkpoint_config(const std::string& config_json) {
  const Json c = json::parse(config_json, "config.json");
  if (c.kind != Json::Object) throw Error("config.json must hold a JSON object");
  refuse_if(flag(c, "alibi", false), "alibi = true (ALiBi attention biases)");
  CheckpointConfig m;
  m.model_type = text(c, "model_type", "");
  if (m.model_type.empty()) refuse("a config without 'model_type'");
  const ModelType* type = nullptr;
  for (const ModelType& t : kModelTypes)
    if (m.model_type == t.name) type = &t;
  refuse_if(m.model_type == "gemma3",
            "model_type 'gemma3' (Gemma 3's image-text checkpoints, 4b and up; its text models gemma-3-270m and "
            "gemma-3-1b, model_type 'gemma3_text', are computed)");
  if (!type) refuse("model_type '" + m.model_type + "'");
  m.family = type->family;
  const bool untied = (m.family == Family::Llama && m.model_type != "smollm3") || m.family == Family::GPTNeoX ||
                      m.family == Family::Phi;  // SmolLM3Config ties them by default
  m.tie_word_embeddings = flag(c, "tie_word_embeddings", !untied);
  switch (m.family) {
    case Family::GPT2: read_gpt2(c, m); break;
    case Family::BERT: read_bert(c, m); break;
    case Family::DistilBERT: read_distilbert(c, m); break;
    case Family::Llama: read_llama(c, m); break;
    case Family::GPTNeoX: read_gpt_neox(c, m); break;
    case Family::GPTNeo: read_gpt_neo(c, m); break;
    case Family::OPT: read_opt(c, m); break;
    case Family::Phi: read_phi(c, m); break;
    case Family::RoBERTa: read_roberta(c, m); break;
    case Family::Gemma: read_gemma(c, m); break;
    case Family::ModernBERT: read_modernbert(c, m); break;
    case Family::COUNT: break;
  }
  check_sizes(m);
  if (m.windows.empty()) m.windows.assign(m.layers, 0);
  return m;
}

}  // namespace mha
