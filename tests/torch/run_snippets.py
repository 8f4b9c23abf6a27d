"""Runs snippets as pasted into fresh notebooks: each in its own namespace, stdout captured.

Reads JSON [{"id": ..., "code": ..., "cwd": optional folder (the notebook's, with the files it opens)}] on stdin,
writes JSON [{"id", "stdout", "error"}] on stdout.
Used by tests/browser/snippets.test.mjs with Debian's python3-torch (/usr/bin/python3).
"""

import contextlib
import io
import json
import os
import sys
import traceback

import torch

torch.set_num_threads(1)
results = []
start = os.getcwd()
for item in json.load(sys.stdin):
    out, error = io.StringIO(), None
    os.chdir(item.get("cwd") or start)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(item["code"], "<snippet %s>" % item["id"], "exec"), {"__name__": "__main__"})
    except Exception:
        error = traceback.format_exc(limit=3)
    results.append({"id": item["id"], "stdout": out.getvalue(), "error": error})
json.dump(results, sys.stdout)
