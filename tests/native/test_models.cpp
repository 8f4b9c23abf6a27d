// Real checkpoints (mha/models.hpp) against transformers: every case the oracle writes
// (tests/models/make_checkpoints.py: DIR/index.json, DIR/<case>/ with the checkpoint as
// save_pretrained wrote it and oracle-<k>.safetensors with transformers' float64 run and a bound
// on any float32 implementation's error), plus the refusals and errors a student meets.
// First: json.hpp's Parser calls quoted(key) on a non-const std::string, which picks std::quoted when
// <iomanip> (Catch2) is already declared under libc++ (wasm).
#include "ground/json.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>

#include "mha/error.hpp"
#include "mha/models.hpp"
#include "test_model_fixtures.hpp"

using namespace mha;
using namespace mha_test;

namespace {

// Any JSON value (the core's parser reads documents that are objects): index.json, "ids", ...
json::Value parse_value(const std::string& text, const std::string& name) {
  return json::parse("{\"v\": " + text + "}", name).members.at(0).second;
}

std::vector<std::size_t> whole_numbers(const json::Value& array) {
  std::vector<std::size_t> out;
  for (const json::Value& v : array.items) out.push_back(std::size_t(v.number()));
  return out;
}

struct OracleCase {
  std::string name, family, dtype;
  std::vector<std::string> oracles;  // oracle-<k>.safetensors
};

std::vector<OracleCase> oracle_cases() {
  const json::Value index = parse_value(read_text(kModelFixtures + "/index.json"), "index.json");
  std::vector<OracleCase> out;
  for (const json::Value& c : index.items) {
    OracleCase oc{c.find("case")->text, c.find("family")->text, c.find("dtype")->text, {}};
    for (const json::Value& f : c.find("oracles")->items) oc.oracles.push_back(f.text);
    out.push_back(oc);
  }
  return out;
}

std::vector<std::int32_t> ids_of(const OracleFile& oracle) {
  const json::Value ids = parse_value(oracle.meta.at("ids"), "ids");
  std::vector<std::int32_t> out;
  for (const json::Value& v : ids.items) out.push_back(std::int32_t(v.number()));
  return out;
}

std::vector<HeadRef> heads_off_of(const OracleFile& oracle) {
  std::vector<HeadRef> out;
  const auto it = oracle.meta.find("heads_off");
  if (it == oracle.meta.end()) return out;
  for (const json::Value& pair : parse_value(it->second, "heads_off").items)
    out.push_back({std::size_t(pair.items.at(0).number()), std::size_t(pair.items.at(1).number())});
  return out;
}

Checkpoint fixture(const std::string& name) { return read_checkpoint(kModelFixtures + "/" + name); }

// The same tensors without `drop`, or with `reshaped` given another shape.
std::shared_ptr<const Weights> edited(const Checkpoint& c, const std::string& drop, const std::string& reshaped = "") {
  std::vector<WeightRef> tensors;
  for (const WeightRef& w : c.weights->tensors()) {
    if (w.name == drop) continue;
    tensors.push_back(w);
    if (w.name == reshaped) tensors.back().shape.back() -= 1;
  }
  return std::make_shared<Weights>(tensors, std::vector<std::shared_ptr<void>>{});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("every oracle case: attentions, hidden state, logits and ablated logits within transformers' float32 bounds",
          "[models][oracle]") {
  const std::vector<OracleCase> cases = oracle_cases();
  REQUIRE(!cases.empty());
  for (const OracleCase& oc : cases) {
    DYNAMIC_SECTION(oc.name << " (" << oc.family << ", " << oc.dtype << ")") {
      const Checkpoint c = fixture(oc.name);
      Model model(c.config, c.weights);
      REQUIRE(!oc.oracles.empty());
#ifdef MHA_ORACLE_FILES_PER_CASE
      const std::size_t files = std::min<std::size_t>(oc.oracles.size(), MHA_ORACLE_FILES_PER_CASE);
#else
      const std::size_t files = oc.oracles.size();
#endif
      for (std::size_t f = 0; f < files; ++f) {
        const std::string& file = oc.oracles[f];
        INFO(file);
        const OracleFile oracle = read_oracle(kModelFixtures + "/" + oc.name + "/" + file);
        ModelForwardOptions options;
        for (std::size_t p : whole_numbers(parse_value(oracle.meta.at("logits_at"), "logits_at")))
          options.logits_at.push_back(p);
        if (!oracle.has("logits")) options.logits_at.clear();
        const ModelOutput out = model.forward(ids_of(oracle), options);
        check_within(oracle, "attentions", out.attentions);
        check_within(oracle, "hidden", out.hidden);
        if (oracle.has("logits")) check_within(oracle, "logits", out.logits);
        if (oracle.has("ablated.logits") || oracle.has("ablated.hidden")) {
          options.heads_off = heads_off_of(oracle);
          REQUIRE(!options.heads_off.empty());
          const ModelOutput ablated = model.forward(ids_of(oracle), options);
          if (oracle.has("ablated.logits")) check_within(oracle, "ablated.logits", ablated.logits);
          if (oracle.has("ablated.hidden")) check_within(oracle, "ablated.hidden", ablated.hidden);
        }
      }
    }
  }
}

TEST_CASE("model_reads_tensor: the tensors each family uses, with and without prefixes, and not the buffers",
          "[models]") {
  const CheckpointConfig gpt2 = fixture("gpt2").config;
  CHECK(model_reads_tensor(gpt2, "transformer.h.0.attn.c_attn.weight"));
  CHECK(model_reads_tensor(gpt2, "h.1.mlp.c_proj.bias"));
  CHECK(model_reads_tensor(gpt2, "wte.weight"));
  CHECK_FALSE(model_reads_tensor(gpt2, "transformer.h.0.attn.bias"));
  CHECK_FALSE(model_reads_tensor(gpt2, "h.0.attn.masked_bias"));
  CHECK_FALSE(model_reads_tensor(gpt2, "lm_head.weight"));   // tied to wte
  CHECK_FALSE(model_reads_tensor(gpt2, "h.9.ln_1.weight"));  // beyond n_layer
  const CheckpointConfig bert = fixture("bert").config;
  CHECK(model_reads_tensor(bert, "bert.embeddings.LayerNorm.gamma"));
  CHECK(model_reads_tensor(bert, "encoder.layer.0.attention.self.query.weight"));
  CHECK(model_reads_tensor(bert, "cls.predictions.bias"));
  CHECK(model_reads_tensor(bert, "cls.predictions.transform.LayerNorm.beta"));
  CHECK_FALSE(model_reads_tensor(bert, "bert.embeddings.position_ids"));
  CHECK_FALSE(model_reads_tensor(bert, "bert.pooler.dense.weight"));
  CHECK_FALSE(model_reads_tensor(bert, "cls.seq_relationship.weight"));
  CHECK_FALSE(model_reads_tensor(bert, "cls.predictions.decoder.weight"));  // tied to the word embeddings
  const CheckpointConfig distil = fixture("distilbert").config;
  CHECK(model_reads_tensor(distil, "distilbert.transformer.layer.1.ffn.lin2.bias"));
  CHECK(model_reads_tensor(distil, "vocab_projector.bias"));
  CHECK_FALSE(model_reads_tensor(distil, "vocab_projector.weight"));
  const CheckpointConfig neox = fixture("pythia").config;
  CHECK(model_reads_tensor(neox, "gpt_neox.layers.1.attention.query_key_value.bias"));
  CHECK(model_reads_tensor(neox, "embed_out.weight"));  // Pythia's name of the LM head
  CHECK(model_reads_tensor(neox, "lm_head.weight"));    // 5.x's
  CHECK_FALSE(model_reads_tensor(neox, "gpt_neox.layers.0.attention.bias"));
  CHECK_FALSE(model_reads_tensor(neox, "gpt_neox.layers.0.attention.rotary_emb.inv_freq"));
  const CheckpointConfig phi = fixture("phi").config;
  CHECK(model_reads_tensor(phi, "model.layers.1.self_attn.dense.bias"));
  CHECK(model_reads_tensor(phi, "lm_head.bias"));
  CHECK_FALSE(model_reads_tensor(phi, "model.layers.0.post_attention_layernorm.weight"));  // Phi has one norm a layer
}

TEST_CASE("GPT-Neo's config: attention_types expanded into each layer's window, hostile values named",
          "[models][config]") {
  const std::string neo =
      R"({"model_type": "gpt_neo", "hidden_size": 32, "num_layers": 4, "num_heads": 4, "vocab_size": 50)";
  const CheckpointConfig c =
      parse_checkpoint_config(neo + R"(, "attention_types": [[["global", "local"], 2]], "window_size": 7})");
  CHECK(c.family == Family::GPTNeo);
  CHECK(c.windows == std::vector<std::size_t>{0, 7, 0, 7});
  CHECK_FALSE(c.scale_attention);
  CHECK(c.d_ff == 128);  // intermediate_size null: 4 * hidden_size
  CHECK(parse_checkpoint_config(neo + R"(, "attention_types": [[["local"], 4]]})").windows ==
        std::vector<std::size_t>{256, 256, 256, 256});  // window_size 256 by default
  const auto message = [&](const std::string& tail) { return error_of([&] { parse_checkpoint_config(neo + tail); }); };
  CHECK(message(R"(, "attention_types": [[["global", "local"], 2]], "window_size": 0})").find("'window_size'") !=
        std::string::npos);
  CHECK(message(R"(, "attention_types": [[["global"], 3]]})").find("gives 3 layers, but num_layers is 4") !=
        std::string::npos);
  CHECK(message(R"(, "attention_types": [[["global"], 1000000]]})").find("more layers than num_layers") !=
        std::string::npos);
  CHECK(message(R"(, "attention_types": [[["sliding"], 4]]})").find("other than \"global\" and \"local\"") !=
        std::string::npos);
  CHECK(message(R"(, "attention_types": ["global"]})").find("'attention_types' must be a list") != std::string::npos);
  CHECK(message("}").find("gives 24 layers") != std::string::npos);  // GPTNeoConfig's default: 12 x [global, local]
  CHECK(parse_checkpoint_config(R"({"model_type": "gpt2", "n_embd": 32, "n_layer": 2, "n_head": 4, "vocab_size": 50,
    "n_positions": 16})")
            .windows == std::vector<std::size_t>{0, 0});
}

TEST_CASE("OPT's config: do_layer_norm_before both ways, opt-350m's projected embeddings refused by name",
          "[models][config]") {
  const std::string opt =
      R"({"model_type": "opt", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "ffn_dim": 64,
    "vocab_size": 50)";
  const CheckpointConfig pre = parse_checkpoint_config(opt + "}");
  CHECK(pre.family == Family::OPT);
  CHECK_FALSE(pre.post_norm);
  CHECK(pre.activation == "relu");
  CHECK(pre.max_positions == 2048);
  CHECK(parse_checkpoint_config(opt + R"(, "do_layer_norm_before": false, "word_embed_proj_dim": 32})").post_norm);
  const auto message = [&](const std::string& tail) { return error_of([&] { parse_checkpoint_config(opt + tail); }); };
  CHECK(message(R"(, "word_embed_proj_dim": 16})").find("word_embed_proj_dim") != std::string::npos);
  CHECK(message(R"(, "layer_norm_elementwise_affine": false})").find("layer_norm_elementwise_affine") !=
        std::string::npos);
  CHECK(message(R"(, "_remove_final_layer_norm": true})").find("_remove_final_layer_norm") != std::string::npos);
}

