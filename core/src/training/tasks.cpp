// The training tasks, one table (kTasks): each task's name and brief, readouts, default model, limits,
// batch generator, role scorer and the PyTorch lines that draw the same batches.
//
// Adding a task: its value in mha/train.hpp's Task, then here its generator (draw_tokens + targets),
// its roles (a mass function each) and its entry; the static_asserts below check the table against
// the enum. Everything else (the bindings' protocol(), api.js, the lab, the PyTorch script, the
// tests) reads the table.
#include <algorithm>
#include <iterator>
#include <string>

#include "mha/train.hpp"

namespace mha {
namespace {

// ---- Roles: query t's attention mass on the keys the role names ------------------------------------

bool one_back(const float* row, const std::int64_t*, std::size_t t, std::size_t, double& out) {
  if (t < 1) return false;
  out = row[t - 1];
  return true;
}
bool two_back(const float* row, const std::int64_t*, std::size_t t, std::size_t, double& out) {
  if (t < 2) return false;
  out = row[t - 2];
  return true;
}
bool first_token(const float* row, const std::int64_t*, std::size_t t, std::size_t, double& out) {
  if (t == 0) return false;
  out = row[0];
  return true;
}
bool mirror(const float* row, const std::int64_t*, std::size_t t, std::size_t T, double& out) {
  out = row[T - 1 - t];
  return true;
}
// Olsson et al.'s prefix matching: keys j whose previous token is the current one (what followed it before).
bool prefix_match(const float* row, const std::int64_t* x, std::size_t t, std::size_t, double& out) {
  bool any = false;
  out = 0.0;
  for (std::size_t j = 1; j <= t; ++j) {
    if (x[j - 1] == x[t]) {
      out += row[j];
      any = true;
    }
  }
  return any;
}

// The smallest token of x[0..T) larger than v, or -1 when v is the largest.
std::int64_t next_larger_token(const std::int64_t* x, std::size_t T, std::int64_t v) {
  std::int64_t best = -1;
  for (std::size_t j = 0; j < T; ++j)
    if (x[j] > v && (best < 0 || x[j] < best)) best = x[j];
  return best;
}
// By content: the keys holding the next larger token, wherever they stand; nothing for the largest token.
bool next_larger(const float* row, const std::int64_t* x, std::size_t t, std::size_t T, double& out) {
  const std::int64_t target = next_larger_token(x, T, x[t]);
  if (target < 0) return false;
  out = 0.0;
  for (std::size_t j = 0; j < T; ++j)
    if (x[j] == target) out += row[j];
  return true;
}

constexpr Role kOneBack{"1 token back", one_back}, kTwoBack{"2 tokens back", two_back};
constexpr Role kFirstToken{"first token", first_token}, kMirror{"mirror", mirror};
constexpr Role kInduction{"induction", prefix_match, true}, kNextLarger{"next larger token", next_larger, true};
constexpr Role kNoRole{nullptr, nullptr};

// ---- Generators: tokens as PyTorch draws them, targets from the tokens -----------------------------

constexpr std::int64_t kMinPeriod = 3, kMaxPeriod = 7;

// torch.randint(0, V, (B, T))
void uniform_tokens(const ModelConfig& c, std::size_t B, Generator& gen, std::int64_t* x) {
  for (std::size_t i = 0; i < B * c.seq_len; ++i) x[i] = randint(0, static_cast<std::int64_t>(c.vocab), gen);
}
// periods = torch.randint(3, 8, (B,)); then per sequence motif = torch.randperm(V)[:p], repeated to T.
void motif_tokens(const ModelConfig& c, std::size_t B, Generator& gen, std::int64_t* x) {
  const std::size_t T = c.seq_len;
  std::vector<std::int64_t> periods(B);
  for (auto& p : periods) p = randint(kMinPeriod, kMaxPeriod + 1, gen);
  for (std::size_t b = 0; b < B; ++b) {
    const std::vector<std::int64_t> perm = randperm(c.vocab, gen);
    for (std::size_t t = 0; t < T; ++t) x[b * T + t] = perm[t % static_cast<std::size_t>(periods[b])];
  }
}
// Per sequence torch.randperm(V)[:T]: T distinct tokens in random order.
void distinct_tokens(const ModelConfig& c, std::size_t B, Generator& gen, std::int64_t* x) {
  const std::size_t T = c.seq_len;
  for (std::size_t b = 0; b < B; ++b) {
    const std::vector<std::int64_t> perm = randperm(c.vocab, gen);
    std::copy(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(T), x + b * T);
  }
}

// Examples for the lab: induction's motif 3 7 1 5 2 repeated; T distinct tokens in a fixed shuffled order.
void motif_example(const ModelConfig& c, std::int64_t* x) {
  constexpr std::int64_t motif[] = {3, 7, 1, 5, 2};
  for (std::size_t t = 0; t < c.seq_len; ++t) x[t] = motif[t % std::size(motif)] % static_cast<std::int64_t>(c.vocab);
}
void shuffled_example(const ModelConfig& c, std::int64_t* x) {
  Generator gen(3);
  distinct_tokens(c, 1, gen, x);
}

using Targets = std::array<std::int64_t*, kMaxReadouts>;  // rows arrive filled with kIgnoreIndex

void two_offsets_targets(const std::int64_t* x, std::size_t T, Targets out) {
  for (std::size_t t = 1; t < T; ++t) out[0][t] = x[t - 1];
  for (std::size_t t = 2; t < T; ++t) out[1][t] = x[t - 2];
}
void first_and_previous_targets(const std::int64_t* x, std::size_t T, Targets out) {
  for (std::size_t t = 0; t < T; ++t) out[0][t] = x[0];
  for (std::size_t t = 1; t < T; ++t) out[1][t] = x[t - 1];
}
void reverse_targets(const std::int64_t* x, std::size_t T, Targets out) {
  for (std::size_t t = 0; t < T; ++t) out[0][t] = x[T - 1 - t];
}
// The next token, from the end of the first period on (its tokens are distinct, so the period ends
// where x[0] comes back; a sequence where it never does has nothing to predict).
void induction_targets(const std::int64_t* x, std::size_t T, Targets out) {
  std::size_t p = 1;
  while (p < T && x[p] != x[0]) ++p;
  for (std::size_t t = p - 1; t + 1 < T; ++t) out[0][t] = x[t + 1];
}
void next_larger_targets(const std::int64_t* x, std::size_t T, Targets out) {
  for (std::size_t t = 0; t < T; ++t) {
    const std::int64_t target = next_larger_token(x, T, x[t]);
    if (target >= 0) out[0][t] = target;
  }
}

// ---- Limits beyond the model's own ----------------------------------------------------------------

void no_limits(const ModelConfig&) {}
void reverse_limits(const ModelConfig& c) {
  if (c.causal)
    throw Error(
        "the reverse task needs to see later tokens: turn the causal mask off (x[T-1-t] lies in the future for early t)");
}
void induction_limits(const ModelConfig& c) {
  if (c.vocab < kMaxPeriod)
    throw Error("the induction task repeats up to 7 distinct tokens: vocab must be at least 7, got " +
                std::to_string(c.vocab));
  if (c.seq_len < 2 * kMaxPeriod)
    throw Error("the induction task needs seqLen of at least 14 (two periods of 7), got " + std::to_string(c.seq_len));
}
void next_larger_limits(const ModelConfig& c) {
  if (c.vocab < c.seq_len) {
    throw Error("the next-larger task draws seqLen distinct tokens: vocab must be at least seqLen (" +
                std::to_string(c.seq_len) + "), got " + std::to_string(c.vocab));
  }
  if (c.causal)
    throw Error(
        "the next-larger task needs to see later tokens: turn the causal mask off (the next larger token can come later)");
}

// ---- The table ------------------------------------------------------------------------------------

constexpr TaskInfo kTasks[] = {
    {Task::TwoOffsets,
     "two-offsets",
     "Two offsets",
     "Predict the token one back and the token two back. Two heads split the work: one attends one token back, the other two "
     "back. One head cannot do both.",
     {"x[t−1]", "x[t−2]"},
     {Task::TwoOffsets, 8, 8, 16, 2, 1, true},
     150,
     no_limits,
     uniform_tokens,
     two_offsets_targets,
     {kOneBack, kTwoBack},
     "def make_batch(B):\n    \"\"\"Two offsets: predict x[t-1] and x[t-2] (-100: no target, ignored).\"\"\"\n"
     "    x = torch.randint(0, V, (B, T))\n"
     "    prev1 = torch.full((B, T), -100)\n    prev1[:, 1:] = x[:, :-1]\n"
     "    prev2 = torch.full((B, T), -100)\n    prev2[:, 2:] = x[:, :-2]\n"
     "    return x, [prev1, prev2]\n",
     nullptr},
    {Task::FirstAndPrevious,
     "first-and-previous",
     "First and previous",
     "Predict the first token and the previous one: one head learns a stripe on column 0, another a diagonal one token back.",
     {"x[0]", "x[t−1]"},
     {Task::FirstAndPrevious, 8, 8, 16, 2, 1, true},
     150,
     no_limits,
     uniform_tokens,
     first_and_previous_targets,
     {kFirstToken, kOneBack},
     "def make_batch(B):\n    \"\"\"First and previous: predict x[0] and x[t-1] (-100: no target, ignored).\"\"\"\n"
     "    x = torch.randint(0, V, (B, T))\n"
     "    first = x[:, :1].repeat(1, T)\n"
     "    prev1 = torch.full((B, T), -100)\n    prev1[:, 1:] = x[:, :-1]\n"
     "    return x, [first, prev1]\n",
     nullptr},
    {Task::Reverse,
     "reverse",
     "Reverse",
     "Predict the sequence backwards, x[T−1−t]: the head learns the anti-diagonal (no causal mask here).",
     {"x[T−1−t]", nullptr},
     {Task::Reverse, 8, 8, 16, 1, 1, false},
     150,
     reverse_limits,
     uniform_tokens,
     reverse_targets,
     {kMirror, kNoRole},
     "def make_batch(B):\n    \"\"\"Reverse: predict x[T-1-t].\"\"\"\n"
     "    x = torch.randint(0, V, (B, T))\n"
     "    return x, [x.flip(1)]\n",
     nullptr},
    {Task::Induction,
     "induction",
     "Induction",
     "A random motif of 3–7 tokens repeats; predict the next token. Layer 0 learns \"one token back\", layer 1 an induction head "
     "(Olsson et al.).",
     {"next token", nullptr},
     {Task::Induction, 16, 16, 32, 2, 2, true},
     300,
     induction_limits,
     motif_tokens,
     induction_targets,
     {kOneBack, kInduction},
     "def make_batch(B):\n"
     "    \"\"\"Induction: a random period of 3-7 distinct tokens repeated to length T; predict the next token\n"
     "    wherever it has been seen before (-100 elsewhere, ignored).\"\"\"\n"
     "    periods = torch.randint(3, 8, (B,))\n"
     "    x = torch.empty(B, T, dtype=torch.long)\n"
     "    following = torch.full((B, T), -100)\n"
     "    for b in range(B):\n"
     "        p = int(periods[b])\n"
     "        motif = torch.randperm(V)[:p]\n"
     "        x[b] = motif.repeat(T // p + 1)[:T]\n"
     "        following[b, p - 1:T - 1] = x[b, p:]\n"
     "    return x, [following]\n",
     motif_example},
    {Task::NextLarger,
     "next-larger",
     "Next larger (sorting)",
     "Distinct tokens in random order; predict, for each, the next larger token of the sequence (follow these links from the "
     "smallest and you read it sorted). The head attends by content: to the key holding that token, wherever it stands.",
     {"next larger", nullptr},
     {Task::NextLarger, 16, 8, 32, 1, 1, false},
     300,
     next_larger_limits,
     distinct_tokens,
     next_larger_targets,
     {kNextLarger, kNoRole},
     "def make_batch(B):\n"
     "    \"\"\"Next larger: T distinct tokens in random order; predict for each the smallest larger token of\n"
     "    the sequence (-100 for the largest, which has none: ignored).\"\"\"\n"
     "    x = torch.stack([torch.randperm(V)[:T] for _ in range(B)])\n"
     "    larger = torch.where(x[:, None, :] > x[:, :, None], x[:, None, :], torch.full_like(x[:, None, :], V))  # [B, query, key]\n"
     "    nearest = larger.min(-1).values  # V where no key is larger\n"
     "    return x, [nearest.masked_fill(nearest == V, -100)]\n",
     shuffled_example},
};

static_assert(std::size(kTasks) == kTaskCount, "every Task has one entry in kTasks, and every entry a Task");
constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < std::size(kTasks); ++i)
    if (kTasks[i].task != static_cast<Task>(i) || kTasks[i].defaults.task != kTasks[i].task) return false;
  return true;
}
static_assert(in_enum_order(), "kTasks lists the tasks in the enum's order, each with its own defaults");

