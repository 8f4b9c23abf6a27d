"""A float64 reference of each model family, written from the rules (transformers' modeling_*.py), that carries a
first-order bound on the rounding error of any float32 implementation along with every value.

Every result comes as (value, E): value is the float64 result, E >= 0 bounds |fl32(value) - value| in units of
u = 2^-24, for a float32 implementation of the same formulas in any summation order or blocking, with or without
fused multiply-adds (running error analysis, as `error_bounds` in tests/torch/make_fixtures.py does for one
attention layer). Each rounding site s adds a local error bounded by rho_s (below); the first-order error of an
output o is sum_s dO/ds * delta_s, so |error| <= sum_s |dO/ds| rho_s, plus the incoming errors through |dO/dinput|.

Local bounds rho (in u, absolute):
  - a dot product of n terms plus a bias: (n + 1) (|x| @ |W| + |b|); a residual add: |y|;
  - elementary functions (exp, erf, tanh, sigmoid, sqrt, rsqrt, pow, cos, sin) within 4 ulp: relative FN = 8;
  - LayerNorm: the mean (D + 1) mean|x|, the variance (D + 3) mean(x^2) (which also covers the one-pass
    E[x^2] - mean^2), rstd (FN + 1) rstd, the output 3 (|x| + |mean|) rstd |w| + |y| (which covers PyTorch's
    x * rstd + (-mean * rstd) form); RMSNorm likewise;
  - GELU (erf and tanh forms), SiLU: the rounding of each step of their formula through its derivative;
  - RoPE: transformers builds inv_freq = 1 / base^(2i/d), the angles and their cos/sin in float32 (the exponent
    rounded, then pow, the reciprocal, the product with the position, cos/sin): that table error is a site too;
  - attention: the scale 1/sqrt(hd) adds 3 roundings per term of the scores' sum (the rounded constant, then q
    scaled first as DistilBERT does, or the scores after); softmax: the subtraction of the max, exp in each term
    and in the sum, the sum's n roundings, the division.
Weights are exact in float32 (F16 and BF16 widen exactly): only the arithmetic rounds.

How the errors are carried. Everything but the attention core is position-wise (no mixing across tokens): each
such piece (a `Chain`: LayerNorm -> q/k/v projections -> RoPE; output projection -> residual -> LayerNorm -> MLP
-> residual; the LM head) is written with its rounding sites as explicit zero perturbations, and autograd gives the
exact per-token Jacobians of its outputs with respect to its inputs and sites, whose absolute values carry the
errors (one batched backward pass per chain). Taking |Jacobian| per chain rather than per operation keeps the
cancellations inside a chain (LayerNorm's projection, products of weight matrices): per operation, each random
D x D matrix multiplies a relative bound by about sqrt(D), and two layers would make the bounds vacuous. The
attention core (scores, softmax, weights x values), which mixes tokens, carries its bounds operation by operation.
The bounds are first-order: the neglected terms are O((E u)^2), far below E u while E u is small against the values.
A bound never comes from the value compared, so it stays meaningful where a value is zero.

`forward(model64, ids, logits_at, heads_off)` returns {"attentions", "hidden", "logits"?, "ablated.*"} as (value, E)
pairs; `bounds(...)` the absolute bounds u * E that make_checkpoints.py stores as <name>.bound.
"""

import math

import torch

U = 2.0**-24
FN = 8.0
f64 = torch.float64
WITH_BOUNDS = [True]  # [False]: values only (the per-token Jacobians of a 384-wide model take minutes)


def zeros(t):
    return torch.zeros_like(t)


class Chain:
    """A position-wise piece of the model: rows (tokens) never mix, so one backward pass per output column gives
    every per-token Jacobian at once. Inputs are (value [T, d], E [T, d]); `site` marks a rounding."""

    def __init__(self, *inputs):
        self.inputs = [(v.detach().clone().requires_grad_(True), E) for v, E in inputs]
        self.sites = []

    def __getitem__(self, i):
        return self.inputs[i][0]

    def site(self, value, rho):
        delta = torch.zeros_like(value, requires_grad=True)
        self.sites.append((delta, rho.detach()))
        return value + delta

    def bound(self, *outputs):
        """[(value, E)] of each output [T, m]: E = sum over inputs and sites of |d out / d leaf| * magnitude."""
        out = torch.cat(outputs, -1)
        if not WITH_BOUNDS[0]:
            return [(o.detach(), zeros(o.detach())) for o in outputs]
        T, m = out.shape
        leaves = [v for v, _ in self.inputs] + [d for d, _ in self.sites]
        mags = [E for _, E in self.inputs] + [r for _, r in self.sites]
        cot = torch.eye(m, dtype=f64)[:, None, :].expand(m, T, m)
        grads = torch.autograd.grad(out, leaves, cot, is_grads_batched=True, allow_unused=True)
        E = torch.zeros(T, m, dtype=f64)
        for g, M in zip(grads, mags):
            if g is not None:
                E += (g.abs() * M).flatten(2).sum(-1).T
        res, at = [], 0
        for o in outputs:
            res.append((o.detach(), E[:, at : at + o.shape[-1]]))
            at += o.shape[-1]
        return res


