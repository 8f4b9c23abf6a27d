"""The model oracle's own checks (run by CTest's models.oracle with the venv's python, after models.checkpoints):

(a) reference.py's float64 forward equals transformers' in float64 (and the fixtures hold it), ~1e-12 relative;
(b) transformers in float32, on every ATEN_CPU_CAPABILITY path this CPU has, stays within the bounds, and so
    does transformers' own float64 run with its float32 RMSNorm, softmax and RoPE table (Llama, Qwen2);
(c) the bounds are not vacuous: their size against the values, and realistic mistakes (a GELU variant, a
    LayerNorm eps, a rope_theta, a missing bias) fall outside them.

$(bash scripts/venv-models) -m pytest -q tests/models/test_oracle.py      (MHA_MODEL_FIXTURES: default build/models)
"""

import copy
import json
import os
import subprocess
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_checkpoints as mc  # noqa: E402
import reference  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402

MODELS = os.environ.get("MHA_MODEL_FIXTURES", os.path.join(HERE, "..", "..", "build", "models"))
INDEX = json.load(open(os.path.join(MODELS, "index.json")))
CASES = [e["case"] for e in INDEX]
ANALYSED = [e["case"] for e in INDEX if e.get("bound") != "empirical"]  # minilm's bounds are empirical
ENTRY = {e["case"]: e for e in INDEX}


def cpu_paths():
    flags = open("/proc/cpuinfo").read().split()
    return ["default", "avx2"] + (["avx512"] if "avx512f" in flags and "avx512bw" in flags else [])


def load(case):
    e = ENTRY[case]
    model = (
        getattr(transformers, e["architecture"])
        .from_pretrained(os.path.join(MODELS, case), dtype=torch.float32, attn_implementation="eager")
        .eval()
    )
    return model, copy.deepcopy(model).double()


def oracles(case, names=None):
    """(name, metadata, {tensor name: F64 tensor}) of each oracle file of the case (or of those named)."""
    for name in names or ENTRY[case]["oracles"]:
        with safe_open(os.path.join(MODELS, case, name), "pt") as f:
            meta = {k: json.loads(v) for k, v in f.metadata().items() if k in ("ids", "logits_at", "heads_off")}
            yield name, meta, {k: f.get_tensor(k) for k in f.keys()}


def transformers_run(model, meta):
    """transformers' own forward (in the model's dtype) and the ablated one, under make_checkpoints' names."""
    ids, at, off = meta["ids"], meta["logits_at"], meta["heads_off"]
    attn, hidden, logits = mc.run(model, ids, at)
    with mc.heads_switched_off(model, off):
        _, ab_hidden, ab_logits = mc.run(model, ids, at)
    out = {"attentions": attn, "hidden": hidden, "ablated.hidden": ab_hidden}
    if logits is not None:
        out.update({"logits": logits, "ablated.logits": ab_logits})
    return out


def checked_files(case):
    """The oracle files whose reference is rerun against transformers here: every one of the tiny cases; of MiniLM's 20
    (the real six layers, the slowest by far), the first, a multilingual one and the 256-token text (the same code
    paths: what the others add is texts, which the float32 tests below still cover)."""
    files = ENTRY[case]["oracles"]
    return files if case in ANALYSED else [files[0], files[4], files[-1]]


@pytest.mark.parametrize("case", CASES)
def test_reference_equals_transformers_float64(case):
    model, model64 = load(case)
    for name, meta, stored in oracles(case, checked_files(case)):
        with mc.true_float64():
            theirs = transformers_run(model64, meta)
        reference.WITH_BOUNDS[0] = case in ANALYSED
        try:
            mine = reference.forward(model64, meta["ids"], meta["logits_at"], meta["heads_off"])
        finally:
            reference.WITH_BOUNDS[0] = True
        assert sorted(mine) == sorted(theirs)
        for t, (value, E) in mine.items():
            scale = float(theirs[t].abs().max())
            assert float((value - theirs[t]).abs().max()) <= 1e-12 * scale, (case, name, t)
            assert torch.equal(stored[t], theirs[t].to(torch.float64)), (case, name, t, "stale fixture")
            if case in ANALYSED:
                assert torch.equal(stored[t + ".bound"], reference.U * E), (case, name, t, "stale bound")


def float32_results(out_file):
    """Child process (its ATEN_CPU_CAPABILITY set by the parent): transformers in float32, and transformers'
    own float64 run (Llama and Qwen2 keep their float32 RMSNorm, softmax and RoPE table), on every oracle."""
    results = {}
    for case in ANALYSED:
        model, model64 = load(case)
        for name, meta, _ in oracles(case):
            results[(case, name, "float32")] = transformers_run(model, meta)
            results[(case, name, "float64 with float32 parts")] = transformers_run(model64, meta)
    torch.save(results, out_file)


