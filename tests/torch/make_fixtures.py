"""Writes the native oracle fixtures with real PyTorch: tests/native/test_oracle.cpp reads them.

  /usr/bin/python3 tests/torch/make_fixtures.py OUT_DIR

Each fixture is a .safetensors file written by safetensors_spec.py (float32 only, so the C++ reader
returns the exact bits); its __metadata__ holds the configuration. A float64 value x is stored as
two float32 tensors NAME and NAME.lo with x = NAME + NAME.lo (exact to about 2^-48).

  mha_NN.safetensors     MultiHeadAttention forward and backward on a random configuration (every mask
                         convention, self and cross attention, bias on and off, tile-boundary sizes;
                         40 and 41: a query whose keys are all masked, with -1e9 and with -inf):
                         the parameters and inputs, PyTorch's float32 output and gradients, and a float64
                         run of the same parameters (.ref / .ref.lo).
  optim_NN.safetensors   three steps of SGD, Adam or AdamW in PyTorch 1.13, in a child process with
                         ATEN_CPU_CAPABILITY=default (ATen's plain kernels: bit-exact there).
  vectors.safetensors    rand, randn (both paths), nn.Linear and nn.Embedding draws at full precision.
  draws.safetensors      torch.randint(0, 8, (4, 8)) and the induction task's batch (randint, randperm).
"""
import math
import os
import random
import subprocess
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_spec import save_file  # noqa: E402

torch.set_num_threads(1)
MODES = ["none", "keep", "block", "bool", "additive"]


def split64(name, t):
    hi = t.to(torch.float32)
    lo = (t - hi.to(torch.float64)).to(torch.float32)
    return {name: hi, name + ".lo": lo}


def mha_forward(params, q, k, v, H, mode, mask, kpm, causal, fill):
    """The lessons' MultiHeadAttention forward, with every mask convention the core supports."""
    B, Sq, D = q.shape
    Skv = k.shape[1]
    dk = D // H
    lin = lambda x, n: x @ params[n + ".weight"].T + (params[n + ".bias"] if n + ".bias" in params else 0)
    Q = lin(q, "W_q").view(B, Sq, H, dk).transpose(1, 2)
    K = lin(k, "W_k").view(B, Skv, H, dk).transpose(1, 2)
    V = lin(v, "W_v").view(B, Skv, H, dk).transpose(1, 2)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(dk)
    if mode == "keep":
        scores = scores.masked_fill(mask == 0, fill)
    elif mode == "block":
        scores = scores.masked_fill(mask == 1, fill)
    elif mode == "bool":
        scores = scores.masked_fill(mask != 0, fill)
    elif mode == "additive":
        scores = scores + mask
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(Sq, Skv, dtype=torch.bool), 1), fill)
    if kpm is not None:
        scores = scores.masked_fill(kpm[:, None, None, :] != 0, fill)
    w = torch.softmax(scores, dim=-1)
    out = torch.matmul(w, V).transpose(1, 2).contiguous().view(B, Sq, D)
    return lin(out, "W_o")


def mha_case(index, rng, fully_masked_fill=None):
    H = rng.choice([1, 2, 3, 4])
    D = H * rng.choice([1, 3, 4, 5, 8])
    B = rng.choice([1, 2, 3])
    Sq = rng.choice([1, 3, 4, 5, 7, 8, 9])
    cross = rng.random() < 0.4
    Skv = rng.choice([1, 4, 5, 8, 9, 12]) if cross else Sq
    bias = rng.random() < 0.75
    mode = MODES[index % len(MODES)]
    causal = rng.random() < 0.3 and Sq == Skv
    use_kpm = rng.random() < 0.3
    fill = float("-inf") if rng.random() < 0.5 else -1e9
    torch.manual_seed(1000 + index)
    params = {}
    for n in ["W_q", "W_k", "W_v", "W_o"]:
        layer = nn.Linear(D, D, bias=bias)
        params[n + ".weight"] = layer.weight.detach().clone()
        if bias:
            params[n + ".bias"] = layer.bias.detach().clone()
    q = torch.randn(B, Sq, D)
    k = torch.randn(B, Skv, D) if cross else q
    v = torch.randn(B, Skv, D) if cross else q
    dout = torch.randn(B, Sq, D)
    mask = None
    if mode != "none":
        shape = rng.choice([(Sq, Skv), (1, 1, Sq, Skv), (B, 1, Sq, Skv), (B, H, Sq, Skv)])
        if mode == "additive":
            mask = torch.randn(*shape)
        else:
            mask = (torch.rand(*shape) < 0.3).to(torch.float32)
            if mode == "keep":
                mask = 1 - mask
        if fully_masked_fill is not None:
            # query 0 sees no key: uniform weights with -1e9, NaN with -inf (as in PyTorch)
            fill = fully_masked_fill
            mask = torch.ones(Sq, Skv) if mode == "keep" else torch.zeros(Sq, Skv)
            mask[0, :] = 0.0 if mode == "keep" else 1.0
            causal = False
        elif fill == float("-inf") and mode != "additive":
            # keep key 0 open so no row is fully masked (those are NaN, checked elsewhere)
            open_value = 1.0 if mode == "keep" else 0.0
            mask[..., 0] = open_value
    kpm = None
    if use_kpm:
        kpm = (torch.rand(B, Skv) < 0.3).to(torch.float32)
        kpm[:, 0] = 0
    fixture = dict(params)
    fixture["q"] = q
    if cross:
        fixture["k"], fixture["v"] = k, v
    fixture["dout"] = dout
    if mask is not None:
        fixture["mask"] = mask
    if kpm is not None:
        fixture["key_padding_mask"] = kpm
    for dtype, suffix in [(torch.float32, ""), (torch.float64, ".ref")]:
        leaf = lambda t: t.detach().to(dtype).clone().requires_grad_()
        ps = {n: leaf(t) for n, t in params.items()}
        qq = leaf(q)
        kk = leaf(k) if cross else qq
        vv = leaf(v) if cross else qq
        m = None if mask is None else mask.to(dtype)
        out = mha_forward(ps, qq, kk, vv, H, mode, m, kpm, causal, fill)
        out.backward(dout.to(dtype))
        results = {"out": out.detach(), "grad.q": qq.grad}
        if cross:
            results["grad.k"], results["grad.v"] = kk.grad, vv.grad
        results.update({"grad." + n: p.grad for n, p in ps.items()})
        for name, t in results.items():
            if dtype == torch.float32:
                fixture[name] = t.detach()
            else:
                fixture.update(split64(name + suffix, t.detach()))
    meta = {"d_model": str(D), "num_heads": str(H), "bias": str(int(bias)), "cross": str(int(cross)),
            "mask_mode": mode, "causal": str(int(causal)), "fill": "-inf" if fill == float("-inf") else "-1e9"}
    return fixture, meta


