// The PyTorch script that reproduces a lab run: the lessons' module, the model, the task's batches
// (its table entry's lines) and the optimizer, printing the loss curve (mha/train.hpp).
#include "mha/train.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace mha {
namespace {

// A Python float literal that parses back to exactly x.
std::string py_float(double x) {
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string TinyAttentionModel::to_pytorch(const TrainingScript& s) const {
  if (!fresh_seed_) {
    throw Error(
        "the PyTorch script starts from torch.manual_seed(seed): build the model right after seeding its generator "
        "(new Generator(seed) or generator.manualSeed(seed)), so that both draw the same weights");
  }
  if (s.steps < 1 || s.steps > kMaxScriptSteps) {
    throw Error("steps must be between 1 and " + std::to_string(kMaxScriptSteps) + ", got " + std::to_string(s.steps));
  }
  if (s.batch_size < 1 || s.batch_size > kMaxBatch) {
    throw Error("batchSize must be between 1 and " + std::to_string(kMaxBatch) + ", got " +
                std::to_string(s.batch_size));
  }
  if (s.loss_digits < 1 || s.loss_digits > 9)
    throw Error("lossDigits must be between 1 and 9, got " + std::to_string(s.loss_digits));
  check_optimizer_options(s.optimizer);
  const ModelConfig& c = config_;
  const OptimizerOptions& o = s.optimizer;
  std::ostringstream py;
  py << "# MHA Explorer: the " << task_name(c.task) << " task, trained as the page trains it.\n"
     << "# Same seed, same batches, same optimizer: prints the page's loss and accuracy, one line per step.\n"
     << "import math\n\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
     << "class MultiHeadAttention(nn.Module):  # the lessons' module\n"
     << "    def __init__(self, d_model, num_heads):\n"
     << "        super().__init__()\n"
     << "        assert d_model % num_heads == 0, \"d_model must be divisible by num_heads\"\n"
     << "        self.d_model = d_model\n        self.num_heads = num_heads\n        self.d_k = d_model // num_heads\n"
     << "        self.W_q = nn.Linear(d_model, d_model)\n        self.W_k = nn.Linear(d_model, d_model)\n"
     << "        self.W_v = nn.Linear(d_model, d_model)\n        self.W_o = nn.Linear(d_model, d_model)\n\n"
     << "    def forward(self, q, k, v, mask=None):\n"
     << "        batch_size = q.size(0)\n"
     << "        Q = self.W_q(q).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)\n"
     << "        K = self.W_k(k).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)\n"
     << "        V = self.W_v(v).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)\n"
     << "        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)\n"
     << "        if mask is not None:\n            scores = scores.masked_fill(mask == 0, -1e9)\n"
     << "        attn_weights = torch.softmax(scores, dim=-1)\n"
     << "        attn_output = torch.matmul(attn_weights, V)\n"
     << "        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.d_model)\n"
     << "        return self.W_o(attn_output)\n\n\n"
     << "class TinyAttentionModel(nn.Module):\n"
     << "    def __init__(self, vocab, seq_len, d_model, num_heads, layers, readouts):\n"
     << "        super().__init__()\n"
     << "        self.tok = nn.Embedding(vocab, d_model)\n"
     << "        self.pos = nn.Embedding(seq_len, d_model)\n"
     << "        self.layers = nn.ModuleList([MultiHeadAttention(d_model, num_heads) for _ in range(layers)])\n"
     << "        self.readouts = nn.ModuleList([nn.Linear(d_model, vocab) for _ in range(readouts)])\n\n"
     << "    def forward(self, x, mask=None):\n"
     << "        h = self.tok(x) + self.pos(torch.arange(x.size(1)))\n"
     << "        for layer in self.layers:\n            h = h + layer(h, h, h, mask)  # residual\n"
     << "        return [readout(h) for readout in self.readouts]\n\n\n"
     << "V, T, D, H, LAYERS = " << c.vocab << ", " << c.seq_len << ", " << c.d_model << ", " << c.num_heads << ", "
     << c.layers << "\n"
     << "BATCH, STEPS = " << s.batch_size << ", " << s.steps << "\n\n\n";
  py << task_info(c.task).pytorch;
  py << "\n\ntorch.manual_seed(" << seed_ << ")\n"
     << "model = TinyAttentionModel(V, T, D, H, LAYERS, readouts=" << readouts_.size() << ")\n";
  switch (o.kind) {
    case OptimizerKind::SGD:
      py << "optimizer = torch.optim.SGD(model.parameters(), lr=" << py_float(o.lr)
         << ", momentum=" << py_float(o.momentum) << ", dampening=" << py_float(o.dampening)
         << ", weight_decay=" << py_float(o.weight_decay) << ", nesterov=" << (o.nesterov ? "True" : "False") << ")\n";
      break;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
      py << "optimizer = torch.optim." << optimizer_name(o.kind) << "(model.parameters(), lr=" << py_float(o.lr)
         << ", betas=(" << py_float(o.beta1) << ", " << py_float(o.beta2) << "), eps=" << py_float(o.eps)
         << ", weight_decay=" << py_float(o.weight_decay) << ")\n";
      break;
  }
  py << "mask = "
     << (c.causal ? "torch.tril(torch.ones(T, T))  # causal: position t sees 0..t"
                  : "None  # every position sees every other")
     << "\n\nfor step in range(1, STEPS + 1):\n"
     << "    x, targets = make_batch(BATCH)\n"
     << "    logits = model(x, mask)\n"
     << "    loss = sum(F.cross_entropy(l.reshape(-1, V), y.reshape(-1)) for l, y in zip(logits, targets))\n"
     << "    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()\n"
     << "    with torch.no_grad():  # accuracy: argmax (first maximum) = target, over targets that are not -100\n"
     << "        correct = sum(((l.argmax(-1) == y) & (y != -100)).sum().item() for l, y in zip(logits, targets))\n"
     << "        counted = sum((y != -100).sum().item() for y in targets)\n"
     << "    print(f\"step {step} loss {loss.item():." << s.loss_digits << "f} accuracy {correct / counted:.4f}\")\n";
  return py.str();
}

}  // namespace mha
