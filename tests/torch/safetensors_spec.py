"""safetensors read and written from the specification (huggingface/safetensors README), with torch
tensors and the standard library only: Debian packages no `safetensors`. Mirrors
safetensors.torch's save_file / load_file (and save / load for bytes).

Layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON
{"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}, then the bytes.
"""
import json
import struct

import torch

DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
          "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
          "BOOL": torch.bool}
NAMES = {v: k for k, v in DTYPES.items()}


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError("duplicate key %r in the header" % k)
        out[k] = v
    return out


def save(tensors, metadata=None):
    """The file's bytes: tensors ordered by dtype alignment (descending), then name; header padded with spaces to 8."""
    items = sorted(tensors.items(), key=lambda kv: (-kv[1].element_size(), kv[0]))
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in items:
        t = t.detach().contiguous().cpu()
        raw = t.view(torch.uint8).numpy().tobytes() if t.dim() else t.reshape(1).view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-(8 + len(text)) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def load(data):
    """{name: tensor} from the file's bytes; raises ValueError for anything the specification forbids."""
    if len(data) < 8:
        raise ValueError("file shorter than 8 bytes")
    (n,) = struct.unpack("<Q", data[:8])
    if n > 100_000_000 or n > len(data) - 8:
        raise ValueError("header length %d is invalid" % n)
    header = json.loads(data[8:8 + n].decode("utf-8"), object_pairs_hook=_no_duplicates)
    if not isinstance(header, dict):
        raise ValueError("header is not a JSON object")
    buffer = data[8 + n:]
    entries = sorted(((k, v) for k, v in header.items() if k != "__metadata__"), key=lambda kv: kv[1]["data_offsets"])
    out, at = {}, 0
    for name, info in entries:
        if set(info) != {"dtype", "shape", "data_offsets"}:
            raise ValueError("tensor %r has fields %s" % (name, sorted(info)))
        dtype = DTYPES[info["dtype"]]
        begin, end = info["data_offsets"]
        count = 1
        for s in info["shape"]:
            count *= s
        size = count * torch.tensor([], dtype=dtype).element_size()
        if begin != at or end - begin != size or end > len(buffer):
            raise ValueError("tensor %r has data_offsets %r; expected [%d, %d]" % (name, info["data_offsets"], at, at + size))
        raw = bytearray(buffer[begin:end])
        out[name] = torch.frombuffer(raw, dtype=torch.uint8).view(dtype).reshape(info["shape"]).clone() if raw else torch.empty(info["shape"], dtype=dtype)
        at = end
    if at != len(buffer):
        raise ValueError("%d bytes after the last tensor" % (len(buffer) - at))
    return out


def save_file(tensors, path, metadata=None):
    with open(path, "wb") as f:
        f.write(save(tensors, metadata))


def load_file(path):
    with open(path, "rb") as f:
        return load(f.read())
