"""Writes the native oracle fixtures with real PyTorch: tests/native/test_oracle.cpp reads them.

  /usr/bin/python3 tests/torch/make_fixtures.py OUT_DIR

Each fixture is a .safetensors file written by safetensors_spec.py (float32 only, so the C++ reader
returns the exact bits); its __metadata__ holds the configuration. A float64 value x is stored as
two float32 tensors NAME and NAME.lo with x = NAME + NAME.lo (exact to about 2^-48).

  PATH/mha_NNN.safetensors
                         MultiHeadAttention forward and backward on random configurations (every mask
                         convention, self and cross attention, bias on and off, tile-boundary sizes; the
                         last two: a query whose keys are all masked, with -1e9 and with -inf): the
                         parameters and inputs, PyTorch's float32 output and gradients, a float64 run of
                         the same parameters (.ref / .ref.lo) and a bound on any float32 implementation's
                         rounding error (.bound, in units of 2^-24: error_bounds below). Written once per
                         CPU path PyTorch can take here (PATH: native, default, avx2, avx512; paths.txt
                         lists them with their file counts); MHA_ORACLE_CONFIGS sets the number of random
                         configurations (40; scripts/test --stress: 200).
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
# The values a random mask holds per mode, (open, blocked) (an additive mask is drawn from randn instead).
MASK_VALUES = {"keep": (1.0, 0.0), "block": (0.0, 1.0), "bool": (0.0, 1.0)}


def no_rule(mode, where):
    return ValueError("tests/torch/make_fixtures.py: %s has no rule for mask mode %r" % (where, mode))


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
    elif mode != "none":
        raise no_rule(mode, "mha_forward")
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(Sq, Skv, dtype=torch.bool), 1), fill)
    if kpm is not None:
        scores = scores.masked_fill(kpm[:, None, None, :] != 0, fill)
    w = torch.softmax(scores, dim=-1)
    out = torch.matmul(w, V).transpose(1, 2).contiguous().view(B, Sq, D)
    return lin(out, "W_o")


def error_bounds(params, q, k, v, dout, H, mode, mask, kpm, causal, fill, cross):
    """First-order bounds on the float32 rounding error of every fixture result, in units of u = 2^-24.

    For each value x the float64 run computes, E(x) >= 0 bounds |fl32(x) - x| / u for ANY float32
    implementation of the lessons' forward and backward, whatever its summation order, blocking or
    fused multiply-adds (running error analysis: a dot product of n terms adds n * sum|a||b|; an
    element-wise op adds |result|; errors carried in propagate through |operands|). The bound comes
    from the magnitudes that flow into a value, never from the value itself, so it stays meaningful
    where the exact result is zero (the key bias's gradient, masked rows). Returns {name: E} for
    "out", "grad.*" as make the fixture, in float64."""
    f64 = torch.float64
    P = {n: t.to(f64) for n, t in params.items()}
    B, Sq, D = q.shape
    Skv = k.shape[1]
    dk = D // H
    scale = 1.0 / math.sqrt(dk)

    def mm(a, Ea, b, Eb):
        """c = a @ b over the last axis of a and the second-last of b, with its bound."""
        n = a.shape[-1]
        c = a @ b
        return c, Ea @ b.abs() + a.abs() @ Eb + n * (a.abs() @ b.abs())

    def linear(x, Ex, name):
        W = P[name + ".weight"]
        y, Ey = mm(x, Ex, W.T, torch.zeros_like(W.T))
        if name + ".bias" in P:
            y = y + P[name + ".bias"]
            Ey = Ey + y.abs()
        return y, Ey

    def heads(t):
        return t.view(t.shape[0], t.shape[1], H, dk).transpose(1, 2)

    xq, xk, xv = (t.to(f64) for t in (q, k, v))
    zero = lambda t: torch.zeros_like(t)
    Q, EQ = (heads(t) for t in linear(xq, zero(xq), "W_q"))
    K, EK = (heads(t) for t in linear(xk, zero(xk), "W_k"))
    V, EV = (heads(t) for t in linear(xv, zero(xv), "W_v"))
    S, ES = mm(Q, EQ, K.transpose(-2, -1), EK.transpose(-2, -1))
    S, ES = S * scale, ES * scale + 2 * (S * scale).abs()  # the scale itself is rounded too
    blocked = torch.zeros(B, H, Sq, Skv, dtype=torch.bool)
    m = None if mask is None else mask.to(f64)
    if mode == "keep":
        blocked = blocked | (m == 0)
    elif mode == "block":
        blocked = blocked | (m == 1)
    elif mode == "bool":
        blocked = blocked | (m != 0)
    elif mode == "additive":
        S = S + m
        ES = ES + S.abs()
    elif mode != "none":
        raise no_rule(mode, "error_bounds")
    if causal:
        blocked = blocked | torch.triu(torch.ones(Sq, Skv, dtype=torch.bool), 1)
    if kpm is not None:
        blocked = blocked | (kpm[:, None, None, :] != 0)
    S = S.masked_fill(blocked, fill)
    ES = ES.masked_fill(blocked, 0.0)  # a masked score is the fill constant, exactly
    Pw = torch.softmax(S, dim=-1)
    live = Pw > 0
    gap = torch.where(live, (S - S.amax(-1, keepdim=True)).abs(), zero(S))  # rounding of z - max
    spread = torch.where(live, ES + gap, zero(S))
    EP = Pw * (spread + (Pw * spread).sum(-1, keepdim=True) + Skv + 8)  # + sum of Skv exps, exp, divide
    O, EO = mm(Pw, EP, V, EV)
    merge = lambda t: t.transpose(1, 2).reshape(B, t.shape[2], D)
    concat, Econcat = merge(O), merge(EO)
    out, Eout = linear(concat, Econcat, "W_o")

    g = dout.to(f64)
    bounds = {"out": Eout}

    def param_grads(name, dy, Edy, x, Ex):
        """grad of W (dy^T x summed over every row) and of b (sum of dy)."""
        n = dy.shape[0] * dy.shape[1]
        dy2, Edy2 = dy.reshape(n, -1), Edy.reshape(n, -1)
        x2, Ex2 = x.reshape(n, -1), Ex.reshape(n, -1)
        bounds["grad." + name + ".weight"] = Edy2.T @ x2.abs() + dy2.abs().T @ Ex2 + n * (dy2.abs().T @ x2.abs())
        if name + ".bias" in P:
            bounds["grad." + name + ".bias"] = Edy2.sum(0) + n * dy2.abs().sum(0)

    def input_grad(name, dy, Edy):
        W = P[name + ".weight"]
        return mm(dy, Edy, W, zero(W))

    param_grads("W_o", g, zero(g), concat, Econcat)
    dconcat, Edconcat = input_grad("W_o", g, zero(g))
    dO, EdO = heads(dconcat), heads(Edconcat)
    dP, EdP = mm(dO, EdO, V.transpose(-2, -1), EV.transpose(-2, -1))
    dV, EdV = mm(Pw.transpose(-2, -1), EP.transpose(-2, -1), dO, EdO)
    r = (Pw * dP).sum(-1, keepdim=True)
    Er = (EP * dP.abs() + Pw * EdP).sum(-1, keepdim=True) + Skv * (Pw * dP.abs()).sum(-1, keepdim=True)
    dZ = Pw * (dP - r)
    EdZ = EP * (dP - r).abs() + Pw * (EdP + Er) + 2 * dZ.abs()
    # masked_fill passes no gradient to a filled score: exactly 0 there, even in an all -inf (NaN) row
    dZ, EdZ = dZ.masked_fill(blocked, 0.0), EdZ.masked_fill(blocked, 0.0)
    dS, EdS = dZ * scale, EdZ * scale + 2 * (dZ * scale).abs()
    dQ, EdQ = mm(dS, EdS, K, EK)
    dK, EdK = mm(dS.transpose(-2, -1), EdS.transpose(-2, -1), Q, EQ)
    grads = {}
    for name, dy, Edy, x in [("W_q", dQ, EdQ, xq), ("W_k", dK, EdK, xk), ("W_v", dV, EdV, xv)]:
        dy, Edy = merge(dy), merge(Edy)
        param_grads(name, dy, Edy, x, zero(x))
        grads[name] = input_grad(name, dy, Edy)
    if cross:
        for key, name in [("grad.q", "W_q"), ("grad.k", "W_k"), ("grad.v", "W_v")]:
            bounds[key] = grads[name][1]
    else:
        total = grads["W_q"][0] + grads["W_k"][0] + grads["W_v"][0]
        bounds["grad.q"] = grads["W_q"][1] + grads["W_k"][1] + grads["W_v"][1] + 2 * total.abs()
    # A query whose keys are all -inf is NaN downstream (checked as NaN, not by a bound).
    return {n: torch.nan_to_num(t, nan=0.0, posinf=0.0) for n, t in bounds.items()}


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
        if mode != "additive" and mode not in MASK_VALUES:
            raise no_rule(mode, "MASK_VALUES")
        open_value, blocked_value = MASK_VALUES.get(mode, (None, None))
        if mode == "additive":
            mask = torch.randn(*shape)
        else:
            mask = torch.where(torch.rand(*shape) < 0.3, blocked_value, open_value)
        if fully_masked_fill is not None:
            # query 0 sees no key: uniform weights with -1e9, NaN with -inf (as in PyTorch)
            fill = fully_masked_fill
            mask = torch.full((Sq, Skv), open_value)
            mask[0, :] = blocked_value
            causal = False
        elif fill == float("-inf") and mode != "additive":
            # keep key 0 open so no row is fully masked (those are NaN, checked elsewhere)
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
        leaf = lambda t, dtype=dtype: t.detach().to(dtype).clone().requires_grad_()
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
    for name, E in error_bounds(params, q, k, v, dout, H, mode, mask, kpm, causal, fill, cross).items():
        fixture[name + ".bound"] = E.to(torch.float32)
    meta = {
        "d_model": str(D),
        "num_heads": str(H),
        "bias": str(int(bias)),
        "cross": str(int(cross)),
        "mask_mode": mode,
        "causal": str(int(causal)),
        "fill": "-inf" if fill == float("-inf") else "-1e9",
    }
    return fixture, meta


def optim_case(index):
    kinds = [
        ("SGD", dict(lr=0.1)),
        ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
        ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True)),
        ("Adam", dict(lr=1e-2)),
        ("Adam", dict(lr=3e-3, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
        ("AdamW", dict(lr=1e-2)),
        ("AdamW", dict(lr=5e-2, betas=(0.5, 0.9), weight_decay=0.3)),
    ]
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


def cpu_paths():
    """The ATen CPU kernels this machine can run: what PyTorch picks by itself ("native"), the plain C++
    kernels, AVX2 and AVX-512 where the CPU has them. Forcing a path the CPU lacks would crash."""
    flags = set()
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    paths = ["native", "default"]
    if {"avx2", "fma"} <= flags:
        paths.append("avx2")
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        paths.append("avx512")
    return paths


def write_mha_cases(out_dir, count):
    rng = random.Random(20261122)
    for i in range(count):
        fixture, meta = mha_case(i, rng)
        save_file(fixture, os.path.join(out_dir, "mha_%03d.safetensors" % i), metadata=meta)
    for i, fill in [(count, -1e9), (count + 1, float("-inf"))]:
        fixture, meta = mha_case(41, rng, fully_masked_fill=fill)  # 41: the "keep" mask convention
        save_file(fixture, os.path.join(out_dir, "mha_%03d.safetensors" % i), metadata=meta)


def run_child(out_dir, args, capability):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("ATEN_CPU_CAPABILITY", None)
    if capability != "native":
        env["ATEN_CPU_CAPABILITY"] = capability
    subprocess.run([sys.executable, os.path.abspath(__file__), out_dir] + args, env=env, check=True)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    if "--optim" in sys.argv:
        for i in range(7):
            fixture, meta = optim_case(i)
            save_file(fixture, os.path.join(out_dir, "optim_%02d.safetensors" % i), metadata=meta)
        return
    if "--draws" in sys.argv:
        fixture, meta = draws()
        save_file(fixture, os.path.join(out_dir, "draws.safetensors"), metadata=meta)
        fixture, meta = rng_vectors()
        save_file(fixture, os.path.join(out_dir, "vectors.safetensors"), metadata=meta)
        return
    if "--mha" in sys.argv:
        write_mha_cases(out_dir, int(sys.argv[sys.argv.index("--mha") + 1]))
        return
    # MultiHeadAttention cases once per CPU path (each in its own process: ATen reads the variable once),
    # listed in paths.txt as "<path> <number of files>" for test_oracle.cpp.
    count = int(os.environ.get("MHA_ORACLE_CONFIGS", "40"))
    paths = cpu_paths()
    for path in paths:
        run_child(os.path.join(out_dir, path), ["--mha", str(count)], path)
    with open(os.path.join(out_dir, "paths.txt"), "w") as index:
        index.writelines("%s %d\n" % (path, count + 2) for path in paths)
    # The random draws on the path whose vectorized transforms the core reproduces bit for bit (AVX2 and
    # AVX-512 draw alike), pinned: an exported ATEN_CPU_CAPABILITY or the CPU's own pick must not change them.
    run_child(out_dir, ["--draws"], "avx2" if "avx2" in paths else "native")
    # The optimizers with ATen's plain kernels (no FMA): bit-exact there.
    run_child(out_dir, ["--optim"], "default")


if __name__ == "__main__":
    main(sys.argv[1])
