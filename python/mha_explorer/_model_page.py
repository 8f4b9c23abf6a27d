"""mx.explore_model: the model page (static/mha-explorer-models.html, the one-file twin of web/models/) in the cell,
showing a real checkpoint — a folder as save_pretrained writes it, or a transformers model object — with every head of
every layer for a text, without putting the weights in the notebook.

The page is an anywidget (model_page.js) whose view asks the kernel for the page and the checkpoint's files; the kernel
answers with custom comm messages carrying them as binary buffers (CHUNK bytes each). Custom messages are never part
of a widget's state, so the weights are not saved with the notebook even where the front end saves widget state: the
saved notebook keeps the widget's small state (text, folder, file names and sizes) and a text/html note for front ends
without widgets (exported HTML, repository previews) that says what the cell shows and how to see it again. The view
puts the page in an iframe (srcdoc, its query in <meta name="mha-explorer-query">) and hands it the files through the
page's scripting API (window.mhaExplorer.load({files, folder}), web/models/api.js).

A model object is written with save_pretrained (safetensors) and its tokenizer's save_pretrained into a temporary
folder, removed when the widget is closed or Python exits."""

import functools
import html
import json
import shutil
import tempfile
import weakref
from pathlib import Path

from . import _hub_cache
from ._errors import student_errors
from ._html import HOST, static_file
from ._widget import anywidget_modules, with_html

PAGE = "mha-explorer-models.html"
CHUNK = 8 << 20  # bytes of one comm message: a model's files go in many (a 500 MB GPT-2 in 63)
CONFIG, TOKENIZER, TOKENIZER_CONFIG = "config.json", "tokenizer.json", "tokenizer_config.json"
WEIGHTS, INDEX = "model.safetensors", "model.safetensors.index.json"  # web/models/files.js's names
THEMES = ("auto", "light", "dark")
OTHER_WEIGHTS = ("pytorch_model.bin", "tf_model.h5", "flax_model.msgpack", "model.ckpt.index", "model.onnx")
HALF_OR_FULL = ("float32", "float16", "bfloat16")  # what the page reads (F32, F16, BF16 files)


def _folder_files(folder):
    """The files of a checkpoint folder the page reads, as [(name, path)]; raises naming what is missing."""
    folder = Path(folder).expanduser()
    if folder.is_file():
        raise ValueError(
            "mx.explore_model(%r): this is a file; give the folder that holds it (config.json, tokenizer.json, "
            "model.safetensors), e.g. mx.explore_model(%r)." % (str(folder), str(folder.parent))
        )
    if not folder.is_dir():
        raise FileNotFoundError(
            "mx.explore_model(%r): there is no such folder (from %s). Give a model folder as save_pretrained writes "
            "it, or a transformers model." % (str(folder), Path.cwd())
        )
    has = lambda name: (folder / name).is_file()  # noqa: E731
    if not has(CONFIG):
        raise FileNotFoundError(
            "%s has no config.json: it says which model the weights are (model_type, layers, heads). "
            "model.save_pretrained(folder) writes it." % folder
        )
    files = [(CONFIG, folder / CONFIG)]
    if has(WEIGHTS):
        files.append((WEIGHTS, folder / WEIGHTS))
    elif has(INDEX):
        files.append((INDEX, folder / INDEX))
        files += [(s, folder / s) for s in _shards(folder)]
    else:
        other = next((n for n in OTHER_WEIGHTS if has(n)), None)
        raise FileNotFoundError(
            "%s has no model.safetensors (nor model.safetensors.index.json with its shards)%s"
            % (
                folder,
                (
                    ": it has %s, which the page does not read. Pass the model instead, "
                    "mx.explore_model(AutoModel.from_pretrained(folder), tokenizer, text), which writes safetensors, "
                    "or run model.save_pretrained(folder, safe_serialization=True)." % other
                )
                if other
                else ".",
            )
        )
    return files


def _shards(folder):
    try:
        weight_map = json.loads((folder / INDEX).read_text(encoding="utf-8"))["weight_map"]
        shards = sorted(set(map(str, weight_map.values())))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ValueError(
            "%s is not the index transformers writes for sharded weights (%s)." % (folder / INDEX, err)
        ) from None
    missing = [s for s in shards if not (folder / s).is_file()]
    if missing:
        raise FileNotFoundError(
            "%s lists %d shard%s of the weights; missing from the folder: %s."
            % (INDEX, len(shards), "" if len(shards) == 1 else "s", ", ".join(missing))
        )
    return shards


