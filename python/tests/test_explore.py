"""mx.explore and mx.lab: the pages' parameters checked against their property lists, the input handed to the page
(x, tokens, the module's weights file) read back as the page reads it, bad input, conflicts and the size rule."""

import base64
import json
import re
import struct
import sys
from pathlib import Path

import pytest
import torch
import torch.nn as nn

import mha_explorer as mx
from mha_explorer import _explore

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(REPO / "tests" / "torch"))
import safetensors_spec  # noqa: E402
from lessons import MultiHeadAttention000  # noqa: E402


def page_of(frame):
    """The page document the output's script puts in its iframe (a JS string literal of JSON, made script-safe)."""
    html = frame._repr_html_()
    literal = re.search(r"\nvar id = .*?, page = (\".*?\");\nfunction mount", html, re.S).group(1)
    return json.loads(literal.replace("<\\/", "</").replace("<\\!--", "<!--"))


def input_of(frame):
    """The page's input block (web/explorer/input.js) as the page reads it."""
    m = re.search(r'<script type="application/json" id="mha-explorer-input">(.*?)</script>', page_of(frame), re.S)
    return json.loads(m.group(1)) if m else None


def query_of(frame):
    return re.search(r"\nvar id = .*?, query = (\".*?\"), title", frame._repr_html_()).group(1)


def js_props(path):
    """The property names a web/ module's PROPS list declares (the source the package's params.json is built from)."""
    text = (REPO / "web" / path).read_text(encoding="utf-8")
    block = text[text.index("_PROPS = [") :]
    return re.findall(r"\{\s*name: '(\w+)'", block[: block.index("];")])


def test_parameters_are_the_pages():
    params = _explore.params()
    assert [p["name"] for p in params["page"]] == js_props("state/page.js")
    assert [p["name"] for p in params["lab"]] == ["preset"] + js_props("state/lab.js")
    tasks = next(p for p in params["lab"] if p["name"] == "task")["values"]
    assert "two-offsets" in tasks
    assert next(p for p in params["lab"] if p["name"] == "preset")["values"] == ["train-" + t for t in tasks]


def test_good_parameters_become_the_query():
    assert (
        json.loads(
            query_of(mx.explore(heads=2, causal=True, hide=["trace", "lesson"], dropout=0.1, fill="-1e9", theme="dark"))
        )
        == "heads=2&causal=1&hide=trace%2Clesson&dropout=0.1&fill=-1e9&theme=dark"
    )
    assert json.loads(query_of(mx.explore(text="The cat <sat>", seed=7))) == "text=The+cat+%3Csat%3E&seed=7"
    assert (
        json.loads(query_of(mx.lab(preset="train-two-offsets", heads=2, lr=1e-3, autoplay=True)))
        == "preset=train-two-offsets&heads=2&lr=0.001&autoplay=1"
    )
    assert json.loads(query_of(mx.lab())) == ""


@pytest.mark.parametrize(
    "call, kwargs, message",
    [
        (
            mx.explore,
            {"head_count": 2},
            r"mx\.explore\(\) got an unknown parameter 'head_count'; the page's parameters are: "
            r"preset, view, text, dmodel, heads, causal",
        ),
        (
            mx.lab,
            {"steps": 5},
            r"mx\.lab\(\) got an unknown parameter 'steps'; the lab's parameters are: preset, task, heads",
        ),
    ],
)
def test_unknown_parameters(call, kwargs, message):
    with pytest.raises(TypeError, match=message):
        call(**kwargs)


@pytest.mark.parametrize(
    "call, kwargs, message",
    [
        (mx.explore, {"heads": 0}, r"heads must be a whole number from 1 to 1024"),
        (mx.explore, {"heads": 2.5}, r"heads must be a whole number"),
        (mx.explore, {"heads": "4"}, r"heads must be a whole number"),
        (mx.explore, {"dropout": 0.95}, r"dropout must be a number from 0 to 0\.9"),
        (mx.explore, {"causal": "yes"}, r"causal must be True or False"),
        (mx.explore, {"preset": "lesson9"}, r"preset must be one of '', 'lesson000'"),
        (mx.explore, {"hide": ["trace", "legend"]}, r"hide must be a list of 'header', 'input'"),
        (mx.explore, {"text": 3}, r"text must be a string of at most 200000 characters"),
        (mx.lab, {"preset": "two-offsets"}, r"preset must be one of 'train-"),
        (mx.lab, {"heads": 3}, r"mx\.lab\(heads=3\): heads must be one of 1, 2, 4, 8"),
        (mx.lab, {"optimizer": "rmsprop"}, r"optimizer must be one of 'sgd', 'adam', 'adamw'"),
        (mx.lab, {"lr": float("nan")}, r"lr must be a number from 1e-06 to 10"),
    ],
)
def test_bad_values_name_the_allowed_ones(call, kwargs, message):
    with pytest.raises(ValueError, match=message):
        call(**kwargs)


def trained_module():
    torch.manual_seed(0)
    return MultiHeadAttention000(32, 4)


