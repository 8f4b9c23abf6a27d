"""Real PyTorch as the tests' oracle: the node tests send a JSON request on stdin and read JSON back.

Run with Debian's PyTorch (/usr/bin/python3; python3-torch). Float tensors cross as base64 of their
little-endian float32 bytes, so nothing is rounded on the way.

  run-scripts   {"scripts": [text, ...]}               -> {"outputs": [stdout, ...]}   (each in a fresh namespace)
  init-state    {"script": text}                        -> {"state": {name: tensor}}    (the script up to its training loop)
  dropout-mha   {"seed", "d_model", "num_heads", "p", "batch", "seq_len"}
                                                        -> {"x": tensor, "weights": tensor}  (lesson 003's module, train mode)
  draws         {"seed", "ops": [[op, args...], ...]}   -> {"results": [tensor, ...]}   (one stream: randn, rand, randint, randperm, linear, embedding)
"""

import base64
import contextlib
import io
import json
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def encode(t):
    t = t.detach().contiguous()
    if t.dtype != torch.float32:
        t = t.to(torch.float32)
    return {"shape": list(t.shape), "b64": base64.b64encode(t.numpy().astype("<f4").tobytes()).decode()}


def run_scripts(req):
    outputs = []
    for text in req["scripts"]:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(text, "<training script>", "exec"), {"__name__": "__main__"})
        outputs.append(buf.getvalue())
    return {"outputs": outputs}


def init_state(req):
    text = req["script"]
    prefix = text[: text.index("\nfor step in range")]
    namespace = {"__name__": "__main__"}
    exec(compile(prefix, "<training script>", "exec"), namespace)
    return {"state": {k: encode(v) for k, v in namespace["model"].state_dict().items()}}


class Lesson003MultiHeadAttention(nn.Module):
    """Lesson 003's module (dropout on the attention weights), as the notebook defines it."""

    def __init__(self, d_model, num_heads, dropout=0.1):
        super().__init__()
        self.d_model, self.num_heads, self.d_k = d_model, num_heads, d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        b, s, _ = x.shape
        Q = self.W_q(x).view(b, s, self.num_heads, self.d_k).transpose(1, 2)
        K = self.W_k(x).view(b, s, self.num_heads, self.d_k).transpose(1, 2)
        V = self.W_v(x).view(b, s, self.num_heads, self.d_k).transpose(1, 2)
        w = self.dropout(F.softmax(torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k), dim=-1))
        return self.W_o(torch.matmul(w, V).transpose(1, 2).contiguous().view(b, s, self.d_model)), w


def dropout_mha(req):
    torch.manual_seed(req["seed"])
    mha = Lesson003MultiHeadAttention(req["d_model"], req["num_heads"], req["p"])
    x = torch.randn(req["batch"], req["seq_len"], req["d_model"])
    _, w = mha(x)
    return {"x": encode(x), "weights": encode(w)}


def draws(req):
    torch.manual_seed(req["seed"])
    out = []
    for op, *args in req["ops"]:
        if op == "randn":
            out.append(torch.randn(*args[0]))
        elif op == "rand":
            out.append(torch.rand(*args[0]))
        elif op == "randint":
            out.append(torch.randint(args[0], args[1], tuple(args[2])).to(torch.float32))
        elif op == "randperm":
            out.append(torch.randperm(args[0]).to(torch.float32))
        elif op == "linear":
            layer = nn.Linear(args[0], args[1], bias=args[2])
            out.append(layer.weight)
            if args[2]:
                out.append(layer.bias)
        elif op == "embedding":
            out.append(nn.Embedding(args[0], args[1]).weight)
        else:
            raise ValueError(op)
    return {"results": [encode(t) for t in out]}


COMMANDS = {"run-scripts": run_scripts, "init-state": init_state, "dropout-mha": dropout_mha, "draws": draws}

if __name__ == "__main__":
    json.dump(COMMANDS[sys.argv[1]](json.load(sys.stdin)), sys.stdout)