def _tokenizer_files(folder, tokenizer, scratch):
    """[(name, path)] of the tokenizer: the given tokenizer saved into scratch(), else the folder's own."""
    if tokenizer is not None:
        if not hasattr(tokenizer, "save_pretrained") or not hasattr(tokenizer, "convert_ids_to_tokens"):
            raise TypeError(
                "mx.explore_model(model, tokenizer, text): tokenizer must be a transformers tokenizer "
                "(AutoTokenizer.from_pretrained of the same checkpoint); got a %s." % type(tokenizer).__name__
            )
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError(
                "mx.explore_model: the page reads the tokenizer from tokenizer.json, which only a fast tokenizer "
                "writes; %s is a slow one: load it with AutoTokenizer.from_pretrained(path, use_fast=True)."
                % type(tokenizer).__name__
            )
        folder = scratch()
        tokenizer.save_pretrained(str(folder))
    folder = Path(folder) if folder is not None else None
    if folder is None or not (folder / TOKENIZER).is_file():
        older = folder is not None and any((folder / n).is_file() for n in ("vocab.txt", "vocab.json"))
        raise FileNotFoundError(
            "mx.explore_model: the page splits the text with tokenizer.json, and %s. %s"
            % (
                ("%s has none" % folder) if folder is not None else "the model's folder is not known",
                "Pass the tokenizer: mx.explore_model(model_or_folder, tokenizer, text)"
                + (
                    " (this folder has the older vocab files only: AutoTokenizer.from_pretrained(folder) reads them)."
                    if older
                    else "."
                ),
            )
        )
    return [(n, folder / n) for n in (TOKENIZER, TOKENIZER_CONFIG) if (folder / n).is_file()]


def _save_model(model, scratch):
    """A transformers model written as safetensors into scratch() → that folder."""
    import torch

    dtype = next((p.dtype for p in model.parameters() if p.is_floating_point()), torch.float32)
    name = str(dtype).replace("torch.", "")
    if name not in HALF_OR_FULL:
        raise ValueError(
            "mx.explore_model: the model's weights are %s; the page reads float32, float16 and bfloat16: pass "
            "model.float() (or .half())." % name
        )
    folder = scratch()
    model.save_pretrained(str(folder), safe_serialization=True)
    return folder


def checkpoint(model, tokenizer):
    """→ (folder shown to the student, [(name, path)] of config, tokenizer files and weights, temporary folder or None)."""
    from ._hf import is_transformers_model

    temp = []

    def scratch():
        temp.append(Path(tempfile.mkdtemp(prefix="mha-explorer-model-")))
        return temp[-1]

    try:
        if is_transformers_model(model):
            folder = _save_model(model, scratch)
            source = getattr(model, "name_or_path", "") or ""
            own = Path(source).expanduser() if source and Path(source).expanduser().is_dir() else None
            files = _folder_files(folder) + _tokenizer_files(own if tokenizer is None else None, tokenizer, scratch)
            return str(folder), files, temp
        if isinstance(model, str) and not Path(model).expanduser().is_dir() and _hub_cache.looks_like_id(model):
            folder, repo, commit = _hub_cache.snapshot_folder(model)  # huggingface_hub's cache, offline
            files = _folder_files(folder)
            files += _tokenizer_files(folder if tokenizer is None else None, tokenizer, scratch)
            return "hf:%s@%s" % (repo, commit), files, temp
        if isinstance(model, (str, Path)) or hasattr(model, "__fspath__"):
            folder = Path(model).expanduser()
            files = _folder_files(folder)
            files += _tokenizer_files(folder if tokenizer is None else None, tokenizer, scratch)
            return str(folder.resolve()), files, temp
    except BaseException:
        for t in temp:
            shutil.rmtree(t, ignore_errors=True)
        raise
    raise TypeError(
        "mx.explore_model(model, text): model is a checkpoint folder (a path holding config.json, tokenizer.json "
        "and model.safetensors, as save_pretrained writes it) or a transformers model; got a %s%s."
        % (
            type(model).__name__,
            " (an attention module: mx.explore(module) shows its heads)" if hasattr(model, "forward") else "",
        )
    )


