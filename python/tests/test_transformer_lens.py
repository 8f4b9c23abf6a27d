"""mx.show(cache): a TransformerLens ActivationCache's attention patterns, in the models' oracle (TransformerLens 4.3,
torch 2.13: CTest's python.transformer-lens) on build/models' tiny GPT-2 (CTest's models.checkpoints). The HTML
output's values are the cache's hook_pattern tensors bit for bit; its labels the model's to_str_tokens."""

import base64
import os
import re
import struct
from pathlib import Path

import pytest
import torch

import mha_explorer as mx

# python.package's venv has no TransformerLens: skipped there; python.transformer-lens sets MHA_REQUIRE_TL, so a
# missing TransformerLens fails the run that is meant to test it.
if not os.environ.get("MHA_REQUIRE_TL"):
    pytest.importorskip("transformer_lens")

GPT2 = Path(__file__).resolve().parents[2] / "build" / "models" / "gpt2"
TEXT = "The head: the head, the"


def sent(view):
    raw = base64.b64decode(re.search(r'\bdata = "([A-Za-z0-9+/=]*)", dtype', view._repr_html_()).group(1))
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))


@pytest.fixture(scope="module")
def bridge():
    from transformer_lens.model_bridge import TransformerBridge

    assert GPT2.is_dir(), "%s is missing: CTest's models.checkpoints writes it (scripts/fixtures models)" % GPT2
    b = TransformerBridge.boot_transformers(str(GPT2), device="cpu")
    b.enable_compatibility_mode()
    return b


def test_every_layer_as_the_cache_holds_it(bridge):
    toks = bridge.to_tokens(TEXT)
    _, cache = bridge.run_with_cache(toks)
    L = bridge.cfg.n_layers
    want = torch.stack([cache["blocks.%d.attn.hook_pattern" % l] for l in range(L)]).float()  # [L, B, H, T, T]
    for labels in (toks, TEXT, bridge.to_str_tokens(toks)):
        v = mx.show(cache, labels)
        assert v.shape == tuple(want.shape)
        assert v.tokens == bridge.to_str_tokens(toks)
        assert sent(v) == want.flatten().tolist()
    assert mx.show(cache, layer=1, heads=[0]).shape == (1, 1, 1) + tuple(want.shape[-2:])


def test_a_cache_without_every_pattern_is_named(bridge):
    toks = bridge.to_tokens(TEXT)
    _, none = bridge.run_with_cache(toks, names_filter=lambda n: n.endswith("hook_z"))
    with pytest.raises(ValueError, match=r"holds no attention pattern"):
        mx.show(none)
    _, one = bridge.run_with_cache(toks, names_filter=lambda n: n == "blocks.1.attn.hook_pattern")
    with pytest.raises(ValueError, match=r"layers \[1\] but not of \[0\]"):
        mx.show(one)
    _, cache = bridge.run_with_cache(toks)
    with pytest.raises(ValueError, match=r"tokens has 2 rows"):
        mx.show(cache, torch.cat([toks, toks]))
    with pytest.raises(TypeError, match=r"key=, value= and mask= go with a module"):
        mx.show(cache, mask=torch.ones(3))
