"""Self-check of safetensors_spec.py against the specification (run with /usr/bin/python3): exact bytes
of small files worked out by hand (the same as tests/native/test_safetensors.cpp expects from the C++
writer), the writer's order and padding, round trips of every dtype, and every rule of the reader."""

import json
import math
import os
import struct
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_spec import load, load_bytes, load_bytes_with_metadata, load_file, save, save_bytes, save_file  # noqa: E402

passed = failed = 0


def check(name, condition):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print("FAIL:", name)


def rejects(name, data, fragment):
    try:
        load_bytes(data)
    except ValueError as e:
        check("%s (%s)" % (name, e), fragment in str(e))
        return
    check(name + " is rejected", False)


def file_of(header, data=b""):
    text = header.encode("utf-8")
    return struct.pack("<Q", len(text)) + text + data


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


def header_of(data):
    (n,) = struct.unpack("<Q", data[:8])
    return data[8 : 8 + n].decode("utf-8")


def same(a, b):
    return (
        a.dtype == b.dtype
        and a.shape == b.shape
        and (a.numel() == 0 or bool(torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))))
    )


# Exact bytes, worked out by hand from the specification.
six = torch.arange(6, dtype=torch.float32)
check(
    "a 64-byte header has no padding",
    save_bytes({"attn.0": six.reshape(1, 2, 3)})
    == file_of('{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}', f32(0, 1, 2, 3, 4, 5)),
)
check(
    "a 65-byte header is padded with 7 spaces",
    save_bytes({"attn0": six.reshape(1, 1, 2, 3)})
    == file_of('{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       ', f32(0, 1, 2, 3, 4, 5)),
)
check("no tensors", save_bytes({}) == b"\x08\0\0\0\0\0\0\0{}      ")
check("metadata only", save_bytes({}, {"framework": "pt"}) == file_of('{"__metadata__":{"framework":"pt"}}     '))
check(
    "metadata first, then tensors by name, as the C++ writer",
    save_bytes({"b": torch.tensor([1.0, 2.0]), "a": torch.tensor([[3.0]])}, {"format": "pt"})
    == file_of(
        '{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},'
        '"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}   ',
        f32(3, 1, 2),
    ),
)
check(
    "a 0-d tensor",
    save_bytes({"s": torch.tensor(7.0)}) == file_of('{"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}   ', f32(7)),
)
check(
    "strings escaped as serde_json does, UTF-8 as is",
    '"q\\"b\\\\s/\\n\\t\\b\\f\\r\\u0001\\u001f\x7f é 😀":'
    in header_of(save_bytes({"q\"b\\s/\n\t\b\f\r\x01\x1f\x7f é 😀": torch.ones(1)})),
)

# Order: dtype rank in the reference's enum, descending, then name (bytewise); offsets contiguous.
mixed = {
    "a_bool": torch.tensor([True]),
    "b_u8": torch.tensor([1], dtype=torch.uint8),
    "c_i8": torch.tensor([1], dtype=torch.int8),
    "d_i16": torch.tensor([1], dtype=torch.int16),
    "e_f16": torch.tensor([1], dtype=torch.float16),
    "f_bf16": torch.tensor([1], dtype=torch.bfloat16),
    "g_i32": torch.tensor([1], dtype=torch.int32),
    "h_f32": torch.tensor([1.0]),
    "i_f64": torch.tensor([1.0], dtype=torch.float64),
    "j_i64": torch.tensor([1]),
    "z_f32": torch.tensor([2.0]),
    "B_f32": torch.tensor([3.0]),
    "é_f32": torch.tensor([4.0]),
}
data = save_bytes(mixed, {"z": "1", "a": "2"})
header = json.loads(header_of(data))
order = [k for k in header if k != "__metadata__"]
check(
    "ordered by dtype alignment, then name",
    order
    == [
        "j_i64",
        "i_f64",
        "B_f32",
        "h_f32",
        "z_f32",
        "é_f32",
        "g_i32",
        "f_bf16",
        "e_f16",
        "d_i16",
        "c_i8",
        "b_u8",
        "a_bool",
    ],
)
check("metadata first, in its order", list(header)[0] == "__metadata__" and list(header["__metadata__"]) == ["z", "a"])
ends = [0] + [header[k]["data_offsets"][1] for k in order]
check(
    "offsets contiguous from 0",
    [header[k]["data_offsets"] for k in order] == [[ends[i], ends[i + 1]] for i in range(len(order))],
)
check(
    "the data starts at a multiple of 8",
    all(len(header_of(save_bytes({"w" * n: torch.ones(1)}))) % 8 == 0 for n in range(1, 17)),
)

