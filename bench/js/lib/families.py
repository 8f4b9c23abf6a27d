"""The checkpoints of bench/js/families.js: issue 40's families at their released shapes, random weights.

    python families.py make [--tiny] NAME:DTYPE:DIR...
        for each, DIR/config.json, model.safetensors (save_pretrained of a random-initialised model of the family's
        class, one file, in DTYPE: float32 or bfloat16), done.json (what was made). NAME: pythia-160m,
        tinystories-33m, qwen3-0.6b, gemma-3-270m (GPT-2 small is bench/js/lib/gpt2.py's, the one bench/js/models.js
        times). One process for all of them: transformers' import is most of a tiny run.

The shapes are the released checkpoints' config.json values (the keys that set a shape or what the core computes;
the rest are transformers 5.x's defaults, which the released files also hold):
  - EleutherAI/pythia-160m (GPTNeoXForCausalLM, float16 on the hub): hidden_size 768, num_hidden_layers 12,
    num_attention_heads 12, intermediate_size 3072, rotary_pct 0.25, rotary_emb_base 10000,
    use_parallel_residual true, max_position_embeddings 2048, vocab_size 50304, tie_word_embeddings false,
    hidden_act gelu, layer_norm_eps 1e-5; the LM head named embed_out.weight in its file.
  - roneneldan/TinyStories-33M (GPTNeoForCausalLM, float32): hidden_size 768, num_layers 4, num_heads 16 (head 48),
    intermediate_size null (4 x 768), attention_types [[["global", "local"], 2]], window_size 256,
    max_position_embeddings 2048, vocab_size 50257, activation_function gelu_new, LM head tied.
  - Qwen/Qwen3-0.6B (Qwen3ForCausalLM, bfloat16): hidden_size 1024, num_hidden_layers 28, num_attention_heads 16,
    num_key_value_heads 8, head_dim 128, intermediate_size 3072, vocab_size 151936, tie_word_embeddings true,
    rope_theta 1000000, rms_norm_eps 1e-6, max_position_embeddings 40960, use_sliding_window false, hidden_act silu.
  - google/gemma-3-270m (Gemma3ForCausalLM, bfloat16): hidden_size 640, num_hidden_layers 18,
    num_attention_heads 4, num_key_value_heads 1, head_dim 256, intermediate_size 2048, vocab_size 262144,
    query_pre_attn_scalar 256, sliding_window 512, layer_types five sliding_attention then one full_attention (x 3),
    rope_theta 1e6 (full layers) and rope_local_base_freq 1e4 (sliding), max_position_embeddings 32768,
    rms_norm_eps 1e-6, hidden_activation gelu_pytorch_tanh, no soft caps, tie_word_embeddings true.
--tiny: the same classes and options at 2 layers, 32 wide, a 512-token vocabulary (CI's quick run).

Nothing is fetched from a hub: the weights are transformers' own initialisation under torch.manual_seed(0). Run with
the models' venv (`bash scripts/venv-models` prints it): transformers 5.x over torch 2.13's CPU build.
"""

import argparse
import json
import os

import torch
import transformers
from safetensors.torch import load_file, save_file

SEED = 0


def pythia(tiny):
    D, L, H = (32, 2, 4) if tiny else (768, 12, 12)
    return transformers.GPTNeoXForCausalLM, transformers.GPTNeoXConfig(
        vocab_size=512 if tiny else 50304,
        hidden_size=D,
        num_hidden_layers=L,
        num_attention_heads=H,
        intermediate_size=4 * D,
        max_position_embeddings=2048,
        rotary_pct=0.25,
        rotary_emb_base=10000,
        use_parallel_residual=True,
        hidden_act="gelu",
        layer_norm_eps=1e-5,
        tie_word_embeddings=False,
        bos_token_id=0,
        eos_token_id=0,
    )