TEST_CASE("Qwen3's config: head_dim 128 unless set", "[models][config]") {
  const std::string qwen3 =
      R"({"model_type": "qwen3", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 64, "vocab_size": 50)";
  CHECK(parse_checkpoint_config(qwen3 + "}").head_dim == 128);
  const CheckpointConfig c = parse_checkpoint_config(qwen3 + R"(, "head_dim": 16,
    "layer_types": ["full_attention", "full_attention"]})");
  CHECK(c.family == Family::Llama);
  CHECK(c.head_dim == 16);
  CHECK_FALSE(c.attention_bias);
  CHECK(c.windows == std::vector<std::size_t>{0, 0});
}

TEST_CASE("Sliding windows of Mistral, Qwen2 and Qwen3 as transformers 5.x's configs expand them, hostile values named",
          "[models][config]") {
  const std::string body = R"("hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 64, "vocab_size": 50)";
  const auto windows = [&](const std::string& type, const std::string& tail) {
    return parse_checkpoint_config(R"({"model_type": ")" + type + "\", " + body + tail).windows;
  };
  using W = std::vector<std::size_t>;
  CHECK(windows("mistral", "}") == W{4096, 4096, 4096, 4096});  // MistralConfig's sliding_window 4096
  CHECK(windows("mistral", R"(, "sliding_window": null})") == W{0, 0, 0, 0});
  CHECK(windows("mistral", R"(, "sliding_window": 5})") == W{5, 5, 5, 5});
  CHECK(windows("qwen2", R"(, "sliding_window": 5})") == W{0, 0, 0, 0});  // use_sliding_window false
  CHECK(windows("qwen2", R"(, "use_sliding_window": true, "sliding_window": 5, "max_window_layers": 2})") ==
        W{0, 0, 5, 5});  // layers from max_window_layers on
  CHECK(windows("qwen2", R"(, "use_sliding_window": true, "sliding_window": 5})") == W{0, 0, 0, 0});  // 28 layers
  CHECK(windows("qwen2", R"(, "use_sliding_window": true, "max_window_layers": 0})") == W{4096, 4096, 4096, 4096});
  CHECK(windows("qwen3", R"(, "use_sliding_window": true, "sliding_window": 3, "max_window_layers": 1,
    "layer_types": ["sliding_attention", "full_attention", "attention", "sliding_attention"]})") == W{3, 0, 0, 3});
  CHECK(windows("llama", "}") == W{0, 0, 0, 0});
  const auto message = [&](const std::string& type, const std::string& tail) {
    return error_of([&] { windows(type, tail); });
  };
  CHECK(message("mistral", R"(, "sliding_window": 0})").find("'sliding_window' must be a whole number from 1") !=
        std::string::npos);
  CHECK(message("qwen2", R"(, "use_sliding_window": true, "sliding_window": 0})").find("'sliding_window'") !=
        std::string::npos);
  CHECK(message("qwen2", R"(, "use_sliding_window": true, "max_window_layers": -1})").find("'max_window_layers'") !=
        std::string::npos);
  CHECK(message("qwen2", R"(, "layer_types": ["full_attention", "sliding_attention", "full_attention",
    "full_attention"]})")
            .find("layer 1 'sliding_attention' but the config has no window") != std::string::npos);
  CHECK(message("qwen2", R"(, "layer_types": ["full_attention"]})").find("one string per layer") != std::string::npos);
  CHECK(message("qwen3", R"(, "layer_types": ["linear_attention", "full_attention", "full_attention",
    "full_attention"]})")
            .find("'linear_attention'") != std::string::npos);
  CHECK(message("llama", R"(, "layer_types": ["sliding_attention", "full_attention", "full_attention",
    "full_attention"]})")
            .find("'sliding_attention' in a llama model") != std::string::npos);
}

