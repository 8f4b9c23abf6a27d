"""mx.show and the object it returns."""

from . import _html, _widget
from ._errors import student_errors, unknown_keywords
from ._output import HeadsOutput
from ._weights import TooBig, read_labels, read_weights

DTYPES = ("float32", "float16")


class AttentionView(HeadsOutput):
    """What mx.show returns: the notebook renders it (_repr_html_), print() describes it (__repr__), save(path)
    writes it as one HTML file. Each rendering is independent (a fresh element id)."""

    def _display_(self):
        """marimo shows an output's HTML in a frame of fixed height: there the view is its anywidget (marimo's own
        anywidget support), at its content's height; without anywidget, the HTML output."""
        if not _widget.available():
            return _HtmlOnly(self)
        return _widget.heads_class()(
            self.weights,
            self.tokens,
            query_tokens=self.query_tokens,
            title=self.title,
            dtype=self.dtype,
            trace=self.trace,
            caption=self.caption or "",
        )


def _is_module(x):
    try:
        import torch
    except ImportError:
        return False
    return isinstance(x, torch.nn.Module)


class _HtmlOnly:
    def __init__(self, output):
        self._repr_html_ = output._repr_html_


class Views(_html.Output):
    """Several views in one output (an encoder-decoder model's encoder, decoder and cross-attention)."""

    def __init__(self, views, title):
        self.views, self.title = list(views), title

    def __getitem__(self, i):
        return self.views[i]

    def __len__(self):
        return len(self.views)

    def __repr__(self):
        return "<mha_explorer.Views %s:\n%s>" % (self.title, "\n".join(repr(v) for v in self.views))

    def _repr_html_(self):
        return "".join(v._repr_html_() for v in self.views)

    def _display_(self):
        """marimo: the views one below the other, each as AttentionView._display_ gives it."""
        import marimo as mo

        return mo.vstack([v._display_() for v in self.views])


SHOW_KEYWORDS = (
    "tokens",
    "query_tokens",
    "layer",
    "heads",
    "batch",
    "title",
    "key",
    "value",
    "mask",
    "target",
    "dtype",
    "widget",
)