# ---- position-wise operations with their rounding sites -----------------------------------------------------
def linear(ch, x, weight, bias=None, conv1d=False):
    """x @ W^T + b (nn.Linear, W [out, in]) or x @ W + b (GPT-2's Conv1D, W [in, out])."""
    W = weight if conv1d else weight.T
    y = x @ W
    mag = x.detach().abs() @ W.abs()
    if bias is not None:
        y = y + bias
        mag = mag + bias.abs()
    return ch.site(y, (W.shape[0] + 1) * mag)


def add(ch, a, b):
    y = a + b
    return ch.site(y, y.detach().abs())


def layer_norm(ch, x, w, b, eps):
    D = x.shape[-1]
    xa = x.detach().abs()
    mean = ch.site(x.mean(-1, keepdim=True), (D + 1) * xa.mean(-1, keepdim=True))
    c = x - mean
    var = ch.site((c * c).mean(-1, keepdim=True), (D + 3) * (xa * xa).mean(-1, keepdim=True))
    r = torch.rsqrt(var + eps)
    r = ch.site(r, (FN + 1) * r.detach())
    y = c * r * w + (b if b is not None else 0)  # nn.LayerNorm(bias=False): ModernBERT's norm_bias false
    return ch.site(y, 3 * (xa + mean.detach().abs()) * r.detach() * w.abs() + y.detach().abs())


def rms_norm(ch, x, w, eps):
    D = x.shape[-1]
    ms = (x * x).mean(-1, keepdim=True)
    ms = ch.site(ms, (D + 1) * ms.detach())
    r = torch.rsqrt(ms + eps)
    r = ch.site(r, (FN + 1) * r.detach())
    y = w * (x * r)
    return ch.site(y, 2 * y.detach().abs())


def gelu_erf(ch, x):
    """0.5 x (1 + erf(x / sqrt 2)) (transformers' "gelu")."""
    y = 0.5 * x * (1 + torch.erf(x / math.sqrt(2.0)))
    x = x.detach()
    a = x / math.sqrt(2.0)
    erf = torch.erf(a)
    d_erf = 2 / math.sqrt(math.pi) * torch.exp(-a * a)
    rho = 0.5 * x.abs() * (d_erf * 2 * a.abs() + FN * erf.abs() + (1 + erf).abs()) + 2 * y.detach().abs()
    return ch.site(y, rho)


def gelu_tanh(ch, x):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (transformers' "gelu_new")."""
    k, c = math.sqrt(2.0 / math.pi), 0.044715
    y = 0.5 * x * (1 + torch.tanh(k * (x + c * x**3)))
    x = x.detach()
    cube = c * x**3
    t = x + cube
    th = torch.tanh(k * t)
    E_arg = k * (cube.abs() * (FN + 3) + t.abs()) + 2 * k * t.abs()
    rho = 0.5 * x.abs() * ((1 - th * th) * E_arg + FN * th.abs() + (1 + th).abs()) + 2 * y.detach().abs()
    return ch.site(y, rho)


def silu(ch, x):
    y = x * torch.sigmoid(x)
    return ch.site(y, (FN + 3) * y.detach().abs())


def relu(ch, x):
    return torch.relu(x)  # exact


ACTIVATIONS = {
    "relu": relu,
    "gelu": gelu_erf,
    "gelu_python": gelu_erf,
    "gelu_new": gelu_tanh,
    "gelu_pytorch_tanh": gelu_tanh,
    "silu": silu,
}


def activation(name, ch, x):
    if name not in ACTIVATIONS:
        raise ValueError("no reference for activation %r" % name)
    return ACTIVATIONS[name](ch, x)


def rope_theta(cfg):
    """The config's rope base: transformers 5.x keeps it in rope_parameters, 4.x as rope_theta."""
    params = getattr(cfg, "rope_parameters", None)
    return params["rope_theta"] if params else cfg.rope_theta


def rope_of(cfg, layer_type):
    """Gemma 3's and ModernBERT's (base, linear factor) of a kind of layer ("full_attention", "sliding_attention"): 5.x's
    rope_parameters per layer type (rope_type "linear" divides inv_freq by its factor)."""
    p = cfg.rope_parameters[layer_type]
    return p["rope_theta"], p.get("factor", 1.0) if p.get("rope_type") == "linear" else 1.0


def layer_rope(cfg, layer):
    """(base, factor) of layer `layer`: Gemma 3's and ModernBERT's by its layer type, else the config's one base."""
    if cfg.model_type in ("gemma3_text", "modernbert"):
        return rope_of(cfg, cfg.layer_types[layer])
    return rope_theta(cfg), 1.0


def set_rope_theta(cfg, theta):
    params = getattr(cfg, "rope_parameters", None)
    if params:
        params["rope_theta"] = theta
    else:
        cfg.rope_theta = theta


def rope_table(T, dim, base, factor=1.0):
    """cos, sin [T, dim] (exact) and the error of the float32 table transformers builds (factor: linear scaling,
    inv_freq / factor, one more rounding)."""
    e = torch.arange(0, dim, 2, dtype=f64) / dim
    inv = 1.0 / base**e / factor
    rho_inv = math.log(base) * e + FN + 1 + (factor != 1.0)  # the rounded exponent through pow, pow, 1 /, / factor
    theta = torch.arange(T, dtype=f64)[:, None] * inv[None, :]
    E_theta = theta * (rho_inv + 1)
    theta, E_theta = torch.cat((theta, theta), -1), torch.cat((E_theta, E_theta), -1)
    cos, sin = theta.cos(), theta.sin()
    return cos, sin, sin.abs() * E_theta + FN * cos.abs(), cos.abs() * E_theta + FN * sin.abs()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), -1)