TEST_CASE("GPT-NeoX's config: 4.x's rotary_pct and rotary_emb_base, 5.x's rope_parameters, hostile values named",
          "[models][config]") {
  const std::string neox =
      R"({"model_type": "gpt_neox", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 256, "vocab_size": 50)";
  const CheckpointConfig old = parse_checkpoint_config(neox + R"(, "rotary_pct": 0.25, "rotary_emb_base": 10000,
    "rope_scaling": null, "use_parallel_residual": true, "tie_word_embeddings": false})");
  CHECK(old.family == Family::GPTNeoX);
  CHECK(old.rotary_dim == 4);  // int(16 * 0.25)
  CHECK(old.parallel_residual);
  CHECK(old.attention_bias);
  const CheckpointConfig now = parse_checkpoint_config(neox + R"(, "use_parallel_residual": false,
    "rope_parameters": {"rope_type": "default", "rope_theta": 500.0, "partial_rotary_factor": 0.5}})");
  CHECK(now.rotary_dim == 8);
  CHECK(now.rope_theta == 500.0);
  CHECK_FALSE(now.parallel_residual);
  CHECK_FALSE(now.tie_word_embeddings);                        // GPTNeoXConfig's default
  CHECK(parse_checkpoint_config(neox + "}").rotary_dim == 4);  // rotary_pct 0.25 by default
  const auto message = [&](const std::string& tail) { return error_of([&] { parse_checkpoint_config(neox + tail); }); };
  CHECK(message(R"(, "rotary_pct": 1.5})").find("'rotary_pct' must be above 0 and at most 1") != std::string::npos);
  CHECK(message(R"(, "rotary_pct": 0})").find("'rotary_pct'") != std::string::npos);
  CHECK(message(R"(, "rotary_pct": 0.1})").find("even number") != std::string::npos);  // int(16 * 0.1) = 1
  CHECK(message(R"(, "rope_parameters": {"rope_type": "dynamic", "factor": 2.0}})").find("'dynamic'") !=
        std::string::npos);
}

