"""The attentions of a model with heads switched off, from transformers itself, with their float32 error bounds:
transformers' forward in float64 (model.double(), eager attention, output_attentions) with each head's slice of the
attention output projection's input zeroed by a forward pre-hook (tests/models/make_checkpoints.py's
heads_switched_off, as its oracle's "ablated.hidden"), and the bound u·E on |float32 − float64| of every weight from
the running error analysis of tests/models/reference.py (its family forward with the same heads off). The browser test
models-ablated.test.mjs compares the page's getWeights({ablated: true}) with these.

stdin: {"folder", "ids": [...], "heads_off": [[layer, head], ...]}; stdout: {"shape": [L, 1, H, T, T], "attentions",
"bound"} (flat lists).
"""

import json
import os
import sys

import torch
import transformers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import make_checkpoints as mc  # noqa: E402
import reference as R  # noqa: E402


def main():
    req = json.load(sys.stdin)
    folder, ids, off = req["folder"], req["ids"], [tuple(x) for x in req["heads_off"]]
    config = transformers.AutoConfig.from_pretrained(folder)
    cls = getattr(transformers, config.architectures[0])  # the reference's family forward reads the head's model
    model64 = cls.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager").eval().double()
    base = getattr(model64, model64.base_model_prefix, model64)
    by_layer = {}
    for layer, head in off:
        by_layer.setdefault(layer, []).append(head)
    with mc.true_float64():
        with mc.heads_switched_off(model64, off), torch.no_grad():
            out = base(input_ids=torch.tensor([ids]), output_attentions=True)
        attns, _, _ = R.FAMILIES[config.model_type](model64, ids, by_layer)  # its bounds need autograd
    a = torch.stack(out.attentions)  # [L, 1, H, T, T]
    e = torch.stack([t[1] for t in attns])[:, None]
    json.dump(
        {"shape": list(a.shape), "attentions": a.flatten().tolist(), "bound": (R.U * e).flatten().tolist()},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
