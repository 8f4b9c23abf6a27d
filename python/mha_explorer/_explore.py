"""mx.explore and mx.lab: the one-file page (static/mha-explorer.html) and lab (static/mha-explorer-lab.html) inline in
the cell, each in an iframe whose document is the page itself (srcdoc, set by the output's script): the wasm core
recomputes in the cell, with no server and no network, in Jupyter, in exported HTML and in a Sphinx site.

The pages take their URL parameters from <meta name="mha-explorer-query"> (web/chrome/frame.js's pageQuery: a srcdoc
document has no query of its own), checked here against the pages' property lists (static/params.json, written by
web/build.mjs from web/state/page.js and web/state/lab.js). mx.explore hands the page the student's input in the page's
input block (web/explorer/input.js): x as base64 of little-endian float32, the tokens, and the module's weights as a
.safetensors file (mx.save_weights' bytes), which the page loads through its Load weights path. The pages post their
height (web/chrome/frame.js's postHeight); the output's script sizes its iframe from it.
"""

import base64
import html
import json
import struct
from urllib.parse import urlencode

from . import _html

PAGE, LAB = "mha-explorer.html", "mha-explorer-lab.html"
MAX_OUTPUT = 2_000_000  # bytes of one output: the one-file page (1.4 MB: three core builds) plus the student's data
INPUT_ID = "mha-explorer-input"  # web/explorer/input.js's INPUT_ID
MAX_TOKENS = 512  # the page draws at most this many (web/compute/explorer-run.js's MAX_TOKENS)

_params = None


def params():
    """{"page": [prop], "lab": [prop]}: the pages' URL parameters (web/build.mjs writes them)."""
    global _params
    if _params is None:
        _params = json.loads(_html.static_file("params.json").read_text(encoding="utf-8"))
    return _params


def _allowed(p):
    if p["type"] in ("enum", "list"):
        return (
            "one of " + ", ".join(repr(v) for v in p["values"])
            if p["type"] == "enum"
            else "a list of " + ", ".join(repr(v) for v in p["values"])
        )
    if p["type"] == "bool":
        return "True or False"
    if p["type"] == "text":
        return "a string of at most %d characters" % p["maxLength"]
    return "%s from %s to %s" % ("a whole number" if p["type"] == "int" else "a number", p["min"], p["max"])


def _query_value(call, p, value):
    """A Python value of parameter p as the page's URL writes it; raises ValueError/TypeError naming what is allowed."""

    def bad():
        return ValueError("%s(%s=%r): %s must be %s." % (call, p["name"], value, p["name"], _allowed(p)))

    kind = p["type"]
    if kind == "bool":
        if value in (True, False, 0, 1):
            return "1" if value else "0"
        raise bad()
    if kind == "list":
        items = (
            value.split(",") if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else None
        )
        if items is None or not all(isinstance(i, str) and i in p["values"] for i in items):
            raise bad()
        return ",".join(items)
    if kind == "enum":
        match = [v for v in p["values"] if v == value or (not isinstance(value, bool) and str(v) == str(value))]
        if not match:
            raise bad()
        return str(match[0])
    if kind == "text":
        if not isinstance(value, str) or len(value) > p["maxLength"]:
            raise bad()
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise bad()
    if kind == "int" and int(value) != value:
        raise bad()
    if not p["min"] <= value <= p["max"]:
        raise bad()
    return str(int(value)) if kind == "int" else repr(float(value))


def page_query(call, which, values):
    """{name: value} → the query string; an unknown name raises a TypeError naming the page's parameters."""
    props = {p["name"]: p for p in params()[which]}
    query = {}
    for name, value in values.items():
        if name not in props:
            raise TypeError(
                "%s() got an unknown parameter %r; the %s's parameters are: %s."
                % (call, name, "page" if which == "page" else "lab", ", ".join(props))
            )
        query[name] = _query_value(call, props[name], value)
    return urlencode(query)


def _float32_base64(t):
    flat = t.reshape(-1).tolist()
    return base64.b64encode(struct.pack("<%df" % len(flat), *flat)).decode("ascii")