TEST_CASE("SmolLM3's config: no_rope_layers and its default, windows on the layers without rotary, hostile values",
          "[models][config]") {
  const std::string smol =
      R"({"model_type": "smollm3", "hidden_size": 64, "num_hidden_layers": 8, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 50)";
  using B = std::vector<bool>;
  using W = std::vector<std::size_t>;
  const CheckpointConfig c = parse_checkpoint_config(smol + "}");
  CHECK(c.family == Family::Llama);
  CHECK(c.no_rope == B{false, false, false, true, false, false, false, true});  // every 4th layer: SmolLM3Config
  CHECK(c.windows == W(8, 0));
  CHECK(c.tie_word_embeddings);  // SmolLM3Config's default, unlike Llama's
  CHECK(c.rope_theta == 2e6);
  CHECK(parse_checkpoint_config(smol + R"(, "no_rope_layer_interval": 2})").no_rope ==
        B{false, true, false, true, false, true, false, true});
  // use_sliding_window: the window on the layers without rotary embeddings (layer_types' default)
  CHECK(parse_checkpoint_config(smol + R"(, "use_sliding_window": true, "sliding_window": 3})").windows ==
        W{0, 0, 0, 3, 0, 0, 0, 3});
  CHECK(parse_checkpoint_config(smol + R"(, "use_sliding_window": true})").windows == W(8, 0));  // no window: none
  const auto message = [&](const std::string& tail) { return error_of([&] { parse_checkpoint_config(smol + tail); }); };
  CHECK(message(R"(, "no_rope_layers": [1, 0]})").find("'no_rope_layers' must be a list of one 0 or 1 per layer") !=
        std::string::npos);
  CHECK(message(R"(, "no_rope_layers": [1, 1, 1, 2, 1, 1, 1, 1]})").find("'no_rope_layers' entry 3") !=
        std::string::npos);
  CHECK(message(R"(, "no_rope_layer_interval": 0})").find("'no_rope_layer_interval'") != std::string::npos);
}

TEST_CASE("RoBERTa's config: positions after pad_token_id, XLM-R the same family, hostile values named",
          "[models][config]") {
  const std::string roberta =
      R"({"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64,
    "vocab_size": 50, "max_position_embeddings": 514)";
  const CheckpointConfig c = parse_checkpoint_config(roberta + R"(, "model_type": "roberta"})");
  CHECK(c.family == Family::RoBERTa);
  CHECK(c.padding_idx == 1);      // RobertaConfig's pad_token_id
  CHECK(c.max_positions == 512);  // roberta-base: 514 rows, 2 before the first position
  CHECK(c.tie_word_embeddings);
  CHECK_FALSE(c.causal);
  const CheckpointConfig x = parse_checkpoint_config(roberta + R"(, "model_type": "xlm-roberta", "pad_token_id": 0})");
  CHECK(x.family == Family::RoBERTa);
  CHECK(x.max_positions == 513);
  CHECK(std::string(family_name(x.family)) == "roberta");
  const auto message = [&](const std::string& tail) {
    return error_of([&] { parse_checkpoint_config(roberta + R"(, "model_type": "roberta")" + tail); });
  };
  CHECK(message(R"(, "pad_token_id": 50})").find("pad_token_id 50 is not a token") != std::string::npos);
  CHECK(message(R"(, "pad_token_id": -1})").find("'pad_token_id' must be a whole number") != std::string::npos);
  CHECK(message(R"(, "pad_token_id": 513})").find("pad_token_id 513 is not a token") != std::string::npos);
  const std::string short_table = R"({"model_type": "roberta", "hidden_size": 32, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 50, "max_position_embeddings": 2})";
  CHECK(error_of([&] { parse_checkpoint_config(short_table); }).find("leaves no position") != std::string::npos);
}

TEST_CASE("Gemma's config: head_dim 256 unless set, tied embeddings, the legacy hidden_act gelu read as tanh",
          "[models][config]") {
  const std::string gemma =
      R"({"model_type": "gemma", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 50)";
  const CheckpointConfig c = parse_checkpoint_config(gemma + "}");
  CHECK(c.family == Family::Gemma);
  CHECK(c.head_dim == 256);  // GemmaConfig's default, not hidden_size / heads
  CHECK(c.rotary_dim == 256);
  CHECK(c.tie_word_embeddings);
  CHECK(c.activation == "gelu_pytorch_tanh");
  CHECK(c.norm_eps == 1e-6);
  CHECK(c.max_positions == 8192);
  CHECK(c.rope_theta == 1e4);
  CHECK(parse_checkpoint_config(gemma + R"(, "hidden_act": "gelu"})").activation == "gelu_pytorch_tanh");
  CHECK(parse_checkpoint_config(gemma + R"(, "head_dim": 16})").head_dim == 16);
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma + R"(, "use_bidirectional_attention": true})");
        }).find("use_bidirectional_attention") != std::string::npos);
}

TEST_CASE("Gemma 2's config: soft caps 50 and 30, query_pre_attn_scalar 256, the even layers sliding, null caps none",
          "[models][config]") {
  const std::string gemma2 =
      R"({"model_type": "gemma2", "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 50)";
  const CheckpointConfig c = parse_checkpoint_config(gemma2 + "}");
  CHECK(c.family == Family::Gemma);
  CHECK(c.head_dim == 256);
  CHECK(c.activation == "gelu_pytorch_tanh");
  CHECK(c.attn_softcap == 50.0);
  CHECK(c.final_softcap == 30.0);
  CHECK(c.query_pre_attn_scalar == 256.0);
  CHECK(c.windows == std::vector<std::size_t>{4096, 0, 4096});  // "sliding_attention" if (i + 1) % 2
  const CheckpointConfig none = parse_checkpoint_config(
      gemma2 + R"(, "attn_logit_softcapping": null, "final_logit_softcapping": null, "hidden_activation": "gelu",
      "layer_types": ["full_attention", "sliding_attention", "full_attention"], "sliding_window": 7})");
  CHECK(none.attn_softcap == 0.0);
  CHECK(none.final_softcap == 0.0);
  CHECK(none.activation == "gelu");
  CHECK(none.windows == std::vector<std::size_t>{0, 7, 0});
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma2 + R"(, "attn_logit_softcapping": -1})");
        }).find("attn_logit_softcapping") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma2 + R"(, "sliding_window": null})");
        }).find("sliding_window is null") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma2 + R"(, "layer_types": ["full_attention"]})");
        }).find("one string per layer") != std::string::npos);
}