constexpr std::array<TaskInfo, kTaskCount> as_array() {
  std::array<TaskInfo, kTaskCount> out{};
  for (std::size_t i = 0; i < kTaskCount; ++i) out[i] = kTasks[i];
  return out;
}
constexpr std::array<TaskInfo, kTaskCount> kTaskArray = as_array();

}  // namespace

const std::array<TaskInfo, kTaskCount>& task_table() { return kTaskArray; }

const TaskInfo& task_info(Task task) {
  const auto i = static_cast<std::size_t>(task);
  if (i >= kTaskCount) throw Error("unknown task number " + std::to_string(i));
  return kTaskArray[i];
}

const char* task_name(Task task) { return task_info(task).name; }

Task task_from_name(const std::string& name) {
  std::string names;
  for (const TaskInfo& t : kTaskArray) {
    if (name == t.name) return t.task;
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  }
  throw Error("unknown task '" + name + "'; the tasks are " + names);
}

std::size_t task_readouts(Task task) {
  const auto& r = task_info(task).readouts;
  return static_cast<std::size_t>(std::count_if(r.begin(), r.end(), [](const char* n) { return n != nullptr; }));
}

std::size_t task_roles(Task task) {
  const auto& r = task_info(task).roles;
  return static_cast<std::size_t>(
      std::count_if(r.begin(), r.end(), [](const Role& role) { return role.name != nullptr; }));
}