def _read_x(x):
    """x as a CPU float32 torch tensor [1, T, D] (from [T, D] or [1, T, D]; torch, numpy or nested lists)."""
    import torch

    if not isinstance(x, torch.Tensor):
        try:
            x = torch.as_tensor(x.tolist() if hasattr(x, "tolist") else x)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(
                "mx.explore(module, x): x must be a tensor of shape [1, seq_len, d_model] (%s)." % err
            ) from None
    if x.is_complex() or x.dtype == torch.bool:
        raise TypeError("mx.explore(module, x): x must hold real numbers, not %s." % x.dtype)
    x = x.detach().to("cpu", torch.float32)
    if x.dim() == 2:
        x = x.unsqueeze(0)
    if x.dim() != 3 or x.shape[0] != 1:
        raise ValueError(
            "mx.explore(module, x): x has shape %s; the page shows one sequence, [1, seq_len, d_model] (or "
            "[seq_len, d_model])%s." % (list(x.shape), ": pass x[:1] for the first of a batch" if x.dim() == 3 else "")
        )
    T, D = x.shape[1], x.shape[2]
    if T == 0 or D == 0:
        raise ValueError("mx.explore(module, x): x has shape %s, with nothing to attend over." % list(x.shape))
    if T > MAX_TOKENS:
        raise ValueError(
            "mx.explore(module, x): x has %d positions; the page draws at most %d: pass x[:, :%d]."
            % (T, MAX_TOKENS, MAX_TOKENS)
        )
    if not torch.isfinite(x).all():
        raise ValueError("mx.explore(module, x): x holds NaN or infinite values.")
    return x.contiguous()


def _read_tokens(tokens, T):
    if tokens is None:
        return None
    if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
        raise TypeError("mx.explore(…, tokens): tokens must be a list of strings, one per position of x.")
    tokens = list(tokens)
    if T is not None and len(tokens) != T:
        raise ValueError("mx.explore(…, tokens): %d tokens for x's %d positions." % (len(tokens), T))
    if not tokens or len(tokens) > MAX_TOKENS:
        raise ValueError("mx.explore(…, tokens): %d tokens; the page draws 1 to %d." % (len(tokens), MAX_TOKENS))
    return tokens


class PageFrame(_html.Output):
    """What mx.explore and mx.lab return: the notebook renders it (_repr_html_, an iframe of the one-file page),
    print() describes it, save(path) writes it as one HTML file. Each rendering is independent (a fresh id)."""

    def __init__(self, which, query, description, page_input=None):
        self.which, self.query, self.description, self.page_input = which, query, description, page_input
        self.html = self._document()
        size = len(self._repr_html_().encode("utf-8"))
        if size > MAX_OUTPUT:
            raise ValueError(
                "this output would take %.2f MB, more than the %.1f MB an explore/lab output may: %s"
                % (size / 1e6, MAX_OUTPUT / 1e6, self._sizes())
            )

    def _sizes(self):
        i = self.page_input or {}
        parts = ["the page %.2f MB" % (len(_html.static_file(PAGE).read_bytes()) / 1e6)]
        if i.get("x"):
            parts.append("x %.2f MB (a shorter x, x[:, :n], is smaller)" % (len(i["x"]["float32"]) / 1e6))
        if i.get("weights"):
            parts.append(
                "the module's weights %.2f MB (d_model² grows fast)" % (len(i["weights"]["safetensors"]) / 1e6)
            )
        return ", ".join(parts) + "."

    def _document(self):
        page = _html.static_file(PAGE if self.which == "page" else LAB).read_text(encoding="utf-8")
        # The output carries this page only: its links to the other page show how to get it instead (web/chrome/frame.js).
        other = (
            "mx.lab() in a cell opens the training lab"
            if self.which == "page"
            else "mx.explore() in a cell opens the page"
        )
        page = page.replace("</head>", '<meta name="mha-explorer-alone" content="%s">\n</head>' % other, 1)
        if self.page_input is not None:
            block = json.dumps(self.page_input, ensure_ascii=False).replace("<", "\\u003c")
            page = page.replace(
                "</head>", '<script type="application/json" id="%s">%s</script>\n</head>' % (INPUT_ID, block), 1
            )
        return page

    @property
    def title(self):
        return "MHA Explorer: multi-head attention" if self.which == "page" else "MHA Explorer training lab"

    def __repr__(self):
        return "<mha_explorer.PageFrame %s%s>" % (self.description, ("; ?" + self.query) if self.query else "")

    def _repr_html_(self):
        out_id = _html.fresh_id()
        mount = FRAME % {
            "id": json.dumps(out_id),
            "query": json.dumps(self.query),
            "title": json.dumps(self.title),
            "page": _html.script_safe(json.dumps(self.html, ensure_ascii=False)),
        }
        return (
            '<div class="mhax-output" id="%s" data-mha-explorer-frame="%s">'
            '<div class="mhax-fallback"><pre>%s\n(the page runs where the notebook\'s outputs run scripts)</pre></div>'
            '<script>(function () {\n%s\n%s\n})();</script></div>'
            % (out_id, self.which, html.escape(self.description), _html.HOST, mount)
        )