TEST_CASE(
    "Gemma 3's config: every sixth layer full, a rope base for each kind of layer, linear on the full ones, "
    "no caps",
    "[models][config]") {
  const std::string gemma3 =
      R"({"model_type": "gemma3_text", "hidden_size": 64, "num_hidden_layers": 7, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 50)";
  const CheckpointConfig c = parse_checkpoint_config(gemma3 + "}");
  CHECK(c.family == Family::Gemma);
  CHECK(c.head_dim == 256);
  CHECK(c.attn_softcap == 0.0);
  CHECK(c.final_softcap == 0.0);
  CHECK(c.query_pre_attn_scalar == 256.0);
  CHECK(c.max_positions == 131072);
  CHECK(c.windows == std::vector<std::size_t>{4096, 4096, 4096, 4096, 4096, 0, 4096});  // full if (i + 1) % 6 == 0
  CHECK(c.rope_theta == 1e6);
  CHECK(c.rope_local_theta == 1e4);
  CHECK(c.rope_factor == 1.0);
  // 4.x's keys (gemma-3-1b's config.json; 4b's rope_scaling) and a pattern of 2
  const CheckpointConfig legacy = parse_checkpoint_config(
      gemma3 + R"(, "rope_theta": 2e6, "rope_local_base_freq": 2e4, "sliding_window_pattern": 2, "sliding_window": 9,
      "rope_scaling": {"rope_type": "linear", "factor": 8.0}})");
  CHECK(legacy.windows == std::vector<std::size_t>{9, 0, 9, 0, 9, 0, 9});
  CHECK(legacy.rope_theta == 2e6);
  CHECK(legacy.rope_local_theta == 2e4);
  CHECK(legacy.rope_factor == 8.0);
  // 5.x's rope_parameters per layer type
  const CheckpointConfig v5 = parse_checkpoint_config(gemma3 + R"(, "rope_parameters": {
      "full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 3e6},
      "sliding_attention": {"rope_type": "default", "rope_theta": 3e4}}})");
  CHECK(v5.rope_theta == 3e6);
  CHECK(v5.rope_local_theta == 3e4);
  CHECK(v5.rope_factor == 4.0);
  CHECK(error_of([&] {
          parse_checkpoint_config(
              gemma3 + R"(, "rope_parameters": {"sliding_attention": {"rope_type": "linear", "factor": 2}}})");
        }).find("rope_parameters.sliding_attention.rope_type = 'linear'") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma3 + R"(, "rope_parameters": {"full_attention": {"rope_type": "yarn"}}})");
        }).find("'yarn'") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma3 +
                                  R"(, "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 0}}})");
        }).find("factor") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma3 + R"(, "rope_parameters": {"rope_type": "default"}})");
        }).find("rope_parameters.rope_type") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(gemma3 + R"(, "use_bidirectional_attention": true})");
        }).find("use_bidirectional_attention") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(R"({"model_type": "gemma3", "text_config": {}})");
        }).find("gemma3_text") != std::string::npos);
}

TEST_CASE(
    "ModernBERT's config: an encoder, every third layer full, local layers |i - j| <= local_attention / 2, a rope "
    "base for each kind of layer, biases off but the decoder's",
    "[models][config]") {
  const std::string modernbert =
      R"({"model_type": "modernbert", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
    "intermediate_size": 96, "vocab_size": 50)";
  const CheckpointConfig c = parse_checkpoint_config(modernbert + "}");
  CHECK(c.family == Family::ModernBERT);
  CHECK_FALSE(c.causal);
  CHECK(c.head_dim == 16);
  CHECK(c.kv_heads == 4);
  CHECK(c.max_positions == 8192);
  CHECK(c.norm_eps == 1e-5);
  CHECK(c.activation == "gelu");
  CHECK(c.head_activation == "gelu");
  CHECK_FALSE(c.norm_bias);
  CHECK_FALSE(c.attention_bias);
  CHECK_FALSE(c.mlp_bias);
  CHECK_FALSE(c.head_bias);
  CHECK(c.decoder_bias);
  CHECK(c.tie_word_embeddings);
  CHECK(c.windows == std::vector<std::size_t>{0, 65, 65, 0});  // local_attention 128: |i - j| <= 64
  CHECK(c.rope_theta == 160000.0);
  CHECK(c.rope_local_theta == 10000.0);
  // 4.x's keys (ModernBERT-base's config.json) and 5.x's layer_types and rope_parameters
  const CheckpointConfig legacy = parse_checkpoint_config(
      modernbert + R"(, "global_rope_theta": 80000.0, "local_rope_theta": 5000.0, "global_attn_every_n_layers": 2,
      "local_attention": 8, "norm_bias": true, "classifier_activation": "silu", "decoder_bias": false})");
  CHECK(legacy.windows == std::vector<std::size_t>{0, 5, 0, 5});
  CHECK(legacy.rope_theta == 80000.0);
  CHECK(legacy.rope_local_theta == 5000.0);
  CHECK(legacy.norm_bias);
  CHECK_FALSE(legacy.decoder_bias);
  CHECK(legacy.head_activation == "silu");
  const CheckpointConfig v5 = parse_checkpoint_config(modernbert + R"(, "local_attention": 4,
      "layer_types": ["sliding_attention", "full_attention", "full_attention", "sliding_attention"],
      "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 3e5},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 3e3}}})");
  CHECK(v5.windows == std::vector<std::size_t>{3, 0, 0, 3});
  CHECK(v5.rope_theta == 3e5);
  CHECK(v5.rope_local_theta == 3e3);
  CHECK(error_of([&] {
          parse_checkpoint_config(modernbert + R"(, "rope_scaling": {"rope_type": "linear", "factor": 2}})");
        }).find("rope_scaling.rope_type = 'linear'") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(modernbert + R"(, "layer_types": ["full_attention", "chunked_attention",
              "full_attention", "full_attention"]})");
        }).find("'chunked_attention'") != std::string::npos);
  CHECK(error_of([&] {
          parse_checkpoint_config(modernbert + R"(, "classifier_activation": "gelu_fast"})");
        }).find("gelu_fast") != std::string::npos);
}