ModelConfig model_defaults(Task task) { return task_info(task).defaults; }

void check_config(const ModelConfig& c) {
  const auto range = [](std::size_t v, std::size_t lo, std::size_t hi, const char* what) {
    if (v < lo || v > hi) {
      throw Error(std::string(what) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                  ", got " + std::to_string(v));
    }
  };
  range(c.vocab, 2, kMaxVocab, "vocab");
  range(c.seq_len, 2, kMaxSeqLen, "seqLen");
  range(c.layers, 1, kMaxLayers, "layers");
  range(c.d_model, 1, kMaxModelDModel, "dModel");
  check_heads(c.d_model, c.num_heads);
  task_info(c.task).check(c);
}

std::vector<std::vector<std::int64_t>> task_targets(Task task, const std::vector<std::int64_t>& tokens) {
  const std::size_t T = tokens.size();
  std::vector<std::vector<std::int64_t>> rows(task_readouts(task), std::vector<std::int64_t>(T, kIgnoreIndex));
  Targets out{};
  for (std::size_t r = 0; r < rows.size(); ++r) out[r] = rows[r].data();
  if (T > 0) task_info(task).targets(tokens.data(), T, out);
  return rows;
}

std::vector<std::int64_t> task_example(const ModelConfig& c) {
  check_config(c);
  std::vector<std::int64_t> x(c.seq_len);
  const TaskInfo& task = task_info(c.task);
  if (task.example) {
    task.example(c, x.data());
  } else {
    for (std::size_t t = 0; t < x.size(); ++t) x[t] = static_cast<std::int64_t>((t + 1) % c.vocab);
  }
  return x;
}

Batch draw_batch(const ModelConfig& c, std::size_t B, Generator& gen) {
  if (B < 1 || B > kMaxBatch)
    throw Error("batchSize must be between 1 and " + std::to_string(kMaxBatch) + ", got " + std::to_string(B));
  const TaskInfo& task = task_info(c.task);
  const std::size_t T = c.seq_len;
  Batch batch;
  batch.batch = B;
  batch.seq_len = T;
  batch.tokens.resize(B * T);
  batch.targets.assign(task_readouts(c.task), std::vector<std::int64_t>(B * T, kIgnoreIndex));
  task.draw_tokens(c, B, gen, batch.tokens.data());
  for (std::size_t b = 0; b < B; ++b) {
    Targets out{};
    for (std::size_t r = 0; r < batch.targets.size(); ++r) out[r] = batch.targets[r].data() + b * T;
    task.targets(batch.tokens.data() + b * T, T, out);
  }
  return batch;
}

}  // namespace mha