def apply_rope(ch, x, heads, table):
    """x [T, heads * hd] rotated per head: x * cos + rotate_half(x) * sin, the table's error a site."""
    cos, sin, Ecos, Esin = table
    T = x.shape[0]
    cos, sin = ch.site(cos, Ecos)[:, None, :], ch.site(sin, Esin)[:, None, :]
    x = x.view(T, heads, -1)
    r = rotate_half(x)
    y = x * cos + r * sin
    rho = 2 * ((x * cos).detach().abs() + (r * sin).detach().abs())
    return ch.site(y, rho).reshape(T, -1)


# ---- the attention core (mixes tokens): bounds carried operation by operation --------------------------------
def soft_cap(z, Ez, c):
    """tanh(z / c) c (Gemma 2) with its bound: the incoming error through sech^2, the division's rounding (|z / c|
    through c sech^2), tanh's FN and the product's rounding of |y|."""
    t = torch.tanh(z / c)
    y = t * c
    sech2 = 1 - t * t
    return y, sech2 * (Ez + z.abs()) + (FN + 1) * y.abs()


def soft_cap_site(ch, z, c):
    y, rho = soft_cap(z.detach(), zeros(z.detach()), c)
    return ch.site(torch.tanh(z / c) * c, rho)


def softmax(z, Ez, blocked):
    """Softmax over the last axis; blocked entries are masked (exactly zero after softmax)."""
    z = z.masked_fill(blocked, float("-inf"))
    p = torch.softmax(z, dim=-1)
    live = ~blocked
    gap = torch.where(live, (z - z.amax(-1, keepdim=True)).abs(), zeros(p))  # rounding of z - max
    spread = torch.where(live, Ez + gap, zeros(p))
    n = live.sum(-1, keepdim=True).to(f64)
    # exp (FN) of each term and in the sum, the sum's n roundings, the division (or reciprocal and product)
    E = p * (spread + (p * spread).sum(-1, keepdim=True) + n + 2 * FN + 2)
    return p, torch.where(live, E, zeros(E))


def attention(
    q, Eq, k, Ek, v, Ev, heads, kv_heads, causal, heads_off=(), scale=True, window=0, scaling=None, softcap=None
):
    """q [T, H*hd], k and v [T, Hkv*hd] -> weights [H, T, T] and merged heads [T, H*hd], with bounds. scale: scores
    / sqrt(hd) (GPT-Neo: none); scaling: scores times this instead (Gemma 2); softcap: then tanh(s / c) c; window:
    a query i sees keys j > i - window only (local and sliding windows), and in an encoder j < i + window too
    (ModernBERT's local layers)."""
    T = q.shape[0]
    hd = q.shape[1] // heads
    split = lambda t, h: t.view(T, h, hd).transpose(0, 1)
    q, Eq = split(q, heads), split(Eq, heads)
    groups = heads // kv_heads
    k, Ek, v, Ev = (split(t, kv_heads).repeat_interleave(groups, dim=0) for t in (k, Ek, v, Ev))  # repeat_kv
    s = scaling if scaling else 1.0 / math.sqrt(hd) if scale else 1.0
    kt, Ekt = k.transpose(-1, -2), Ek.transpose(-1, -2)
    scores = (q @ kt) * s
    E_scores = s * (Eq @ kt.abs() + q.abs() @ Ekt + (hd + (3 if scale else 1)) * (q.abs() @ kt.abs()))
    if softcap:
        scores, E_scores = soft_cap(scores, E_scores, softcap)
    blocked = torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if causal else torch.zeros(T, T, dtype=torch.bool)
    if window:
        blocked |= torch.tril(torch.ones(T, T, dtype=torch.bool), -window)
    if window and not causal:
        blocked |= torch.triu(torch.ones(T, T, dtype=torch.bool), window)
    p, Ep = softmax(scores, E_scores, blocked.expand(heads, T, T))
    o = p @ v
    Eo = Ep @ v.abs() + p @ Ev + T * (p @ v.abs())
    for h in heads_off:
        o[h], Eo[h] = 0, 0
    merge = lambda t: t.transpose(0, 1).reshape(T, heads * hd)
    return (p, Ep), (merge(o), merge(Eo))