TEST_CASE("Phi's config: partial rotary 0.5 unless set, the parallel residual, hostile values named",
          "[models][config]") {
  const std::string phi =
      R"({"model_type": "phi", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 256, "vocab_size": 50)";
  const CheckpointConfig c = parse_checkpoint_config(phi + "}");
  CHECK(c.family == Family::Phi);
  CHECK(c.rotary_dim == 8);  // int(16 * 0.5)
  CHECK(c.parallel_residual);
  CHECK(c.activation == "gelu_new");
  CHECK_FALSE(c.tie_word_embeddings);                                                           // PhiConfig's default
  CHECK(parse_checkpoint_config(phi + R"(, "partial_rotary_factor": 0.25})").rotary_dim == 4);  // 4.x's key
  CHECK(parse_checkpoint_config(phi + R"(, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
    "partial_rotary_factor": 1.0}})")
            .rotary_dim == 16);
  const auto message = [&](const std::string& tail) { return error_of([&] { parse_checkpoint_config(phi + tail); }); };
  CHECK(message(R"(, "partial_rotary_factor": 1.5})").find("'partial_rotary_factor' must be above 0 and at most 1") !=
        std::string::npos);
  CHECK(message(R"(, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 2}})")
            .find("'rope_parameters.partial_rotary_factor'") != std::string::npos);
  CHECK(message(R"(, "qk_layernorm": true})").find("qk_layernorm") != std::string::npos);
  CHECK(message(R"(, "head_dim": 0})").find("'head_dim'") != std::string::npos);
  // a head_dim the weights do not have: the first projection it sizes is named with both shapes
  Checkpoint ck = fixture("phi");
  const std::string wrong = error_of([&] {
    CheckpointConfig bad = ck.config;
    bad.head_dim = 2 * ck.config.head_dim;
    Model(bad, ck.weights);
  });
  INFO(wrong);
  CHECK(wrong.find("'model.layers.0.self_attn.q_proj.weight' has shape") != std::string::npos);
  CHECK(wrong.find("heads of " + std::to_string(2 * ck.config.head_dim)) != std::string::npos);
}

TEST_CASE("config options the core does not compute are refused by name, with what is supported", "[models][config]") {
  const auto refused = [](const std::string& json, const std::string& named) {
    const std::string message = error_of([&] { parse_checkpoint_config(json); });
    INFO(message);
    CHECK(message.find(named) != std::string::npos);
    CHECK(message.find("gpt2, bert, distilbert, llama, qwen2") != std::string::npos);
  };
  const std::string gpt2 =
      R"({"model_type": "gpt2", "n_embd": 32, "n_layer": 2, "n_head": 4, "vocab_size": 50, "n_positions": 16)";
  const std::string llama =
      R"({"model_type": "llama", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 40, "vocab_size": 50)";
  refused(gpt2 + R"(, "scale_attn_by_inverse_layer_idx": true})", "scale_attn_by_inverse_layer_idx");
  refused(gpt2 + R"(, "reorder_and_upcast_attn": true})", "reorder_and_upcast_attn");
  refused(gpt2 + R"(, "alibi": true})", "alibi");
  refused(llama + R"(, "rope_scaling": {"rope_type": "linear", "factor": 2.0}})", "rope_scaling");
  refused(R"({"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 40, "vocab_size": 50, "position_embedding_type": "relative_key"})",
          "relative_key");
  refused(R"({"model_type": "t5", "d_model": 32})", "model_type 't5'");
  CHECK(error_of([&] { parse_checkpoint_config(gpt2 + R"(, "activation_function": "mish"})"); }).find("'mish'") !=
        std::string::npos);
  CHECK(error_of([&] { parse_checkpoint_config(llama + R"(, "num_key_value_heads": 3})"); }).find("key/value heads") !=
        std::string::npos);
  CHECK(error_of([&] { parse_checkpoint_config("{\"model_type\": "); }).find("not valid JSON") != std::string::npos);
  // Accepted: explicit defaults and rope_scaling null.
  const CheckpointConfig ok =
      parse_checkpoint_config(llama + R"(, "rope_scaling": null, "num_key_value_heads": 2, "rope_theta": 500000.0})");
  CHECK(ok.family == Family::Llama);
  CHECK(ok.kv_heads == 2);
  CHECK(ok.head_dim == 8);
  CHECK(ok.rope_theta == 500000.0);
  CHECK_FALSE(ok.tie_word_embeddings);
}

