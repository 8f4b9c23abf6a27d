"""References of issue 41's methods on the tiny causal checkpoints (CASES: GPT-2, Llama, GPT-Neo, GPT-NeoX, OPT,
Qwen3, Gemma 2, Gemma 3), with bounds. Gemma 2 and 3 have no attribution (their norms on each sublayer's output leave
no per-head terms that add up) and Gemma 2's lens leaves the logits' soft cap out, as accumulated_resid @ W_U does.

  $(bash scripts/venv-models) tests/models/heads_reference.py --models build/models --out build/heads

For each case (a folder make_checkpoints.py wrote with save_pretrained) DIR/<case>.json holds, as plain lists:
  ioi        the clean and corrupted ids of the patching pair (same count: PATCH_TEXTS), tokens a, b (the metric is
             logit[a] - logit[b] at the last position; metric_tokens says which)
  lens       [L + 1][T][V] logits of final_norm(resid_pre[l]) @ W_U^T (+ b) of the clean text, and their bounds
             (row 0 the embeddings, row L the last block's output, as accumulated_resid orders them)
  attribution  at the last position, for [a] and [a, b]: heads [L][H], mlps [L], embed, biases, sum, logit,
             centred (the logit minus the mean over the vocabulary: what the terms add up to for one token), and
             a bound of each
  patching   resid [L][T], attn [L][T], mlp [L][T], heads [L][H]: (patched - corrupted) / (clean - corrupted) of
             the metric, each with its bound; clean, corrupted metrics
  patched_streams  a few patches (kind z/resid/attn/mlp, layer, index): the stream leaving the last layer [T][D] of
             the corrupted run so patched, with its bound
  mean_ablation  for every head: the metric with that head's z replaced by its mean over the positions
  ablation   two head sets x zero / mean / resample (the corrupted text's z): heads, mode, the last position's
             logits [V] and their bounds (against TransformerLens's run_with_hooks on hook_z)
  writes     norms [L][H][T] of what each key writes through each head, ‖v_j·W_O^h‖ (value bias in, no output
             bias), and their bounds
  generate   5 prompts (text and ids): transformers' greedy generate (20 new tokens, float32), the float64 margins
  filters    the distribution of temperature -> top-k -> top-p (transformers' warpers) on the last logits
  sampled    generate(do_sample=True) under torch.manual_seed(s): the drawn ids, and whether each draw is clear
             of the float32 bounds (its winner's p/q beats the runner-up's by more than their error)

For the encoders with an MLM head (MLM_CASES: BERT, DistilBERT, ModernBERT) DIR/<case>.json holds their lens alone: text and ids
(MLM_TEXT), lens [L + 1][T][V]: the MLM head on each hidden state, against transformers' own float64 forward (mlm_lens).

The values are float64 computations written from the rules, checked here against TransformerLens 4.3's
TransformerBridge (enable_compatibility_mode: LayerNorm folded, writing weights and unembedding centred) in
float64: its accumulated_resid(apply_ln=True) @ W_U + b_U, stack_head_results(apply_ln=True) and decompose_resid,
and its patching module (get_act_patch_resid_pre, _attn_out, _mlp_out, _attn_head_out_all_pos). Bounds in units
of 2^-24 come from reference.py's running error analysis (its Chain, sites and attention), carried through each
method's own arithmetic: never from a measured difference.
"""

import argparse
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer  # noqa: E402
from transformers.generation import logits_process as lp  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402
from fanout import fanout  # noqa: E402

hf_logging.set_verbosity_error()
hf_logging.disable_progress_bar()
torch.set_num_threads(1)
f64 = torch.float64
U = R.U

CASES = ["gpt2", "llama", "tinystories", "pythia", "opt", "qwen3", "gemma2", "gemma3"]
# The patching pair of the tiny checkpoints: a clean text and the first as many tokens of another one (a one-token
# swap moves a random model's logits by about the bounds of its float32 error, which would leave the normalised maps
# unchecked: (patched - corrupted) / (clean - corrupted) divides by that move). The two share their first words, as
# the IOI pair does: a patched run recomputes only the positions from the first one the patch changes.
PATCH_TEXTS = (
    "The road, the head: the head, the",
    "The road, the head: queries, keys and values are three linear projections of the same hidden states.",
)
PROMPTS = [
    "The chicken didn't cross the road",
    "Multi-head attention",
    "Queries, keys and values",
    "A student reads the lesson",
    "The quick brown fox",
]
NEW_TOKENS = 20
FILTERS = [(0.7, 0, 1.0), (1.0, 10, 1.0), (1.0, 0, 0.9), (0.8, 20, 0.8), (1.3, 50, 0.95)]
SEEDS = [0, 1, 42]
ABLATIONS = ["zero", "mean", "resample"]  # core.ablations' names


