"""The notebook of tests/browser/notebook-long.test.mjs: every head of 12 layers × 12 heads at 512 tokens (37.7 M
values), causal softmax weights of seeded scores made by PyTorch in float32, shown by mx.show's HTML output. It is
executed here (nbconvert, as a student's saved run) and signed (jupyter trust, as JupyterLab signs what it saves), so
JupyterLab reopens it without running a cell. Beside it, expected.json: what the view must hold, read back in the
page: the shape, every layer's float64 sum, a strided sample and the whole of layer 11's head 11, with the
encoding's bound (float16's rounding: 2**-11 relative, 2**-25 absolute below 2**-14).

usage: python make_long_notebook.py DIR [TOKENS]   → DIR/long.ipynb, DIR/widget.ipynb (mx.Heads, its widget state
stored), DIR/expected.json
"""

import json
import subprocess
import sys
from pathlib import Path

WEIGHTS = """import torch
torch.manual_seed(43)
L, H, T = 12, 12, %d
scores = torch.randn(L, 1, H, T, T) * 3
causal = torch.ones(T, T, dtype=torch.bool).triu(1)
attn = scores.masked_fill(causal, float("-inf")).softmax(-1)
tokens = ["t%%d" %% i for i in range(T)]
"""
STRIDE = 997


def notebook(path, cells):
    """Writes the notebook of these code cells, executes it in the package's kernel (nbconvert, which stores the
    widgets' state, as JupyterLab's Save Widget State Automatically does) and signs it (what jupyter trust does)."""
    nb = {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": "c%d" % i, "metadata": {}, "outputs": [], "source": c}
            for i, c in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"name": "mha-explorer", "display_name": "Python (mha-explorer)", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb), encoding="utf-8")
    execute = ["--to", "notebook", "--execute", "--inplace", "--ExecutePreprocessor.kernel_name=mha-explorer"]
    subprocess.run(
        [sys.executable, "-m", "nbconvert", *execute, "--ExecutePreprocessor.timeout=600", str(path)], check=True
    )
    import nbformat
    from nbformat.sign import NotebookNotary

    NotebookNotary().sign(nbformat.read(str(path), as_version=4))
    return path.stat().st_size


def main(out, tokens=512):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    code = WEIGHTS % tokens
    sizes = {
        "long": notebook(
            out / "long.ipynb", [code, "import mha_explorer as mx\nmx.show(attn, tokens, title='%d tokens')" % tokens]
        ),
        "widget": notebook(
            out / "widget.ipynb", [code, "import mha_explorer as mx\nmx.Heads(attn, tokens, title='widget')"]
        ),
    }
    scope = {}
    exec(code, scope)
    a = scope["attn"]
    flat = a.reshape(-1)
    expected = {
        "shape": list(a.shape),
        "layerSums": a.double().sum(dim=(1, 2, 3, 4)).tolist(),
        "stride": STRIDE,
        "sample": flat[::STRIDE].tolist(),
        "lastHead": a[-1, 0, -1].reshape(-1).tolist(),
        "relative": 2.0**-11,
        "absolute": 2.0**-25,
        "bytes": sizes,
        "values": a.numel(),
    }
    (out / "expected.json").write_text(json.dumps(expected), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
