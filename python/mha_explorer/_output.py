"""The HTML output of attention weights: what mx.show returns (_view.AttentionView adds marimo's display to it) and
what mx.Heads saves beside its widget (_widget.py). Below both: it imports neither."""

from . import _html, _weights
from ._png import heads_png
from ._weights import reading

PACKED_NOTE = (
    "The values are stored rounded to float16 (above 4,000,000 values, to keep the notebook small): each within "
    "0.05% of PyTorch's float32."
)


class HeadsOutput(_html.Output):
    """The HTML output of attention weights (mx.show's AttentionView is one): the notebook renders it (_repr_html_),
    print() describes it (__repr__), save(path) writes it as one HTML file. Each rendering is independent (a fresh
    element id)."""

    def __init__(
        self,
        weights,
        tokens=None,
        query_tokens=None,
        title=None,
        trace=None,
        dtype="float32",
        source=None,
        caption=None,
    ):
        self.weights = weights
        self.caption = caption if caption is not None else reading(weights)
        self.tokens, self.query_tokens = tokens, query_tokens
        self.title = title or "Attention weights"
        self.trace = trace
        self.dtype = dtype
        self.source = source

    @property
    def shape(self):
        """(L, B, H, T, S) of the weights shown."""
        return self.weights.shape

    def _options(self):
        o = {"shape": list(self.weights.shape), "title": self.title}
        caption = [self.caption] if self.caption else []
        if self.weights.count() > _weights.EXACT_VALUES:
            caption.append(PACKED_NOTE)
        if caption:
            o["caption"] = " ".join(caption)
        if self.tokens is not None:
            o["tokens"] = self.tokens
        if self.query_tokens is not None:
            o["queryTokens"] = self.query_tokens
        if self.trace is not None:
            o["trace"] = self.trace
        return o

    def _text(self):
        L, B, H, T, S = self.weights.shape
        lines = [
            "%s: %d head%s, %d quer%s × %d key%s"
            % (self.title, H, "" if H == 1 else "s", T, "y" if T == 1 else "ies", S, "" if S == 1 else "s")
        ]
        dims = [("layers", L), ("batch items", B)]
        extra = ", ".join("%d %s" % (n, name) for name, n in dims if n > 1)
        lines[0] += " (" + extra + ")" if extra else ""
        lines.append(
            "shape [L, B, H, T, S] = %s%s"
            % (list(self.weights.shape), (", from " + self.source) if self.source else "")
        )
        if self.caption:
            lines.append(self.caption)
        if self.weights.count() > _weights.EXACT_VALUES:
            lines.append(PACKED_NOTE)
        if self.tokens:
            lines.append("tokens: " + " ".join(self.tokens[:24]) + (" …" if len(self.tokens) > 24 else ""))
        if self.query_tokens:
            lines.append(
                "query tokens: " + " ".join(self.query_tokens[:24]) + (" …" if len(self.query_tokens) > 24 else "")
            )
        bad = self.weights.non_finite()
        if bad:
            lines.append("%d weight%s NaN or infinite" % (bad, " is" if bad == 1 else "s are"))
        if self.trace:
            lines.append("shape trace: " + " → ".join(str(s["shape"]) for s in self.trace))
        return "\n".join(lines)

    def __repr__(self):
        return "<mha_explorer.AttentionView " + self._text() + ">"

    def _repr_html_(self):
        png = heads_png(self.weights)
        L, B, H = self.weights.shape[:3]
        alt = "Heatmaps of %s: %d head%s%s, darker is more weight" % (
            self.title,
            png[3],
            "" if png[3] == 1 else "s",
            " of layer 0, batch item 0" if L > 1 or B > 1 else "",
        )
        if png[3] < H:
            alt += " (the first %d of %d)" % (png[3], H)
        return _html.fragment(self.weights, self._options(), self.dtype, png, self._text(), alt)
