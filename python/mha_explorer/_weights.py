"""Attention weights in any form a student has → one flat little-endian float32 buffer laid out [L, B, H, T, S].

Forms: a torch tensor (any device or dtype), a numpy array or nested lists, of shape [T, S], [H, T, S],
[B, H, T, S] or [L, B, H, T, S]; or a list/tuple of per-layer [B, H, T, S] tensors (what Hugging Face models
return with output_attentions=True). torch and numpy are used when present, never required.
"""

import base64
import sys
import zlib
from array import array

EXACT_VALUES = 4_000_000  # up to this an HTML output carries float32 as it is (4 bytes a value, 5.33 as base64)
# Above EXACT_VALUES the output carries PACKED: float16, split into byte planes, deflated, base64 in chunks of
# CHUNK_VALUES values (each at most 11.2 MB of text). MAX_VALUES bounds the output's worst case (incompressible
# values: 2.67 bytes each, 133 MB) at a quarter of the longest string Chromium's V8 holds (2**29 - 24 characters),
# which JupyterLab's copy of the .ipynb, the output's HTML and the script's text each must fit in.
MAX_VALUES = 50_000_000
CHUNK_VALUES = 2**22
PACKED = "float16-planes-deflate"
SHAPES_SAID = (
    "[T, S], [H, T, S] or [B, H, T, S] (queries T, keys S, heads H, batch B), "
    "or a tuple of per-layer [B, H, T, S] as Hugging Face models return with output_attentions=True"
)