# ---- the families ----------------------------------------------------------------------------------------------
def param(module, name="weight"):
    t = getattr(module, name)
    return None if t is None else t.detach().to(f64)


def lin(ch, module, x, conv1d=False):
    return linear(ch, x, param(module), param(module, "bias"), conv1d)


def ln(ch, module, x):
    return layer_norm(ch, x, param(module), param(module, "bias"), module.eps)


def readout(x, final, weight, bias=None, cap=None):
    """last_hidden_state = final(ch, x) of the last layer's output x, and the LM head (weight [V, D], bias [V] or
    None) at rows pos, soft-capped at cap (Gemma 2's final_logit_softcapping) if given."""
    ch = Chain(x)
    (hidden,) = ch.bound(final(ch, ch[0]))

    def head(pos):
        ch = Chain((x[0][pos], x[1][pos]))
        z = linear(ch, final(ch, ch[0]), weight, bias)
        return ch.bound(soft_cap_site(ch, z, cap) if cap else z)[0]

    return hidden, head


def gpt2(model, ids, heads_off):
    base, cfg = model.transformer, model.config
    T, D, H = len(ids), model.config.n_embd, model.config.n_head
    x = param(base.wte)[ids] + param(base.wpe)[:T]
    x = (x, x.abs())
    attns = []
    for i, block in enumerate(base.h):
        ch = Chain(x)
        qkv = lin(ch, block.attn.c_attn, ln(ch, block.ln_1, ch[0]), conv1d=True)
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(*qkv.split(D, -1))
        p, o = attention(q, Eq, k, Ek, v, Ev, H, H, causal=True, heads_off=heads_off.get(i, ()))
        attns.append(p)
        ch = Chain(o, x)
        h = add(ch, ch[1], lin(ch, block.attn.c_proj, ch[0], conv1d=True))
        m = lin(ch, block.mlp.c_fc, ln(ch, block.ln_2, h), conv1d=True)
        m = lin(ch, block.mlp.c_proj, activation(cfg.activation_function, ch, m), conv1d=True)
        (x,) = ch.bound(add(ch, h, m))
    hidden, head = readout(x, lambda ch, y: ln(ch, base.ln_f, y), param(model.lm_head))
    return attns, hidden, head


def gpt_neo(model, ids, heads_off):
    """GPT-Neo (TinyStories): GPT-2's block with nn.Linear q/k/v (no biases), scores not scaled, local layers'
    window."""
    base, cfg = model.transformer, model.config
    T, H = len(ids), cfg.num_heads
    x = param(base.wte)[ids] + param(base.wpe)[:T]
    x = (x, x.abs())
    attns = []
    for i, block in enumerate(base.h):
        sa = block.attn.attention
        ch = Chain(x)
        h = ln(ch, block.ln_1, ch[0])
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(*(lin(ch, m, h) for m in (sa.q_proj, sa.k_proj, sa.v_proj)))
        window = cfg.window_size if sa.attention_type == "local" else 0
        p, o = attention(q, Eq, k, Ek, v, Ev, H, H, True, heads_off.get(i, ()), scale=False, window=window)
        attns.append(p)
        ch = Chain(o, x)
        h = add(ch, ch[1], lin(ch, sa.out_proj, ch[0]))
        m = lin(ch, block.mlp.c_fc, ln(ch, block.ln_2, h))
        m = lin(ch, block.mlp.c_proj, activation(cfg.activation_function, ch, m))
        (x,) = ch.bound(add(ch, h, m))
    hidden, head = readout(x, lambda ch, y: ln(ch, base.ln_f, y), param(model.lm_head))
    return attns, hidden, head