# ---- the model's parts, as (value, E) pieces ------------------------------------------------------------------
class Parts:
    """A pre-norm causal model's pieces: embeddings, per layer the q/k/v, the output projection, the MLP; the
    final norm and the unembedding. This class: GPT-2 (LayerNorm, Conv1D) and Llama-style (RMSNorm, RoPE, GQA,
    SwiGLU; Qwen3's per-head q/k RMSNorm); the subclasses below say what the other families change."""

    layer_norm = True  # LayerNorm blocks and final norm (else RMSNorm)
    parallel = False  # x + attn(ln_1(x)) + mlp(ln_2(x)) (GPT-NeoX's use_parallel_residual)
    attribution = True  # direct logit attribution computed (Gemma 2: refused)

    def __init__(self, model):
        self.model, cfg = model, model.config
        self.gpt2 = cfg.model_type == "gpt2"
        self.layer_norm = self.gpt2
        self.L = cfg.num_hidden_layers
        self.H = cfg.num_attention_heads
        self.Hkv = self.H if self.gpt2 else cfg.num_key_value_heads
        self.D = cfg.hidden_size
        self.hd = self.D // self.H if self.gpt2 else getattr(cfg, "head_dim", None) or self.D // self.H
        self.base = model.transformer if self.gpt2 else model.model
        self.blocks = self.base.h if self.gpt2 else self.base.layers
        self.final = self.base.ln_f if self.gpt2 else self.base.norm
        self.W_U = R.param(model.lm_head)  # [V, D]
        self.V = self.W_U.shape[0]

    @property
    def final_eps(self):
        return self.final.eps if self.layer_norm else self.final.variance_epsilon

    def embed(self, ids):
        if self.gpt2:
            x = R.param(self.base.wte)[ids] + R.param(self.base.wpe)[: len(ids)]
            return x, x.abs()
        x = R.param(self.base.embed_tokens)[ids]
        return x, R.zeros(x)

    def norm(self, ch, module, x):
        if self.layer_norm:
            return R.ln(ch, module, x)
        return R.rms_norm(ch, x, R.param(module), module.variance_epsilon)

    def attention_options(self, i):
        """R.attention's scale and window for layer i."""
        return {}

    def qkv(self, i, x, T):
        blk, ch = self.blocks[i], R.Chain(x)
        if self.gpt2:
            h = self.norm(ch, blk.ln_1, ch[0])
            return ch.bound(*R.lin(ch, blk.attn.c_attn, h, conv1d=True).split(self.D, -1))
        sa = blk.self_attn
        h = self.norm(ch, blk.input_layernorm, ch[0])
        q, k, v = (R.lin(ch, m, h) for m in (sa.q_proj, sa.k_proj, sa.v_proj))
        if hasattr(sa, "q_norm"):  # Qwen3: RMSNorm of each head over head_dim, before RoPE
            q = self.norm(ch, sa.q_norm, q.view(T, self.H, self.hd)).reshape(T, -1)
            k = self.norm(ch, sa.k_norm, k.view(T, self.Hkv, self.hd)).reshape(T, -1)
        table = R.rope_table(T, self.hd, *self.rope(i))
        return ch.bound(R.apply_rope(ch, q, self.H, table), R.apply_rope(ch, k, self.Hkv, table), v)

    def rope(self, i):
        """Layer i's rope (base, linear factor)."""
        return self.rope_theta(), 1.0

    def rope_theta(self):
        cfg = self.model.config  # transformers 5 keeps it in rope_parameters
        theta = getattr(cfg, "rope_theta", None)
        return theta if theta is not None else cfg.rope_parameters["rope_theta"]

    def out_module(self, i):
        blk = self.blocks[i]
        return blk.attn.c_proj if self.gpt2 else blk.self_attn.o_proj

    def o_proj(self, ch, i, o):
        return R.lin(ch, self.out_module(i), o, conv1d=self.gpt2)

    def W_O(self, i):
        """[H, hd, D]: head h's rows of the output projection."""
        W = R.param(self.out_module(i))
        return (W if self.gpt2 else W.T).reshape(self.H, self.hd, self.D)

    def b_O(self, i):
        return R.param(self.out_module(i), "bias")

    def b_V(self, i):
        """[H·hd]: what TransformerLens's fold_ln + fold_value_biases move from each head's z into b_O: the value
        projection's bias plus the first norm's bias through W_V (GPT-2), per query head (zeros without one)."""
        blk = self.blocks[i]
        if self.gpt2:
            W = R.param(blk.attn.c_attn)[:, 2 * self.D :]
            return R.param(blk.attn.c_attn, "bias")[2 * self.D :] + R.param(blk.ln_1, "bias") @ W
        b = R.param(blk.self_attn.v_proj, "bias")
        if b is None:
            return torch.zeros(self.H * self.hd, dtype=f64)
        return b.view(self.Hkv, self.hd).repeat_interleave(self.H // self.Hkv, 0).flatten()

    def mlp(self, ch, i, h):
        """The MLP's output on the stream h (the stream after attention; a parallel layer's: the layer's input)."""
        blk = self.blocks[i]
        if self.gpt2:
            m = R.lin(ch, blk.mlp.c_fc, self.norm(ch, blk.ln_2, h), conv1d=True)
            return R.lin(ch, blk.mlp.c_proj, R.activation(self.model.config.activation_function, ch, m), conv1d=True)
        n = self.norm(ch, blk.post_attention_layernorm, h)
        g = R.activation(self.model.config.hidden_act, ch, R.lin(ch, blk.mlp.gate_proj, n))
        gu = g * R.lin(ch, blk.mlp.up_proj, n)
        return R.lin(ch, blk.mlp.down_proj, ch.site(gu, gu.detach().abs()))

    def logits(self, x):
        """(value, E) [T, V] of final_norm(x) @ W_U^T for x = (value, E) [T, D]."""
        ch = R.Chain(x)
        return ch.bound(R.linear(ch, self.norm(ch, self.final, ch[0]), self.W_U))[0]

    def lens_logits(self, x):
        """The lens's logits of x: the model's readout (Gemma 2: without its soft cap)."""
        return self.logits(x)


class LinearParts(Parts):
    """What GPT-Neo, OPT and GPT-NeoX share: LayerNorms, one attention per head without GQA, nn.Linear layers, a
    value bias folded through W_V with the first norm's bias."""

    def __init__(self, model, base, blocks, final):
        self.model, cfg = model, model.config
        self.gpt2, self.layer_norm = False, True
        self.L, self.H, self.D = cfg.num_hidden_layers, cfg.num_attention_heads, cfg.hidden_size
        self.Hkv, self.hd = self.H, self.D // self.H
        self.base, self.blocks, self.final = base, blocks, final
        head = getattr(model, "lm_head", None) or getattr(model, "embed_out", None)  # GPT-NeoX: 5.x / 4.x
        self.W_U = R.param(head)
        self.V = self.W_U.shape[0]

    def W_O(self, i):
        return R.param(self.out_module(i)).T.reshape(self.H, self.hd, self.D)

    def o_proj(self, ch, i, o):
        return R.lin(ch, self.out_module(i), o)

    def value_weight_bias(self, i):
        """W_V [H·hd, D] and b_V [H·hd] (or None) of layer i."""
        raise NotImplementedError

    def first_norm(self, i):
        raise NotImplementedError

    def b_V(self, i):
        W, b = self.value_weight_bias(i)
        out = R.param(self.first_norm(i), "bias") @ W.T
        return out if b is None else out + b


class GptNeoParts(LinearParts):
    """GPT-Neo (TinyStories): wte + wpe, q/k/v without biases, scores not scaled, local layers' window."""

    def __init__(self, model):
        super().__init__(model, model.transformer, model.transformer.h, model.transformer.ln_f)

    def embed(self, ids):
        x = R.param(self.base.wte)[ids] + R.param(self.base.wpe)[: len(ids)]
        return x, x.abs()

    def sa(self, i):
        return self.blocks[i].attn.attention

    def attention_options(self, i):
        local = self.sa(i).attention_type == "local"
        return {"scale": False, "window": self.model.config.window_size if local else 0}

    def qkv(self, i, x, T):
        sa, ch = self.sa(i), R.Chain(x)
        h = self.norm(ch, self.blocks[i].ln_1, ch[0])
        return ch.bound(*(R.lin(ch, m, h) for m in (sa.q_proj, sa.k_proj, sa.v_proj)))

    def out_module(self, i):
        return self.sa(i).out_proj

    def value_weight_bias(self, i):
        return R.param(self.sa(i).v_proj), None

    def first_norm(self, i):
        return self.blocks[i].ln_1

    def mlp(self, ch, i, h):
        blk = self.blocks[i]
        m = R.lin(ch, blk.mlp.c_fc, self.norm(ch, blk.ln_2, h))
        return R.lin(ch, blk.mlp.c_proj, R.activation(self.model.config.activation_function, ch, m))


class OptParts(LinearParts):
    """OPT, pre-norm (do_layer_norm_before): positions from row 2, q/k/v with biases, ReLU, a final LayerNorm."""

    def __init__(self, model):
        dec = model.model.decoder
        if not model.config.do_layer_norm_before:
            raise ValueError("OPT's post-norm layers have no pre-norm residual stream to read: not a case here")
        super().__init__(model, dec, dec.layers, dec.final_layer_norm)

    def embed(self, ids):
        x = R.param(self.base.embed_tokens)[ids] + R.param(self.base.embed_positions)[2 : len(ids) + 2]
        return x, x.abs()

    def qkv(self, i, x, T):
        sa, ch = self.blocks[i].self_attn, R.Chain(x)
        h = self.norm(ch, self.blocks[i].self_attn_layer_norm, ch[0])
        return ch.bound(*(R.lin(ch, m, h) for m in (sa.q_proj, sa.k_proj, sa.v_proj)))

    def out_module(self, i):
        return self.blocks[i].self_attn.out_proj

    def value_weight_bias(self, i):
        v = self.blocks[i].self_attn.v_proj
        return R.param(v), R.param(v, "bias")

    def first_norm(self, i):
        return self.blocks[i].self_attn_layer_norm

    def mlp(self, ch, i, h):
        blk = self.blocks[i]
        n = self.norm(ch, blk.final_layer_norm, h)
        return R.lin(ch, blk.fc2, R.activation(self.model.config.activation_function, ch, R.lin(ch, blk.fc1, n)))


class GptNeoxParts(LinearParts):
    """GPT-NeoX (Pythia): query_key_value interleaved by head (q_h | k_h | v_h), partial rotary, parallel residual
    (use_parallel_residual) or sequential."""

    def __init__(self, model):
        base = model.gpt_neox
        super().__init__(model, base, base.layers, base.final_layer_norm)
        self.parallel = bool(model.config.use_parallel_residual)
        self.rot = base.layers[0].attention.rotary_ndims

    def embed(self, ids):
        x = R.param(self.base.embed_in)[ids]
        return x, R.zeros(x)

    def qkv(self, i, x, T):
        at, ch, hd = self.blocks[i].attention, R.Chain(x), self.hd
        h = self.norm(ch, self.blocks[i].input_layernorm, ch[0])
        qkv = R.lin(ch, at.query_key_value, h).view(T, self.H, 3 * hd)
        q, k, v = (qkv[..., j * hd : (j + 1) * hd].reshape(T, self.D) for j in range(3))
        table = R.rope_table(T, self.rot, self.rope_theta())
        return ch.bound(
            R.partial_rope(ch, q, self.H, table, self.rot), R.partial_rope(ch, k, self.H, table, self.rot), v
        )

    def out_module(self, i):
        return self.blocks[i].attention.dense

    def value_weight_bias(self, i):
        m, hd = self.blocks[i].attention.query_key_value, self.hd
        rows = torch.cat([torch.arange(h * 3 * hd + 2 * hd, (h + 1) * 3 * hd) for h in range(self.H)])
        return R.param(m)[rows], R.param(m, "bias")[rows]

    def first_norm(self, i):
        return self.blocks[i].input_layernorm

    def mlp(self, ch, i, h):
        blk = self.blocks[i]
        n = self.norm(ch, blk.post_attention_layernorm, h)
        m = R.activation(self.model.config.hidden_act, ch, R.lin(ch, blk.mlp.dense_h_to_4h, n))
        return R.lin(ch, blk.mlp.dense_4h_to_h, m)


class Gemma2Parts(Parts):
    """Gemma 2: Llama's parts with (1 + w) RMSNorms, the embeddings times sqrt(D), scores times
    query_pre_attn_scalar^-0.5 and soft-capped, the even layers sliding, a norm on each sublayer's output (TransformerLens
    reads hook_attn_out and hook_mlp_out after them: ln1_post, ln2_post), the logits soft-capped (not in the lens:
    accumulated_resid @ W_U has no cap). No attribution: no per-head terms add up through those norms."""

    attribution = False

    @property
    def final_eps(self):
        return self.final.eps

    def embed(self, ids):
        x = R.param(self.base.embed_tokens)[ids] * self.base.embed_tokens.embed_scale.item()
        return x, x.abs()

    def norm(self, ch, module, x):  # GemmaRMSNorm: (1 + w) rounded in float32, one more rounding of |y|
        y = R.rms_norm(ch, x, 1 + R.param(module), module.eps)
        return ch.site(y, y.detach().abs())

    def attention_options(self, i):
        cfg = self.model.config
        return {
            "window": R.sliding_window(cfg, i),
            "scaling": cfg.query_pre_attn_scalar**-0.5,
            "softcap": cfg.attn_logit_softcapping,
        }

    def o_proj(self, ch, i, o):
        return self.norm(ch, self.blocks[i].post_attention_layernorm, R.lin(ch, self.out_module(i), o))

    def mlp(self, ch, i, h):
        blk = self.blocks[i]
        n = self.norm(ch, blk.pre_feedforward_layernorm, h)
        g = R.activation(self.model.config.hidden_activation, ch, R.lin(ch, blk.mlp.gate_proj, n))
        gu = g * R.lin(ch, blk.mlp.up_proj, n)
        m = R.lin(ch, blk.mlp.down_proj, ch.site(gu, gu.detach().abs()))
        return self.norm(ch, blk.post_feedforward_layernorm, m)

    def logits(self, x, cap=True):
        ch = R.Chain(x)
        z = R.linear(ch, self.norm(ch, self.final, ch[0]), self.W_U)
        c = self.model.config.final_logit_softcapping
        return ch.bound(R.soft_cap_site(ch, z, c) if cap and c else z)[0]

    def lens_logits(self, x):
        return self.logits(x, cap=False)


class Gemma3Parts(Gemma2Parts):
    """Gemma 3: Gemma 2's parts with (1 + w) q_norm and k_norm (Parts.qkv reads them through self.norm), a rope base
    (and a linear factor) for each kind of layer, no soft caps unless the config sets them."""

    def rope(self, i):
        return R.layer_rope(self.model.config, i)


PARTS = {
    "gpt_neo": GptNeoParts,
    "opt": OptParts,
    "gpt_neox": GptNeoxParts,
    "gemma2": Gemma2Parts,
    "gemma3_text": Gemma3Parts,
}


def parts_of(model):
    return PARTS.get(model.config.model_type, Parts)(model)


# ---- the forward with TransformerLens's activations, each (value, E), and patches --------------------------------
def run(parts, ids, patch=None):
    """resid [L + 1] (resid_pre of each layer, then the last block's output), z [L] ([T, H·hd]: hook_z merged),
    attn [L], mlp [L] (hook_attn_out, hook_mlp_out). patch: {("resid"|"attn"|"mlp", l, pos): (v, E) [D],
    ("z", l, h): (v, E) [T, hd]} replaces those activations, as the patching module's hooks do."""
    patch = patch or {}
    T, hd = len(ids), parts.hd
    x = parts.embed(ids)
    acts = {"resid": [], "z": [], "attn": [], "mlp": []}

    def patched(kind, layer, value):
        v, E = value[0].clone(), value[1].clone()
        for (k, l, i), (pv, pE) in patch.items():
            if k == kind and l == layer:
                if kind == "z":
                    v[:, i * hd : (i + 1) * hd], E[:, i * hd : (i + 1) * hd] = pv, pE
                else:
                    v[i], E[i] = pv, pE
        return v, E

    for i in range(parts.L):
        x = patched("resid", i, x)
        acts["resid"].append(x)
        (q, Eq), (k, Ek), (v, Ev) = parts.qkv(i, x, T)
        _, o = R.attention(q, Eq, k, Ek, v, Ev, parts.H, parts.Hkv, causal=True, **parts.attention_options(i))
        o = patched("z", i, o)
        acts["z"].append(o)
        ch = R.Chain(o)
        (a,) = ch.bound(parts.o_proj(ch, i, ch[0]))
        a = patched("attn", i, a)
        acts["attn"].append(a)
        ch = R.Chain(a, x)
        if parts.parallel:  # x + attn + mlp(ln_2(x)): the MLP reads the layer's input
            (h, m) = ch.bound(ch[1], parts.mlp(ch, i, ch[1]))
            h = (h[0] + a[0], h[1] + a[1] + (h[0] + a[0]).abs())  # x + attn: one rounding
        else:
            h = R.add(ch, ch[1], ch[0])
            h, m = ch.bound(h, parts.mlp(ch, i, h))
        m = patched("mlp", i, m)
        acts["mlp"].append(m)
        ch = R.Chain(h, m)
        (x,) = ch.bound(R.add(ch, ch[0], ch[1]))
    acts["resid"].append(x)
    return acts


def metric(parts, acts, a, b):
    """(value, E) of logit[a] - logit[b] at the last position."""
    x = acts["resid"][-1]
    z, Ez = parts.logits((x[0][-1:], x[1][-1:]))
    d = z[0, a] - z[0, b]
    return d.item(), (Ez[0, a] + Ez[0, b] + d.abs()).item()


def normalised(p, c, k):
    """(p - c) / (k - c) and its bound (u units) from the metrics' (value, E)."""
    d = k[0] - c[0]
    n = (p[0] - c[0]) / d
    return n, (p[1] + c[1]) / abs(d) + abs(n) * (k[1] + c[1]) / abs(d) + 3 * abs(n)


# ---- direct logit attribution ------------------------------------------------------------------------------------
def unembed_direction(parts, tokens):
    """(u, E) [D]: the final norm's weight times W_U[a] centred over the vocabulary (TransformerLens's
    center_unembed), or times W_U[a] - W_U[b] (centring cancels)."""
    w = R.param(parts.final)
    W = parts.W_U
    if len(tokens) == 1:
        col = W[tokens[0]] - W.mean(0)
        Ecol = (parts.V + 1) * W.abs().mean(0) + col.abs()
    else:
        col = W[tokens[0]] - W[tokens[1]]
        Ecol = col.abs()
    u = w * col
    return u, w.abs() * Ecol + u.abs()


def term(parts, v, x, u):
    """(value, E) of centre(v) / scale(x) . u for one position: v, x, u are (value, E) [D]; scale is the final
    norm's (LayerNorm: sqrt(var + eps), centring v; RMSNorm: sqrt(mean x^2 + eps))."""
    ch = R.Chain((v[0][None], v[1][None]), (x[0][None], x[1][None]), (u[0][None], u[1][None]))
    vv, xx, uu = ch[0], ch[1], ch[2]
    D, eps = vv.shape[-1], parts.final_eps
    if parts.layer_norm:
        mean = ch.site(vv.mean(-1, keepdim=True), (D + 1) * vv.detach().abs().mean(-1, keepdim=True))
        vv = ch.site(vv - mean, (vv - mean).detach().abs())
        xm = ch.site(xx.mean(-1, keepdim=True), (D + 1) * xx.detach().abs().mean(-1, keepdim=True))
        c = xx - xm
        var = ch.site((c * c).mean(-1, keepdim=True), (D + 3) * (xx.detach() ** 2).mean(-1, keepdim=True))
    else:
        var = (xx * xx).mean(-1, keepdim=True)
        var = ch.site(var, (D + 1) * var.detach())
    r = torch.rsqrt(var + eps)
    r = ch.site(r, (R.FN + 1) * r.detach())
    dot = (vv * uu).sum(-1, keepdim=True)
    dot = ch.site(dot, (D + 1) * (vv.detach().abs() * uu.detach().abs()).sum(-1, keepdim=True))
    t = dot * r
    (out,) = ch.bound(ch.site(t, t.detach().abs()))
    return out[0][0, 0].item(), out[1][0, 0].item()


def attribution(parts, acts, tokens, logits, pos=-1):
    """TransformerLens's per-head terms (stack_head_results(apply_ln=True) . direction), the MLPs' (hook_mlp_out),
    the embeddings' and the biases' (b_O of each layer, the final norm's bias . W_U), their sum and the logit."""
    u = unembed_direction(parts, tokens)
    x = (acts["resid"][-1][0][pos], acts["resid"][-1][1][pos])
    heads, mlps = [], []
    for i in range(parts.L):
        z, Ez = acts["z"][i]
        W = parts.W_O(i)
        bv = parts.b_V(i)  # TransformerLens folds the value bias into b_O (fold_value_biases)
        row = []
        for h in range(parts.H):
            sl = slice(h * parts.hd, (h + 1) * parts.hd)
            zh, Ezh = z[pos, sl] - bv[sl], Ez[pos, sl] + (z[pos, sl] - bv[sl]).abs()
            v = zh @ W[h]
            Ev = Ezh @ W[h].abs() + (parts.hd + 1) * (zh.abs() @ W[h].abs())
            row.append(term(parts, (v, Ev), x, u))
        heads.append(row)
        mlps.append(term(parts, (acts["mlp"][i][0][pos], acts["mlp"][i][1][pos]), x, u))
    emb = acts["resid"][0]
    embed = term(parts, (emb[0][pos], emb[1][pos]), x, u)
    biases = [0.0, 0.0]
    for i in range(parts.L):
        b = parts.b_O(i)
        bv = parts.b_V(i)
        if bv.any():
            W = parts.W_O(i).reshape(parts.H * parts.hd, parts.D)
            fold = bv @ W
            t = term(parts, (fold, (parts.H * parts.hd + 1) * (bv.abs() @ W.abs())), x, u)
            biases = [biases[0] + t[0], biases[1] + t[1]]
        if b is not None:
            t = term(parts, (b, R.zeros(b)), x, u)
            biases = [biases[0] + t[0], biases[1] + t[1]]
    b_ln = R.param(parts.final, "bias") if parts.layer_norm else None
    if b_ln is not None:
        col = u[0] / R.param(parts.final)  # the direction before the norm's weight
        val = (b_ln * col).sum().item()
        biases = [biases[0] + val, biases[1] + (parts.D + 1) * (b_ln.abs() @ col.abs()).item()]
    parts_list = [t for row in heads for t in row] + mlps + [embed, biases]
    total = sum(t[0] for t in parts_list)
    E_sum = sum(t[1] for t in parts_list) + (len(parts_list) + 1) * sum(abs(t[0]) for t in parts_list)
    z, Ez = logits
    if len(tokens) == 1:
        val = z[pos, tokens[0]].item()
        centred = (z[pos, tokens[0]] - z[pos].mean()).item()
        E_c = (Ez[pos, tokens[0]] + Ez[pos].mean() + (parts.V + 2) * z[pos].abs().mean()).item()
        E_logit = Ez[pos, tokens[0]].item()
    else:
        val = centred = (z[pos, tokens[0]] - z[pos, tokens[1]]).item()
        E_c = E_logit = (Ez[pos, tokens[0]] + Ez[pos, tokens[1]] + abs(val)).item()
    return {
        "tokens": tokens,
        "heads": [[t[0] for t in row] for row in heads],
        "heads_bound": [[U * t[1] for t in row] for row in heads],
        "mlps": [t[0] for t in mlps],
        "mlps_bound": [U * t[1] for t in mlps],
        "embed": embed[0],
        "embed_bound": U * embed[1],
        "biases": biases[0],
        "biases_bound": U * biases[1],
        "sum": total,
        "sum_bound": U * E_sum,
        "logit": val,
        "logit_bound": U * E_logit,
        "centred": centred,
        "centred_bound": U * E_c,
    }


# ---- the logit lens, patching, mean ablation ---------------------------------------------------------------------
def lens(parts, acts):
    """[L + 1][T][V] logits of each accumulated residual through the final norm and W_U, and their bounds."""
    vals, bounds = [], []
    for x in acts["resid"]:
        z, Ez = parts.lens_logits(x)
        vals.append(z.tolist())
        bounds.append((U * Ez).tolist())
    return vals, bounds


def patching(parts, clean_ids, corr_ids, a, b):
    clean, corr = run(parts, clean_ids), run(parts, corr_ids)
    k, c = metric(parts, clean, a, b), metric(parts, corr, a, b)
    T, out = len(clean_ids), {"clean": k[0], "corrupted": c[0]}
    for kind in ("resid", "attn", "mlp"):
        vals, bnds = [], []
        for layer in range(parts.L):
            row = [
                normalised(
                    metric(parts, run(parts, corr_ids, {(kind, layer, p): src(clean, kind, layer, p)}), a, b), c, k
                )
                for p in range(T)
            ]
            vals.append([r[0] for r in row])
            bnds.append([U * r[1] for r in row])
        out[kind], out[kind + "_bound"] = vals, bnds
    vals, bnds = [], []
    for layer in range(parts.L):
        row = []
        for h in range(parts.H):
            patch = {("z", layer, h): head_z(parts, clean, layer, h)}
            row.append(normalised(metric(parts, run(parts, corr_ids, patch), a, b), c, k))
        vals.append([r[0] for r in row])
        bnds.append([U * r[1] for r in row])
    out["heads"], out["heads_bound"] = vals, bnds
    return out


def patched_streams(parts, clean_ids, corr_ids):
    """The stream leaving the last layer [T, D] of a few patched runs (every position, not only the metric's): a
    patched run that recomputes only the positions from the first one the patch changes must give every row."""
    clean, T = run(parts, clean_ids), len(clean_ids)
    first = next(t for t, (x, y) in enumerate(zip(clean_ids, corr_ids)) if x != y)
    L, H = parts.L, parts.H
    patches = [
        ("z", 0, H - 1),
        ("z", L - 1, 0),
        ("resid", min(1, L - 1), first + 1),
        ("attn", 0, first),
        ("mlp", L - 1, T - 2),
        ("resid", 0, first - 1),
    ]
    out = []
    for kind, layer, i in patches:
        value = head_z(parts, clean, layer, i) if kind == "z" else src(clean, kind, layer, i)
        x, E = run(parts, corr_ids, {(kind, layer, i): value})["resid"][-1]
        out.append({"kind": kind, "layer": layer, "index": i, "stream": x.tolist(), "bound": (U * E).tolist()})
    return out


def head_z(parts, acts, layer, h):
    """(v, E) [T, hd]: head h's columns of hook_z."""
    z, Ez = acts["z"][layer]
    sl = slice(h * parts.hd, (h + 1) * parts.hd)
    return z[:, sl], Ez[:, sl]


def src(acts, kind, layer, p):
    v, E = acts[kind][layer]
    return v[p], E[p]


def mean_ablation(parts, ids, a, b):
    """The metric with each head's z replaced by its mean over the text's positions (a mean ablation)."""
    acts = run(parts, ids)
    vals, bnds = [], []
    for layer in range(parts.L):
        z, Ez = acts["z"][layer]
        row = []
        for h in range(parts.H):
            sl = slice(h * parts.hd, (h + 1) * parts.hd)
            T = z.shape[0]
            m = z[:, sl].mean(0, keepdim=True).expand(T, -1)
            Em = (Ez[:, sl].mean(0, keepdim=True) + (T + 1) * z[:, sl].abs().mean(0, keepdim=True)).expand(T, -1)
            row.append(metric(parts, run(parts, ids, {("z", layer, h): (m, Em)}), a, b))
        vals.append([r[0] for r in row])
        bnds.append([U * r[1] for r in row])
    return {"metric": vals, "metric_bound": bnds}


def ablation(parts, clean, corr):
    """The last position's logits with heads switched off (ABLATION_HEADS, every mode of ABLATIONS): their z
    replaced, at every position, by zeros, by its mean over the positions, or by the corrupted text's z (each from a
    run with no head off, as the core takes them)."""
    k, c = run(parts, clean), run(parts, corr)
    out = []
    for heads in ablation_heads(parts):
        for mode in ABLATIONS:
            patch = {}
            for layer, h in heads:
                sl = slice(h * parts.hd, (h + 1) * parts.hd)
                (z, Ez), T = k["z"][layer], len(clean)
                if mode == "zero":
                    patch[("z", layer, h)] = (torch.zeros_like(z[:, sl]), torch.zeros_like(z[:, sl]))
                elif mode == "mean":
                    m = z[:, sl].mean(0, keepdim=True).expand(T, -1)
                    Em = Ez[:, sl].mean(0, keepdim=True) + (T + 1) * z[:, sl].abs().mean(0, keepdim=True)
                    patch[("z", layer, h)] = (m, Em.expand(T, -1))
                else:
                    zc, Ezc = c["z"][layer]
                    patch[("z", layer, h)] = (zc[:, sl], Ezc[:, sl])
            x = run(parts, clean, patch)["resid"][-1]
            z, Ez = parts.logits((x[0][-1:], x[1][-1:]))
            out.append({"heads": heads, "mode": mode, "logits": z[0].tolist(), "bound": (U * Ez[0]).tolist()})
    return out


def ablation_heads(parts):
    """Two heads at once (the first layer's first, the last layer's last) and one head in the middle."""
    return [[[0, 0], [parts.L - 1, parts.H - 1]], [[parts.L // 2, 1 % parts.H]]]


def writes(parts, ids):
    """[L][H][T] ‖v_j·W_O^h‖: what key j writes through head h (its key/value head's value vector, the value bias
    in, through head h's rows of the output projection, no bias), and the bound of each: the product's (hd terms a
    column, as attribution's) as a vector norm, then the norm's own D squares, sum and square root."""
    acts, T = run(parts, ids), len(ids)
    norms, bounds = [], []
    for i in range(parts.L):
        _, _, (v, Ev) = parts.qkv(i, acts["resid"][i], T)
        W, g = parts.W_O(i), parts.H // parts.Hkv
        rows, brows = [], []
        for h in range(parts.H):
            sl = slice((h // g) * parts.hd, (h // g + 1) * parts.hd)
            y = v[:, sl] @ W[h]  # [T, D]
            Ey = Ev[:, sl] @ W[h].abs() + (parts.hd + 1) * (v[:, sl].abs() @ W[h].abs())
            n = y.norm(dim=-1)
            rows.append(n.tolist())
            brows.append((U * (Ey.norm(dim=-1) + (parts.D / 2 + 2) * n)).tolist())
        norms.append(rows)
        bounds.append(brows)
    return {"norms": norms, "bound": bounds}


# ---- generation and sampling -------------------------------------------------------------------------------------
def last_logits(parts, ids):
    x = run(parts, ids)["resid"][-1]
    z, Ez = parts.logits((x[0][-1:], x[1][-1:]))
    return z[0], Ez[0]


def greedy(parts, model32, ids):
    """transformers' generate(do_sample=False) in float32, and per step whether the float64 logits' top two are
    clear of their bounds (then any float32 implementation within the bounds picks the same token)."""
    out = model32.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=NEW_TOKENS, min_new_tokens=0)
    new = out[0, len(ids) :].tolist()
    clear, seq = [], list(ids)
    for t in new:
        z, Ez = last_logits(parts, seq)
        top2 = torch.topk(z, 2).indices.tolist()
        if top2[0] != t:
            raise AssertionError("float32 generate took %d where the float64 logits lead with %d" % (t, top2[0]))
        clear.append(bool(z[top2[0]] - z[top2[1]] > U * (Ez[top2[0]] + Ez[top2[1]])))
        seq.append(t)
    return {"prompt": ids, "new": new, "clear": clear}


def filtered(z, Ez, temperature, top_k, top_p):
    """transformers' warpers in generate's order on float64 logits; the kept set, the probabilities with bounds,
    and whether the kept set is clear of the bounds (no logit or cumulative sum within its error of a cut)."""
    scores = z[None].clone()
    Es = Ez[None] / temperature + (z[None] / temperature).abs()
    procs = []
    if temperature != 1.0:
        procs.append(lp.TemperatureLogitsWarper(temperature))
    if top_k:
        procs.append(lp.TopKLogitsWarper(top_k))
    if top_p < 1.0:
        procs.append(lp.TopPLogitsWarper(top_p))
    for proc in procs:
        scores = proc(None, scores)
    removed = torch.isinf(scores)
    p, Ep = R.softmax(z[None] / temperature, Es, removed)
    scaled = z / temperature
    clear = True
    cut_k = torch.zeros_like(removed)
    if top_k and top_k < len(z):
        s = torch.sort(scaled, descending=True)
        i, j = s.indices[top_k - 1], s.indices[top_k]
        clear &= bool(scaled[i] - scaled[j] > U * (Es[0, i] + Es[0, j]))
        cut_k = (scaled < s.values[top_k - 1])[None]
    if top_p < 1.0:
        pk, Epk = R.softmax(scaled[None], Es, cut_k)
        order = torch.argsort(pk[0])
        live = ~cut_k[0][order]
        cum = torch.cumsum(pk[0][order], 0)
        Ecum = torch.cumsum(Epk[0][order], 0) + torch.arange(1, len(cum) + 1, dtype=f64) * cum
        clear &= bool(((cum - (1 - top_p)).abs() > U * Ecum)[live].all())
    return {
        "temperature": temperature,
        "top_k": top_k,
        "top_p": top_p,
        "kept": (~removed[0]).nonzero().flatten().tolist(),
        "probs": p[0].tolist(),
        "bound": (U * Ep[0]).tolist(),
        "clear": clear,
    }


def exponentials(seed, V, steps):
    """The q ~ Exp(1) draws of torch.multinomial's one-sample path (argmax p / q), step by step: each a float32
    rounding of -log1p(-u) with u the 53 low bits of random64() (ATen's exponential_ on the CPU, measured equal
    bit for bit on torch 2.13)."""
    w = np.random.RandomState(seed).randint(0, 2**32, size=2 * V * steps, dtype=np.uint64)
    u = (((w[0::2] << np.uint64(32)) | w[1::2]) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53
    return (-np.log1p(-u)).astype(np.float32).astype(np.float64).reshape(steps, V)


def sampled(parts, model32, ids, seed, temperature, top_k, top_p):
    torch.manual_seed(seed)
    out = model32.generate(
        torch.tensor([ids]),
        do_sample=True,
        max_new_tokens=NEW_TOKENS,
        min_new_tokens=0,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
    )
    new = out[0, len(ids) :].tolist()
    q = exponentials(seed, parts.V, len(new))
    clear, seq = [], list(ids)
    for step, t in enumerate(new):
        z, Ez = last_logits(parts, seq)
        f = filtered(z, Ez, temperature, top_k, top_p)
        p, Ep = torch.tensor(f["probs"], dtype=f64), torch.tensor(f["bound"], dtype=f64) / U
        r = p / torch.tensor(q[step])
        best = torch.topk(r, 2).indices.tolist()
        if best[0] != t:
            raise AssertionError("generate drew %d where argmax p/q is %d" % (t, best[0]))
        i, j = best
        # q is exact (the same float32 draw); p/q rounds once more in float32
        margin = r[i] - r[j]
        err = U * ((Ep[i] + 2 * p[i]) / q[step][i] + (Ep[j] + 2 * p[j]) / q[step][j])
        clear.append(bool(f["clear"] and margin > err))
        seq.append(t)
    return {
        "prompt": ids,
        "seed": seed,
        "temperature": temperature,
        "top_k": top_k,
        "top_p": top_p,
        "new": new,
        "clear": clear,
    }


# ---- TransformerLens as the oracle -------------------------------------------------------------------------------
def within(name, got, want, bound):
    got, want, bound = (torch.as_tensor(t, dtype=f64) for t in (got, want, bound))
    bad = (got - want).abs() > bound
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        raise AssertionError(
            "%s: TransformerLens gives %r where the reference gives %r (bound %r)"
            % (name, got.flatten()[i].item(), want.flatten()[i].item(), bound.flatten()[i].item())
        )


def check_transformer_lens(path, parts, out):
    """The references against TransformerBridge (float64, compatibility mode): lens, per-head and MLP terms,
    every patching map. TransformerLens is one more implementation of the same formulas, so it sits within the
    bounds (its patching module returns float32 metrics: one more rounding of each)."""
    from transformer_lens import patching as tlp
    from transformer_lens.model_bridge import TransformerBridge

    bridge = TransformerBridge.boot_transformers(path, device="cpu", dtype=f64)
    bridge.enable_compatibility_mode()
    ioi = out["ioi"]
    clean_t, corr_t = torch.tensor([ioi["clean"]]), torch.tensor([ioi["corrupted"]])
    a, b = ioi["tokens"]
    _, cache = bridge.run_with_cache(clean_t)
    W_U, b_U = bridge.W_U.to(f64), bridge.b_U.to(f64)
    tl_lens = cache.accumulated_resid(apply_ln=True)[:, 0].to(f64) @ W_U + b_U  # [L + 1, T, V], centred
    # (Gemma 2: TransformerLens leaves center_unembed off with a logit soft cap: centred here, as the reference is)
    tl_lens = tl_lens - tl_lens.mean(-1, keepdim=True)
    ref = torch.tensor(out["lens"]["logits"], dtype=f64)
    Eref = torch.tensor(out["lens"]["bound"], dtype=f64)
    within(
        "lens (centred logits)",
        tl_lens,
        ref - ref.mean(-1, keepdim=True),
        Eref + Eref.mean(-1, keepdim=True) + U * (parts.V + 2) * ref.abs().mean(-1, keepdim=True),
    )
    if out["attribution"]:
        st = cache.stack_head_results(layer=-1, pos_slice=-1, apply_ln=True)[:, 0].to(f64)  # [L·H, D]
        dec = cache.decompose_resid(apply_ln=True, pos_slice=-1, mode="mlp", incl_embeds=False)[:, 0].to(f64)
    for att in out["attribution"]:
        t = att["tokens"]
        d = W_U[:, t[0]] if len(t) == 1 else W_U[:, t[0]] - W_U[:, t[1]]
        within(
            "heads' terms %s" % t,
            st @ d,
            torch.tensor(att["heads"]).flatten(),
            torch.tensor(att["heads_bound"]).flatten(),
        )
        within("MLPs' terms %s" % t, dec @ d, att["mlps"], att["mlps_bound"])
    metric_fn = lambda lg: lg[0, -1, a] - lg[0, -1, b]  # noqa: E731
    pat = out["patching"]
    k, c = pat["clean"], pat["corrupted"]
    with torch.no_grad():
        tl_k, tl_c = metric_fn(bridge(clean_t)).item(), metric_fn(bridge(corr_t)).item()
    within("clean metric", tl_k, k, U * 4 * max(1.0, abs(k)) + pat["clean_bound"])
    within("corrupted metric", tl_c, c, U * 4 * max(1.0, abs(c)) + pat["corrupted_bound"])
    fns = {
        "resid": tlp.get_act_patch_resid_pre,
        "attn": tlp.get_act_patch_attn_out,
        "mlp": tlp.get_act_patch_mlp_out,
        "heads": tlp.get_act_patch_attn_head_out_all_pos,
    }
    for kind, fn in fns.items():
        m = fn(bridge, corr_t, cache, metric_fn).to(f64)  # float32 metrics
        n = (m - c) / (k - c)
        # the float32 rounding of each metric, plus the bounds of the float64 metrics (clean and corrupted)
        extra = U * (m.abs() + abs(c)) / abs(k - c) + U * (pat["clean_bound"] + pat["corrupted_bound"]) / U / abs(
            k - c
        ) * (1 + n.abs())
        within("patching %s" % kind, n, pat[kind], torch.tensor(pat[kind + "_bound"], dtype=f64) + extra)
    check_ablations(bridge, parts, out, cache, clean_t, corr_t)


def check_ablations(bridge, parts, out, cache, clean_t, corr_t):
    """Each ablation as hooks on blocks.{l}.attn.hook_z, centred logits at the last position. With
    fold_value_biases TransformerLens's z leaves out the value bias (moved into b_O): a zeroed head there is z = -b_V,
    which cancels it (the head's whole output zero, as the core's); a mean or another text's z is the same either
    way (the bias is one constant per position). Means come from the clean cache: a run with no head off, as the core's."""
    _, corr_cache = bridge.run_with_cache(corr_t)
    for e in out["ablation"]:
        hooks = []
        for layer, h in e["heads"]:
            name = "blocks.%d.attn.hook_z" % layer
            b_V = parts.b_V(layer).view(parts.H, parts.hd)[h]

            def fn(z, hook, h=h, b_V=b_V, mode=e["mode"]):  # z [batch, pos, head, d_head]
                if mode == "zero":
                    z[:, :, h] = -b_V.to(z.dtype)
                elif mode == "mean":
                    z[:, :, h] = cache[hook.name][:, :, h].mean(1, keepdim=True)
                else:
                    z[:, :, h] = corr_cache[hook.name][:, :, h]
                return z

            hooks.append((name, fn))
        with torch.no_grad():
            got = bridge.run_with_hooks(clean_t, fwd_hooks=hooks)[0, -1].to(f64)
        ref, E = torch.tensor(e["logits"], dtype=f64), torch.tensor(e["bound"], dtype=f64)
        within(
            "%s ablation of %s (centred logits)" % (e["mode"], e["heads"]),
            got - got.mean(),
            ref - ref.mean(),
            E + E.mean() + U * (parts.V + 2) * ref.abs().mean(),
        )


# ---- the cases ---------------------------------------------------------------------------------------------------
def ioi_pair(tok, V):
    clean = tok(PATCH_TEXTS[0])["input_ids"]
    corr = tok(PATCH_TEXTS[1])["input_ids"][: len(clean)]
    # the corrupted text as a page's text box takes it: without the special tokens its tokenizer adds again
    return {"text": [PATCH_TEXTS[0], tok.decode(corr, skip_special_tokens=True)], "clean": clean, "corrupted": corr}


def metric_tokens(parts, clean, corr):
    """The metric's tokens a, b: the pair whose logit difference at the last position moves most from the corrupted
    run to the clean one (a random tiny model's answer tokens barely move; this keeps clean - corrupted, the
    normalisation's divisor, well away from the metrics' error)."""
    zk = parts.logits(tuple(t[-1:] for t in run(parts, clean)["resid"][-1]))[0][0]
    zc = parts.logits(tuple(t[-1:] for t in run(parts, corr)["resid"][-1]))[0][0]
    d = zk - zc
    return [int(d.argmax()), int(d.argmin())]


def load(path):
    m64 = AutoModelForCausalLM.from_pretrained(path, dtype=f64, attn_implementation="eager").eval()
    m32 = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32, attn_implementation="eager").eval()
    return m64, m32


def make_case(path, case):
    tok = AutoTokenizer.from_pretrained(path)
    m64, m32 = load(path)
    parts = parts_of(m64)
    out = {"case": case, "model_type": m64.config.model_type, "ioi": ioi_pair(tok, parts.V)}
    ids = out["ioi"]["clean"]
    out["ioi"]["tokens"] = metric_tokens(parts, ids, out["ioi"]["corrupted"])
    a, b = out["ioi"]["tokens"]
    acts = run(parts, ids)
    logits = parts.logits(acts["resid"][-1])
    with torch.no_grad():  # transformers' float64 run (its RMSNorm and RoPE table in float32: within the bounds)
        hf = m64(torch.tensor([ids])).logits[0]
    within("reference vs transformers' logits", logits[0], hf, U * logits[1])
    vals, bnds = lens(parts, acts)
    out["lens"] = {"logits": vals, "bound": bnds}
    out["attribution"] = [attribution(parts, acts, t, logits) for t in ([a], [a, b])] if parts.attribution else []
    for att in out["attribution"]:
        within(
            "attribution's sum vs its logit %s" % att["tokens"],
            att["sum"],
            att["centred"],
            att["sum_bound"] + att["centred_bound"],
        )
    out["patching"] = patching(parts, ids, out["ioi"]["corrupted"], a, b)
    k, c = metric(parts, run(parts, ids), a, b), metric(parts, run(parts, out["ioi"]["corrupted"]), a, b)
    out["patching"]["clean_bound"], out["patching"]["corrupted_bound"] = U * k[1], U * c[1]
    out["patched_streams"] = patched_streams(parts, ids, out["ioi"]["corrupted"])
    out["mean_ablation"] = mean_ablation(parts, ids, a, b)
    out["ablation"] = ablation(parts, ids, out["ioi"]["corrupted"])
    out["writes"] = writes(parts, ids)
    prompts = [tok(p)["input_ids"] for p in PROMPTS]
    out["generate"] = [dict(greedy(parts, m32, p), text=t) for p, t in zip(prompts, PROMPTS)]
    out["filters"] = []
    for p in prompts:
        z, Ez = last_logits(parts, p)
        for t, k_, p_ in FILTERS:
            out["filters"].append(dict(prompt=p, **filtered(z, Ez, t, k_, p_)))
    out["sampled"] = [
        dict(sampled(parts, m32, p, s, *FILTERS[s % len(FILTERS)]), text=t)
        for p, t in zip(prompts[:2], PROMPTS[:2])
        for s in SEEDS
    ]
    check_transformer_lens(path, parts, out)
    return out


# ---- an encoder's lens through its MLM head (TransformerLens has no MLM lens: transformers is the oracle) --------
MLM_CASES = ["bert", "distilbert", "modernbert"]
MLM_TEXT = "The chicken didn't cross the [MASK] because it was too wide."


def encoder_layers(model):
    """(the module holding the layer list, its attribute name) of BERT / DistilBERT / ModernBERT."""
    base = getattr(model, model.base_model_prefix)
    mt = model.config.model_type
    return (
        (base.encoder, "layer")
        if mt == "bert"
        else (base, "layers")
        if mt == "modernbert"
        else (base.transformer, "layer")
    )


def mlm_head(model):
    """h[T, D] -> logits[T, V] as transformers' masked-LM head computes them."""
    if model.config.model_type == "bert":
        return model.cls
    if model.config.model_type == "modernbert":  # pre-norm: final_norm first (below)
        return lambda h: model.decoder(model.head(h))
    return lambda h: model.vocab_projector(model.vocab_layer_norm(model.activation(model.vocab_transform(h))))


def mlm_lens(path, case):
    """lens[l] = the MLM head on hidden_states[l] (l = 0: the embeddings after their LayerNorm; a post-norm layer's
    output is normed already, so there is no final norm to apply; ModernBERT's pre-norm stream goes through
    final_norm first, except the last hidden state, which transformers gives normed), from transformers' float64
    forward; the bound of
    row l is reference.py's running error analysis of the first l layers and the head (its own float64 value is held
    to transformers' within that bound first)."""
    tok = AutoTokenizer.from_pretrained(path)
    m64 = AutoModelForMaskedLM.from_pretrained(path, dtype=f64, attn_implementation="eager").eval()
    text = MLM_TEXT.replace("[MASK]", tok.mask_token)
    ids = tok(text)["input_ids"]
    T, (holder, name) = len(ids), encoder_layers(m64)
    layers = getattr(holder, name)
    with torch.no_grad():
        hs = m64(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
        pre = m64.config.model_type == "modernbert"
        norm = [m64.model.final_norm if pre and l < len(hs) - 1 else torch.nn.Identity() for l in range(len(hs))]
        want = [mlm_head(m64)(n(h[0])) for n, h in zip(norm, hs)]
    logits, bounds = [], []
    for l in range(len(hs)):  # the error analysis differentiates: outside no_grad
        setattr(holder, name, torch.nn.ModuleList(layers[:l]))
        try:
            _, _, head = R.FAMILIES[m64.config.model_type](m64, ids, {})
            v, E = (t.detach() for t in head(list(range(T))))
        finally:
            setattr(holder, name, layers)
        within("%s: the reference's lens row %d vs transformers'" % (case, l), v, want[l], U * E)
        logits.append(v.tolist())
        bounds.append((U * E).tolist())
    lens = {"logits": logits, "bound": bounds}
    return {"case": case, "model_type": m64.config.model_type, "text": text, "ids": ids, "lens": lens}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="build/models")
    ap.add_argument("--out", default="build/heads")
    ap.add_argument("--only", default=",".join(CASES + MLM_CASES))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    fanout(write_case, [(args.models, args.out, case) for case in args.only.split(",")])


def write_case(models, out_dir, case):
    """One case's references, build/heads/<case>.json (an encoder's: its lens alone): one task of the fixture pool."""
    out = (mlm_lens if case in MLM_CASES else make_case)(os.path.join(models, case), case)
    with open(os.path.join(out_dir, case + ".json"), "w") as f:
        json.dump(out, f)
    print("%s: %s.json" % (case, os.path.join(out_dir, case)), flush=True)


if __name__ == "__main__":
    main()
