"""mx.Heads: the attention view as an anywidget (static/mha-explorer-view.js's default export, the same view as the
HTML output), for front ends with a live kernel: no size cap (each layer goes to the view as a binary buffer when it
is picked), and layer, head and query as synced traits a cell can read and set. anywidget is optional: without it
mx.show keeps its HTML output (_html.py).

The output also carries that HTML output of what was first shown (text/html beside the widget's MIME type): exported
HTML (nbconvert skips a widget whose state the notebook does not hold), nbsphinx and repository previews show it, and it
says what it left out."""

import functools
from array import array

from . import _weights
from ._html import static_file
from ._output import HeadsOutput
from ._weights import (
    Weights,
    _is_layer_list,
    _is_numpy,
    _is_torch,
    _pick,
    read_labels,
    read_weights,
    reading,
)

VIEW_MODULE = "mha-explorer-view.js"


def available():
    try:
        import anywidget  # noqa: F401
    except ImportError:
        return False
    return True


def layers_of(attention):
    """(L, layer(l) → that layer's weights as read_weights takes them): a tuple of per-layer tensors, an [L, B, H, T, S]
    tensor or array (sliced per layer, never copied whole), weights already read (an AttentionView's), or anything
    else as one layer."""
    if isinstance(attention, Weights):
        return attention.shape[0], lambda l: _pick(attention, 0, [l])
    if _is_layer_list(attention):
        shapes = [tuple(a.shape) for a in attention]
        for i, s in enumerate(shapes):
            if s != shapes[0]:
                raise ValueError(
                    "the layers' shapes differ: layer 0 is %s, layer %d is %s; pass layers of one model "
                    "(or pick one with layer=)." % (list(shapes[0]), i, list(s))
                )
        return len(attention), lambda l: attention[l]
    if (_is_torch(attention) or _is_numpy(attention)) and len(attention.shape) == 5:
        return attention.shape[0], lambda l: attention[l]
    return 1, lambda l: attention


def anywidget_modules(needs, without):
    """(anywidget, traitlets), or an ImportError: "<needs> anywidget: pip install anywidget … <without>"."""
    try:
        import anywidget
        import traitlets
    except ImportError:
        raise ImportError(
            "%s anywidget: pip install anywidget (or pip install 'mha-explorer[widget]'), then restart the kernel. %s"
            % (needs, without)
        ) from None
    return anywidget, traitlets


def with_html(bundle, html, text):
    """A widget's MIME bundle with the text/html and text/plain that front ends without widgets show (exported HTML,
    repository previews)."""
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    if isinstance(data, dict):
        data["text/html"], data["text/plain"] = html, text
    return bundle


