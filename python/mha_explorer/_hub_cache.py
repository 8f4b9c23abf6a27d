"""A Hub model id (mx.explore_model("owner/name")) read from huggingface_hub's local cache, offline, as
huggingface_hub lays it out (file_download.py, constants.py): HF_HUB_CACHE (else HF_HOME/hub, else
~/.cache/huggingface/hub) / models--{owner}--{name} / refs/{revision} (the commit) and snapshots/{commit}/ (the
files, links into blobs/). Nothing is downloaded here: without a snapshot the message says how to download it."""

import os
import re
from pathlib import Path

REPO_ID = re.compile(r"^(?:hf:)?((?:[\w.-]+/)?[\w.-]+)(?:@(.+))?$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")


def looks_like_id(value):
    """'owner/name', 'owner/name@rev' or 'hf:…' that is not a folder on disk."""
    v = str(value)
    if v.startswith("hf:"):
        return True
    return "/" in v and v.count("/") == 1 and not v.startswith((".", "/", "~")) and bool(REPO_ID.match(v))


def cache_dir():
    """huggingface_hub's constants.HF_HUB_CACHE, from the same variables."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HUGGINGFACE_HUB_CACHE"):
        return Path(os.environ["HUGGINGFACE_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface"
    )
    return Path(home).expanduser() / "hub"


def parse_id(value, revision=None):
    m = REPO_ID.match(str(value).strip())
    if not m or "--" in m.group(1) or ".." in m.group(1):
        raise ValueError(
            "mx.explore_model(%r): not a Hub model id (owner/name as on the model's page, optionally @revision)."
            % (value,)
        )
    rev = m.group(2)
    if rev and revision and rev != revision:
        raise ValueError("mx.explore_model(%r): the id says @%s and revision says %s." % (value, rev, revision))
    return m.group(1), rev or revision or "main"


def how_to_download(repo, revision):
    rev = "" if revision == "main" else " --revision %s" % revision
    return (
        "download it once (online) with `hf download %s%s` in a terminal, or in Python "
        "huggingface_hub.snapshot_download(%r%s); then run this cell again: the page reads the cache offline."
        % (repo, rev, repo, "" if revision == "main" else ", revision=%r" % revision)
    )


def snapshot_folder(value, revision=None):
    """→ (the snapshot folder of the model in the cache, 'owner/name', commit); raises naming what to do."""
    repo, rev = parse_id(value, revision)
    root = cache_dir() / ("models--" + repo.replace("/", "--"))
    commit = rev if COMMIT.match(rev) else None
    ref = root / "refs" / rev
    if commit is None and ref.is_file():
        commit = ref.read_text(encoding="utf-8").strip()
    folder = root / "snapshots" / commit if commit else None
    if folder is None or not folder.is_dir():
        raise FileNotFoundError(
            "%s%s is not in huggingface_hub's cache (%s): %s"
            % (repo, "" if rev == "main" else "@" + rev, cache_dir(), how_to_download(repo, rev))
        )
    return folder, repo, commit