def opt(model, ids, heads_off):
    """OPT: learned positions from row 2, q_proj scaled by hd^-0.5 (the reference's scale covers q scaled first), ReLU,
    pre-norm with a final_layer_norm or post-norm without (do_layer_norm_before)."""
    dec, cfg = model.model.decoder, model.config
    T, H, pre = len(ids), cfg.num_attention_heads, cfg.do_layer_norm_before
    x = param(dec.embed_tokens)[ids] + param(dec.embed_positions)[2 : T + 2]
    x = (x, x.abs())
    attns = []
    for i, layer in enumerate(dec.layers):
        sa = layer.self_attn
        ch = Chain(x)
        h = ln(ch, layer.self_attn_layer_norm, ch[0]) if pre else ch[0]
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(*(lin(ch, m, h) for m in (sa.q_proj, sa.k_proj, sa.v_proj)))
        p, o = attention(q, Eq, k, Ek, v, Ev, H, H, causal=True, heads_off=heads_off.get(i, ()))
        attns.append(p)
        ch = Chain(o, x)
        h = add(ch, ch[1], lin(ch, sa.out_proj, ch[0]))
        h = h if pre else ln(ch, layer.self_attn_layer_norm, h)
        n = ln(ch, layer.final_layer_norm, h) if pre else h
        m = lin(ch, layer.fc2, activation(cfg.activation_function, ch, lin(ch, layer.fc1, n)))
        h = add(ch, h, m)
        (x,) = ch.bound(h if pre else ln(ch, layer.final_layer_norm, h))
    final = (lambda ch, y: ln(ch, dec.final_layer_norm, y)) if dec.final_layer_norm is not None else (lambda ch, y: y)
    hidden, head = readout(x, final, param(model.lm_head))
    return attns, hidden, head


def roberta_positions(ids, pad):
    """RoBERTa's create_position_ids_from_input_ids: pad + the count of non-pad tokens so far, pad at a pad token."""
    out, seen = [], 0
    for i in ids:
        seen += i != pad
        out.append(pad if i == pad else pad + seen)
    return out


def bert(model, ids, heads_off):
    """BERT, and RoBERTa / XLM-R (positions after padding_idx, the MLM head lm_head with exact GELU)."""
    roberta = model.config.model_type in ("roberta", "xlm-roberta")
    base, cfg = getattr(model, model.base_model_prefix, model), model.config
    T, H = len(ids), model.config.num_attention_heads
    emb = base.embeddings
    ch = Chain()
    positions = roberta_positions(ids, cfg.pad_token_id) if roberta else list(range(T))
    w, t, pe = (
        param(emb.word_embeddings)[ids],
        param(emb.token_type_embeddings)[[0] * T],
        param(emb.position_embeddings)[positions],
    )
    x = ch.site(w + t + pe, 2 * (w.abs() + t.abs() + pe.abs()))
    (x,) = ch.bound(ln(ch, emb.LayerNorm, x))
    attns = []
    for i, layer in enumerate(base.encoder.layer):
        sa = layer.attention.self
        ch = Chain(x)
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(*(lin(ch, m, ch[0]) for m in (sa.query, sa.key, sa.value)))
        p, o = attention(q, Eq, k, Ek, v, Ev, H, H, causal=False, heads_off=heads_off.get(i, ()))
        attns.append(p)
        ch = Chain(o, x)
        h = ln(ch, layer.attention.output.LayerNorm, add(ch, lin(ch, layer.attention.output.dense, ch[0]), ch[1]))
        m = activation(cfg.hidden_act, ch, lin(ch, layer.intermediate.dense, h))
        (x,) = ch.bound(ln(ch, layer.output.LayerNorm, add(ch, lin(ch, layer.output.dense, m), h)))

    def head(pos):
        ch = Chain((x[0][pos], x[1][pos]))
        if roberta:  # RobertaLMHead: gelu (erf) whatever hidden_act says
            pred = model.lm_head
            h = ln(ch, pred.layer_norm, gelu_erf(ch, lin(ch, pred.dense, ch[0])))
        else:
            pred = model.cls.predictions
            h = activation(cfg.hidden_act, ch, lin(ch, pred.transform.dense, ch[0]))
            h = ln(ch, pred.transform.LayerNorm, h)
        return ch.bound(linear(ch, h, param(pred.decoder), param(pred, "bias")))[0]

    return attns, x, head if hasattr(model, "cls") or hasattr(model, "lm_head") else None


