// Training: cross-entropy, torch.optim's optimizers, and a tiny attention model whose heads learn
// their roles on five synthetic tasks (one table: task_table()), with PyTorch's numbers.
//
//   auto gen = std::make_shared<mha::Generator>(0);                       // torch.manual_seed(0)
//   auto model = std::make_shared<mha::TinyAttentionModel>(mha::model_defaults(mha::Task::TwoOffsets), gen);
//   mha::Optimizer adam(model, mha::optimizer_defaults(mha::OptimizerKind::Adam, 1e-2));
//   for (int step = 0; step < 150; ++step) {
//     mha::StepResult r = model->train_step(adam, 32);  // batch from gen, forward, backward, adam.step()
//   }
//   model->role_scores();       // each head's role on a probe batch: "1 token back" 0.97, ...
//   model->to_pytorch({150, 32, adam.options()});  // the same run as a PyTorch script
//
// Formulas follow PyTorch 2.x on CPU (torch/optim/{sgd,adam,adamw}.py single-tensor paths, ATen's
// element-wise kernels); see Optimizer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mha/attention.hpp"
#include "mha/module.hpp"
#include "mha/random.hpp"

namespace mha {

constexpr std::int64_t kIgnoreIndex = -100;
// The model's, a batch's and a training script's size limits (check_config, draw_batch, the script); published to JS
// by protocol(). A model's d_model stays below a module's kMaxDModel: 4 layers at 1024 are already 50 MB of weights.
constexpr std::size_t kMaxVocab = 512, kMaxSeqLen = 512, kMaxBatch = 1024, kMaxLayers = 4, kMaxModelDModel = 1024,
                      kMaxScriptSteps = 100000;

struct CrossEntropyResult {
  float loss = 0.0f;        // mean over counted rows (NaN when none, as PyTorch)
  std::size_t counted = 0;  // rows whose target is not ignore_index
  std::size_t correct = 0;  // counted rows whose argmax (first maximum) is the target
};
// F.cross_entropy(logits [N, C], targets [N]) with reduction 'mean' and ignore_index -100.
// When dlogits != nullptr it receives d(loss)/d(logits) (0 on ignored rows), as log_softmax's
// backward computes it: g - exp(log_softmax) · Σ g with g = -1/counted at the target.
CrossEntropyResult cross_entropy(const float* logits, std::size_t N, std::size_t C, const std::int64_t* targets,
                                 float* dlogits = nullptr);

// ---- Optimizers --------------------------------------------------------------------------------

enum class OptimizerKind { SGD, Adam, AdamW };
// Every kind, in the enum's order (the bindings publish their names, optimizer_name, through protocol()).
constexpr OptimizerKind kOptimizerKinds[] = {OptimizerKind::SGD, OptimizerKind::Adam, OptimizerKind::AdamW};
static_assert(std::size(kOptimizerKinds) == static_cast<std::size_t>(OptimizerKind::AdamW) + 1, "a kind is missing");

// torch.optim's option names. Defaults are torch.optim's (optimizer_defaults).
struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::Adam;
  double lr = 1e-3;
  double momentum = 0.0, dampening = 0.0;         // SGD
  bool nesterov = false;                          // SGD
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // Adam, AdamW
  double weight_decay = 0.0;                      // AdamW's default is 1e-2
  // Adam's first moment as PyTorch < 2.1 computes it (mul_(β1).add_(g, alpha=1-β1)) instead of
  // lerp_(g, 1-β1): only for comparing with Debian's PyTorch 1.13 bit for bit.
  bool legacy_first_moment = false;
};
OptimizerOptions optimizer_defaults(OptimizerKind kind, double lr = 1e-3);
// Throws torch.optim's message for an invalid option ("Invalid learning rate: -1").
void check_optimizer_options(const OptimizerOptions& options);
const char* optimizer_name(OptimizerKind kind);  // "SGD", "Adam", "AdamW"

// One torch.optim optimizer over a module's parameter list (its state is per entry of the list).
// Per element, in float32 as ATen computes it (s: Python scalars cast to float):
//   SGD:   g += wd·p;  buf = g (first step) | buf·m + (1-dampening)·g;  g = nesterov ? g + m·buf : buf;  p += (-lr)·g
//   Adam:  g += wd·p (AdamW instead p *= 1 - lr·wd);  m = lerp(m, g, 1-β1) = m + (1-β1)·(g - m);
//          v = v·β2 + ((1-β2)·g)·g;  bc1 = 1-β1^t, bc2 = 1-β2^t in double;
//          p += ((-lr/bc1)·m) / (sqrt(v) / sqrt(bc2) + eps)
class Optimizer {
 public:
  Optimizer(std::shared_ptr<Module> module, const OptimizerOptions& options);
  void step();
  void zero_grad() { module_->zero_grad(); }
  std::size_t steps() const { return steps_; }
  const OptimizerOptions& options() const { return options_; }
  Module& module() const { return *module_; }

