// embind bindings of the lab (mha/train.hpp): TinyAttentionModel, its optimizers and the task table, which
// protocol() publishes. Conversion and validation only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "mha/train.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

val strings_to_js(const char* const* names, std::size_t n) {
  val out = val::array();
  for (std::size_t i = 0; i < n && names[i]; ++i) out.call<void>("push", std::string(names[i]));
  return out;
}

val config_to_js(const mha::ModelConfig& c) {
  val out = val::object();
  out.set("task", std::string(mha::task_name(c.task)));
  out.set("vocab", static_cast<double>(c.vocab));
  out.set("seqLen", static_cast<double>(c.seq_len));
  out.set("dModel", static_cast<double>(c.d_model));
  out.set("numHeads", static_cast<double>(c.num_heads));
  out.set("layers", static_cast<double>(c.layers));
  out.set("causal", c.causal);
  return out;
}

// ---- Training ----------------------------------------------------------------------------------

mha::OptimizerOptions optimizer_from_js(const val& o) {
  const std::string kind = o["kind"].as<std::string>();
  mha::OptimizerOptions out = mha::optimizer_defaults(kind == "SGD"     ? mha::OptimizerKind::SGD
                                                      : kind == "AdamW" ? mha::OptimizerKind::AdamW
                                                                        : mha::OptimizerKind::Adam);
  out.lr = o["lr"].as<double>();
  out.momentum = o["momentum"].as<double>();
  out.dampening = o["dampening"].as<double>();
  out.nesterov = o["nesterov"].as<bool>();
  out.beta1 = o["beta1"].as<double>();
  out.beta2 = o["beta2"].as<double>();
  out.eps = o["eps"].as<double>();
  out.weight_decay = o["weightDecay"].as<double>();
  mha::check_optimizer_options(out);
  return out;
}

val model_create(val config, std::shared_ptr<mha::Generator> gen) {
  return guarded([&] {
    mha::ModelConfig c = mha::model_defaults(mha::task_from_name(config["task"].as<std::string>()));
    c.vocab = to_count(config["vocab"].as<double>(), "vocab", 4096);
    c.seq_len = to_count(config["seqLen"].as<double>(), "seqLen", 4096);
    c.d_model = to_count(config["dModel"].as<double>(), "dModel", 4096);
    c.num_heads = to_count(config["numHeads"].as<double>(), "numHeads", 4096);
    c.layers = to_count(config["layers"].as<double>(), "layers", 64);
    c.causal = config["causal"].as<bool>();
    return val(std::make_shared<mha::TinyAttentionModel>(c, std::move(gen)));
  });
}

val optimizer_create(std::shared_ptr<mha::TinyAttentionModel> model, val options) {
  return guarded([&] { return val(std::make_shared<mha::Optimizer>(model, optimizer_from_js(options))); });
}

double optimizer_steps(const mha::Optimizer& o) { return static_cast<double>(o.steps()); }

val model_train_step(mha::TinyAttentionModel& m, mha::Optimizer& opt, double batch_size) {
  return guarded([&] {
    const mha::StepResult r = m.train_step(opt, to_count(batch_size, "batchSize", 1024));
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    return out;
  });
}

// Loss and accuracy on a batch drawn from its own generator (the training stream is not touched).
val model_evaluate(mha::TinyAttentionModel& m, double batch_size, double seed) {
  return guarded([&] {
    mha::Generator gen(to_seed(seed));
    const mha::StepResult r = m.evaluate(mha::draw_batch(m.config(), to_count(batch_size, "batchSize", 1024), gen));
    val out = val::object();
    out.set("loss", r.loss);
    out.set("accuracy", r.accuracy);
    return out;
  });
}

std::vector<std::int64_t> tokens_from_js(const val& tokens) {
  const std::size_t n = to_count(tokens["length"].as<double>(), "the number of tokens", kMaxSpecializationTokens);
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::int64_t>(to_count(tokens[i].as<double>(), "a token", 1e9));
  return out;
}

val model_attention(mha::TinyAttentionModel& m, val tokens) {
  return guarded([&] {
    val out = val::array();
    const std::vector<mha::Tensor> layers = m.attention(tokens_from_js(tokens));
    for (std::size_t l = 0; l < layers.size(); ++l) {
      val entry = val::object();
      entry.set("layer", static_cast<double>(l));
      entry.set("weights", tensor_to_js(layers[l]));
      out.set(l, entry);
    }
    return out;
  });
}

val model_shape_trace(const mha::TinyAttentionModel& m, double seq_len) {
  return guarded([&] { return trace_to_js(m.shape_trace(to_count(seq_len, "seqLen", mha::kMaxDim))); });
}

