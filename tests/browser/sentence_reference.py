"""The sentence embedding of a sentence-transformers folder as sentence-transformers computes it, in PyTorch (float64):
transformers' AutoModel on the folder, its last hidden states pooled as the Pooling module's config.json says (the
attention mask's mean, as sentence_transformers.models.Pooling), normalised (torch.nn.functional.normalize) when
modules.json has a Normalize module, and the cosine similarity (torch.nn.functional.cosine_similarity) of two texts;
with heads switched off, each head's slice of the attention output projection's input zeroed by a forward pre-hook
(tests/models/make_checkpoints.py's heads_switched_off). The browser test models-sentence.test.mjs compares the page's
numbers with these.

stdin: {"folder", "texts": [a, b], "heads_off": [[layer, head], ...]}; stdout: {"full": {...}, "ablated": {...}}, each
{"a", "b" (the embeddings), "cosine"}, and "tokens": the texts' token counts.
"""

import json
import os
import sys

import torch
import torch.nn.functional as F
import transformers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
from make_checkpoints import heads_switched_off  # noqa: E402


def pooled(hidden, mask, config):
    """sentence_transformers.models.Pooling's forward for the modes the page computes (cls, max, mean,
    mean_sqrt_len, lasttoken), concatenated in its order."""
    m = mask.unsqueeze(-1).to(hidden.dtype)
    parts = []
    if config.get("pooling_mode_cls_token"):
        parts.append(hidden[:, 0])
    if config.get("pooling_mode_max_tokens"):
        parts.append(hidden.masked_fill(m == 0, -1e9).max(1).values)
    total, count = (hidden * m).sum(1), m.sum(1).clamp(min=1e-9)
    if config.get("pooling_mode_mean_tokens"):
        parts.append(total / count)
    if config.get("pooling_mode_mean_sqrt_len_tokens"):
        parts.append(total / count.sqrt())
    if config.get("pooling_mode_lasttoken"):
        parts.append(hidden[:, -1])
    return torch.cat(parts, 1)


def main():
    req = json.load(sys.stdin)
    folder = req["folder"]
    modules = json.load(open(os.path.join(folder, "modules.json")))
    pool = next(m for m in modules if m["type"].endswith("Pooling"))
    config = json.load(open(os.path.join(folder, pool["path"], "config.json")))
    normalize = any(m["type"].endswith("Normalize") for m in modules)
    tok = transformers.AutoTokenizer.from_pretrained(folder)
    model = (
        transformers.AutoModel.from_pretrained(folder, torch_dtype=torch.float32, attn_implementation="eager")
        .double()
        .eval()
    )

    def embed(text):
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**enc).last_hidden_state
        e = pooled(hidden, enc["attention_mask"], config)
        return (F.normalize(e, p=2, dim=1) if normalize else e)[0]

    out = {"tokens": [len(tok(t)["input_ids"]) for t in req["texts"]]}
    for name, off in (("full", []), ("ablated", req["heads_off"])):
        with heads_switched_off(model, off):
            a, b = (embed(t) for t in req["texts"])
        out[name] = {"a": a.tolist(), "b": b.tolist(), "cosine": F.cosine_similarity(a, b, dim=0).item()}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