 private:
  std::shared_ptr<Module> module_;
  OptimizerOptions options_;
  std::size_t steps_ = 0;
  std::vector<std::vector<float>> first_, second_;  // momentum buffer (SGD) or exp_avg; exp_avg_sq
};

// ---- The tiny attention model and its tasks -----------------------------------------------------

// Every task is one entry of task_table() (core/src/training/tasks.cpp): adding one means adding its enum value,
// its entry, its generator and its role scorer there.
enum class Task {
  TwoOffsets,        // predict x[t-1] and x[t-2]
  FirstAndPrevious,  // predict x[0] and x[t-1]
  Reverse,           // predict x[T-1-t]
  Induction,         // a random period of 3–7 distinct tokens repeated; predict the next token
  NextLarger,        // distinct tokens; predict the smallest larger token of the sequence (sorting's step)
  Count              // the number of tasks (the table's static_assert checks it covers them all)
};
constexpr std::size_t kTaskCount = static_cast<std::size_t>(Task::Count);
constexpr std::size_t kMaxReadouts = 2, kMaxRoles = 2;

struct ModelConfig {
  Task task = Task::TwoOffsets;
  std::size_t vocab = 8, seq_len = 8, d_model = 16, num_heads = 2, layers = 1;
  bool causal = true;  // the lessons' tril mask with -1e9 (every task but reverse needs only the past)
};

// A role a head can learn, scored on a probe batch as the mean attention mass it predicts.
struct Role {
  const char* name;  // "1 token back", "next larger token", …
  // Query t's mass on the keys the role names, from its attention row over the T keys of sequence x;
  // false when the role says nothing about t (e.g. "2 tokens back" at t = 1).
  bool (*mass)(const float* row, const std::int64_t* x, std::size_t t, std::size_t T, double& out);
  // The role picks its keys by their tokens, not their positions (the lab offers to sort keys by token).
  bool by_content = false;
};

// One training task: everything the core, the bindings, the lab and the PyTorch script know of it.
struct TaskInfo {
  Task task;
  const char* name;                                // "two-offsets": the API's and the lab URL's name
  const char* title;                               // "Two offsets"
  const char* brief;                               // one line for the student: what it predicts, what the heads learn
  std::array<const char*, kMaxReadouts> readouts;  // what each readout predicts ("x[t−1]"); nullptr after the last
  ModelConfig defaults;                            // the settings it trains well with (measured with PyTorch)
  // The Adam steps (lr 1e-2, batch 32) by which its roles have formed at the defaults on most seeds
  // (tests/native/test_train.cpp checks it): where the lab stops by itself.
  std::size_t goal_steps;
  // Throws a message a student understands when the config cannot hold the task (beyond the model's limits).
  void (*check)(const ModelConfig& config);
  // tokens [B, T], drawn from gen exactly as `pytorch` draws them after torch.manual_seed.
  void (*draw_tokens)(const ModelConfig& config, std::size_t B, Generator& gen, std::int64_t* tokens);
  // One sequence's targets: out[r][t] for readout r (kIgnoreIndex where there is nothing to predict).
  void (*targets)(const std::int64_t* x, std::size_t T, std::array<std::int64_t*, kMaxReadouts> out);
  std::array<Role, kMaxRoles> roles;  // the roles the heads can take; name nullptr after the last
  const char* pytorch;                // `def make_batch(B):` returning (x, [targets per readout]); uses V and T
  // The sequence the lab first shows the heads on (T tokens); nullptr: 1 2 3 … (mod V).
  void (*example)(const ModelConfig& config, std::int64_t* tokens);
};
const std::array<TaskInfo, kTaskCount>& task_table();
const TaskInfo& task_info(Task task);
const char* task_name(Task task);  // "two-offsets", "first-and-previous", "reverse", "induction", "next-larger"
Task task_from_name(const std::string& name);  // throws listing the tasks
std::size_t task_readouts(Task task);          // 2, 2, 1, 1, 1
std::size_t task_roles(Task task);

