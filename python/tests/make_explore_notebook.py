"""Writes the notebook tests/browser/explore.test.mjs runs: a student's lesson-000 MultiHeadAttention, trained a few
steps so that each head looks back its own number of positions, shown by mx.explore on the student's own x and
tokens; then the training lab by mx.lab. The first cell writes what PyTorch computes for that x (expected.json) and
the module's weights as the file the page's "Copy as PyTorch" snippet loads (mx.save_weights).

usage: python make_explore_notebook.py DIR   → DIR/explore.ipynb
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_notebook import write_notebook  # noqa: E402

# Code cells only (as make_notebook.py: nbsphinx would need pandoc for markdown cells).
CELLS = [
    f"""import sys, json, torch
sys.path.insert(0, {HERE!r})
from lessons import MultiHeadAttention000
import mha_explorer as mx
torch.manual_seed(0)
mha = MultiHeadAttention000(32, 4)                  # lesson 000's module
tokens = ["the", "cat", "sat", "on", "the", "warm", "mat", "today"]
x = torch.randn(1, 8, 32)                           # the student's own input
# a little training: head h learns to look h positions back (about 3/4 of its weight there)
target = torch.tensor([[max(i - h, 0) for i in range(8)] for h in range(4)])
opt = torch.optim.Adam(mha.parameters(), lr=0.01)
for _ in range(10):
    attn = mha(x, x, x)[1][0]
    loss = -attn.gather(-1, target.unsqueeze(-1)).log().mean()
    opt.zero_grad(); loss.backward(); opt.step()
mha.eval()
with torch.no_grad():
    weights = mha(x, x, x)[1]
json.dump({{"weights": weights.reshape(-1).tolist(), "shape": list(weights.shape), "tokens": tokens}}, open("expected.json", "w"))
mx.save_weights(mha, "MultiHeadAttention000.safetensors")   # the file the page's snippet loads
mx.explore(mha, x, tokens)""",
    """mx.lab(preset="train-two-offsets", heads=2)""",
]


def main(out):
    write_notebook(out, "explore.ipynb", [("code", text) for text in CELLS])


if __name__ == "__main__":
    main(sys.argv[1])