@pytest.mark.parametrize("path", cpu_paths())
def test_transformers_float32_within_bounds(path, tmp_path):
    out = tmp_path / "results.pt"
    env = dict(os.environ, ATEN_CPU_CAPABILITY=path)
    subprocess.run([sys.executable, __file__, "--float32-results", str(out)], env=env, check=True)
    results = torch.load(out)
    worst = {}
    for case in ANALYSED:
        for name, _, stored in oracles(case):
            for run in ("float32", "float64 with float32 parts"):
                for t, value in results[(case, name, run)].items():
                    err = (value.to(torch.float64) - stored[t]).abs()
                    bound = stored[t + ".bound"]
                    outside = err > bound
                    assert not outside.any(), "%s %s %s %s on %s: %d elements outside, worst %.3g > %.3g" % (
                        case,
                        name,
                        t,
                        run,
                        path,
                        int(outside.sum()),
                        float(err[outside].max()),
                        float(bound[outside][err[outside].argmax()]),
                    )
                    live = bound > 0
                    ratio = float((err[live] / bound[live]).max()) if live.any() else 0.0
                    worst[(run, t)] = max(worst.get((run, t), 0.0), ratio)
    print("\n%s: worst |transformers - reference| / bound:" % path)
    for (run, t), r in sorted(worst.items()):
        print("  %-28s %-16s %.2e" % (run, t, r))


def test_bound_sizes_not_vacuous():
    """Median bound / median |value| of each tensor kind, per case (printed), each below 5e-2. MiniLM's bounds are
    norm-wise (one per tensor: make_checkpoints.make_minilm), so they are measured against the tensor's largest |value|."""
    rows = []
    for case in CASES:
        sizes = {}
        scale = (lambda v: v.abs().max()) if case not in ANALYSED else (lambda v: v.abs().median())
        for _, _, stored in oracles(case):
            for t in stored:
                if t.endswith(".bound"):
                    continue
                value, bound = stored[t], stored[t + ".bound"]
                live = value != 0
                sizes.setdefault(t, []).append(float(bound[live].median() / scale(value[live])))
        rows.append((case, {t: max(v) for t, v in sizes.items()}))
    names = ["attentions", "hidden", "logits", "ablated.hidden", "ablated.logits"]
    print("\nmedian bound / median |value| (worst text):")
    print("  %-16s" % "case" + "".join("%-16s" % n for n in names))
    for case, sizes in rows:
        print("  %-16s" % case + "".join("%-16s" % ("%.1e" % sizes[n] if n in sizes else "-") for n in names))
        for t, s in sizes.items():
            assert s < 5e-2, (case, t, s)