def distilbert(model, ids, heads_off):
    base, cfg = (model.distilbert if hasattr(model, "distilbert") else model), model.config
    T, H = len(ids), model.config.n_heads
    emb = base.embeddings
    ch = Chain()
    x = add(ch, param(emb.word_embeddings)[ids], param(emb.position_embeddings)[:T])
    (x,) = ch.bound(ln(ch, emb.LayerNorm, x))
    attns = []
    for i, layer in enumerate(base.transformer.layer):
        at = layer.attention
        ch = Chain(x)
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(*(lin(ch, m, ch[0]) for m in (at.q_lin, at.k_lin, at.v_lin)))
        p, o = attention(q, Eq, k, Ek, v, Ev, H, H, causal=False, heads_off=heads_off.get(i, ()))
        attns.append(p)
        ch = Chain(o, x)
        h = ln(ch, layer.sa_layer_norm, add(ch, lin(ch, at.out_lin, ch[0]), ch[1]))
        m = lin(ch, layer.ffn.lin2, activation(cfg.activation, ch, lin(ch, layer.ffn.lin1, h)))
        (x,) = ch.bound(ln(ch, layer.output_layer_norm, add(ch, m, h)))

    def head(pos):
        ch = Chain((x[0][pos], x[1][pos]))
        h = activation(cfg.activation, ch, lin(ch, model.vocab_transform, ch[0]))
        return ch.bound(lin(ch, model.vocab_projector, ln(ch, model.vocab_layer_norm, h)))[0]

    return attns, x, head if hasattr(model, "vocab_projector") else None


def sliding_window(cfg, layer):
    """Layer `layer`'s window (0: none) as 5.x's masks read it: Mistral's sliding_window on every layer, Qwen's on
    the layers layer_types names "sliding_attention" (its config's sliding_window is None without use_sliding_window)."""
    if cfg.model_type == "mistral":
        return cfg.sliding_window or 0
    types = getattr(cfg, "layer_types", None)
    return cfg.sliding_window if types and types[layer] == "sliding_attention" else 0


def llama(model, ids, heads_off):
    """Llama, Mistral and Qwen2 (q/k/v biases), Qwen3 (q_norm, k_norm), SmolLM3 (no RoPE where no_rope_layers is 0):
    RMSNorm, RoPE (rotate_half), grouped-query attention with a sliding window where the config asks, SwiGLU."""
    base, cfg = model.model, model.config
    T, H, Hkv = len(ids), cfg.num_attention_heads, cfg.num_key_value_heads
    hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // H
    gemma = cfg.model_type in ("gemma", "gemma2", "gemma3_text")
    sandwich = cfg.model_type in ("gemma2", "gemma3_text")  # four norms a layer, scaling, soft caps (Gemma 3: none)
    scaling = cfg.query_pre_attn_scalar**-0.5 if sandwich else None
    softcap = cfg.attn_logit_softcapping if sandwich else None
    if gemma:  # GemmaRMSNorm: (1 + w) rounded in float32 (one more u of |y|); embeddings times float32(sqrt D)
        rms = lambda ch, m, x: (lambda y: ch.site(y, y.detach().abs()))(rms_norm(ch, x, 1 + param(m), m.eps))
    else:
        rms = lambda ch, m, x: rms_norm(ch, x, param(m), m.variance_epsilon)
    x = param(base.embed_tokens)[ids]
    if gemma:
        x = x * base.embed_tokens.embed_scale.item()
        x = (x, x.abs())
    else:
        x = (x, zeros(x))
    attns = []
    for i, layer in enumerate(base.layers):
        sa = layer.self_attn
        ch = Chain(x)
        h = rms(ch, layer.input_layernorm, ch[0])
        q, k, v = (lin(ch, m, h) for m in (sa.q_proj, sa.k_proj, sa.v_proj))
        if hasattr(sa, "q_norm"):  # Qwen3: RMSNorm of each head over head_dim
            q = rms(ch, sa.q_norm, q.view(T, H, hd)).reshape(T, -1)
            k = rms(ch, sa.k_norm, k.view(T, Hkv, hd)).reshape(T, -1)
        if getattr(sa, "use_rope", True):
            table = rope_table(T, hd, *layer_rope(cfg, i))
            q, k = apply_rope(ch, q, H, table), apply_rope(ch, k, Hkv, table)
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(q, k, v)
        window = sliding_window(cfg, i)
        p, o = attention(
            q, Eq, k, Ek, v, Ev, H, Hkv, True, heads_off.get(i, ()), window=window, scaling=scaling, softcap=softcap
        )
        attns.append(p)
        ch = Chain(o, x)
        a = lin(ch, sa.o_proj, ch[0])
        if sandwich:
            a = rms(ch, layer.post_attention_layernorm, a)
        h = add(ch, ch[1], a)
        n = rms(ch, layer.pre_feedforward_layernorm if sandwich else layer.post_attention_layernorm, h)
        mlp = layer.mlp
        g = activation(cfg.hidden_activation if sandwich else cfg.hidden_act, ch, lin(ch, mlp.gate_proj, n))
        gu = g * lin(ch, mlp.up_proj, n)
        m = lin(ch, mlp.down_proj, ch.site(gu, gu.detach().abs()))
        if sandwich:
            m = rms(ch, layer.post_feedforward_layernorm, m)
        (x,) = ch.bound(add(ch, h, m))
    cap = getattr(cfg, "final_logit_softcapping", None) if sandwich else None
    hidden, head = readout(x, lambda ch, y: rms(ch, base.norm, y), param(model.lm_head), cap=cap)
    return attns, hidden, head


