"""mx.show against real PyTorch: every input form, the modules (weights and the recorded trace compared with
PyTorch's own tensors), bad inputs, the size rules, the HTML output and mx.save_weights."""

import base64
import json
import math
import re
import struct
import sys
from array import array
from pathlib import Path

import pytest
import torch
import torch.nn as nn

import mha_explorer as mx
from mha_explorer import _weights
from mha_explorer._weights import MAX_VALUES

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "torch"))
import safetensors_spec  # noqa: E402  (the project's reader written from the format's specification)
from lessons import (  # noqa: E402
    MultiHeadAttention000,
    MultiHeadAttention002,
    MultiHeadAttention003,
    lesson_trace,
    lesson_weights,
    step,
)


def sent(view):
    """The weights the output carries, decoded as the browser does (base64 of little-endian float32/16)."""
    html = view._repr_html_()
    data = re.search(r'\bdata = "([A-Za-z0-9+/=]*)", dtype', html).group(1)
    raw = base64.b64decode(data)
    if view.dtype == "float16":
        return list(struct.unpack("<%de" % (len(raw) // 2), raw))
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))


def options(view):
    return json.loads(re.search(r"\nvar id = .*?, options = (\{.*?\}), data = ", view._repr_html_(), re.S).group(1))


def softmax(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(*shape, generator=g), dim=-1)


@pytest.mark.parametrize("shape", [(5, 5), (3, 5, 7), (2, 3, 4, 4)])
def test_tensor_forms(shape):
    w = softmax(*shape)
    for form in (w, w.numpy(), w.tolist(), w.double(), w.half(), w.requires_grad_(True)):
        v = mx.show(form)
        assert v.shape == (1,) * (5 - len(shape)) + shape
        expected = (
            (w.half() if isinstance(form, torch.Tensor) and form.dtype == torch.float16 else w)
            .float()
            .reshape(-1)
            .tolist()
        )
        assert sent(v) == expected
    assert sent(mx.show(w)) == array("f", w.reshape(-1).tolist()).tolist()  # exact float32


def test_transposed_and_bfloat16_tensors():
    w = softmax(4, 6).t()  # not contiguous
    assert sent(mx.show(w)) == w.contiguous().reshape(-1).tolist()
    b = softmax(2, 4, 4).bfloat16()
    assert sent(mx.show(b)) == b.float().reshape(-1).tolist()


def test_hugging_face_tuple_and_layer_heads():
    layers = tuple(softmax(2, 4, 6, 6, seed=s) for s in range(3))
    v = mx.show(layers, list("abcdef"))
    assert v.shape == (3, 2, 4, 6, 6)
    assert sent(v) == torch.stack(layers).reshape(-1).tolist()
    v = mx.show(layers, layer=1, heads=[0, 2])
    assert v.shape == (1, 2, 2, 6, 6)
    assert sent(v) == layers[1][:, [0, 2]].reshape(-1).tolist()
    v = mx.show(torch.stack(layers), layer=-1, heads=range(1, 3))
    assert sent(v) == layers[2][:, 1:3].reshape(-1).tolist()
    assert mx.show(tuple(t.numpy() for t in layers), layer=[0, 2]).shape == (2, 2, 4, 6, 6)


def test_float16_on_request():
    w = softmax(2, 8, 8)
    v = mx.show(w, dtype="float16")
    assert sent(v) == w.half().float().reshape(-1).tolist()
    assert len(v._repr_html_()) < len(mx.show(w)._repr_html_())


def test_tokens_and_query_tokens():
    w = softmax(2, 3, 5)
    o = options(mx.show(w, list("abcde"), query_tokens=["x", "y", "z"], title="Cross"))
    assert o["tokens"] == list("abcde") and o["queryTokens"] == ["x", "y", "z"] and o["title"] == "Cross"
    assert o["shape"] == [1, 1, 2, 3, 5]


@pytest.mark.parametrize(
    "bad, message",
    [
        (torch.ones(5), "shape [5] (1 dimension)"),
        (torch.ones(1, 2, 3, 4, 5, 6), "6 dimensions"),
        (torch.ones(0, 4), "empty"),
        ([[0.5, 0.5], [1.0]], "not rectangular"),
        ([["a", "b"], ["c", "d"]], "not a number"),
        ("attention", "is a str"),
        (None, "output_attentions=True"),
        (3.0, "single number"),
        ((torch.ones(1, 2, 3, 3), torch.ones(1, 2, 4, 4)), "the layers' shapes differ"),
    ],
)
def test_bad_inputs(bad, message):
    with pytest.raises((TypeError, ValueError)) as e:
        mx.show(bad)
    assert message in str(e.value)


def test_bad_tokens_and_selection():
    w = softmax(2, 5, 5)
    with pytest.raises(ValueError, match=r"tokens has 4 labels, but the attention has 5 keys"):
        mx.show(w, list("abcd"))
    with pytest.raises(TypeError, match=r"one string"):
        mx.show(w, "the cat sat on mat")
    with pytest.raises(
        ValueError, match=r"query_tokens has 2 labels, but the attention has 5 querys|query_tokens has 2 labels"
    ):
        mx.show(w, query_tokens=["a", "b"])
    with pytest.raises(IndexError, match=r"heads=7 is out of range: there are 2 heads"):
        mx.show(w, heads=7)
    with pytest.raises(ValueError, match=r"no layer dimension"):
        mx.show(w, layer=0)
    with pytest.raises(ValueError, match=r"dtype="):
        mx.show(w, dtype="int8")


def test_nan_and_rows_that_do_not_sum_to_one_are_shown_with_words():
    w = softmax(2, 4, 4)
    w[0, 1, 2] = float("nan")
    w[1, 0] *= 3
    v = mx.show(w)
    assert "1 weight is NaN or infinite" in repr(v)
    got = sent(v)
    assert math.isnan(got[6]) and got[16:20] == w[1, 0].tolist()  # sent as they are: the view notes them
    assert '<img src="data:image/png;base64,' in v._repr_html_()


def test_size_rule(monkeypatch):
    assert MAX_VALUES >= 12 * 12 * 512 * 512  # GPT-2 small's every head at 512 tokens
    assert MAX_VALUES * 2 * 4 / 3 <= (2**29 - 24) / 4  # incompressible float16 in base64: ¼ of V8's longest string
    monkeypatch.setattr(_weights, "MAX_VALUES", 4 * 30 * 30)  # the rule, on a small tensor
    big = torch.zeros(1, 4, 31, 31)
    with pytest.raises(ValueError, match=r"more than the 3,600 .* layer=0 .* heads=\[0, 1\]"):
        mx.show(big, widget=False)  # (without widget=False: the anywidget view where anywidget is installed)
    assert mx.show(big, heads=[0, 1]).shape == (1, 1, 2, 31, 31)
    w = softmax(1, 4, 16, 16)
    html = mx.show(w)._repr_html_()
    data = re.search(r'\bdata = "([^"]*)", dtype', html).group(1)
    assert len(html) - len(data) <= 150_000  # the output without its data
    assert (
        '"' + base64.b64encode(array("f", w.reshape(-1).tolist()).tobytes()).decode() + '"' in html
    )  # binary, not JSON


def test_output_html_is_independent_and_scoped():
    v = mx.show(softmax(2, 3, 3), list("abc"))
    a, b = v._repr_html_(), v._repr_html_()
    ida, idb = (re.search(r'id="(mhax-[0-9a-f]{32})"', h).group(1) for h in (a, b))
    assert ida != idb
    assert not re.search(r"\bdefine\s*\(", a)  # nothing for require.js to catch
    assert a.count("<script") == 1 and "type=\"module\"" not in a
    assert "</script" not in a[a.index("<script>") + 8 : a.rindex("</script>")]
    assert "<style" not in a  # the view adds its own scoped sheet (.mhav)


def test_save_writes_one_document(tmp_path):
    p = mx.show(softmax(2, 3, 3)).save(tmp_path / "heads")
    assert p.name == "heads.html"
    text = p.read_text()
    assert text.startswith("<!DOCTYPE html>") and "mhax-" in text and "src=\"http" not in text


def test_png_fallback_is_a_valid_png():
    import zlib

    v = mx.show(softmax(3, 4, 6))
    png = base64.b64decode(re.search(r'data:image/png;base64,([^"]+)"', v._repr_html_()).group(1))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    idat = png[png.index(b"IDAT") + 4 : png.index(b"IEND") - 8]
    assert len(zlib.decompress(idat)) == height * (1 + width * 3)
    assert width > 3 * 6 and height >= 4


# ---- modules --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [MultiHeadAttention000, MultiHeadAttention002, MultiHeadAttention003])
def test_lessons_modules(cls):
    torch.manual_seed(0)
    m = cls(32, 4)
    m.train()
    x = torch.rand(2, 6, 32)
    v = mx.show(m, x, list("abcdef"))
    assert m.training  # restored
    with torch.no_grad():
        m.eval()
        result = m(x) if cls is MultiHeadAttention003 else m(x, x, x)
        if cls is MultiHeadAttention002:  # returns no weights: PyTorch's softmax, computed here
            result = (result, lesson_weights(m, x))
        assert v.shape == (1, 2, 4, 6, 6)
        assert sent(v) == result[1].reshape(-1).tolist()
        assert v.trace == lesson_trace(m, x)


def test_lesson_003_causal_mask_and_000_cross_attention():
    torch.manual_seed(1)
    m = MultiHeadAttention003(64, 4)
    x = torch.randn(2, 8, 64)
    mask = torch.triu(torch.ones(8, 8), diagonal=1)
    v = mx.show(m, x, mask=mask)
    m.eval()
    with torch.no_grad():
        assert sent(v) == m(x, mask)[1].reshape(-1).tolist()
    assert sent(v)[1] == 0.0  # query 0 sees no later key
    m0 = MultiHeadAttention000(16, 2)
    q, kv = torch.rand(1, 3, 16), torch.rand(1, 5, 16)
    v = mx.show(m0, q, list("abcde"), key=kv, query_tokens=list("xyz"))
    with torch.no_grad():
        assert sent(v) == m0(q, kv, kv)[1].reshape(-1).tolist()
    assert v.shape == (1, 1, 2, 3, 5) and v.trace[4]["weights"] == [1, 2, 3, 5]


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("dropout", [0.0, 0.1])  # 0.0 with batch_first: PyTorch's fused fast path in eval mode
def test_nn_multihead_attention(batch_first, dropout):
    torch.manual_seed(2)
    m = nn.MultiheadAttention(16, 4, batch_first=batch_first, dropout=dropout)
    x = torch.rand(2, 5, 16) if batch_first else torch.rand(5, 2, 16)
    v = mx.show(m, x)
    assert m.training and v.shape == (1, 2, 4, 5, 5)
    m.eval()
    with torch.no_grad():
        out, w = m(x, x, x, need_weights=True, average_attn_weights=False)
    assert sent(v) == w.reshape(-1).tolist()
    assert v.trace[0] == dict(
        step(x), name="Input", expr="query", description="The query as nn.MultiheadAttention got it"
    )
    assert {k: v.trace[-1][k] for k in ("shape", "strides", "contiguous")} == step(out)
    att = next(s for s in v.trace if s.get("weights"))
    assert att["weights"] == [8, 5, 5] and att["shape"] == [8, 5, 4]


def test_transformer_encoder_layer():
    torch.manual_seed(3)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
    x = torch.rand(1, 4, 16)
    v = mx.show(layer, x, list("abcd"))
    layer.eval()
    with torch.no_grad():
        _, w = layer.self_attn(x, x, x, need_weights=True, average_attn_weights=False)
    assert sent(v) == w.reshape(-1).tolist() and "self_attn" in v.title


def test_modules_that_do_not_fit():
    with pytest.raises(ValueError, match=r"computed no softmax"):
        mx.show(nn.Linear(8, 8), torch.rand(1, 3, 8))
    with pytest.raises(ValueError, match=r"could not run on x of shape \[1, 3, 8\]"):
        mx.show(MultiHeadAttention000(16, 2), torch.rand(1, 3, 8))
    with pytest.raises(TypeError, match=r"give the module's input x"):
        mx.show(MultiHeadAttention000(16, 2))
    with pytest.raises(ValueError, match=r"x must be a torch tensor"):
        mx.show(MultiHeadAttention000(16, 2), [[1.0]])
    with pytest.raises(ValueError, match=r"takes one input"):
        mx.show(MultiHeadAttention003(16, 2), torch.rand(1, 3, 16), key=torch.rand(1, 3, 16))


# ---- save_weights ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: MultiHeadAttention000(16, 4),
        lambda: nn.MultiheadAttention(16, 4),
        lambda: nn.MultiheadAttention(16, 2, bias=False),
    ],
)
def test_save_weights_reads_back(make, tmp_path):
    torch.manual_seed(4)
    m = make()
    p = mx.save_weights(m, tmp_path / "w.safetensors")
    tensors = safetensors_spec.load_file(str(p))
    x = torch.rand(1, 5, 16)
    ref = MultiHeadAttention000(16, m.num_heads)
    ref.load_state_dict(tensors)
    ref.eval()
    m.eval()
    with torch.no_grad():
        want = (
            m(x, x, x)[0]
            if isinstance(m, MultiHeadAttention000)
            else m(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1))[0].transpose(0, 1)
        )
        assert torch.allclose(ref(x, x, x)[0], want, atol=1e-6)
    header = json.loads(p.read_bytes()[8 : 8 + struct.unpack("<Q", p.read_bytes()[:8])[0]])
    assert header["__metadata__"]["num_heads"] == str(m.num_heads)


