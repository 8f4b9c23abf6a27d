"""PROVISIONAL bounds (replaced by the running error analysis): 16 x transformers' own float32 error on this
CPU path, at least 2^-20 x the tensor's largest magnitude."""
import copy

import torch


def bounds(model64, ids, logits_at, heads_off, result):
    import make_checkpoints as mc
    model32 = copy.deepcopy(model64).float()
    attn, hidden, logits = mc.run(model32, ids, logits_at)
    with mc.heads_switched_off(model32, heads_off):
        _, ab_hidden, ab_logits = mc.run(model32, ids, logits_at)
    f32 = {"attentions": attn, "hidden": hidden, "ablated.hidden": ab_hidden, "logits": logits,
           "ablated.logits": ab_logits}
    out = {}
    for name, ref in result.items():
        err = (f32[name].double() - ref).abs()
        out[name] = torch.maximum(16 * err, torch.full_like(ref, 2.0 ** -20 * float(ref.abs().max())))
    return out