def mutate(case, model64, kind):
    """A realistic mistake, applied to transformers' float64 model."""
    base = getattr(model64, model64.base_model_prefix, model64)
    if kind == "gelu erf instead of gelu_new":
        for block in base.h:
            block.mlp.act = transformers.activations.ACT2FN["gelu"]
    elif kind == "gelu_new instead of erf gelu":
        for layer in base.encoder.layer:
            layer.intermediate.intermediate_act_fn = transformers.activations.ACT2FN["gelu_new"]
    elif kind == "LayerNorm eps 1e-5 instead of 1e-12":
        for m in model64.modules():
            if isinstance(m, torch.nn.LayerNorm):
                m.eps = 1e-5
    elif kind == "rope_theta 1.001 x":
        reference.set_rope_theta(model64.config, reference.rope_theta(model64.config) * 1.001)
    elif kind == "no k_proj bias":
        for layer in base.layers:
            layer.self_attn.k_proj.bias.data.zero_()
    elif kind == "token-type embeddings left out":
        base.embeddings.token_type_embeddings.weight.data.zero_()
    elif kind == "rotary on every feature of a head":  # rotary_pct ignored
        from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

        model64.config.rope_parameters["partial_rotary_factor"] = 1.0
        base.rotary_emb = GPTNeoXRotaryEmbedding(model64.config).double()
    elif kind == "Phi's rotary on every feature of a head":  # partial_rotary_factor ignored
        from transformers.models.phi.modeling_phi import PhiRotaryEmbedding

        model64.config.rope_parameters["partial_rotary_factor"] = 1.0
        base.rotary_emb = PhiRotaryEmbedding(model64.config).double()
        for layer in base.layers:
            layer.self_attn.rotary_ndims = layer.self_attn.head_dim
    elif kind == "rotary embeddings on every layer":  # SmolLM3's no_rope_layers ignored
        for layer in base.layers:
            layer.self_attn.use_rope = 1
    elif kind == "lm_head's bias left out":
        model64.lm_head.bias.data.zero_()
    elif kind == "sequential residual instead of parallel":
        for layer in base.layers:
            layer.use_parallel_residual = False
    elif kind == "the local window one key wider":
        for block in base.h:
            sa = block.attn.attention
            if sa.attention_type == "local":
                full = torch.tril(torch.ones_like(sa.bias))
                sa.bias = torch.bitwise_xor(full, torch.tril(full, -(model64.config.window_size + 1)))
    elif kind in ("the sliding window one key wider", "the sliding window one key narrower"):  # the mask reads it
        model64.config.sliding_window += 1 if kind.endswith("wider") else -1
    elif kind == "scores divided by sqrt(head_dim)":  # q_proj has no bias: scaling it scales the scores
        for block in base.h:
            sa = block.attn.attention
            sa.q_proj.weight.data /= (sa.embed_dim // sa.num_heads) ** 0.5
    elif kind == "positions without OPT's offset of 2":
        base.decoder.embed_positions.offset = 0
    elif kind == "q_norm and k_norm left out":
        for layer in base.layers:
            layer.self_attn.q_norm = torch.nn.Identity()
            layer.self_attn.k_norm = torch.nn.Identity()
    elif kind == "positions from 0 as BERT's":  # padding_idx -1: create_position_ids_from_input_ids counts from 0
        base.embeddings.padding_idx = -1
    elif kind == "lm_head's GELU as hidden_act says":  # RobertaLMHead's exact gelu replaced by the layers' gelu_new
        head, act = model64.lm_head, transformers.activations.ACT2FN[model64.config.hidden_act]
        head.forward = lambda features, **kw: head.decoder(head.layer_norm(act(head.dense(features))))
    elif kind == "Gemma's RMSNorm as w, not 1 + w":  # (1 + (w - 1)) = w
        for m in model64.modules():
            if type(m).__name__ == "GemmaRMSNorm":
                m.weight.data -= 1
    elif kind == "embeddings not scaled by sqrt(hidden_size)":
        base.embed_tokens.embed_scale.fill_(1.0)
    elif kind == "no attention soft cap":
        for layer in base.layers:
            layer.self_attn.attn_logit_softcapping = None
    elif kind == "no final soft cap":
        model64.config.final_logit_softcapping = None
    elif kind == "scores scaled by head_dim^-0.5, not query_pre_attn_scalar^-0.5":
        for layer in base.layers:
            layer.self_attn.scaling = layer.self_attn.head_dim**-0.5
    elif kind == "Gemma 2's post-sublayer norms left out":
        for layer in base.layers:
            layer.post_attention_layernorm = torch.nn.Identity()
            layer.post_feedforward_layernorm = torch.nn.Identity()
    elif kind == "the sliding layer full":
        for layer in base.layers:
            layer.self_attn.sliding_window = None
        model64.config.layer_types = ["full_attention"] * len(base.layers)
    elif kind == "Gemma 3's q_norm and k_norm as w, not 1 + w":
        for layer in base.layers:
            layer.self_attn.q_norm.weight.data -= 1
            layer.self_attn.k_norm.weight.data -= 1
    elif kind == "the sliding layer with the full layer's rope base":
        params = model64.config.rope_parameters
        params["sliding_attention"]["rope_theta"] = params["full_attention"]["rope_theta"]
    elif kind == "the full layer's rope without its linear factor":
        model64.config.rope_parameters["full_attention"]["rope_type"] = "default"
    elif kind == "GeGLU's input and gate swapped":  # act(gate) * input instead of act(input) * gate
        for layer in base.layers:
            mlp = layer.mlp
            mlp.forward = lambda h, mlp=mlp: (lambda a, g: mlp.Wo(mlp.act(g) * a))(*mlp.Wi(h).chunk(2, dim=-1))
    elif (
        kind == "ModernBERT's local window one key wider"
    ):  # the mask reads config.sliding_window, local_attention // 2
        model64.config.local_attention += 2
    elif kind == "an attn_norm in layer 0":  # nn.Identity there
        base.layers[0].attn_norm = base.layers[1].attn_norm
    elif kind == "the LayerNorms' biases left out":
        for m in model64.modules():
            if isinstance(m, torch.nn.LayerNorm) and m.bias is not None:
                m.bias.data.zero_()
    elif kind == "RMSNorm eps 1e-6 instead of 1e-5":
        for m in model64.modules():
            if hasattr(m, "variance_epsilon"):
                m.variance_epsilon = 1e-6


# Mistakes the bounds catch, and (SUBTLE) ones they are too loose to see on these models: reported, not asserted.
MISTAKES = [
    ("llama", "rope_theta 1.001 x"),
    ("qwen2", "no k_proj bias"),
    ("bert", "token-type embeddings left out"),
    ("pythia", "rotary on every feature of a head"),
    ("pythia", "sequential residual instead of parallel"),
    ("tinystories", "the local window one key wider"),
    ("tinystories", "scores divided by sqrt(head_dim)"),
    ("opt", "positions without OPT's offset of 2"),
    ("qwen3", "q_norm and k_norm left out"),
    ("phi", "Phi's rotary on every feature of a head"),
    ("phi", "lm_head's bias left out"),
    ("smollm3", "rotary embeddings on every layer"),
    ("smollm3-bf16", "rotary embeddings on every layer"),
    ("mistral", "the sliding window one key wider"),
    ("mistral", "the sliding window one key narrower"),
    ("qwen2-sliding-bf16", "the sliding window one key wider"),
    ("smollm3", "the sliding window one key wider"),
    ("roberta", "positions from 0 as BERT's"),
    ("gemma", "Gemma's RMSNorm as w, not 1 + w"),
    ("gemma", "embeddings not scaled by sqrt(hidden_size)"),
    ("gemma2", "no attention soft cap"),
    ("gemma2", "no final soft cap"),
    ("gemma2", "scores scaled by head_dim^-0.5, not query_pre_attn_scalar^-0.5"),
    ("gemma2", "Gemma 2's post-sublayer norms left out"),
    ("gemma2", "the sliding layer full"),
    ("gemma2-bf16", "Gemma 2's post-sublayer norms left out"),
    ("gemma3", "Gemma 3's q_norm and k_norm as w, not 1 + w"),
    ("gemma3", "the sliding layer with the full layer's rope base"),
    ("gemma3", "Gemma 2's post-sublayer norms left out"),
    ("gemma3-bf16", "the full layer's rope without its linear factor"),
    ("modernbert", "GeGLU's input and gate swapped"),
    ("modernbert", "ModernBERT's local window one key wider"),
    ("modernbert", "the sliding layer with the full layer's rope base"),
    ("modernbert", "an attn_norm in layer 0"),
    ("modernbert-bf16", "the LayerNorms' biases left out"),
    ("minilm", "gelu_new instead of erf gelu"),
    ("minilm", "LayerNorm eps 1e-5 instead of 1e-12"),
]
SUBTLE = [
    ("gpt2", "gelu erf instead of gelu_new"),
    ("bert", "gelu_new instead of erf gelu"),
    ("bert", "LayerNorm eps 1e-5 instead of 1e-12"),
    ("llama", "RMSNorm eps 1e-6 instead of 1e-5"),
    ("xlm-roberta", "lm_head's GELU as hidden_act says"),  # 0.1 x the bound: gelu_new is within 1e-3 of gelu
]


def mistake_ratio(case, kind):
    """max |mistaken model - reference| / bound over every oracle of the case."""
    _, model64 = load(case)
    mutate(case, model64, kind)
    worst = 0.0
    for _, meta, stored in oracles(case):
        with mc.true_float64():
            wrong = transformers_run(model64, meta)
        for t, value in wrong.items():
            bound = stored[t + ".bound"]
            live = bound > 0
            worst = max(worst, float(((value - stored[t]).abs()[live] / bound[live]).max()))
    return worst


@pytest.mark.parametrize("case,kind", MISTAKES)
def test_mistakes_fall_outside_bounds(case, kind):
    worst = mistake_ratio(case, kind)
    print("\n%s, %s: worst |wrong - reference| / bound = %.3g" % (case, kind, worst))
    assert worst > 1, "the bounds cannot tell %s from the reference" % kind


def test_subtle_mistakes_report():
    """What the bounds cannot resolve on these models (printed for the record, see docs/models-oracle.md)."""
    for case, kind in SUBTLE:
        print("\n%s, %s: worst |wrong - reference| / bound = %.3g" % (case, kind, mistake_ratio(case, kind)))


if __name__ == "__main__" and sys.argv[1:2] == ["--float32-results"]:
    torch.set_num_threads(1)
    float32_results(sys.argv[2])
