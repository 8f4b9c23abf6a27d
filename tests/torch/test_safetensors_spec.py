"""Self-check of safetensors_spec.py against the specification's layout (run with /usr/bin/python3)."""
import json
import os
import struct
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_spec import load, load_file, save, save_file  # noqa: E402

passed = failed = 0


def check(name, condition):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print("FAIL:", name)


tensors = {"b": torch.arange(6, dtype=torch.float32).reshape(2, 3), "a": torch.tensor([1.5], dtype=torch.float64),
           "h": torch.tensor([1.0, -2.0], dtype=torch.float16)}
data = save(tensors, {"format": "pt"})
(n,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + n])
check("header padded so the data starts at a multiple of 8", (8 + n) % 8 == 0)
check("metadata first", list(header)[0] == "__metadata__")
check("ordered by alignment, then name", [k for k in header if k != "__metadata__"] == ["a", "b", "h"])
check("offsets contiguous from 0", [header[k]["data_offsets"] for k in ["a", "b", "h"]] == [[0, 8], [8, 32], [32, 36]])
back = load(data)
check("round trip", all(torch.equal(back[k], v) for k, v in tensors.items()))
with tempfile.TemporaryDirectory() as d:
    save_file(tensors, os.path.join(d, "t.safetensors"))
    check("files", all(torch.equal(load_file(os.path.join(d, "t.safetensors"))[k], v) for k, v in tensors.items()))
for label, bad in [("trailing bytes", data + b"\0"), ("cut short", data[:-1]), ("short", data[:5])]:
    try:
        load(bad)
        check(label + " is rejected", False)
    except ValueError:
        check(label + " is rejected", True)
dup = b'{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
try:
    load(struct.pack("<Q", len(dup)) + dup + b"\0\0\0\0")
    check("duplicate keys are rejected", False)
except ValueError:
    check("duplicate keys are rejected", True)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
