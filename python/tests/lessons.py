"""The lessons' MultiHeadAttention classes as the lessons write them (../shared/lessons/: 000, 002, 003), taken
from the page's own copies (web/lessons/*.py, which the page's snippets run), so the tests run the students' code
and the lessons' Python is written once."""

import math
import pathlib
import re

import torch

LESSONS = pathlib.Path(__file__).resolve().parents[2] / "web" / "lessons"


def cells(file):
    """{name: code} of a web/lessons file: each cell starts at a "# %% name" line (web/lessons/python.js's cells)."""
    parts = re.split(r"^# %% (\w+)\n", (LESSONS / file).read_text(encoding="utf-8"), flags=re.M)
    return {parts[i]: parts[i + 1].rstrip() for i in range(1, len(parts), 2)}


def lesson(file, cell):
    """The names a lesson's definitions cell makes (its $constructor: mha_constructor.py's, as the page fills it)."""
    code = cells(file)[cell].replace("$constructor", cells("mha_constructor.py")["constructor"])
    if "$" in code:
        raise ValueError("%s's %s cell has a template the tests cannot fill" % (file, cell))
    namespace = {}
    exec(compile(code, str(LESSONS / file), "exec"), namespace)
    return namespace


def named(cls, name):
    """The lesson's class under the name the tests tell the lessons apart by (MultiHeadAttention000, …)."""
    cls.__name__ = cls.__qualname__ = name
    return cls


# Lesson 000 (Chapter 2.3): a helper, forward(Q, K, V, mask) returning (output, weights)
_lesson000 = lesson("lesson000.py", "definitions")
scaled_dot_product_attention = _lesson000["scaled_dot_product_attention"]
MultiHeadAttention000 = named(_lesson000["MultiHeadAttention"], "MultiHeadAttention000")
# Lesson 002 (L04, newer version): forward(q, k, v, mask) returning the output only
MultiHeadAttention002 = named(lesson("lesson002.py", "setup")["MultiHeadAttention"], "MultiHeadAttention002")
# Lesson 003: forward(x, mask) with dropout on the weights and a triu mask where mask == 1 is blocked
MultiHeadAttention003 = named(lesson("lesson003.py", "definitions")["MultiHeadAttention"], "MultiHeadAttention003")


# ---- what PyTorch computes for these modules, step by step (the tests' reference, not the package's code) ----


def lesson_weights(m, q_in, k_in=None, mask=None):
    """The softmax weights of a lessons' module, [B, H, T, S]."""
    k_in = q_in if k_in is None else k_in
    B = q_in.shape[0]
    q = m.W_q(q_in).view(B, -1, m.num_heads, m.d_k).transpose(1, 2)
    k = m.W_k(k_in).view(B, -1, m.num_heads, m.d_k).transpose(1, 2)
    return torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(m.d_k), dim=-1)


def step(t):
    return {"shape": list(t.shape), "strides": list(t.stride()), "contiguous": t.is_contiguous()}


def lesson_trace(m, x):
    """Lesson 004's table, each row a tensor PyTorch makes here."""
    B = x.shape[0]
    q = m.W_q(x)
    split = q.view(B, -1, m.num_heads, m.d_k)
    heads = split.transpose(1, 2)
    v = m.W_v(x).view(B, -1, m.num_heads, m.d_k).transpose(1, 2)
    w = lesson_weights(m, x)
    attended = torch.matmul(w, v)
    back = attended.transpose(1, 2)
    merged = back.contiguous().view(B, -1, m.d_model)
    out = m.W_o(merged)
    return [
        dict(step(x), op="input"),
        dict(step(q), op="linear"),
        dict(step(split), op="view"),
        dict(step(heads), op="transpose"),
        dict(step(attended), op="attention", weights=list(w.shape)),
        dict(step(back), op="transpose"),
        dict(step(merged), op="contiguous_view"),
        dict(step(out), op="linear"),
    ]