def add3(ch, a, b, c):
    """a + b + c in any order: two roundings, the first of a partial sum at most |a| + |b| + |c|."""
    y = a + b + c
    return ch.site(y, (a.detach().abs() + b.detach().abs() + c.detach().abs()) + y.detach().abs())


def partial_rope(ch, x, heads, table, rot):
    """x [T, heads * hd] with the first rot features of each head rotated, the others passed (GPT-NeoX, Phi)."""
    T = x.shape[0]
    x = x.view(T, heads, -1)
    r = apply_rope(ch, x[..., :rot].reshape(T, -1), heads, table).view(T, heads, rot)
    return torch.cat((r, x[..., rot:]), -1).reshape(T, -1)


def gpt_neox(model, ids, heads_off):
    """GPT-NeoX (Pythia): LayerNorms, query_key_value interleaved by head, partial rotary, parallel residual."""
    base, cfg = model.gpt_neox, model.config
    T, D, H = len(ids), cfg.hidden_size, cfg.num_attention_heads
    hd = D // H
    rot = base.layers[0].attention.rotary_ndims
    table = rope_table(T, rot, rope_theta(cfg))
    x = param(base.embed_in)[ids]
    x = (x, zeros(x))
    attns = []

    def mlp(ch, n):
        m = activation(cfg.hidden_act, ch, lin(ch, layer.mlp.dense_h_to_4h, n))
        return lin(ch, layer.mlp.dense_4h_to_h, m)

    for i, layer in enumerate(base.layers):
        at = layer.attention
        ch = Chain(x)
        qkv = lin(ch, at.query_key_value, ln(ch, layer.input_layernorm, ch[0])).view(T, H, 3 * hd)
        q, k, v = (qkv[..., j * hd : (j + 1) * hd].reshape(T, D) for j in range(3))
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(partial_rope(ch, q, H, table, rot), partial_rope(ch, k, H, table, rot), v)
        p, o = attention(q, Eq, k, Ek, v, Ev, H, H, causal=True, heads_off=heads_off.get(i, ()))
        attns.append(p)
        ch = Chain(o, x)
        a = lin(ch, at.dense, ch[0])
        if layer.use_parallel_residual:  # mlp(ln_2(x)) + attn + x
            h = add3(ch, mlp(ch, ln(ch, layer.post_attention_layernorm, ch[1])), a, ch[1])
        else:
            h = add(ch, a, ch[1])
            h = add(ch, mlp(ch, ln(ch, layer.post_attention_layernorm, h)), h)
        (x,) = ch.bound(h)
    lm_head = getattr(model, "lm_head", None) or getattr(model, "embed_out", None)  # 5.x / 4.x
    hidden, head = readout(x, lambda ch, y: ln(ch, base.final_layer_norm, y), param(lm_head))
    return attns, hidden, head


def phi(model, ids, heads_off):
    """Phi: one LayerNorm feeding the attention and the MLP (parallel residual), q/k/v/dense with biases, partial
    rotary, gelu_new, final_layernorm, an LM head with its bias."""
    base, cfg = model.model, model.config
    T, H, Hkv = len(ids), cfg.num_attention_heads, cfg.num_key_value_heads
    rot = base.layers[0].self_attn.rotary_ndims
    table = rope_table(T, rot, rope_theta(cfg))
    x = param(base.embed_tokens)[ids]
    x = (x, zeros(x))
    attns = []
    for i, layer in enumerate(base.layers):
        sa = layer.self_attn
        ch = Chain(x)
        n = ln(ch, layer.input_layernorm, ch[0])
        q, k, v = (lin(ch, m, n) for m in (sa.q_proj, sa.k_proj, sa.v_proj))
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(
            partial_rope(ch, q, H, table, rot), partial_rope(ch, k, Hkv, table, rot), v
        )
        p, o = attention(q, Eq, k, Ek, v, Ev, H, Hkv, causal=True, heads_off=heads_off.get(i, ()))
        attns.append(p)
        ch = Chain(o, x)
        m = lin(
            ch,
            layer.mlp.fc2,
            activation(cfg.hidden_act, ch, lin(ch, layer.mlp.fc1, ln(ch, layer.input_layernorm, ch[1]))),
        )
        (x,) = ch.bound(add3(ch, lin(ch, sa.dense, ch[0]), m, ch[1]))  # attn_outputs + feed_forward + residual
    final = lambda ch, y: ln(ch, base.final_layernorm, y)
    hidden, head = readout(x, final, param(model.lm_head), param(model.lm_head, "bias"))
    return attns, hidden, head