def tinystories(tiny):
    D, L, H = (32, 2, 4) if tiny else (768, 4, 16)
    return transformers.GPTNeoForCausalLM, transformers.GPTNeoConfig(
        vocab_size=512 if tiny else 50257,
        hidden_size=D,
        num_layers=L,
        num_heads=H,
        intermediate_size=None,
        attention_types=[[["global", "local"], L // 2]],
        window_size=256,
        max_position_embeddings=2048,
        activation_function="gelu_new",
        bos_token_id=50256 if not tiny else 0,
        eos_token_id=50256 if not tiny else 0,
    )


def gqa_sizes(shape, vocab):
    """The size keys Qwen3Config and Gemma3TextConfig share, from (D, layers, heads, kv heads, head_dim, inner)."""
    D, L, H, KV, hd, inner = shape
    return dict(
        vocab_size=vocab,
        hidden_size=D,
        num_hidden_layers=L,
        num_attention_heads=H,
        num_key_value_heads=KV,
        head_dim=hd,
        intermediate_size=inner,
    )


def qwen3(tiny):
    shape = (32, 2, 4, 2, 16, 96) if tiny else (1024, 28, 16, 8, 128, 3072)
    return transformers.Qwen3ForCausalLM, transformers.Qwen3Config(
        **gqa_sizes(shape, 512 if tiny else 151936),
        max_position_embeddings=40960,
        rope_theta=1e6,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
        use_sliding_window=False,
        hidden_act="silu",
        bos_token_id=None,
        eos_token_id=0,
    )


def gemma3(tiny):
    shape = (32, 2, 4, 1, 16, 64) if tiny else (640, 18, 4, 1, 256, 2048)
    pattern = ["sliding_attention"] * 5 + ["full_attention"]
    layer_types = ["sliding_attention", "full_attention"] if tiny else pattern * 3
    return transformers.Gemma3ForCausalLM, transformers.Gemma3TextConfig(
        **gqa_sizes(shape, 512 if tiny else 262144),
        query_pre_attn_scalar=shape[4],
        sliding_window=512,
        layer_types=layer_types,
        max_position_embeddings=32768,
        rope_parameters={
            "full_attention": {"rope_type": "default", "rope_theta": 1e6},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        },
        rms_norm_eps=1e-6,
        hidden_activation="gelu_pytorch_tanh",
        attn_logit_softcapping=None,
        final_logit_softcapping=None,
        tie_word_embeddings=True,
        bos_token_id=2,
        eos_token_id=1,
        pad_token_id=0,
    )


FAMILIES = {"pythia-160m": pythia, "tinystories-33m": tinystories, "qwen3-0.6b": qwen3, "gemma-3-270m": gemma3}


def as_released(directory, family):
    """Pythia's own file names its LM head embed_out.weight (5.x's save_pretrained writes lm_head.weight)."""
    if family != "pythia-160m":
        return
    file = os.path.join(directory, "model.safetensors")
    sd = load_file(file)
    save_file({("embed_out.weight" if k == "lm_head.weight" else k): v for k, v in sd.items()}, file, {"format": "pt"})


def make(out, family, tiny, dtype):
    model_class, cfg = FAMILIES[family](tiny)
    cfg.architectures = [model_class.__name__]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(SEED)
    model = model_class(cfg).eval().to(getattr(torch, dtype))
    model.save_pretrained(out, safe_serialization=True, max_shard_size="50GB")
    del model
    as_released(out, family)
    with open(os.path.join(out, "done.json"), "w") as f:
        json.dump(
            {
                "family": family,
                "tiny": tiny,
                "dtype": dtype,
                "seed": SEED,
                "torch": torch.__version__,
                "transformers": transformers.__version__,
                "config": cfg.to_dict(),
            },
            f,
        )


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--tiny", action="store_true")
    m.add_argument("checkpoints", nargs="+", metavar="NAME:DTYPE:DIR")
    a = ap.parse_args()
    transformers.utils.logging.disable_progress_bar()
    for item in a.checkpoints:
        family, dtype, out = item.split(":", 2)
        if family not in FAMILIES or dtype not in ("float32", "bfloat16"):
            ap.error("%s: NAME is one of %s, DTYPE float32 or bfloat16" % (item, ", ".join(sorted(FAMILIES))))
        make(out, family, a.tiny, dtype)


if __name__ == "__main__":
    main()