class Weights:
    """shape: (L, B, H, T, S); data: array('f') of their L·B·H·T·S values, row-major."""

    def __init__(self, shape, data, given_shape, read_as=None):
        self.shape, self.data, self.given_shape = tuple(shape), data, tuple(given_shape)
        self.read_as = read_as  # how the given dimensions were read, e.g. "[H, T, S]"

    def count(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def to_bytes(self, dtype="float32"):
        """Little-endian float32 (or float16) bytes, as the view's decodeWeights reads them."""
        if dtype == "float16":
            return _float16_bytes(self.data, 0, len(self.data))
        data = self.data
        if sys.byteorder != "little":
            data = array("f", data)
            data.byteswap()
        return data.tobytes()

    def head(self, layer, batch, head):
        """One head's [T, S] values (a memoryview slice)."""
        _, B, H, T, S = self.shape
        start = ((layer * B + batch) * H + head) * T * S
        return memoryview(self.data)[start : start + T * S]

    def non_finite(self):
        np = _numpy()
        if np is not None:
            return int(self.count() - np.count_nonzero(np.isfinite(np.frombuffer(self.data, dtype="=f4"))))
        return sum(1 for v in self.data if v != v or v in (float("inf"), float("-inf")))

    def encoded(self, dtype="float32"):
        """(encoding, data) as the view's decodeWeights / unpackWeights read them: up to EXACT_VALUES values the
        base64 of little-endian float32 (or float16 on request); above, PACKED: a list of base64 chunks."""
        if self.count() <= EXACT_VALUES:
            return dtype, base64.b64encode(self.to_bytes(dtype)).decode("ascii")
        return PACKED, [base64.b64encode(c).decode("ascii") for c in self.packed_chunks()]

    def packed_chunks(self):
        """PACKED's chunks as bytes: CHUNK_VALUES values each (the last fewer), each zlib (RFC 1950) of the
        chunk's float16 little-endian low bytes followed by its high bytes. float16 rounds to nearest: within
        2**-11 of a value relative (from 2**-14 to 65504) or 2**-25 absolute below; larger values become infinity."""
        n = len(self.data)
        for start in range(0, n, CHUNK_VALUES):
            half = _float16_bytes(self.data, start, min(n, start + CHUNK_VALUES))
            yield zlib.compress(half[0::2] + half[1::2], 1)


def _numpy():
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _float16_bytes(data, start, stop):
    """Little-endian float16 bytes of data[start:stop] (an array('f')), rounded to nearest even."""
    np = _numpy()
    if np is not None:
        with np.errstate(over="ignore"):
            return np.frombuffer(data, dtype="=f4", count=stop - start, offset=start * 4).astype("<f2").tobytes()
    import struct

    return struct.pack("<%de" % (stop - start), *_halves(memoryview(data)[start:stop]))


def _halves(data):
    # float16 saturates at 65504: larger values become infinity, as numpy's astype would make them
    big = 65504.0
    for v in data:
        yield v if v != v or -big <= v <= big else (float("inf") if v > 0 else float("-inf"))


def _is_torch(x):
    mod = type(x).__module__
    return mod.startswith("torch") and hasattr(x, "detach")


def _is_numpy(x):
    return type(x).__module__.startswith("numpy") and hasattr(x, "shape")


def _typename(x):
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else t.__module__.split(".")[0] + "." + t.__name__


def _flat(x, what):
    """x → (shape, array('f')), its values copied as float32."""
    if _is_torch(x):
        t = x.detach()
        if t.is_complex():
            raise TypeError("%s is a complex tensor; attention weights are real numbers." % what)
        t = t.to("cpu").float().contiguous()
        try:
            raw = t.numpy().tobytes()
        except (RuntimeError, TypeError, ImportError):  # torch built without numpy
            return tuple(t.shape), array("f", t.reshape(-1).tolist())
        data = array("f")
        data.frombytes(raw)
        return tuple(t.shape), data
    if _is_numpy(x):
        import numpy as np

        if np.iscomplexobj(x):
            raise TypeError("%s is a complex array; attention weights are real numbers." % what)
        try:
            a = np.ascontiguousarray(x, dtype="=f4")
        except (TypeError, ValueError) as e:
            raise TypeError("%s is a numpy array of %s, not of numbers (%s)." % (what, x.dtype, e)) from None
        data = array("f")
        data.frombytes(a.tobytes())
        return tuple(a.shape), data
    if isinstance(x, (list, tuple)):
        return _flat_nested(x, what)
    if isinstance(x, (int, float)):
        raise ValueError("%s is a single number; attention weights are a matrix: %s." % (what, SHAPES_SAID))
    raise TypeError(
        "%s is a %s; mx.show takes attention weights as a torch tensor, a numpy array or nested lists of "
        "numbers: %s." % (what, _typename(x), SHAPES_SAID)
    )


def _flat_nested(x, what):
    shape, level = [], x
    while isinstance(level, (list, tuple)):
        shape.append(len(level))
        if not level:
            break
        level = level[0]
    out = array("f")

    def walk(node, depth, where):
        if depth == len(shape):
            if isinstance(node, bool) or not isinstance(node, (int, float)) and not _is_scalar(node):
                raise TypeError("%s%s is %r, not a number." % (what, where, node))
            out.append(float(node))
            return
        if not isinstance(node, (list, tuple)) or len(node) != shape[depth]:
            got = "%d entries" % len(node) if isinstance(node, (list, tuple)) else "a %s" % _typename(node)
            raise ValueError(
                "%s is not rectangular: %s has %s where %d were expected (every row must have the same "
                "length)." % (what, (what + where) if where else "its first level", got, shape[depth])
            )
        for i, child in enumerate(node):
            walk(child, depth + 1, "%s[%d]" % (where, i))

    walk(x, 0, "")
    return tuple(shape), out


def _is_scalar(v):
    # a 0-d numpy or torch number inside a list
    return (_is_numpy(v) or _is_torch(v)) and getattr(v, "shape", None) == () or type(v).__module__ == "numpy"


def _is_layer_list(x):
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(_is_torch(e) or _is_numpy(e) for e in x)


NOUNS = {"layer": ("layer", "layers"), "heads": ("head", "heads"), "batch": ("batch item", "batch items")}


def _index_list(sel, n, name):
    """layer= / heads= / batch=: an int, a list of ints, a range or a slice → indices within [0, n), in the order given."""
    if sel is None:
        return list(range(n))
    if isinstance(sel, slice):
        return list(range(n))[sel]
    items = (
        [sel]
        if isinstance(sel, int) and not isinstance(sel, bool)
        else list(sel)
        if isinstance(sel, (list, tuple, range))
        else None
    )
    if items is None or any(isinstance(i, bool) or not isinstance(i, int) for i in items):
        raise TypeError("%s= takes a whole number, a list of them or a range; got %r." % (name, sel))
    out = []
    for i in items:
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            one, many = NOUNS[name]
            raise IndexError(
                "%s=%d is out of range: there %s %d %s (%s)."
                % (
                    name,
                    i,
                    "is" if n == 1 else "are",
                    n,
                    one if n == 1 else many,
                    "only 0" if n == 1 else "0 to %d" % (n - 1),
                )
            )
        out.append(j)
    if not out:
        raise ValueError("%s=%r picks nothing." % (name, sel))
    return out


class TooBig(ValueError):
    """More values than an HTML output carries (mx.show then takes the widget where anywidget is installed)."""


def read_weights(attention, layer=None, heads=None, batch=None, limit="html"):
    """→ Weights, or a TypeError / ValueError / IndexError a student understands. A 3-D tensor is [H, T, S]; with
    batch= it is [B, T, S] (nn.MultiheadAttention's weights averaged over heads), read as [B, 1, T, S]."""
    if attention is None:
        raise TypeError(
            "mx.show got None instead of attention weights. With Hugging Face models pass "
            "output_attentions=True and show outputs.attentions; a module's forward must return its weights."
        )
    if _is_layer_list(attention):
        picked = _index_list(layer, len(attention), "layer")
        layers, first = [], None
        for i in picked:
            shape, data = _flat(attention[i], "layer %d" % i)
            if len(shape) == 3:  # [H, T, S] per layer: one batch item
                shape = (1,) + shape
            if len(shape) != 4:
                raise ValueError(
                    "layer %d has shape %s; each layer of a tuple must be [B, H, T, S] (or [H, T, S])."
                    % (i, list(shape))
                )
            if first is not None and shape != first:
                raise ValueError(
                    "the layers' shapes differ: layer %d is %s, layer %d is %s; pass layers of one model "
                    "(or pick one with layer=)." % (picked[0], list(first), i, list(shape))
                )
            first = shape
            layers.append(data)
        given = (len(attention),) + first
        data = array("f")
        for d in layers:
            data.extend(d)
        dims = (len(picked),) + first
        layer_done = True
        read_as = "a tuple of per-layer [B, H, T, S]"
    else:
        given, data = _flat(attention, "the attention weights")
        if len(given) < 2 or len(given) > 5:
            raise ValueError(
                "the attention weights have shape %s (%d dimension%s); mx.show takes %s, or [L, B, H, T, S]."
                % (list(given), len(given), "" if len(given) == 1 else "s", SHAPES_SAID)
            )
        dims = (1,) * (5 - len(given)) + tuple(given)
        if len(given) == 3 and batch is not None:
            dims = (1, given[0], 1, given[1], given[2])
            read_as = "[B, T, S] (batch=)"
        elif len(given) == 2 and batch is not None:
            raise ValueError(
                "batch=%r: these weights have no batch dimension (shape %s, read as [T, S])." % (batch, list(given))
            )
        layer_done = False
        if len(given) != 3 or batch is None:
            read_as = ("[T, S]", "[H, T, S]", "[B, H, T, S]", "[L, B, H, T, S]")[len(given) - 2]
    if 0 in dims:
        raise ValueError("the attention weights are empty (shape %s): there is nothing to show." % list(given))
    w = Weights(dims, data, given, read_as)
    if not layer_done and layer is not None:
        if len(given) < 5:
            raise ValueError(
                "layer=%r: these weights have no layer dimension (shape %s); layer= picks from a tuple of "
                "per-layer tensors or a [L, B, H, T, S] tensor." % (layer, list(given))
            )
        w = _pick(w, 0, _index_list(layer, dims[0], "layer"))
    if batch is not None:
        w = _pick(w, 1, _index_list(batch, w.shape[1], "batch"))
    if heads is not None:
        if (len(given) < 3 or len(given) == 3 and batch is not None) and not layer_done:
            raise ValueError("heads=%r: these weights have no head dimension (shape %s)." % (heads, list(given)))
        w = _pick(w, 2, _index_list(heads, w.shape[2], "heads"))
    n = w.count()
    if limit == "html":
        limit = MAX_VALUES
    if limit is not None and n > limit:
        raise TooBig(
            "the attention weights have %s values (shape %s), more than the %s mx.show puts in an HTML output "
            "(it would be up to %d MB). Pick some: layer=0 (or a list of layers), heads=[0, 1] (or a range); or "
            "install anywidget (pip install anywidget): mx.show then sends the view one layer at a time, with "
            "no cap." % (format(n, ","), list(given), format(limit, ","), n * 2 * 4 // 3 >> 20)
        )
    return w


def _pick(w, axis, indices):
    """The [L, B, H, T, S] weights keeping `indices` along axis 0 (layers), 1 (batch items) or 2 (heads)."""
    L, B, H, T, S = w.shape
    block = (B * H * T * S, H * T * S, T * S)[axis]
    outer = (1, L, L * B)[axis]
    count = w.shape[axis]
    src, out = memoryview(w.data), array("f")
    for o in range(outer):
        for i in indices:
            start = (o * count + i) * block
            out.extend(src[start : start + block])
    shape = list(w.shape)
    shape[axis] = len(indices)
    return Weights(shape, out, w.given_shape, w.read_as)


def read_labels(labels, n, name, axis):
    """tokens / query_tokens → a list of n strings, or None; a ValueError when the count does not fit."""
    if labels is None:
        return None
    if isinstance(labels, str):
        raise TypeError(
            "%s is one string (%r); pass a list with one label per %s, e.g. %r."
            % (name, labels[:40], axis, labels.split()[:4])
        )
    if _is_torch(labels) or _is_numpy(labels):
        labels = labels.tolist()
    try:
        out = [str(t) for t in labels]
    except TypeError:
        raise TypeError(
            "%s must be a list of strings, one per %s; got a %s." % (name, axis, _typename(labels))
        ) from None
    if len(out) != n:
        raise ValueError(
            "%s has %d label%s, but the attention has %d %ss (its %s dimension)."
            % (name, len(out), "" if len(out) == 1 else "s", n, axis, "last" if axis == "key" else "query, T,")
        )
    return out


def reading(w):
    """How the given tensor's dimensions were read, when that could be misread (a 3-D tensor), else None."""
    given = list(w.given_shape)
    if w.read_as == "[H, T, S]":
        return (
            "Shape %s read as [H, T, S]: %d head%s of one sequence. A batch of head-averaged weights [B, T, S] "
            "(nn.MultiheadAttention's default average_attn_weights=True) takes batch= (e.g. batch=0), or pass "
            "attn[:, None] ([B, 1, T, S])." % (given, given[0], "" if given[0] == 1 else "s")
        )
    if w.read_as == "[B, T, S] (batch=)":
        return "Shape %s read as [B, T, S] (batch=): one map per batch item, averaged over heads." % given
    return None
