"""Writes the notebook the front-end tests run (tests/browser/notebook.test.mjs): a student's cells calling
mx.show on real modules and tensors, each followed by what PyTorch itself computes for it (weights, and the
trace's tensors for the lessons' modules), which the last cell writes to expected.json beside the notebook.

usage: python make_notebook.py DIR   → DIR/views.ipynb (and, once run, DIR/expected.json, DIR/saved.html)
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Code cells only: nbsphinx converts markdown cells with pandoc, which the tests do not install.
CELLS = [
    (
        "code",
        f"""import sys, json, torch, torch.nn as nn
sys.path.insert(0, {HERE!r})
from lessons import MultiHeadAttention000, MultiHeadAttention002, MultiHeadAttention003, lesson_trace, lesson_weights, step
import mha_explorer as mx
expected = []
def expect(weights, trace=None, first=None, last=None, attention=None):
    expected.append({{"weights": weights.reshape(-1).tolist(), "shape": list(weights.shape), "trace": trace,
                      "first": first, "last": last, "attention": attention}})""",
    ),
    (
        "code",
        """torch.manual_seed(0)
mha = MultiHeadAttention000(64, 8)                  # lesson 000's module
x = torch.rand(1, 5, 64)
tokens = ["The", "cat", "sat", "on", "mats"]
view = mx.show(mha, x, tokens)
mha.eval()
with torch.no_grad():
    expect(mha(x, x, x)[1], lesson_trace(mha, x))
view""",
    ),
    (
        "code",
        """torch.manual_seed(1)
mha2 = MultiHeadAttention002(32, 4)                 # lesson 002's: forward returns the output only
x2 = torch.rand(2, 6, 32)
view2 = mx.show(mha2, x2, list("abcdef"))
with torch.no_grad():
    expect(lesson_weights(mha2.eval(), x2), lesson_trace(mha2, x2))
view2""",
    ),
    (
        "code",
        """torch.manual_seed(2)
mha3 = MultiHeadAttention003(64, 4)                 # lesson 003's: forward(x, mask), mask == 1 is blocked
x3 = torch.randn(2, 8, 64)
mask = torch.triu(torch.ones(8, 8), diagonal=1)
view3 = mx.show(mha3, x3, mask=mask)
with torch.no_grad():
    expect(mha3.eval()(x3, mask)[1], lesson_trace(mha3, x3))
view3""",
    ),
    (
        "code",
        """torch.manual_seed(3)
for batch_first in (True, False):
    m = nn.MultiheadAttention(16, 4, batch_first=batch_first)
    xm = torch.rand(2, 5, 16) if batch_first else torch.rand(5, 2, 16)
    display(mx.show(m, xm, list("vwxyz"), title="nn.MultiheadAttention, batch_first=%s" % batch_first))
    with torch.no_grad():
        out, w = m.eval()(xm, xm, xm, need_weights=True, average_attn_weights=False)
    expect(w, first=step(xm), last=step(out), attention=[8, 5, 5])""",
    ),
    (
        "code",
        """torch.manual_seed(4)
layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
xl = torch.rand(1, 4, 16)
with torch.no_grad():
    out, w = layer.eval().self_attn(xl, xl, xl, need_weights=True, average_attn_weights=False)
expect(w, first=step(xl), last=step(out), attention=[2, 4, 4])
mx.show(layer, xl, ["a", "b", "c", "d"])""",
    ),
    (
        "code",
        """torch.manual_seed(5)
stack, h, attentions = [nn.MultiheadAttention(16, 2, batch_first=True).eval() for _ in range(3)], torch.rand(1, 6, 16), []
with torch.no_grad():
    for m in stack:                                  # three layers, as output_attentions=True returns them
        h, w = m(h, h, h, average_attn_weights=False)
        attentions.append(w)
expect(torch.stack(attentions))
saved = mx.show(tuple(attentions), list("uvwxyz"), title="Three layers")
saved.save("saved.html")
saved""",
    ),
    (
        "code",
        """json.dump(expected, open("expected.json", "w"))
print(len(expected), "outputs expected")""",
    ),
]


def write_notebook(out, name, cells_text):
    """[(kind, source)] → out/name, a notebook for the package's kernel (scripts/python-env's "mha-explorer")."""
    os.makedirs(out, exist_ok=True)
    cells = []
    for kind, text in cells_text:
        cell = {"cell_type": kind, "metadata": {}, "source": text}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    nb = {
        "cells": cells,
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "mha-explorer", "display_name": "Python (mha-explorer)", "language": "python"},
            "language_info": {"name": "python"},
        },
    }
    with open(os.path.join(out, name), "w") as f:
        json.dump(nb, f, indent=1)


def main(out):
    write_notebook(out, "views.ipynb", CELLS)


if __name__ == "__main__":
    main(sys.argv[1])