# ---- what the package says it read (issue 28, item 5) -------------------------------------------------------


def test_three_dimensions_are_read_as_heads_and_batch_takes_a_batch():
    torch.manual_seed(5)
    m = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.rand(2, 6, 8)
    _, averaged = m(x, x, x)  # the default average_attn_weights=True: [B, T, S] = [2, 6, 6]
    v = mx.show(averaged)
    assert v.shape == (1, 1, 2, 6, 6)
    assert "read as [H, T, S]: 2 heads of one sequence" in options(v)["caption"] and "batch=" in repr(v)
    v = mx.show(averaged, batch=1)
    assert v.shape == (1, 1, 1, 6, 6) and sent(v) == averaged[1].reshape(-1).tolist()
    assert "read as [B, T, S] (batch=)" in options(v)["caption"]
    v = mx.show(averaged, batch=range(2))
    assert v.shape == (1, 2, 1, 6, 6) and sent(v) == averaged.reshape(-1).tolist()
    assert mx.show(averaged[:, None]).shape == (1, 2, 1, 6, 6)  # [B, 1, T, S]
    four = softmax(3, 2, 4, 4)
    assert sent(mx.show(four, batch=[2, 0])) == four[[2, 0]].reshape(-1).tolist()
    assert "caption" not in options(mx.show(four))
    with pytest.raises(IndexError, match=r"batch=2 is out of range: there are 2 batch items \(0 to 1\)"):
        mx.show(averaged, batch=2)
    with pytest.raises(ValueError, match=r"no batch dimension"):
        mx.show(softmax(4, 4), batch=0)


