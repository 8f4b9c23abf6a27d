"""mx.Heads (the anywidget front end) in Python: traits, one layer per message, bad values, the saved HTML, and
mx.show's choice between the HTML output and the widget. The view in real front ends: tests/browser/notebook-frontends.test.mjs."""

import re
import struct
import sys

import pytest
import torch

import mha_explorer as mx
from mha_explorer import _weights, _widget
from mha_explorer._weights import MAX_VALUES

pytest.importorskip("anywidget")
import traitlets  # noqa: E402
from test_show import softmax  # noqa: E402


def floats(b):
    return list(struct.unpack("<%df" % (len(b) // 4), b))


def layers(n=3, H=2, T=5, S=5):
    return tuple(softmax(1, H, T, S, seed=s) for s in range(n))


def test_one_layer_at_a_time_as_bytes():
    ls = layers()
    w = mx.Heads(ls, list("abcde"))
    assert (w.num_layers, w.layer, w.shape) == (3, 0, [1, 1, 2, 5, 5])
    assert isinstance(w.weights, bytes) and floats(w.weights) == ls[0].reshape(-1).tolist()
    w.layer = 2  # as a cell (or the view's picker) sets it
    assert floats(w.weights) == ls[2].reshape(-1).tolist() and w.layer == 2
    stacked = torch.stack(ls)  # [L, B, H, T, S]: sliced per layer
    assert floats(mx.Heads(stacked, layer=-1).weights) == ls[2].reshape(-1).tolist()
    assert mx.Heads(ls, heads=[1]).shape == [1, 1, 1, 5, 5]
    assert str(w._esm).startswith("// MHA Explorer attention view")  # the view module itself


def test_traits_out_of_range_raise_with_the_range():
    w = mx.Heads(layers(), list("abcde"))
    with pytest.raises(traitlets.TraitError, match=r"layer=3 is out of range: there are 3 layers \(0 to 2\)"):
        w.layer = 3
    with pytest.raises(
        traitlets.TraitError, match=r"head=2 is out of range: there are 2 heads \(0 to 1\) \(or -1 for their average\)"
    ):
        w.head = 2
    with pytest.raises(traitlets.TraitError, match=r"query=5 is out of range: there are 5 queries \(0 to 4\)"):
        w.query = 5
    w.head, w.query = -1, 4
    assert (w.head, w.query, w.layer) == (-1, 4, 0)
    with pytest.raises(IndexError, match=r"layer=5 is out of range"):
        mx.Heads(layers(), layer=5)
    with pytest.raises(TypeError, match=r"one layer at a time"):
        mx.show(layers(), layer=[0, 1], widget=True)


def test_saved_output_keeps_what_was_shown_and_says_what_it_left_out():
    ls = layers()
    w = mx.Heads(ls, list("abcde"), title="Three")
    w.layer = 1
    data, _ = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    html = data["text/html"]
    assert "Saved from the widget (mx.Heads): layer 1 of 3 only" in html
    sent = re.search(r'\bdata = "([A-Za-z0-9+/=]*)", dtype', html).group(1)
    import base64

    assert floats(base64.b64decode(sent)) == ls[1].reshape(-1).tolist()


def test_show_takes_the_widget_above_the_html_cap(monkeypatch):
    assert 12 * 12 * 512 * 512 <= MAX_VALUES  # GPT-2 small at 512 tokens: the HTML output
    monkeypatch.setattr(_weights, "MAX_VALUES", 12 * 12 * 20 * 20 - 1)  # the rule, on small weights
    side = 20
    big = softmax(12, 1, 12, side, side)
    v = mx.show(big, [str(i) for i in range(side)])
    assert type(v).__name__ == "Heads" and v.num_layers == 12
    assert v.packed == []  # above the cap: one layer at a time, nothing packed
    with pytest.raises(ValueError, match=r"more than the 57,599 mx.show puts in an HTML output.*install anywidget"):
        mx.show(big, widget=False)
    small = mx.show(softmax(2, 3, 3))
    assert type(small).__name__ == "AttentionView"
    assert type(mx.show(softmax(2, 3, 3), widget=True)).__name__ == "Heads"
    with pytest.raises(TypeError, match=r"widget= is True"):
        mx.show(softmax(2, 3, 3), widget="yes")


def test_without_anywidget_show_keeps_the_html_output(monkeypatch):
    monkeypatch.setitem(sys.modules, "anywidget", None)
    _widget.heads_class.cache_clear()  # the class is made again, without anywidget
    assert not _widget.available()
    monkeypatch.setattr(_weights, "MAX_VALUES", 1000)
    big = softmax(12, 1, 12, 20, 20)
    with pytest.raises(ValueError, match=r"install anywidget"):
        mx.show(big)
    with pytest.raises(ImportError, match=r"need anywidget: pip install anywidget"):
        mx.show(softmax(3, 3), widget=True)


def test_the_output_contracts_of_front_ends_not_run_here():
    """VS Code and Colab cannot run here: their documented output contracts. An HTML output is one text/html
    (classic script, no require.js define, no module script, nothing fetched); the widget is anywidget's ESM: one
    module with no import, a default export with render."""
    v = mx.show(softmax(2, 4, 4), list("abcd"))
    html = v._repr_html_()
    assert not re.search(r'\b(src|href)\s*=\s*"(https?:)?//', html) and "import(" not in html
    assert not re.search(r"\bdefine\s*\(", html) and 'type="module"' not in html and html.count("<script") == 1
    esm = str(mx.Heads(softmax(2, 4, 4))._esm)
    assert not re.search(r"^\s*import[\s{*]", esm, re.M) and "import(" not in esm
    assert re.search(r"export\s*\{[^}]*\bas default\b", esm) or "export default" in esm