// The settings each task trains well with (its table entry's defaults).
ModelConfig model_defaults(Task task);
// Throws a student's message when the model cannot be built (sizes out of range, or the task's own limits).
void check_config(const ModelConfig& config);

// A batch as the task's PyTorch lines draw it: tokens [B, T]; one target tensor [B, T] per readout (-100 = ignored).
struct Batch {
  std::size_t batch = 0, seq_len = 0;
  std::vector<std::int64_t> tokens;
  std::vector<std::vector<std::int64_t>> targets;
};
Batch draw_batch(const ModelConfig& config, std::size_t batch_size, Generator& gen);
// The targets of one sequence of any length 1..seq_len: one row per readout (what the lab shows under its probe).
std::vector<std::vector<std::int64_t>> task_targets(Task task, const std::vector<std::int64_t>& tokens);
// The task's example sequence of seq_len tokens (TaskInfo::example).
std::vector<std::int64_t> task_example(const ModelConfig& config);

struct StepResult {
  float loss = 0.0f;      // sum of the readouts' cross-entropies
  double accuracy = 0.0;  // correct / counted over every readout's non-ignored targets
};

struct RoleScore {
  std::size_t layer = 0, head = 0;
  std::string role;    // a Role's name: "1 token back", "first token", "mirror", "induction", "next larger token", …
  double score = 0.0;  // the mean attention mass the role predicts, in [0, 1]
};

struct TrainingScript {
  std::size_t steps = 200, batch_size = 32;
  OptimizerOptions optimizer;
  int loss_digits = 4;  // digits after the point in "step 1 loss 2.0794 accuracy 0.1250"
};

// tok = nn.Embedding(V, D), pos = nn.Embedding(T, D), `layers` residual layers of the lessons'
// MultiHeadAttention (h = h + mha(h, h, h, mask)), one nn.Linear(D, V) readout per target.
// Parameters are drawn in that order, as the equivalent PyTorch module's __init__ draws them, and
// named as its state_dict: tok.weight, pos.weight, layers.0.W_q.weight, …, readouts.0.weight, ….
class TinyAttentionModel : public Module {
 public:
  TinyAttentionModel(const ModelConfig& config, std::shared_ptr<Generator> generator);
  const ModelConfig& config() const { return config_; }
  std::size_t readouts() const { return readouts_.size(); }
  MultiHeadAttention& layer(std::size_t l);

  // Draws a batch from the generator, zero_grad, forward, backward, optimizer step.
  StepResult train_step(Optimizer& optimizer, std::size_t batch_size);
  // Loss and accuracy of a batch; with backward, gradients accumulate (no step).
  StepResult evaluate(const Batch& batch, bool backward = false);
  // Logits [T, V] per readout, for one token sequence (length <= seq_len).
  std::vector<Tensor> predict(const std::vector<std::int64_t>& tokens);
  // Every layer's attention [H, T, T] for one token sequence.
  std::vector<Tensor> attention(const std::vector<std::int64_t>& tokens);
  // The shapes of a forward on one sequence of seq_len tokens: tokens [1, T], the embedding sum
  // [1, T, D], each layer's attention steps (shape_trace's, tagged with the layer) and its residual
  // add, then one readout [1, T, V] per target.
  std::vector<TraceStep> shape_trace(std::size_t seq_len) const;
  // Each head's best role for the task on a fixed probe batch (drawn from its own generator).
  std::vector<RoleScore> role_scores();
  void ablate(std::size_t layer, std::size_t head, bool on);
  // A self-contained PyTorch script: same model, batches and optimizer; prints loss and accuracy per step.
  // Needs the model to have been built from a freshly seeded generator.
  std::string to_pytorch(const TrainingScript& script) const;
  std::uint64_t seed() const { return seed_; }

 private:
  struct Forward;
  void check_tokens(const std::vector<std::int64_t>& tokens, std::size_t batch, std::size_t seq_len) const;
  void run(const std::vector<std::int64_t>& tokens, std::size_t B, std::size_t T, Forward& f, bool keep) const;
  void parameters_changed() override;

  ModelConfig config_;
  std::shared_ptr<Generator> generator_;
  std::uint64_t seed_ = 0;
  bool fresh_seed_ = false;
  std::size_t tok_ = 0, pos_ = 0;  // indices of tok.weight and pos.weight in the list
  std::vector<std::unique_ptr<MultiHeadAttention>> layers_;
  std::vector<Linear> readouts_;
  Batch probe_;
};

}  // namespace mha