# Runs inside the output's function, after _html.HOST: an iframe whose document is the page (srcdoc), its query in
# the page's <meta name="mha-explorer-query"> (the notebook's theme unless the query names one), its height the one
# the page posts (mha-explorer:height).
FRAME = r"""
var id = %(id)s, query = %(query)s, title = %(title)s, page = %(page)s;
function mount(host) {
  if (host.mhaExplorerMounted) return;
  host.mhaExplorerMounted = true;
  var theme = notebookTheme(host), q = query;
  if (theme !== 'auto' && !/(^|&)theme=/.test(q)) q += (q ? '&' : '') + 'theme=' + theme;
  var frame = document.createElement('iframe');
  frame.title = title;
  frame.setAttribute('data-mha-explorer', '');
  frame.style.cssText = 'display:block;border:0;width:100%%;height:640px';
  addEventListener('message', function (e) {
    var d = e.data;
    if (e.source === frame.contentWindow && d && d.type === 'mha-explorer:height') frame.style.height = Math.min(20000, Math.ceil(d.height)) + 'px';
  });
  var meta = '<meta name="mha-explorer-query" content="' + q.replace(/&/g, '&amp;').replace(/"/g, '&quot;') + '">';
  frame.srcdoc = page.replace('<head>', function () { return '<head>' + meta; });
  var fallback = host.querySelector('.mhax-fallback');
  if (fallback) fallback.remove();
  host.appendChild(frame);
  wholeHeight(host);
}
whenInDocument(id, mount);
"""


def explore(module=None, x=None, tokens=None, **page_params):
    """The explorer's page in the cell, every control live (the WebAssembly core recomputes in the cell).

    module: an attention module (the lessons' MultiHeadAttention, nn.MultiheadAttention, a module with
    q_proj/k_proj/v_proj/o_proj, nn.TransformerEncoderLayer): the page loads its weights (Load weights).
    x: your input, [1, seq_len, d_model] or [seq_len, d_model], in place of the page's embeddings.
    tokens: a label per position of x (without x: the tokens the page embeds, as it embeds its sentence).
    page_params: the page's URL parameters (text=, heads=, causal=, seed=, theme=, embed=, hide=, …).
    """
    query = page_query("mx.explore", "page", page_params)
    page_input, what = {"source": "the notebook"}, []
    D = None
    if module is not None:
        from ._safetensors import weights_file

        for name in ("preset", "dmodel", "heads"):
            if name in page_params:
                raise TypeError(
                    "mx.explore(module, %s=…): the module decides %s."
                    % (
                        name,
                        {
                            "preset": "the weights (a lesson's preset uses its own)",
                            "dmodel": "d_model",
                            "heads": "num_heads (mx.explore(module) shows its own heads)",
                        }[name],
                    )
                )
        data, D, heads = weights_file(module)
        name = type(module).__name__
        page_input["weights"] = {
            "file": name + ".safetensors",
            "safetensors": base64.b64encode(data).decode("ascii"),
            "how": 'your module\'s weights: mx.save_weights(module, "%s.safetensors") writes them' % name,
        }
        what.append("%s (d_model %d, %d head%s)" % (name, D, heads, "" if heads == 1 else "s"))
    T = None
    if x is not None:
        for name in ("preset", "text", "dmodel"):
            if name in page_params:
                raise TypeError("mx.explore(…, x, %s=…): x is the input, and its shape decides d_model." % name)
        xt = _read_x(x)
        T = xt.shape[1]
        if D is not None and xt.shape[2] != D:
            raise ValueError("mx.explore(module, x): x has d_model %d, the module %d." % (xt.shape[2], D))
        page_input["x"] = {"shape": list(xt.shape), "float32": _float32_base64(xt)}
        what.append("your x %s" % list(xt.shape))
    page_input["tokens"] = _read_tokens(tokens, T)
    if tokens is not None and x is None:
        for name in ("preset", "text"):
            if name in page_params:
                raise TypeError("mx.explore(tokens=…, %s=…): the tokens are the input." % name)
        what.append("%d tokens" % len(page_input["tokens"]))
    if module is None and x is None and tokens is None:
        page_input = None
    description = "MHA Explorer page" + (": " + ", ".join(what) if what else "")
    return PageFrame("page", query, description, page_input)


def lab(**lab_params):
    """The training lab in the cell: a small attention model trains in the cell (preset="train-two-offsets", …).

    lab_params: the lab's URL parameters (preset=, task=, heads=, layers=, optimizer=, lr=, autoplay=, embed=, …).
    """
    query = page_query("mx.lab", "lab", lab_params)
    return PageFrame("lab", query, "MHA Explorer training lab")
