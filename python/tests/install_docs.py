"""The install commands of docs/python.md run exactly as written (issue 28: a student's first steps), and the built
wheel on every Python 3.9–3.13 the machine has, each in a fresh venv without the repository on its path.

CTest python.install runs this file (pytest; not collected by python.package: it downloads JupyterLab from PyPI,
through the pip cache, and takes a few minutes). The blocks are the fenced ones after <!-- tested: NAME --> in
docs/python.md; each runs with bash -e in a fresh directory holding a copy of the checkout's python/ (with the built
static/), with the python3 first on the PATH. `jupyter lab` runs until it says it is running, then stops.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "python.md"
SMOKE = r"""
import sys, json
import mha_explorer as mx
assert mx.__file__.startswith(sys.prefix), mx.__file__          # the installed wheel, not the repository
v = mx.show([[[0.5, 0.5], [1.0, 0.0]], [[0.25, 0.75], [0.0, 1.0]]], ["a", "b"])
html = v._repr_html_()
assert "MhaExplorerView" in html and "read as [H, T, S]" in html and "mhax-fallback" in html
assert v.save("out.html").stat().st_size > 30000
frame = mx.explore(text="The cat sat", heads=2)._repr_html_()
assert len(frame) > 600000                                       # the one-file page (0.84 MB) from the wheel's static/
try:
    mx.show([[1.0]], head=0)
    raise SystemExit("an unknown keyword was taken")
except TypeError as e:
    assert "it takes tokens, query_tokens" in str(e)
print(json.dumps({"python": sys.version.split()[0], "ok": True}))
"""


def blocks():
    text = DOC.read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for m in re.finditer(r"<!-- tested: ([\w-]+) -->\s*```sh\n(.*?)```", text, re.S)}


def checkout_copy(where):
    """The part of a checkout the commands use: python/ (after scripts/build: static/ is there)."""
    static = REPO / "python" / "mha_explorer" / "static"
    assert (static / "mha-explorer-view.js").is_file(), (
        "run scripts/build first (it writes python/mha_explorer/static/)"
    )
    shutil.copytree(
        REPO / "python", where / "python", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests")
    )


def jupyter_config(where):
    """JupyterLab's own config for the test: root may run it (CI is root), no browser, a free port."""
    cfg = where / ".jupyter-config"
    cfg.mkdir(exist_ok=True)
    (cfg / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"allow_root": True, "open_browser": False, "port": 0, "ip": "127.0.0.1"}})
    )
    return cfg


def run_block(code, where, env):
    """Runs the block's lines with bash -e; a `jupyter lab` line runs until the server says it is running."""
    lines = [l for l in code.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    for line in lines:
        if re.search(r"jupyter (lab|notebook)\s*$", line):
            log = where / "jupyter.log"
            with open(log, "w") as out:
                server = subprocess.Popen(
                    ["bash", "-c", "exec " + line], cwd=where, env=env, stdout=out, stderr=subprocess.STDOUT
                )
            try:
                deadline = time.time() + 120
                while "is running at" not in log.read_text() and server.poll() is None and time.time() < deadline:
                    time.sleep(0.5)
            finally:
                server.terminate()
                try:
                    server.wait(20)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
            assert "is running at" in log.read_text(), log.read_text()
        else:
            done = subprocess.run(["bash", "-ec", line], cwd=where, env=env, capture_output=True, text=True)
            assert done.returncode == 0, "%s\n%s%s" % (line, done.stdout[-3000:], done.stderr[-3000:])


def clean_env(where, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "PIP_"))}
    env.update(
        JUPYTER_CONFIG_DIR=str(jupyter_config(where)),
        JUPYTER_DATA_DIR=str(where / ".jupyter-data"),
        JUPYTER_RUNTIME_DIR=str(where / ".jupyter-runtime"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    cache = REPO / "build" / "pip-cache"
    env["PIP_CACHE_DIR"] = str(cache)
    env.update(extra)
    return env


def smoke(python, where):
    done = subprocess.run([str(python), "-c", SMOKE], cwd=where, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_docs_name_both_blocks():
    assert set(blocks()) == {"with-pypi", "offline"}


def test_with_pypi_as_written(tmp_path):
    checkout_copy(tmp_path)
    run_block(blocks()["with-pypi"], tmp_path, clean_env(tmp_path))
    assert smoke(tmp_path / ".venv" / "bin" / "python", tmp_path)["ok"]


def test_offline_as_written(tmp_path):
    checkout_copy(tmp_path)
    once, offline = blocks()["offline"].strip().splitlines()[0], "\n".join(blocks()["offline"].strip().splitlines()[1:])
    run_block(once, tmp_path, clean_env(tmp_path))  # where PyPI is reachable
    assert glob.glob(str(tmp_path / "wheels" / "mha_explorer-*.whl"))
    # then without an index: pip's index is a closed port, the pip cache is not used
    run_block(offline, tmp_path, clean_env(tmp_path, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_NO_CACHE_DIR="1"))
    assert smoke(tmp_path / ".venv" / "bin" / "python", tmp_path)["ok"]


def interpreters():
    found = {}
    for exe in sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3"))) + ["/usr/bin/python3"]:
        try:
            v = subprocess.run(
                [exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        if (3, 9) <= tuple(map(int, v.split("."))) <= (3, 13):
            found.setdefault(v, exe)
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(REPO / "python")],
        check=True,
        capture_output=True,
    )
    return next(out.glob("mha_explorer-*.whl"))


@pytest.mark.parametrize("version", ["3.9", "3.10", "3.11", "3.12", "3.13"])
def test_the_wheel_on_each_python(version, wheel, tmp_path):
    exe = interpreters().get(version)
    if exe is None:
        pytest.skip("no Python %s on this machine" % version)
    subprocess.run([exe, "-m", "venv", str(tmp_path / "venv")], check=True)
    py = tmp_path / "venv" / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-index", str(wheel)], check=True, env=clean_env(tmp_path)
    )
    got = smoke(py, tmp_path)
    assert got["python"].startswith(version + ".") and got["ok"]
