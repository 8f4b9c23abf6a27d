"""The compact weights of an output above 4 M values (_weights.PACKED, what web/views/attention-packed.js reads):
float16 of PyTorch's float32 (rounded to nearest, as torch's .half()), byte planes, zlib, base64 chunks; the round trip
within float16's rounding, the chunks' size, the same bytes without numpy, and mx.Heads' packed layers."""

import base64
import re
import struct
import sys
from pathlib import Path

import pytest
import torch

import mha_explorer as mx
from mha_explorer import _weights

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_show import softmax  # noqa: E402

REL, ABS = 2.0**-11, 2.0**-25  # float16's rounding: half an ulp, relative for normal values, absolute below 2**-14


def unpack(chunks):
    """PACKED chunks (bytes) → the float values, decoded as the view does (inflate, low plane then high plane)."""
    import zlib

    out = []
    for c in chunks:
        planes = zlib.decompress(c)
        n = len(planes) // 2
        halves = bytes(b for pair in zip(planes[:n], planes[n:]) for b in pair)
        out.extend(struct.unpack("<%de" % n, halves))
    return out


def html_chunks(html):
    m = re.search(r"\bdata = \[\n(.*?)\n\], dtype = \"(.*?)\"", html, re.S)
    assert m and m.group(2) == _weights.PACKED
    return [base64.b64decode(c.strip().strip(",").strip('"')) for c in m.group(1).split("\n")]


@pytest.fixture
def small_limits(monkeypatch):
    monkeypatch.setattr(_weights, "EXACT_VALUES", 100)
    monkeypatch.setattr(_weights, "CHUNK_VALUES", 1000)


def test_round_trip_within_float16_rounding(small_limits):
    w = softmax(3, 1, 4, 17, 17)  # 3468 values: 4 chunks
    w[0, 0, 0, 0, :3] = torch.tensor([1e-7, 3e-5, 1.0])  # subnormal, near the normal range, one
    v = mx.show(w)
    chunks = html_chunks(v._repr_html_())
    assert len(chunks) == 4 and "rounded to float16" in repr(v)
    got = torch.tensor(unpack(chunks))
    ref = w.reshape(-1)
    assert torch.equal(got, ref.half().float())  # torch's own rounding, value for value
    assert ((got - ref).abs() <= REL * ref.abs() + ABS).all()


def test_chunks_and_size_at_512_tokens():
    assert _weights.CHUNK_VALUES * 2 * 4 / 3 <= 12 * 2**20  # each chunk's text at most 11.2 MB (12 MiB)
    w = mx.show(softmax(1, 1, 12, 512, 512))  # 3.1 M values: float32 as it is
    assert w.weights.encoded()[0] == "float32"
    big = torch.stack([softmax(1, 12, 512, 512, seed=s).tril() for s in range(2)])  # 6.3 M values, causal-shaped
    big = big / big.sum(-1, keepdim=True)
    html = mx.show(big)._repr_html_()
    chunks = html_chunks(html)
    assert len(chunks) == 2 and len(html) <= 2 * big.numel()


def test_without_numpy_the_same_bytes(small_limits, monkeypatch):
    w = mx.show(softmax(2, 3, 9, 9)).weights
    with_numpy = list(w.packed_chunks())
    monkeypatch.setattr(_weights, "_numpy", lambda: None)
    assert list(w.packed_chunks()) == with_numpy


def test_heads_keeps_every_layer_packed(small_limits):
    ls = tuple(softmax(1, 2, 9, 9, seed=s) for s in range(3))  # 486 values: above EXACT_VALUES here
    h = mx.Heads(ls, [str(i) for i in range(9)])
    assert h.weights == b"" and h.shape == [1, 1, 2, 9, 9]  # the view reads every layer from packed
    got = torch.tensor(unpack(h.packed))
    assert torch.equal(got, torch.cat([x.reshape(-1) for x in ls]).half().float())
    h.layer = 2
    assert h.weights == b"" and "layer 2 of 3" in h._repr_mimebundle_()[0]["text/html"]
