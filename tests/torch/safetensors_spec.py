"""safetensors read and written from the specification (huggingface/safetensors README and
safetensors/src/tensor.rs), with torch tensors and the standard library only: Debian packages no
`safetensors`. Mirrors safetensors.torch: save_file / load_file, and save_bytes / load_bytes (also
under the reference's names save / load).

Layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON
{"__metadata__": {str: str}, "name": {"dtype", "shape", "data_offsets": [BEGIN, END]}, ...}, then the
tensors' bytes (little-endian, row-major), contiguous from 0 with nothing after the last one.

Writer: as the reference, tensors ordered by dtype (the reference's Dtype enum, which is in
increasing alignment, descending) then by name; data_offsets contiguous from 0; JSON without spaces,
UTF-8 unescaped, "__metadata__" first when given; the header padded with spaces to a multiple of 8.
Reader: strict, raising ValueError naming what is wrong (the rules of core/src/loading/safetensors.cpp).
"""

import json
import struct
import sys

import torch

MAX_HEADER = 100_000_000

# The dtypes torch 1.13 has, with their rank in the reference's Dtype enum (tensor.rs), whose
# derived order is the writer's sort key.
DTYPES = {
    "BOOL": torch.bool,
    "U8": torch.uint8,
    "I8": torch.int8,
    "I16": torch.int16,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "I32": torch.int32,
    "F32": torch.float32,
    "F64": torch.float64,
    "I64": torch.int64,
}
RANK = {
    name: rank
    for rank, name in enumerate(
        [
            "BOOL",
            "U8",
            "I8",
            "F8_E5M2",
            "F8_E4M3",
            "I16",
            "U16",
            "F16",
            "BF16",
            "I32",
            "U32",
            "F32",
            "F64",
            "I64",
            "U64",
        ]
    )
}
NAMES = {dtype: name for name, dtype in DTYPES.items()}

if sys.byteorder != "little":
    raise ImportError(
        "safetensors_spec copies tensor memory as is, which is only the file's byte order on little-endian hosts"
    )


def _raw(t):
    return t.reshape(-1).view(torch.uint8).numpy().tobytes()