def modernbert(model, ids, heads_off):
    """ModernBERT: the token embeddings through a LayerNorm, pre-norm layers (layer 0 without attn_norm), Wqkv as
    q | k | v, RoPE with a base per layer type, the local layers' |i - j| <= local_attention // 2, GeGLU (input, gate
    = Wi(x).chunk(2)), final_norm, and the MLM head decoder(norm(act(dense(h)))). Biases where the config has them."""
    base, cfg = model.model, model.config
    T, D, H = len(ids), cfg.hidden_size, cfg.num_attention_heads
    ch = Chain()
    (x,) = ch.bound(ln(ch, base.embeddings.norm, param(base.embeddings.tok_embeddings)[ids]))
    attns = []
    for i, layer in enumerate(base.layers):
        at = layer.attn
        ch = Chain(x)
        n = ch[0] if i == 0 else ln(ch, layer.attn_norm, ch[0])  # layer 0's attn_norm is nn.Identity
        q, k, v = lin(ch, at.Wqkv, n).split(D, -1)
        table = rope_table(T, D // H, *layer_rope(cfg, i))
        (q, Eq), (k, Ek), (v, Ev) = ch.bound(apply_rope(ch, q, H, table), apply_rope(ch, k, H, table), v)
        window = cfg.sliding_window + 1 if cfg.layer_types[i] == "sliding_attention" else 0
        p, o = attention(q, Eq, k, Ek, v, Ev, H, H, False, heads_off.get(i, ()), window=window)
        attns.append(p)
        ch = Chain(o, x)
        h = add(ch, ch[1], lin(ch, at.Wo, ch[0]))
        inp, gate = lin(ch, layer.mlp.Wi, ln(ch, layer.mlp_norm, h)).chunk(2, -1)
        g = activation(cfg.hidden_activation, ch, inp) * gate
        m = lin(ch, layer.mlp.Wo, ch.site(g, g.detach().abs()))
        (x,) = ch.bound(add(ch, h, m))
    final = lambda ch, y: ln(ch, base.final_norm, y)
    ch = Chain(x)
    (hidden,) = ch.bound(final(ch, ch[0]))

    def head(pos):
        ch = Chain((x[0][pos], x[1][pos]))
        h = activation(cfg.classifier_activation, ch, lin(ch, model.head.dense, final(ch, ch[0])))
        return ch.bound(lin(ch, model.decoder, ln(ch, model.head.norm, h)))[0]

    return attns, hidden, head if hasattr(model, "decoder") else None


FAMILIES = {
    "gpt2": gpt2,
    "bert": bert,
    "distilbert": distilbert,
    "llama": llama,
    "qwen2": llama,
    "qwen3": llama,
    "mistral": llama,
    "smollm3": llama,
    "phi": phi,
    "gpt_neox": gpt_neox,
    "gpt_neo": gpt_neo,
    "opt": opt,
    "gemma": llama,
    "gemma2": llama,
    "gemma3_text": llama,
    "roberta": bert,
    "xlm-roberta": bert,
    "modernbert": modernbert,
}


def forward(model64, ids, logits_at, heads_off=()):
    """{"attentions", "hidden", "logits"?} as (value, E) pairs: attentions [L,1,H,T,T], hidden [1,T,D],
    logits [P,V]; with heads_off, "ablated.hidden" / "ablated.logits" of the same call with those heads zeroed."""
    fn = FAMILIES[model64.config.model_type]
    out = {}
    for prefix, off in (("", []), ("ablated.", list(heads_off))):
        if prefix and not off:
            break
        by_layer = {}
        for layer, head in off:
            by_layer.setdefault(layer, []).append(head)
        attns, (x, Ex), head = fn(model64, ids, by_layer)
        if not prefix:
            out["attentions"] = tuple(torch.stack([t[j] for t in attns])[:, None] for j in (0, 1))
        out[prefix + "hidden"] = (x[None], Ex[None])
        if head is not None and logits_at:
            out[prefix + "logits"] = head(list(logits_at))
    return out


def bounds(model64, ids, logits_at, heads_off, result):
    """Absolute bounds u * E for the tensors of `result` (make_checkpoints.py's names)."""
    ref = forward(model64, ids, logits_at, heads_off)
    return {name: U * ref[name][1] for name in result}
