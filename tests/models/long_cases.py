"""The long texts' oracle (issue 43): a tiny GPT-2 with 1024 positions and a tiny Llama with 2048, each run by
transformers (eager, float64) on ids that fill every position, with reference.py's bounds on any float32
implementation's error. Written as make_checkpoints.py writes its cases (DIR/<case>/ as save_pretrained wrote it,
oracle-0.safetensors: attentions [L, 1, H, T, T], hidden, logits at two positions, the ablated hidden and logits,
each with its .bound), listed in DIR/index.json. Its own fixture (scripts/fixtures long → build/long/), so that the
suites that run every case of build/models/ on every build stay short; tests/node/long-attention.test.mjs reads it.

Usage: python long_cases.py --out DIR (the models' oracle: scripts/venv-models)
"""

import argparse
import copy
import json
import os

import reference
import torch
import transformers
from fanout import fanout
from make_checkpoints import draw_weights, run_and_ablated, true_float64, write_f64_safetensors

V = 96  # token ids drawn from 0..V-1; no tokenizer: the test gives ids


def gpt2_long():
    return transformers.GPT2Config(vocab_size=V, n_positions=1024, n_embd=32, n_layer=2, n_head=2)


def llama_long():
    return transformers.LlamaConfig(
        vocab_size=V,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=2048,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
    )


CASES = [
    ("gpt2-1024", "gpt2", gpt2_long, "GPT2LMHeadModel", 1024),
    ("llama-2048", "llama", llama_long, "LlamaForCausalLM", 2048),
]


def make_case(out_dir, case, family, config_fn, arch, T, seed):
    path = os.path.join(out_dir, case)
    os.makedirs(path)
    cfg = config_fn()
    cfg.architectures = [arch]
    torch.manual_seed(seed)
    model = getattr(transformers, arch)(cfg).eval()
    draw_weights(model, torch.Generator().manual_seed(seed))
    model.save_pretrained(path, safe_serialization=True)
    del model
    model = getattr(transformers, arch).from_pretrained(path, dtype=torch.float32, attn_implementation="eager").eval()
    model64 = copy.deepcopy(model).double()
    ids = torch.randint(V, (T,), generator=torch.Generator().manual_seed(seed + 1)).tolist()
    logits_at, heads_off = [T // 2, T - 1], [[1, 0]]
    with true_float64():
        result = run_and_ablated(model64, ids, logits_at, heads_off)
    bounds = reference.bounds(model64, ids, logits_at, heads_off, result)
    tensors = {}
    for name, value in result.items():
        tensors[name] = value.to(torch.float64).contiguous()
        tensors[name + ".bound"] = bounds[name].to(torch.float64).contiguous()
    meta = {
        "ids": json.dumps(ids),
        "logits_at": json.dumps(logits_at),
        "heads_off": json.dumps(heads_off),
        "transformers": transformers.__version__,
        "torch": torch.__version__,
    }
    write_f64_safetensors(os.path.join(path, "oracle-0.safetensors"), tensors, meta)
    return {
        "case": case,
        "family": family,
        "model_type": cfg.model_type,
        "architecture": arch,
        "dtype": "F32",
        "tokens": T,
        "files": sorted(os.listdir(path)),
        "oracles": ["oracle-0.safetensors"],
    }


def make_row(out_dir, i):
    """CASES[i], seeded by its row: one task of the fixture pool."""
    return make_case(out_dir, *CASES[i], seed=43 + i)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    index = fanout(make_row, [(out, i) for i in range(len(CASES))])
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
