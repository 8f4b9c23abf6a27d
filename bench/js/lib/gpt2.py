"""The GPT-2 checkpoint of bench/js/models.js, its ONNX export, its reference outputs, and PyTorch eager timing.

    python gpt2.py make --out DIR [--tiny] [--tokens 128]
        DIR/config.json, model.safetensors (save_pretrained of a random-initialised GPT2LMHeadModel,
        then rewritten as gpt2's own file: no `transformer.` prefix, the h.N.attn.bias buffers stored,
        so the full size matches gpt2's 548 MB), model.onnx (torch.onnx.export of `NextToken` below),
        reference-<T>.json + .bin (float64 outputs for the checks), done.json (what was made).
    python gpt2.py time --dir DIR --ids FILE --runs N
        PyTorch eager (one thread) on the same checkpoint and token ids (FILE: JSON {"<T>": [ids]}): prints JSON
        {"tokens": {"<T>": {"samples": [ms...]}}}.

Nothing is fetched from a hub: the weights are drawn with torch.manual_seed(0). Run with the lessons' venv
(`bash scripts/venv-lessons` prints it): transformers 4.46.3 over Debian's torch 1.13.
"""

import argparse
import json
import os
import sys
import time

import torch
import transformers
from safetensors.torch import load_file, save_file

SEED = 0


def config(tiny):
    if tiny:  # CI's quick run: the same code paths at a size that takes a second
        return transformers.GPT2Config(vocab_size=512, n_positions=128, n_embd=32, n_layer=2, n_head=2)
    return transformers.GPT2Config()  # gpt2 (small): 12 layers, 12 heads, 768 wide, 50257 tokens, 1024 positions


class NextToken(torch.nn.Module):
    """What every contender computes: every layer's attentions, the last hidden state and the next-token logits
    (the LM head at the last position only, as model.forward(ids, {logitsAt: [T - 1]}) computes them)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        out = self.model.transformer(input_ids=input_ids, output_attentions=True, use_cache=False, return_dict=True)
        hidden = out.last_hidden_state
        logits = self.model.lm_head(hidden[:, -1, :])
        return (logits, hidden) + tuple(out.attentions)


def load(directory, dtype=torch.float32):
    model = transformers.GPT2LMHeadModel.from_pretrained(directory, attn_implementation="eager", torch_dtype=dtype)
    return NextToken(model.eval())


def ids_for(tokens, vocab):
    g = torch.Generator().manual_seed(1000 + tokens)
    return torch.randint(0, vocab, (1, tokens), generator=g)


def as_released(file, cfg):
    """gpt2's own model.safetensors: keys without `transformer.`, the causal-mask buffers h.N.attn.bias stored."""
    sd = {k[len("transformer.") :] if k.startswith("transformer.") else k: v for k, v in load_file(file).items()}
    P = cfg.n_positions
    for i in range(cfg.n_layer):
        sd["h.%d.attn.bias" % i] = torch.tril(torch.ones(P, P)).view(1, 1, P, P)
    save_file(sd, file, metadata={"format": "pt"})


def write_reference(out, tokens, cfg):
    """float64 outputs of transformers at `tokens` random ids, and transformers' own float32 error against them
    (bench/js/models.js accepts an implementation within 16 x that error, as docs/models-oracle.md does for MiniLM)."""
    ids = ids_for(tokens, cfg.vocab_size)
    with torch.no_grad():
        r64 = load(out, torch.float64)(ids)
        r32 = load(out)(ids)
    parts = {
        "logits": (r64[0], r32[0]),
        "hidden": (r64[1], r32[1]),
        "attentions": (torch.stack(r64[2:]), torch.stack(r32[2:])),
    }  # [L, 1, H, T, T]
    meta, offset = {"ids": ids[0].tolist(), "tensors": {}}, 0
    with open(os.path.join(out, "reference-%d.bin" % tokens), "wb") as f:
        for name, (a64, a32) in parts.items():
            data = a64.contiguous().numpy().astype("<f8").tobytes()
            f.write(data)
            meta["tensors"][name] = {
                "shape": list(a64.shape),
                "offset": offset,
                "count": a64.numel(),
                "torchFloat32Error": float((a32.double() - a64).abs().max()),
            }
            offset += len(data)
    with open(os.path.join(out, "reference-%d.json" % tokens), "w") as f:
        json.dump(meta, f)


def make(out, tiny, tokens):
    cfg = config(tiny)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(SEED)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    model.save_pretrained(out, safe_serialization=True)
    as_released(os.path.join(out, "model.safetensors"), cfg)

    wrapped = load(out)
    names = ["logits", "hidden"] + ["attentions.%d" % i for i in range(cfg.n_layer)]
    example = ids_for(min(tokens, cfg.n_positions), cfg.vocab_size)
    axes = {"input_ids": {1: "tokens"}, "hidden": {1: "tokens"}}
    axes.update({n: {2: "tokens", 3: "tokens"} for n in names[2:]})
    with torch.no_grad():
        torch.onnx.export(
            wrapped,
            (example,),
            os.path.join(out, "model.onnx"),
            input_names=["input_ids"],
            output_names=names,
            dynamic_axes=axes,
            opset_version=14,
            do_constant_folding=True,
        )
    write_reference(out, min(tokens, cfg.n_positions), cfg)
    with open(os.path.join(out, "done.json"), "w") as f:
        json.dump(
            {
                "tiny": tiny,
                "seed": SEED,
                "torch": torch.__version__,
                "transformers": transformers.__version__,
                "config": cfg.to_dict(),
                "referenceTokens": min(tokens, cfg.n_positions),
                "outputs": names,
            },
            f,
        )


def time_eager(directory, ids_by_length, runs):
    torch.set_num_threads(1)
    model = load(directory)
    result = {"torch": torch.__version__, "threads": torch.get_num_threads(), "tokens": {}}
    with torch.no_grad():
        for T, token_ids in ids_by_length.items():
            ids = torch.tensor([token_ids])
            for _ in range(2):
                model(ids)
            samples = []
            for _ in range(runs):
                t0 = time.perf_counter()
                model(ids)
                samples.append((time.perf_counter() - t0) * 1e3)
            result["tokens"][T] = {"samples": samples}
    json.dump(result, sys.stdout)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--out", required=True)
    m.add_argument("--tiny", action="store_true")
    m.add_argument("--tokens", type=int, default=128)
    t = sub.add_parser("time")
    t.add_argument("--dir", required=True)
    t.add_argument("--ids", required=True)
    t.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    if a.cmd == "make":
        make(a.out, a.tiny, a.tokens)
    else:
        with open(a.ids) as f:
            time_eager(a.dir, json.load(f), a.runs)


if __name__ == "__main__":
    main()