def _query(layer, head, theme):
    from urllib.parse import urlencode

    for name, v in (("layer", layer), ("head", head)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError("mx.explore_model(%s=%r): %s is a whole number from 0." % (name, v, name))
    if theme is not None and theme not in THEMES:
        raise ValueError("mx.explore_model(theme=%r): theme is one of %s." % (theme, ", ".join(map(repr, THEMES))))
    q = {"layer": layer, "head": head}
    if theme is not None:
        q["theme"] = theme
    return urlencode(q)


@functools.cache
def model_page_class():
    """The anywidget class, made on first use (importing the package never imports anywidget)."""
    anywidget, t = anywidget_modules(
        "mx.explore_model sends the model's files from the kernel to the page through a widget's comm (never into "
        "the notebook): it needs",
        'Without it: mx.explore_model_page("models.html") writes the page; open it and drop the model folder on it.',
    )

    class ModelPage(anywidget.AnyWidget):
        """The model page as a widget. text: the page's text (set it from a cell); folder and files: what the kernel
        sends (names and sizes); tokens and status: what the page shows for the text, as its view reports it."""

        _esm = HOST + (Path(__file__).resolve().parent / "model_page.js").read_text(encoding="utf-8")
        text = t.Unicode("").tag(sync=True)
        query = t.Unicode("").tag(sync=True)  # the page's layer=, head=, theme=
        folder = t.Unicode("").tag(sync=True)
        files = t.List(t.Dict()).tag(sync=True)  # [{name, size}]
        description = t.Unicode("").tag(sync=True)
        # the view's report: the page's tokens and status ("shown" or its message), for the text it was asked for
        _shown_tokens = t.List(t.Unicode()).tag(sync=True)
        _shown_status = t.Unicode("").tag(sync=True)
        _shown_text = t.Unicode("").tag(sync=True)

        @property
        def tokens(self):
            """The tokens the page shows for .text ([] until the view reports them)."""
            return list(self._shown_tokens) if self._reported() else []

        @property
        def status(self):
            """What the page says of .text: "shown" or its message; "computing" until the view reports on it."""
            return self._shown_status if self._reported() else "computing" if self._shown_status else ""

        def _reported(self):
            return self._shown_text == self.text or not self.text  # "": the page's own text

        def __init__(self, folder, files, temp, text, query, description):
            super().__init__(
                text=text,
                query=query,
                folder=folder,
                files=[{"name": n, "size": p.stat().st_size} for n, p in files],
                description=description,
            )
            self._paths = files
            self._cleanup = weakref.finalize(self, _remove, list(temp))
            self.on_msg(self._answer)

        def close(self):
            super().close()
            self._cleanup()

        def _answer(self, _, content, buffers):
            """A view asked for the page or the files (content: {type: "request", id, what: "page" | "files"}): each
            goes as buffers, a file in CHUNK-sized pieces, then "done"."""
            if not isinstance(content, dict) or content.get("type") != "request":
                return
            rid = content.get("id")
            if content.get("what") == "page":
                self.send({"type": "page", "id": rid}, [static_file(PAGE).read_bytes()])
                return
            for name, path in self._paths:
                try:
                    with open(path, "rb") as f:
                        size, offset = path.stat().st_size, 0
                        while True:
                            chunk = f.read(CHUNK)
                            self.send(
                                {"type": "file", "id": rid, "name": name, "offset": offset, "size": size}, [chunk]
                            )
                            offset += len(chunk)
                            if offset >= size or not chunk:
                                break
                except OSError as err:
                    self.send({"type": "error", "id": rid, "message": "%s could not be read: %s" % (path, err)})
                    return
            self.send({"type": "done", "id": rid})

        def _repr_mimebundle_(self, **kwargs):
            note = _note_html(self.description, self.text, self.folder)
            return with_html(super()._repr_mimebundle_(**kwargs), note, repr(self))

        def __repr__(self):
            return "<mha_explorer.ModelPage %s; text %r; %s>" % (
                self.description,
                self.text,
                ", ".join("%s %s" % (f["name"], _mb(f["size"])) for f in self.files),
            )

    return ModelPage


def _remove(folders):
    for f in folders:
        shutil.rmtree(f, ignore_errors=True)


def _mb(n):
    return "%.1f MB" % (n / 1e6) if n >= 1e5 else "%d bytes" % n


# What a notebook shows where the widget does not run (exported HTML, nbsphinx, GitHub, a front end without widgets):
# the page needs the kernel, which sends the weights live and never saves them.
NOTE = (
    '<div class="mhax-model-note" style="border-left:4px solid #1565c0;padding:8px 12px;margin:4px 0;'
    'font-family:system-ui,sans-serif">'
    "<strong>MHA Explorer, the model page: %s</strong><br>text: %s<br>"
    "The page gets the model's files from the running kernel and the notebook does not keep them: run this cell in "
    "a live notebook whose front end shows widgets (JupyterLab 4, Notebook 7, VS Code, marimo; in Colab call "
    "<code>google.colab.output.enable_custom_widget_manager()</code> first). Without a kernel, open "
    "<code>mha-explorer-models.html</code> (<code>mx.explore_model_page(\"page.html\")</code> writes it) and drop "
    "the folder <code>%s</code> on it.</div>"
)


def _note_html(description, text, folder):
    return NOTE % (html.escape(description), html.escape(repr(text)), html.escape(folder))


def _describe(model, folder, files):
    size = sum(p.stat().st_size for n, p in files if n not in (CONFIG, TOKENIZER, TOKENIZER_CONFIG, INDEX))
    try:
        config = json.loads(dict(files)[CONFIG].read_text(encoding="utf-8"))
        kind = config.get("model_type", "?")
    except (ValueError, OSError):
        kind = "?"
    where = type(model).__name__ if not isinstance(model, (str, Path)) else folder
    return "%s (%s, weights %s)" % (where, kind, _mb(size))


@student_errors
def explore_model(model, text=None, tokenizer=None, *, layer=0, head=0, theme=None):
    """The model page in the cell: every head of every layer of a real checkpoint for a text, what each head does,
    and the model's prediction with heads switched off, computed in the cell by the WebAssembly core.

    model: a checkpoint folder (config.json, tokenizer.json and model.safetensors or its sharded index, as
    save_pretrained writes it), a Hub model id ("owner/name" or "owner/name@revision", read offline from
    huggingface_hub's cache: HF_HUB_CACHE; the message says how to download it when it is not there) or a
    transformers model (written with save_pretrained into a temporary folder).
    text: the text (by default lesson 004's sentence); mx.explore_model(model, tokenizer, text) as mx.show takes it.
    tokenizer: the model's tokenizer, when the folder (or the model's own folder) has no tokenizer.json.
    layer, head: the head selected first; theme: "light", "dark" or "auto" (default: the notebook's).
    The weights go from the kernel to the page through the widget's comm, never into the notebook: the saved
    notebook keeps the text, the folder and a note; run the cell again to see the page.
    The returned widget: set .text to show another text; .status ("shown", "computing" until the view reports on
    the text, the page's message, or "" before any view) and .tokens say what the page shows.
    """
    if text is not None and not isinstance(text, str) and hasattr(text, "convert_ids_to_tokens"):
        if tokenizer is not None and not isinstance(tokenizer, str):
            raise TypeError("mx.explore_model(model, tokenizer, text): two tokenizers given.")
        text, tokenizer = tokenizer, text  # mx.explore_model(model, tokenizer, text), as mx.show takes it
    if text is not None and not isinstance(text, str):
        raise TypeError("mx.explore_model(model, text): text must be a string; got a %s." % type(text).__name__)
    query = _query(layer, head, theme)
    cls = model_page_class()
    folder, files, temp = checkpoint(model, tokenizer)
    try:
        return cls(folder, files, temp, text if text is not None else "", query, _describe(model, folder, files))
    except BaseException:
        _remove(temp)
        raise


@student_errors
def explore_model_page(path, text=None):
    """Writes the model page (one HTML file, no weights) to path, opened on text: open it in a browser and drop a
    model folder on it (where no kernel can send the files). → the path written."""
    from urllib.parse import urlencode

    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        path = path.with_suffix(".html")
    page = static_file(PAGE).read_text(encoding="utf-8")
    if text is not None:
        if not isinstance(text, str):
            raise TypeError("mx.explore_model_page(path, text): text must be a string.")
        meta = '<meta name="mha-explorer-query" content="%s">' % html.escape(urlencode({"text": text}))
        page = page.replace("<head>", "<head>\n" + meta, 1)
    path.write_text(page, encoding="utf-8")
    return path