TEST_CASE("a missing tensor or a tensor of the wrong shape is named", "[models][errors]") {
  const Checkpoint c = fixture("gpt2");  // no prefix, as gpt2's own file
  const std::size_t D = c.config.d_model;
  std::string message = error_of([&] { Model(c.config, edited(c, "h.1.mlp.c_fc.weight")); });
  INFO(message);
  CHECK(message.find("no tensor 'h.1.mlp.c_fc.weight'") != std::string::npos);
  message = error_of([&] { Model(c.config, edited(c, "", "h.0.attn.c_attn.weight")); });
  CHECK(message.find("'h.0.attn.c_attn.weight' has shape " + to_string(Shape{D, 3 * D - 1})) != std::string::npos);
  CHECK(message.find("needs " + to_string(Shape{D, 3 * D})) != std::string::npos);
  message = error_of([&] { Model(c.config, edited(c, "wte.weight")); });
  CHECK(message.find("neither 'transformer.wte.weight' nor 'wte.weight'") != std::string::npos);
  const Checkpoint prefixed = fixture("distilgpt2");
  message = error_of([&] { Model(prefixed.config, edited(prefixed, "transformer.ln_f.bias")); });
  CHECK(message.find("no tensor 'transformer.ln_f.bias'") != std::string::npos);
  const Checkpoint bert = fixture("bert");
  message = error_of([&] { Model(bert.config, edited(bert, "cls.predictions.transform.LayerNorm.weight")); });
  CHECK(message.find("cls.predictions.transform.LayerNorm.weight") != std::string::npos);
}

TEST_CASE("ids out of range, too many tokens, unknown heads and positions are refused with their numbers",
          "[models][errors]") {
  const Checkpoint c = fixture("gpt2");
  Model model(c.config, c.weights);
  const std::size_t V = c.config.vocab, P = c.config.max_positions;
  CHECK(error_of([&] {
          model.forward({1, std::int32_t(V)}, {});
        }).find("id " + std::to_string(V)) != std::string::npos);
  CHECK(error_of([&] { model.forward({-1}, {}); }).find("id -1") != std::string::npos);
  CHECK(error_of([&] { model.forward({}, {}); }).find("at least one token") != std::string::npos);
  CHECK(error_of([&] {
          model.forward(std::vector<std::int32_t>(P + 1, 1), {});
        }).find(std::to_string(P) + " positions") != std::string::npos);
  CHECK_NOTHROW(model.forward(std::vector<std::int32_t>(P, 1), {}));
  ModelForwardOptions bad_head;
  bad_head.heads_off = {{0, c.config.heads}};
  CHECK(error_of([&] { model.forward({1, 2}, bad_head); }).find("no head") != std::string::npos);
  ModelForwardOptions bad_position;
  bad_position.logits_at = {2};
  CHECK(error_of([&] { model.forward({1, 2}, bad_position); }).find("position 2") != std::string::npos);
  const Checkpoint encoder = fixture("bert-noprefix");
  Model bare(encoder.config, encoder.weights);
  CHECK_FALSE(bare.has_lm_head());
  CHECK(bare.forward({1, 2, 3}, {}).logits.numel() == 0);
  CHECK(error_of([&] { bare.forward({1, 2, 3}, bad_position); }).find("no language-model head") != std::string::npos);
}

TEST_CASE("the trace: every layer's steps tagged, RoPE and repeat_kv where used, the weights' shape",
          "[models][trace]") {
  const Checkpoint c = fixture("llama");
  Model model(c.config, c.weights);
  const ModelOutput out = model.forward({3, 1, 4, 1, 5}, {});
  const std::size_t T = 5, H = c.config.heads, KV = c.config.kv_heads, hd = c.config.head_dim;
  REQUIRE(KV < H);
  std::vector<std::string> layer0;
  for (const TraceStep& s : out.trace)
    if (s.layer == 0) layer0.push_back(s.op);
  const std::vector<std::string> expected{
      "norm",        "query",      "key",      "value",         "query_heads",     "key_heads",
      "value_heads", "rope_query", "rope_key", "repeat_kv_key", "repeat_kv_value", "scores",
      "softmax",     "context",    "merge",    "output",        "residual",        "norm",
      "mlp",         "residual"};
  CHECK(layer0 == expected);
  std::size_t softmaxes = 0;
  for (const TraceStep& s : out.trace) {
    if (s.op == "key_heads") CHECK(s.layout.shape == Shape{1, KV, T, hd});
    if (s.op == "softmax") {
      ++softmaxes;
      CHECK(s.weights == Shape{1, H, T, T});
    }
  }
  CHECK(softmaxes == c.config.layers);
  CHECK(out.trace.front().op == "tokens");
  CHECK(out.trace.back().op == "readout");
  CHECK(out.trace.back().layout.shape == Shape{1, c.config.vocab});
  // GPT-2: q, k, v are strided views of c_attn's q‖k‖v.
  const Checkpoint g = fixture("gpt2");
  const ModelOutput go = Model(g.config, g.weights).forward({1, 2, 3}, {});
  const std::size_t D = g.config.d_model;
  for (const TraceStep& s : go.trace)
    if (s.op == "query" && s.layer == 0)
      CHECK(s.layout.strides == Strides{std::ptrdiff_t(9 * D), std::ptrdiff_t(3 * D), 1});
}

// Under AddressSanitizer the program keeps ASan's own operator new (replacing it beside ASan's runtime
// mixes the two: alloc-dealloc-mismatch), so the out-of-memory case runs in the release and wasm builds.
#ifndef __SANITIZE_ADDRESS__
// Every allocation of the test program goes through here; armed with a size, the next request of exactly
// that many bytes throws std::bad_alloc once (an out-of-memory for one chosen allocation). Not inlined:
// GCC would then see free() take what a new-expression returned (-Wmismatched-new-delete).
namespace {
std::size_t g_fail_size = 0;
}  // namespace