def save_bytes(tensors, metadata=None):
    """The bytes of a .safetensors file holding `tensors` ({name: tensor}) and `metadata` ({str: str})."""
    header = {}
    if metadata:
        for k, v in metadata.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("metadata keys and values must be strings, got %r: %r" % (k, v))
        header["__metadata__"] = dict(metadata)
    items = []
    for name, t in tensors.items():
        if not isinstance(name, str) or name == "__metadata__":
            raise ValueError("invalid tensor name %r" % (name,))
        if not isinstance(t, torch.Tensor) or t.dtype not in NAMES:
            raise ValueError("tensor %r: only %s tensors can be saved" % (name, ", ".join(DTYPES)))
        items.append((name, t.detach().cpu().contiguous()))
    items.sort(key=lambda kv: (-RANK[NAMES[kv[1].dtype]], kv[0].encode("utf-8")))
    blobs, offset = [], 0
    for name, t in items:
        raw = _raw(t)
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def _object(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError("the header has the key %r twice in one object" % k)
        out[k] = v
    return out


def _no_constant(name):
    raise ValueError("the header is not valid JSON: %s is not a JSON number" % name)


def _whole(value, what):
    if type(value) is not int or value < 0:
        raise ValueError("%s is %r; it must be a whole number >= 0" % (what, value))
    return value


def load_bytes_with_metadata(data):
    """({name: tensor} in the order of their offsets, {str: str}) from a file's bytes; ValueError for
    anything the specification forbids."""
    data = bytes(data)
    if len(data) < 8:
        raise ValueError("the file has %d bytes, fewer than the 8 that give the header's length" % len(data))
    (n,) = struct.unpack("<Q", data[:8])
    if n > MAX_HEADER:
        raise ValueError("the header says its length is %d bytes, more than the 100,000,000 allowed" % n)
    if n > len(data) - 8:
        raise ValueError(
            "the header says its length is %d bytes but the file has only %d bytes after the first 8"
            % (n, len(data) - 8)
        )
    try:
        text = data[8 : 8 + n].decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError("the header is not valid UTF-8 text (%s)" % e) from None
    if not text.lstrip(" \t\r\n").startswith("{"):
        raise ValueError("the header is not a JSON object")
    try:
        header = json.loads(text, object_pairs_hook=_object, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise ValueError("the header is not valid JSON: %s" % e) from None
    except RecursionError:
        raise ValueError("the header is not valid JSON: it nests too deeply") from None
    buffer = data[8 + n :]

    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError("__metadata__ must be an object of strings, not %r" % (metadata,))
    entries = []
    for name, info in header.items():
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("tensor name %r has an unpaired surrogate" % name) from None
        if not isinstance(info, dict):
            raise ValueError("tensor %r is described by %r, not by an object" % (name, info))
        if set(info) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(
                "tensor %r has the fields %s; it needs exactly dtype, shape and data_offsets" % (name, sorted(info))
            )
        if info["dtype"] not in DTYPES:
            raise ValueError(
                "tensor %r: dtype %r is not supported; supported: %s" % (name, info["dtype"], ", ".join(DTYPES))
            )
        dtype = DTYPES[info["dtype"]]
        shape, offsets = info["shape"], info["data_offsets"]
        if not isinstance(shape, list):
            raise ValueError("tensor %r: shape must be an array, not %r" % (name, shape))
        count = 1
        for i, s in enumerate(shape):
            count *= _whole(s, "tensor %r: shape[%d]" % (name, i))
        if not isinstance(offsets, list) or len(offsets) != 2:
            raise ValueError("tensor %r: data_offsets must be two whole numbers [BEGIN, END], not %r" % (name, offsets))
        begin = _whole(offsets[0], "tensor %r: data_offsets[0]" % name)
        end = _whole(offsets[1], "tensor %r: data_offsets[1]" % name)
        size = count * torch.empty((), dtype=dtype).element_size()
        if end < begin:
            raise ValueError("tensor %r: data_offsets %r end before they begin" % (name, offsets))
        if end - begin != size:
            raise ValueError(
                "tensor %r of shape %r and dtype %s needs %d bytes, but its data_offsets %r cover %d"
                % (name, shape, info["dtype"], size, offsets, end - begin)
            )
        entries.append((begin, end, name, dtype, shape))
    entries.sort(key=lambda e: (e[0], e[1]))
    out, at = {}, 0
    for begin, end, name, _dtype, _shape in entries:
        if begin != at:
            raise ValueError(
                "tensor %r %s (its data starts at byte %d, expected %d)"
                % (name, "overlaps the tensor before it" if begin < at else "leaves a gap before it", begin, at)
            )
        at = end
    if at > len(buffer):
        raise ValueError(
            "the tensors need %d bytes of data but the file has only %d after the header" % (at, len(buffer))
        )
    if at < len(buffer):
        raise ValueError("the file has %d bytes after the last tensor" % (len(buffer) - at))
    for begin, end, name, dtype, shape in entries:
        if begin == end:
            out[name] = torch.empty(shape, dtype=dtype)
        else:
            out[name] = torch.frombuffer(bytearray(buffer[begin:end]), dtype=torch.uint8).view(dtype).reshape(shape)
    return out, metadata


def load_bytes(data):
    """{name: tensor} from a file's bytes; ValueError for anything the specification forbids."""
    return load_bytes_with_metadata(data)[0]


def save_file(tensors, path, metadata=None):
    with open(path, "wb") as f:
        f.write(save_bytes(tensors, metadata))


def load_file(path):
    with open(path, "rb") as f:
        return load_bytes(f.read())


save = save_bytes
load = load_bytes