val model_predict(mha::TinyAttentionModel& m, val tokens) {
  return guarded([&] {
    val out = val::array();
    const std::vector<mha::Tensor> logits = m.predict(tokens_from_js(tokens));
    for (std::size_t r = 0; r < logits.size(); ++r) out.set(r, tensor_to_js(logits[r]));
    return out;
  });
}

// Per readout, what the task asks of each position of `tokens` (-100: nothing).
val model_targets(const mha::TinyAttentionModel& m, val tokens) {
  return guarded([&] {
    val out = val::array();
    const auto rows = mha::task_targets(m.config().task, tokens_from_js(tokens));
    for (std::size_t r = 0; r < rows.size(); ++r) out.set(r, array_from(rows[r]));
    return out;
  });
}

val model_example(const mha::TinyAttentionModel& m) {
  return guarded([&] { return array_from(mha::task_example(m.config())); });
}

val model_role_scores(mha::TinyAttentionModel& m) {
  return guarded([&] {
    val out = val::array();
    const std::vector<mha::RoleScore> scores = m.role_scores();
    for (std::size_t i = 0; i < scores.size(); ++i) {
      val entry = val::object();
      entry.set("layer", static_cast<double>(scores[i].layer));
      entry.set("head", static_cast<double>(scores[i].head));
      entry.set("role", scores[i].role);
      entry.set("score", scores[i].score);
      out.set(i, entry);
    }
    return out;
  });
}

val model_ablate(mha::TinyAttentionModel& m, double layer, double head, bool on) {
  return guarded([&] {
    m.ablate(to_count(layer, "layer", 64), to_count(head, "head", 4096), on);
    return val::undefined();
  });
}

val model_to_pytorch(const mha::TinyAttentionModel& m, double steps, double batch_size, val optimizer, double digits) {
  return guarded([&] {
    mha::TrainingScript s;
    s.steps = to_count(steps, "steps", 100000);
    s.batch_size = to_count(batch_size, "batchSize", 1024);
    s.optimizer = optimizer_from_js(optimizer);
    s.loss_digits = static_cast<int>(to_count(digits, "lossDigits", 9));
    return val(m.to_pytorch(s));
  });
}

}  // namespace

namespace mha_js {

// The training tasks (the core's task table) in its order: {name, title, brief, readouts, roles, byContent (a role
// picks keys by their tokens), defaults, goalSteps}.
val tasks_to_js() {
  val out = val::array();
  for (const mha::TaskInfo& t : mha::task_table()) {
    val entry = val::object();
    entry.set("name", std::string(t.name));
    entry.set("title", std::string(t.title));
    entry.set("brief", std::string(t.brief));
    entry.set("readouts", strings_to_js(t.readouts.data(), t.readouts.size()));
    val roles = val::array();
    for (const mha::Role& r : t.roles)
      if (r.name) roles.call<void>("push", std::string(r.name));
    entry.set("roles", roles);
    bool by_content = false;
    for (const mha::Role& r : t.roles) by_content = by_content || (r.name && r.by_content);
    entry.set("byContent", by_content);
    entry.set("defaults", config_to_js(t.defaults));
    entry.set("goalSteps", static_cast<double>(t.goal_steps));
    out.call<void>("push", entry);
  }
  return out;
}

}  // namespace mha_js

EMSCRIPTEN_BINDINGS(mha_training) {
  using namespace emscripten;
  class_<mha::TinyAttentionModel>("TinyAttentionModelCore")
      .smart_ptr<std::shared_ptr<mha::TinyAttentionModel>>("TinyAttentionModelCorePtr")
      .function("trainStep", &model_train_step)
      .function("evaluate", &model_evaluate)
      .function("attention", &model_attention)
      .function("predict", &model_predict)
      .function("shapeTrace", &model_shape_trace)
      .function("roleScores", &model_role_scores)
      .function("targets", &model_targets)
      .function("example", &model_example)
      .function("ablate", &model_ablate)
      .function("toPyTorch", &model_to_pytorch)
      .function("parameterCount", &module_parameter_count<mha::TinyAttentionModel>)
      .function("zeroGrad", &module_zero_grad<mha::TinyAttentionModel>)
      .function("stateDict", &state_dict_to_js<mha::TinyAttentionModel>)
      .function("loadStateDict", &module_load_state_dict<mha::TinyAttentionModel>)
      .function("toSafetensors", &module_to_safetensors<mha::TinyAttentionModel>);
  class_<mha::Optimizer>("OptimizerCore")
      .smart_ptr<std::shared_ptr<mha::Optimizer>>("OptimizerCorePtr")
      .function("steps", &optimizer_steps);
  function("modelCreate", &model_create);
  function("optimizerCreate", &optimizer_create);
}