def optim_case(index):
    kinds = [("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
             ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True)), ("Adam", dict(lr=1e-2)),
             ("Adam", dict(lr=3e-3, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
             ("AdamW", dict(lr=1e-2)), ("AdamW", dict(lr=5e-2, betas=(0.5, 0.9), weight_decay=0.3))]
    kind, options = kinds[index]
    torch.manual_seed(77 + index)
    p = nn.Parameter(torch.randn(37) * 2)
    fixture = {"p0": p.detach().clone()}
    opt = getattr(torch.optim, kind)([p], **options)
    for step in range(1, 4):
        g = torch.randn(37) * (10.0 ** (step - 2))
        fixture["g%d" % step] = g
        p.grad = g.clone()
        opt.step()
        fixture["p%d" % step] = p.detach().clone()
    meta = {"kind": kind, "torch": torch.__version__}
    meta.update({k: repr(v) if not isinstance(v, tuple) else "%r,%r" % v for k, v in options.items()})
    return fixture, meta


def draws():
    fixture = {}
    torch.manual_seed(5)
    fixture["randint_0_8_4x8"] = torch.randint(0, 8, (4, 8)).to(torch.float32)
    # The induction task's batch (B 6, V 16, T 16), as the training script draws it.
    torch.manual_seed(11)
    B, V, T = 6, 16, 16
    periods = torch.randint(3, 8, (B,))
    x = torch.empty(B, T, dtype=torch.long)
    for b in range(B):
        p = int(periods[b])
        x[b] = torch.randperm(V)[:p].repeat(T // p + 1)[:T]
    fixture["induction_seed11_x"] = x.to(torch.float32)
    return fixture, {"torch": torch.__version__}


def rng_vectors():
    """The lessons' and the tests' random draws at full precision, with the CPU's own kernels (the
    AVX2 build uses FMA in its uniform and normal transforms; the core reproduces that)."""
    f = {}
    torch.manual_seed(0)
    f["seed0.rand5"] = torch.rand(5)
    torch.manual_seed(0)
    f["seed0.randn3"] = torch.randn(3)
    f["seed0.randn3.next"] = torch.randn(3)
    torch.manual_seed(1)
    f["seed1.randn8"] = torch.randn(8)
    f["seed1.randn8x8"] = torch.randn(8, 8)
    torch.manual_seed(0)
    f["seed0.randn16"] = torch.randn(16)
    torch.manual_seed(7)
    for n in [1, 15, 16, 17, 31, 33, 100]:
        f["seed7.randn%d" % n] = torch.randn(n)
    torch.manual_seed(0)
    layer = nn.Linear(4, 4)
    f["seed0.linear4x4.weight"], f["seed0.linear4x4.bias"] = layer.weight.detach(), layer.bias.detach()
    torch.manual_seed(3)
    layer = nn.Linear(33, 17)
    f["seed3.linear33x17.weight"], f["seed3.linear33x17.bias"] = layer.weight.detach(), layer.bias.detach()
    f["seed3.embedding9x20"] = nn.Embedding(9, 20).weight.detach()
    return f, {"torch": torch.__version__}


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    if "--optim" in sys.argv:
        for i in range(7):
            fixture, meta = optim_case(i)
            save_file(fixture, os.path.join(out_dir, "optim_%02d.safetensors" % i), metadata=meta)
        return
    rng = random.Random(20261122)
    for i in range(40):
        fixture, meta = mha_case(i, rng)
        save_file(fixture, os.path.join(out_dir, "mha_%02d.safetensors" % i), metadata=meta)
    for i, fill in [(40, -1e9), (41, float("-inf"))]:
        fixture, meta = mha_case(41, rng, fully_masked_fill=fill)  # 41: the "keep" mask convention
        save_file(fixture, os.path.join(out_dir, "mha_%02d.safetensors" % i), metadata=meta)
    fixture, meta = draws()
    save_file(fixture, os.path.join(out_dir, "draws.safetensors"), metadata=meta)
    fixture, meta = rng_vectors()
    save_file(fixture, os.path.join(out_dir, "vectors.safetensors"), metadata=meta)
    # The optimizers in a process of their own with ATen's plain kernels (no FMA): bit-exact there.
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default", OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, os.path.abspath(__file__), out_dir, "--optim"], env=env, check=True)


if __name__ == "__main__":
    main(sys.argv[1])
