"""The package's one build step beyond pyproject.toml: the view and the one-file pages in mha_explorer/static/.

They are built from the project's web/ (web/build.mjs, run by scripts/build), not kept in git. In a source checkout
where they are missing, building the package runs `node web/build.mjs` (it needs the project's dist/ from
scripts/build for the one-file pages); an sdist carries them, so a wheel built from it needs nothing more."""

import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
STATIC = HERE / "mha_explorer" / "static"
NEEDED = [
    "mha-explorer-view.js",
    "mha-explorer-view-classic.js",
    "mha-explorer.html",
    "mha-explorer-lab.html",
    "mha-explorer-models.html",
    "params.json",
    "scales.json",
]
WEB_BUILD = HERE.parent / "web" / "build.mjs"


def missing():
    return [f for f in NEEDED if not (STATIC / f).is_file()]


def ensure_static():
    if missing() and WEB_BUILD.is_file():
        subprocess.run(["node", str(WEB_BUILD)], check=True, stdout=subprocess.DEVNULL)
    gone = missing()
    if gone:
        raise SystemExit(
            "mha-explorer: mha_explorer/static/ lacks %s. In the project's checkout run scripts/build (it "
            "builds the WebAssembly cores and web/build.mjs writes these files), then build the package "
            "again; or install a wheel or sdist that carries them." % ", ".join(gone)
        )


class BuildPy(build_py):
    def run(self):
        ensure_static()
        super().run()


class Sdist(sdist):
    def run(self):
        ensure_static()
        super().run()


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