@student_errors
def show(
    attention,
    x=None,
    tokens=None,
    *,
    query_tokens=None,
    layer=None,
    heads=None,
    batch=None,
    title=None,
    key=None,
    value=None,
    mask=None,
    target=None,
    dtype="float32",
    widget=None,
    **unknown,
):
    """Shows attention weights in the notebook's cell.

    mx.show(attention, tokens=None, *, query_tokens=None, layer=None, heads=None, batch=None, title=None)
        attention: [T, S], [H, T, S], [B, H, T, S] (or [L, B, H, T, S]), or a tuple of per-layer [B, H, T, S]
        (Hugging Face's outputs.attentions); a torch tensor (any device or dtype), a numpy array or nested lists.
        A 3-D tensor is read as [H, T, S]; with batch= as [B, T, S] (head-averaged weights of a batch).
        tokens: the S keys' labels; query_tokens: the T queries' (when T ≠ S). layer= / heads= / batch=: pick some
        (a number, a list or a range). dtype="float16" halves the output's size (values rounded to float16).
    mx.show(module, x, tokens=None, *, key=None, value=None, mask=None)
        runs the module once (eval mode, no gradients) and shows its heads and the shape trace of that forward:
        the lessons' MultiHeadAttention, nn.MultiheadAttention, nn.TransformerEncoderLayer (its self_attn).
    mx.show(model, tokenizer, text, *, target=None)
        a Hugging Face transformers model: every head of every layer for that text (eager attention for the call);
        an encoder-decoder model's encoder, decoder and cross-attention (the decoder reads target, else the text).
    mx.show(cache, tokens=None)
        a TransformerLens ActivationCache (model.run_with_cache(tokens)): every layer's attn.hook_pattern; tokens:
        the labels, a text or the token ids (read with the cache's model.to_str_tokens).
    widget: None (the default) gives the HTML output, or the anywidget view (mx.Heads) when the weights are above the
        HTML output's cap and anywidget is installed; True always the widget (no cap; layer, head and query as
        traits); False always the HTML output.
    """
    if unknown:
        raise unknown_keywords("mx.show()", unknown, SHOW_KEYWORDS)
    if dtype not in DTYPES:
        raise ValueError("dtype=%r: the weights are sent as float32 (exact) or float16 (half the size)." % (dtype,))
    if widget not in (None, True, False):
        raise TypeError(
            "widget= is True (the anywidget view), False (the HTML output) or None (the HTML output, the "
            "widget when the weights are too many for it); got %r." % (widget,)
        )
    from ._hf import is_transformers_model
    from ._hf import run_model as run_transformers

    if is_transformers_model(attention):
        _module_inputs_only(
            key,
            value,
            mask,
            "mx.show(model, tokenizer, text): key=, value= and mask= are not for a transformers model "
            "(the tokenizer makes its input).",
        )
        if x is None or query_tokens is not None:
            raise TypeError(
                "mx.show(model, tokenizer, text): give the model's tokenizer and the text, e.g. "
                "mx.show(model, tokenizer, \"The cat sat\")."
            )
        parts = run_transformers(attention, x, _text_of(tokens), target)
        views = [
            _one(att, keys, queries, title or part_title, None, None, layer, heads, batch, dtype, widget)
            for part_title, att, keys, queries in parts
        ]
        return views[0] if len(views) == 1 else Views(views, title or parts[0][0].split(" (")[-1].rstrip(")"))
    from ._transformer_lens import is_activation_cache, read_cache

    if is_activation_cache(attention):  # mx.show(cache, tokens): TransformerLens's run_with_cache
        _module_inputs_only(key, value, mask, "key=, value= and mask= go with a module, not a TransformerLens cache.")
        attention, tokens = read_cache(attention, tokens if x is None else x)
        x, title = None, title or "TransformerLens: every layer's hook_pattern"
    if target is not None:
        raise TypeError(
            "target= is the decoder's text of a transformers encoder-decoder model: "
            "mx.show(model, tokenizer, text, target=…)."
        )
    trace, source = None, None
    if _is_module(attention):
        from ._module import run_module

        if x is None:
            raise TypeError(
                "mx.show(module, x): give the module's input x too, e.g. mx.show(mha, x, tokens) with x of "
                "shape [batch, seq_len, d_model]."
            )
        attention, trace, source = run_module(attention, x, key=key, value=value, mask=mask)
        if title is None:
            title = "Attention of " + source
    else:
        _module_inputs_only(
            key,
            value,
            mask,
            "key=, value= and mask= go with a module: mx.show(module, x, tokens, key=…, value=…, mask=…).",
        )
        if x is not None:
            if tokens is not None:
                raise TypeError("mx.show(attention, tokens): the second argument is the tokens; x is for a module.")
            tokens, x = x, None
    return _one(attention, tokens, query_tokens, title, trace, source, layer, heads, batch, dtype, widget)


def _module_inputs_only(key, value, mask, message):
    """key=, value= and mask= are a module's inputs: a TypeError with message when any is given elsewhere."""
    if key is not None or value is not None or mask is not None:
        raise TypeError(message)


def _text_of(text):
    if text is None:
        raise TypeError(
            "mx.show(model, tokenizer, text): give the text too, e.g. mx.show(model, tokenizer, \"The cat sat\")."
        )
    return text


def _one(attention, tokens, query_tokens, title, trace, source, layer, heads, batch, dtype, widget):
    """One output: the HTML view, or the widget (asked for, or where the HTML output's cap is passed)."""

    def as_widget():
        return _widget.heads_class()(
            attention,
            tokens,
            query_tokens=query_tokens,
            heads=heads,
            batch=batch,
            layer=_widget_layer(layer),
            title=title,
            dtype=dtype,
            trace=trace,
        )

    if widget:
        return as_widget()
    try:
        w = read_weights(attention, layer=layer, heads=heads, batch=batch)
    except TooBig:
        if widget is False or not _widget.available():
            raise
        return as_widget()
    T, S = w.shape[3], w.shape[4]
    keys = read_labels(tokens, S, "tokens", "key")
    queries = read_labels(query_tokens, T, "query_tokens", "query")
    return AttentionView(w, keys, queries, title, trace, dtype, source)


def _widget_layer(layer):
    if layer is None:
        return 0
    if isinstance(layer, int) and not isinstance(layer, bool):
        return layer
    raise TypeError(
        "layer=%r: the widget shows one layer at a time (its picker, or the layer trait, shows the "
        "others): pass one number." % (layer,)
    )