def test_plural_and_singular_in_range_messages():
    layers = tuple(softmax(1, 2, 3, 3, seed=s) for s in range(3))
    with pytest.raises(IndexError, match=r"layer=3 is out of range: there are 3 layers \(0 to 2\)\.$"):
        mx.show(layers, layer=3)
    with pytest.raises(IndexError, match=r"layer=1 is out of range: there is 1 layer \(only 0\)\.$"):
        mx.show(layers[:1], layer=1)
    with pytest.raises(IndexError, match=r"heads=2 is out of range: there are 2 heads \(0 to 1\)"):
        mx.show(layers, heads=2)


def test_unknown_keywords_list_the_allowed_ones():
    with pytest.raises(TypeError) as e:
        mx.show(softmax(3, 3), head=0)
    msg = str(e.value)
    assert msg.startswith("mx.show() got an unknown keyword 'head'; it takes tokens, query_tokens, layer, heads, batch")
    assert "Did you mean 'heads'?" in msg


def test_errors_come_without_the_package_frames():
    import traceback

    with pytest.raises(ValueError) as e:
        mx.show(torch.ones(0, 4))
    frames = traceback.extract_tb(e.value.__traceback__)
    assert [f.name for f in frames][-1] == "call" and all("_weights.py" not in f.filename for f in frames)
    assert e.value.__context__ is None and e.value.__cause__ is None

    class Broken(nn.Module):  # a student's own error keeps its frames
        def forward(self, x):
            raise RuntimeError("my bug")

    with pytest.raises(ValueError, match="my bug") as e:
        mx.show(Broken(), torch.rand(1, 2, 4))
    assert any(f.name == "forward" for f in traceback.extract_tb(e.value.__cause__.__traceback__))