[[gnu::noinline]] void* operator new(std::size_t n) {
  if (g_fail_size != 0 && n == g_fail_size) {
    g_fail_size = 0;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

// Same shape and the same bits at every element.
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  return a.numel() == 0 || std::memcmp(a.data(), b.data(), a.numel() * sizeof(float)) == 0;
}

ModelForwardOptions without_attentions(std::vector<HeadRef> heads_off, std::vector<std::size_t> logits_at) {
  ModelForwardOptions o;
  o.heads_off = std::move(heads_off);
  o.logits_at = std::move(logits_at);
  o.attentions = false;
  return o;
}

}  // namespace

TEST_CASE("a forward resumed from the activations cache is bit-identical to the whole forward", "[models][cache]") {
  for (const char* name : {"gpt2", "bert", "bert-noprefix", "distilbert", "llama", "qwen2-bf16"}) {
    DYNAMIC_SECTION(name) {
      const Checkpoint c = fixture(name);
      const std::size_t L = c.config.layers, H = c.config.heads;
      REQUIRE(L >= 2);
      Model cached(c.config, c.weights), reference(c.config, c.weights);
      const std::vector<std::int32_t> ids{3, 1, 4, 1, 5, 9, 2};
      const std::vector<std::size_t> at =
          cached.has_lm_head() ? std::vector<std::size_t>{1, 6} : std::vector<std::size_t>{};
      const ModelOutput full = cached.forward(ids, {{}, at});
      CHECK(full.first_layer == 0);
      for (std::size_t l = 0; l < L; ++l) {
        INFO("head " << l % H << " of layer " << l << " off");
        ModelForwardOptions whole{{{l, l % H}}, at};
        const ModelOutput expected = reference.forward(ids, whole);
        const ModelOutput resumed = cached.forward(ids, without_attentions({{l, l % H}}, at));
        CHECK(resumed.first_layer == l);
        CHECK(resumed.attentions.numel() == 0);
        CHECK(same_bits(resumed.hidden, expected.hidden));
        CHECK(same_bits(resumed.logits, expected.logits));
        CHECK(resumed.trace.size() == expected.trace.size());
      }
      // Heads in several layers: from the lowest; none: only the last norm and the head.
      const ModelOutput two = cached.forward(ids, without_attentions({{L - 1, 0}, {1, H - 1}}, at));
      CHECK(two.first_layer == 1);
      CHECK(same_bits(two.hidden, reference.forward(ids, {{{1, H - 1}, {L - 1, 0}}, at}).hidden));
      const ModelOutput none = cached.forward(ids, without_attentions({}, at));
      CHECK(none.first_layer == L);
      CHECK(same_bits(none.hidden, full.hidden));
      CHECK(same_bits(none.logits, full.logits));
    }
  }
}

TEST_CASE("the activations cache: other ids replace it, an ablated forward fills it up to its first head off",
          "[models][cache]") {
  const Checkpoint c = fixture("llama");
  const std::size_t L = c.config.layers;
  REQUIRE(L >= 2);
  Model model(c.config, c.weights), reference(c.config, c.weights);
  const std::vector<std::int32_t> ids{7, 3, 9, 2}, other{7, 3, 9, 5};
  model.forward(ids, {});
  CHECK(model.forward(other, without_attentions({{L - 1, 1}}, {})).first_layer == 0);    // other ids: from the start
  CHECK(model.forward(ids, without_attentions({{L - 1, 1}}, {})).first_layer == 0);      // ids again: replaced too
  CHECK(model.forward(ids, without_attentions({{L - 1, 0}}, {})).first_layer == L - 1);  // filled up to L - 1
  CHECK(model.forward(ids, without_attentions({}, {})).first_layer == L - 1);            // the rest was never computed
  CHECK(model.forward(ids, without_attentions({}, {})).first_layer == L);                // ... until now
  const ModelOutput after = model.forward(ids, without_attentions({{0, 0}}, {}));
  CHECK(after.first_layer == 0);
  CHECK(same_bits(after.logits, reference.forward(ids, {{{0, 0}}, {}}).logits));
  // With attentions the forward computes every layer (their softmax), whatever the cache holds.
  const ModelOutput with = model.forward(ids, {{{L - 1, 0}}, {}});
  CHECK(with.first_layer == 0);
  CHECK(with.attentions.shape() == Shape{L, 1, c.config.heads, 4, 4});
  // A longer text is other ids, though it starts with the same.
  std::vector<std::int32_t> longer = ids;
  longer.push_back(1);
  const ModelOutput grown = model.forward(longer, without_attentions({{L - 1, 0}}, {}));
  CHECK(grown.first_layer == 0);
  CHECK(same_bits(grown.logits, reference.forward(longer, {{{L - 1, 0}}, {}}).logits));
}

#ifndef __SANITIZE_ADDRESS__
TEST_CASE("the activations cache after its memory could not be had: empty, not the last ids' stale states",
          "[models][cache]") {
  const Checkpoint c = fixture("gpt2");
  const std::size_t L = c.config.layers, D = c.config.d_model;
  Model model(c.config, c.weights), reference(c.config, c.weights);
  const std::vector<std::int32_t> ids{1, 2, 3}, longer{4, 5, 6, 7, 8};
  model.forward(ids, {});
  g_fail_size = (L + 1) * longer.size() * D * sizeof(float);  // the cache's memory for `longer`
  CHECK_THROWS_AS(model.forward(longer, without_attentions({{L - 1, 0}}, {})), std::bad_alloc);
  CHECK(g_fail_size == 0);  // that allocation was asked for, and refused
  const ModelOutput again = model.forward(ids, without_attentions({{L - 1, 0}}, {}));
  CHECK(again.first_layer == 0);  // nothing cached for `ids` any more: from the embeddings
  CHECK(same_bits(again.hidden, reference.forward(ids, {{{L - 1, 0}}, {}}).hidden));
}
#endif