@functools.cache
def heads_class():
    """The anywidget class, made on first use (importing the package never imports anywidget)."""
    anywidget, t = anywidget_modules(
        "mx.Heads (and mx.show(..., widget=True)) need", "Without it mx.show gives the HTML output."
    )

    class Heads(anywidget.AnyWidget):
        """The attention view as a widget. Traits a cell reads and sets: layer (0…L-1), head (0…H-1, -1 for the heads'
        average), query (0…T-1); setting one out of range raises a TraitError that says the range."""

        _esm = static_file(VIEW_MODULE)
        weights = t.Bytes(b"").tag(sync=True)  # little-endian float32 (or float16) of the shown layer
        # every layer as _weights.PACKED's chunks (float16), for a view without the kernel (a saved widget state):
        # empty above _weights.MAX_VALUES values, and for one layer
        packed = t.List(t.Bytes(), default_value=[]).tag(sync=True)
        dtype = t.Unicode("float32").tag(sync=True)
        shape = t.List(t.Int()).tag(sync=True)  # [1, B, H, T, S]: one layer
        num_layers = t.Int(1).tag(sync=True)
        layer = t.Int(0).tag(sync=True)
        head = t.Int(0).tag(sync=True)
        query = t.Int(0).tag(sync=True)
        tokens = t.List(t.Unicode(), allow_none=True, default_value=None).tag(sync=True)
        query_tokens = t.List(t.Unicode(), allow_none=True, default_value=None).tag(sync=True)
        trace = t.List(allow_none=True, default_value=None).tag(sync=True)
        title = t.Unicode("Attention weights").tag(sync=True)
        caption = t.Unicode("").tag(sync=True)
        theme = t.Unicode("").tag(sync=True)

        def __init__(
            self,
            attention,
            tokens=None,
            *,
            query_tokens=None,
            heads=None,
            batch=None,
            layer=0,
            title=None,
            dtype="float32",
            trace=None,
            caption=None,
            layer_names=None,
        ):
            n, get = layers_of(attention)
            self._layer_of, self._pick = get, dict(heads=heads, batch=batch)
            self._layer_names = layer_names
            self._n = n
            first = self._read(self._index(layer, n))
            _, B, H, T, S = first.shape
            self._dims = (H, T)
            super().__init__(
                num_layers=n,
                dtype=dtype,
                title=title or "Attention weights",
                trace=trace,
                tokens=read_labels(tokens, S, "tokens", "key"),
                query_tokens=read_labels(query_tokens, T, "query_tokens", "query"),
                caption=caption if caption is not None else (reading(first) or ""),
            )
            total = n * first.count()
            # above EXACT_VALUES every layer travels once, packed (float16), and `weights` stays empty
            self._packed_only = total > _weights.EXACT_VALUES and total <= _weights.MAX_VALUES
            self._show(first, self._index(layer, n))
            if 1 < n and total <= _weights.MAX_VALUES or self._packed_only:
                self.packed = self._packed(n)

        def _packed(self, n):
            every = array("f")
            for l in range(n):
                every.extend(self._read(l).data)
            _, B, H, T, S = self._shown[1].shape
            return list(Weights((n, B, H, T, S), every, (n, B, H, T, S)).packed_chunks())

        @staticmethod
        def _index(layer, n):
            if isinstance(layer, bool) or not isinstance(layer, int):
                raise TypeError(
                    "layer= is one whole number for the widget (the view's picker shows the others); got %r." % (layer,)
                )
            if not -n <= layer < n:
                raise IndexError("layer=%d is out of range: there %s." % (layer, _count(n, "layer")))
            return layer % n

        def _read(self, l):
            layer = self._layer_of(l)
            return layer if isinstance(layer, Weights) else read_weights(layer, limit=None, **self._pick)

        def _show(self, w, l):
            self._shown = (l, w)
            with self.hold_sync():
                self.shape = list(w.shape)
                self.weights = b"" if self._packed_only else w.to_bytes(self.dtype)
                self.layer = l

        @t.validate("layer")
        def _check_layer(self, proposal):
            return _in_range(proposal["value"], self._n, "layer")

        @t.validate("head")
        def _check_head(self, proposal):
            v = proposal["value"]
            return (
                v
                if v == -1 and self._dims[0] > 1
                else _in_range(v, self._dims[0], "head", " (or -1 for their average)" if self._dims[0] > 1 else "")
            )

        @t.validate("query")
        def _check_query(self, proposal):
            return _in_range(proposal["value"], self._dims[1], "query")

        @t.observe("layer")
        def _send_layer(self, change):
            if getattr(self, "_shown", (None,))[0] != change["new"]:
                self._show(self._read(change["new"]), change["new"])

        def _repr_mimebundle_(self, **kwargs):
            saved = self._saved_view()
            return with_html(super()._repr_mimebundle_(**kwargs), saved._repr_html_(), repr(saved))

        def _saved_view(self):
            """The HTML output of the layer shown now (only its shown head when that layer alone is above the HTML
            output's cap), saying what it leaves out."""
            l, w = self._shown
            left = ["layer %d of %d" % (l, self._n)] if self._n > 1 else []
            if w.count() > _weights.MAX_VALUES:
                h = max(self.head, 0)
                w = _pick(w, 2, [h])
                left.append("head %d of %d" % (h, self._dims[0]))
            note = (
                ("Saved from the widget (mx.Heads): %s only; run the cell to pick the others." % ", ".join(left))
                if left
                else ""
            )
            return HeadsOutput(
                w,
                self.tokens,
                self.query_tokens,
                self.title + (" · layer %d" % l if self._n > 1 else ""),
                self.trace,
                "float16" if self._packed_only else self.dtype,
                caption=" ".join(c for c in (self.caption, note) if c) or None,
            )

        def __repr__(self):
            return "<mha_explorer.Heads %s: %d layer%s, %d head%s, %d quer%s × %d key%s; layer=%d head=%d query=%d>" % (
                self.title,
                self._n,
                "" if self._n == 1 else "s",
                self._dims[0],
                "" if self._dims[0] == 1 else "s",
                self._dims[1],
                "y" if self._dims[1] == 1 else "ies",
                self.shape[-1],
                "" if self.shape[-1] == 1 else "s",
                self.layer,
                self.head,
                self.query,
            )

    return Heads


def _count(n, noun):
    return (
        "is 1 %s (only 0)" % noun
        if n == 1
        else "are %d %s (0 to %d)" % (n, "queries" if noun == "query" else noun + "s", n - 1)
    )


def _in_range(v, n, noun, extra=""):
    import traitlets as t

    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
        raise t.TraitError("%s=%r is out of range: there %s%s." % (noun, v, _count(n, noun), extra))
    return v