# Round trips, bit for bit.
special = (
    torch.tensor(
        [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC12345, 0x00000001, 0x7F7FFFFF],
        dtype=torch.int64,
    )
    .to(torch.int32)
    .view(torch.float32)
)
tensors = dict(
    mixed,
    special=special,
    scalar=torch.tensor(2.5, dtype=torch.float64),
    empty=torch.empty(0, 3),
    half=torch.tensor([0x0001, 0x03FF, 0x7C00, 0xFE01, 0x3555], dtype=torch.int32).to(torch.int16).view(torch.float16),
    transposed=torch.arange(6.0).reshape(2, 3).t(),
)
back, meta = load_bytes_with_metadata(save_bytes(tensors, {"format": "pt"}))
check("round trip: names", set(back) == set(tensors))
check("round trip: values, dtypes and shapes bit for bit", all(same(back[k], tensors[k].contiguous()) for k in tensors))
check("round trip: metadata", meta == {"format": "pt"})
check("load returns tensors in the order of their offsets", list(back)[:3] == ["j_i64", "i_f64", "scalar"])
check("save and load are the reference's names", load(save(tensors)).keys() == back.keys())
with tempfile.TemporaryDirectory() as d:
    save_file(tensors, os.path.join(d, "t.safetensors"), {"k": "v"})
    check("files", all(same(load_file(os.path.join(d, "t.safetensors"))[k], tensors[k].contiguous()) for k in tensors))

# Decoding against hand-computed values (as the C++ reader converts to float32).
h = load_bytes(
    file_of(
        '{"h":{"dtype":"F16","shape":[5],"data_offsets":[0,10]}}',
        struct.pack("<5H", 0x0001, 0x3555, 0x7BFF, 0xFC00, 0x8000),
    )
)["h"]
check(
    "F16 values",
    h.float().tolist()[:4] == [2.0**-24, 0.333251953125, 65504.0, -math.inf] and math.copysign(1, h[4].item()) < 0,
)
b = load_bytes(
    file_of('{"b":{"dtype":"BF16","shape":[3],"data_offsets":[0,6]}}', struct.pack("<3H", 0x4049, 0x0001, 0xBF00))
)["b"]
check("BF16 values", b.float().tolist() == [3.140625, 2.0**-133, -0.5])

# Every rule of the reader.
one = f32(1)
x = '"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}'
rejects("shorter than 8 bytes", b"\0" * 7, "fewer than the 8")
rejects("header longer than 100,000,000", struct.pack("<Q", 100_000_001), "more than the 100,000,000")
rejects("header longer than the file", struct.pack("<Q", 2**64 - 1), "more than the 100,000,000")
rejects("header past the end", struct.pack("<Q", 50) + b"{}", "has only 2 bytes after the first 8")
rejects("not UTF-8", file_of("{}")[:8] + b"{\xff", "not valid UTF-8")
rejects("not an object", file_of("[1, 2]"), "not a JSON object")
rejects("not JSON", file_of('{"a": }'), "not valid JSON")
rejects("trailing garbage", file_of("{} x"), "not valid JSON")
rejects("NaN", file_of('{"__metadata__":{"a":NaN}}'), "not a JSON number")
rejects("nested too deeply", file_of('{"a":' + "[" * 100000), "nests too deeply")
rejects("duplicate tensors", file_of("{" + x + "," + x + "}", one), "the key 'x' twice")
rejects(
    "duplicate fields",
    file_of('{"x":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}', one),
    "the key 'dtype' twice",
)
rejects("metadata not strings", file_of('{"__metadata__":{"a":1}}'), "__metadata__ must be an object of strings")
rejects("tensor not an object", file_of('{"x":[0,4]}', one), "not by an object")
rejects(
    "unknown field",
    file_of('{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}}', one),
    "needs exactly dtype, shape and data_offsets",
)
rejects(
    "unknown dtype",
    file_of('{"x":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}', b"\0"),
    "dtype 'F8_E4M3' is not supported",
)
for size in ["-1", "1.5", "true", '"2"', "1e0"]:
    rejects(
        "shape " + size, file_of('{"x":{"dtype":"F32","shape":[%s],"data_offsets":[0,4]}}' % size, one), "shape[0] is"
    )
rejects(
    "offsets not two numbers", file_of('{"x":{"dtype":"F32","shape":[1],"data_offsets":[0]}}', one), "two whole numbers"
)
rejects(
    "END before BEGIN", file_of('{"x":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}', one), "end before they begin"
)
rejects(
    "wrapping product",
    file_of('{"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}'),
    "needs 73786976294838206464 bytes",
)
rejects("wrong byte size", file_of('{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}', one), "needs 8 bytes")
rejects("gap", file_of('{"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', f32(1, 2)), "leaves a gap")
rejects("overlap", file_of("{" + x + ',"y":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', one), "overlaps")
rejects("bytes after the last tensor", file_of("{" + x + "}", f32(1, 2)), "4 bytes after the last tensor")
rejects("cut short", save_bytes({"x": torch.ones(2)})[:-1], "has only 7 after the header")
rejects(
    "unpaired surrogate",
    file_of('{"\\ud800":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', one),
    "unpaired surrogate",
)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