def test_module_x_and_tokens_reach_the_page():
    mha, x = trained_module(), torch.randn(1, 5, 32)
    frame = mx.explore(mha, x, list("abcde"), causal=True)
    given = input_of(frame)
    assert given["tokens"] == list("abcde")
    assert given["x"]["shape"] == [1, 5, 32]
    raw = base64.b64decode(given["x"]["float32"])
    assert list(struct.unpack("<160f", raw)) == x.reshape(-1).tolist()  # exactly the float32 values
    state, metadata = safetensors_spec.load_bytes_with_metadata(base64.b64decode(given["weights"]["safetensors"]))
    for name, tensor in mha.state_dict().items():
        assert torch.equal(state[name], tensor), name
    assert metadata["num_heads"] == "4"
    assert given["weights"]["file"] == "MultiHeadAttention000.safetensors"
    assert 'mx.save_weights(module, "MultiHeadAttention000.safetensors")' in given["weights"]["how"]
    assert json.loads(query_of(frame)) == "causal=1"
    assert "MultiHeadAttention000 (d_model 32, 4 heads), your x [1, 5, 32]" in repr(frame)
    # the page's other inline scripts keep their text; the output has one script element of its own
    assert frame._repr_html_().count("</script>") == 1
    assert (
        page_of(frame).count("</script>")
        == _explore._html.static_file(_explore.PAGE).read_text().count("</script>") + 1
    )


def test_input_forms():
    mha, x = trained_module(), torch.randn(4, 32, dtype=torch.float64)
    for form in (x, x.numpy(), x.tolist(), x.unsqueeze(0)):
        given = input_of(mx.explore(mha, form))
        assert given["x"]["shape"] == [1, 4, 32]
        assert base64.b64decode(given["x"]["float32"]) == struct.pack("<128f", *x.float().reshape(-1).tolist())
        assert given["tokens"] is None
    assert input_of(mx.explore()) is None  # the page's own sentence and weights
    assert input_of(mx.explore(tokens=["a", "b"]))["tokens"] == ["a", "b"]
    given = input_of(mx.explore(nn.MultiheadAttention(16, 2, bias=False), torch.rand(3, 16)))
    state, metadata = safetensors_spec.load_bytes_with_metadata(base64.b64decode(given["weights"]["safetensors"]))
    assert sorted(state) == [
        "W_k.bias",
        "W_k.weight",
        "W_o.bias",
        "W_o.weight",
        "W_q.bias",
        "W_q.weight",
        "W_v.bias",
        "W_v.weight",
    ]
    assert metadata["num_heads"] == "2"


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        (
            (None, torch.rand(2, 5, 32)),
            {},
            ValueError,
            r"x has shape \[2, 5, 32\]; the page shows one sequence.*x\[:1\]",
        ),
        (
            (None, torch.rand(5)),
            {},
            ValueError,
            r"x has shape \[5\]; the page shows one sequence, \[1, seq_len, d_model\] \(or \[seq_len, d_model\]\)\.$",
        ),
        ((None, torch.rand(1, 0, 32)), {}, ValueError, r"nothing to attend over"),
        ((None, torch.rand(1, 513, 8)), {}, ValueError, r"513 positions; the page draws at most 512"),
        ((None, torch.tensor([[1.0, float("nan")]])), {}, ValueError, r"NaN or infinite"),
        ((None, torch.rand(1, 3, 32), ["a", "b"]), {}, ValueError, r"2 tokens for x's 3 positions"),
        ((None, torch.rand(1, 3, 32), "abc"), {}, TypeError, r"tokens must be a list of strings"),
        ((None, "not a tensor"), {}, TypeError, r"x must be a tensor of shape \[1, seq_len, d_model\]"),
        (("trained", torch.rand(1, 3, 16)), {}, ValueError, r"x has d_model 16, the module 32"),
        (("trained",), {"heads": 2}, TypeError, r"the module decides num_heads"),
        (("trained",), {"preset": "lesson000"}, TypeError, r"the module decides the weights"),
        ((None, torch.rand(1, 3, 32)), {"text": "hello"}, TypeError, r"x is the input"),
        ((None, None, ["a"]), {"text": "hello"}, TypeError, r"the tokens are the input"),
        ((nn.Linear(4, 4),), {}, ValueError, r"Linear has no W_q\.weight"),
    ],
)
def test_bad_input(args, kwargs, error, message):
    args = tuple(trained_module() if a == "trained" else a for a in args)
    with pytest.raises(error, match=message):
        mx.explore(*args, **kwargs)


def test_sizes():
    limit = _explore.MAX_OUTPUT
    page = len(_explore._html.static_file(_explore.PAGE).read_bytes())
    small = mx.explore(trained_module(), torch.randn(1, 8, 32), list("abcdefgh"))
    assert page < len(small._repr_html_().encode()) < page + 40_000 < limit
    assert len(mx.lab(preset="train-two-offsets")._repr_html_().encode()) <= limit
    torch.manual_seed(0)
    lesson = MultiHeadAttention000(128, 8)  # 66,048 weights: about 350 KB as base64
    assert len(mx.explore(lesson, torch.randn(1, 64, 128))._repr_html_().encode()) <= limit
    with pytest.raises(
        ValueError, match=r"would take 2\.\d\d MB, more than the 2\.0 MB .*the module's weights 1\.40 MB"
    ):
        mx.explore(MultiHeadAttention000(256, 8))


def test_save(tmp_path):
    path = mx.lab(preset="train-two-offsets").save(tmp_path / "lab")
    assert path.name == "lab.html"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'data-mha-explorer-frame="lab"' in text
