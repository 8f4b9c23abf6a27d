"""A notebook output: the attention view (web/views/attention.js, built as static/mha-explorer-view-classic.js)
mounted in the notebook's own document, with the static picture and the text for viewers that run no scripts.

Notebook front ends insert outputs in different ways (jQuery's append in the classic Notebook, innerHTML plus
re-created scripts in JupyterLab, a plain page in exported HTML and Sphinx): the output's one classic script
(no module, no define(): require.js may be on the page) wraps the view in a function (no globals), finds its
element by the output's fresh id (the classic Notebook runs the script before the output is in the document,
so it waits for it), mounts the view there and removes the fallback.
"""

import base64
import html
import json
import uuid
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
VIEW_SCRIPT = "mha-explorer-view-classic.js"


def static_file(name):
    path = STATIC / name
    if not path.is_file():
        raise FileNotFoundError(
            "mha_explorer's %s is missing (%s): it is built by the project's scripts/build (node web/build.mjs), which "
            "copies it into python/mha_explorer/static/; build, then reinstall the package." % (name, path)
        )
    return path


_view_code = None


def view_code():
    global _view_code
    if _view_code is None:
        _view_code = script_safe(static_file(VIEW_SCRIPT).read_text(encoding="utf-8"))
    return _view_code


def script_safe(text):
    """Text that cannot end the <script> element it sits in ("</script" or "<!--" inside a string or regex)."""
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


# The notebook side shared by every output (runs inside the output's function): the notebook's theme for a page in an
# iframe (mx.explore: the view itself reads it with its module's hostTheme and follows it live), the classic Notebook's
# scroll box, and finding the output's element once it is in the document.
HOST = r"""
function notebookTheme(node) {
  var body = node.ownerDocument.body;
  var lab = body && body.getAttribute('data-jp-theme-light');
  if (lab === 'false' || (body && body.classList.contains('vscode-dark'))) return 'dark';
  if (lab === 'true' || (body && body.classList.contains('vscode-light'))) return 'light';
  return 'auto';
}
// The classic Notebook folds a cell's outputs taller than 100 lines into a scroll box: this cell's are shown whole
// (what clicking its prompt does; saved as the cell's "scrolled": false).
function wholeHeight(host) {
  var nb = window.Jupyter && window.Jupyter.notebook;
  if (!nb || typeof nb.get_cells !== 'function') return;
  nb.get_cells().forEach(function (cell) {
    var area = cell.output_area, el = area && area.element && area.element[0];
    if (el && el.contains(host)) {
      area.scroll_state = false;
      if (area.scrolled) area.unscroll_area();
    }
  });
}
// mount(host) once the element with this id is in the document (the classic Notebook runs the script before).
function whenInDocument(id, mount) {
  var tries = 0;
  (function find() {
    var host = document.getElementById(id);
    if (host && host.isConnected) mount(host);
    else if (tries++ < 500) setTimeout(find, 20);
  })();
}
"""

# Runs inside the output's function: MhaExplorerView is the view module's exports (local, not a global).
MOUNT = r"""
var id = %(id)s, options = %(options)s, data = %(data)s, dtype = %(dtype)s;
function mount(host) {
  if (host.mhaExplorerMounted) return;
  host.mhaExplorerMounted = true;
  MhaExplorerView.readWeights(data, dtype).then(function (weights) {
    var o = {};
    for (var k in options) o[k] = options[k];
    o.weights = weights;
    if (!o.theme) o.theme = MhaExplorerView.hostTheme(host);
    MhaExplorerView.followHostTheme(MhaExplorerView.mountAttention(host, o), host, options.theme);
    var fallback = host.querySelector('.mhax-fallback');
    if (fallback) fallback.remove();
    wholeHeight(host);
  }, function (e) {
    var p = host.ownerDocument.createElement('p');
    p.className = 'mhax-error';
    p.textContent = 'The view could not read its weights (' + (e && e.message || e) + '): the picture above is layer 0.';
    host.appendChild(p);
  });
}
whenInDocument(id, mount);
"""


def fresh_id():
    return "mhax-" + uuid.uuid4().hex


def fragment(weights, options, dtype, fallback_png, text, alt):
    """The output's HTML: a div with a fresh id holding the fallback (picture and text) and the script."""
    out_id = fresh_id()
    encoding, data = weights.encoded(dtype)
    mount = MOUNT % {
        "id": json.dumps(out_id),
        "options": script_safe(json.dumps(options, ensure_ascii=False)),
        "data": json.dumps(data) if isinstance(data, str) else "[\n%s\n]" % ",\n".join('"%s"' % c for c in data),
        "dtype": json.dumps(encoding),
    }
    png = base64.b64encode(fallback_png[0]).decode("ascii")
    return (
        '<div class="mhax-output" id="%s" data-mha-explorer-output="">'
        '<div class="mhax-fallback"><img src="data:image/png;base64,%s" width="%d" height="%d" alt="%s">'
        '<pre>%s</pre></div>'
        '<script>(function () {\n%s\n%s\n%s\n})();</script></div>'
        % (out_id, png, fallback_png[1], fallback_png[2], html.escape(alt), html.escape(text), view_code(), HOST, mount)
    )


class Output:
    """What an output object (AttentionView, PageFrame) adds to its title and _repr_html_: one HTML file of it."""

    def to_html(self):
        """One self-contained HTML document (no server, no network)."""
        return document(self.title, self._repr_html_())

    def save(self, path):
        """Writes the output as one HTML file; returns its path."""
        path = Path(path)
        if path.suffix.lower() not in (".html", ".htm"):
            path = path.with_suffix(path.suffix + ".html") if path.suffix else path.with_suffix(".html")
        path.write_text(self.to_html(), encoding="utf-8")
        return path


def document(title, body):
    """A whole HTML file around one output: opens from file:// with no server and no network."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>%s</title>\n'
        '<style>body{margin:16px;font-family:system-ui,sans-serif}@media (prefers-color-scheme: dark)'
        '{body{background:#111418;color:#e6e6e6}}</style>\n</head>\n<body>\n<main>\n%s\n</main>\n</body>\n</html>\n'
    ) % (html.escape(title), body)
