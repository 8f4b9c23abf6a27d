"""The static picture of the heads for viewers that run no scripts (a repository's notebook preview): one
layer and batch item's heads side by side on one colour scale, as a PNG written with zlib and struct only."""

import json
import struct
import zlib

from . import _html

HEAD_PX = 96  # each head's picture is at most this wide and tall
GAP = 6
MAX_HEADS = 16  # more heads than this: the first 16 (the view shows them all)
BACKGROUND = (255, 255, 255)


_stops = None


def scale_stops():
    """The RGB stops of the view's default colour scale (web/state/scales.js, which web/build.mjs writes to
    static/scales.json), read once."""
    global _stops
    if _stops is None:
        table = json.loads(_html.static_file("scales.json").read_text(encoding="utf-8"))
        anchors = next(s["anchors"] for s in table["scales"] if s["name"] == table["default"])
        _stops = [tuple(int(h[i : i + 2], 16) for i in (1, 3, 5)) for h in anchors]
    return _stops


def colour(v, vmax):
    stops = scale_stops()
    if v != v or v <= 0 or vmax <= 0:  # NaN, negative, zero: the scale's lowest colour (as the view draws them)
        return stops[0]
    x = min(v / vmax, 1.0) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    f = x - i
    a, b = stops[i], stops[i + 1]
    return tuple(round(a[c] + (b[c] - a[c]) * f) for c in range(3))


def png_bytes(width, height, rows):
    """rows: height bytes objects of width·3 RGB bytes → the PNG file's bytes."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + r for r in rows)  # filter type 0 on every row
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def heads_png(weights, layer=0, batch=0):
    """→ (png bytes, width, height, heads drawn) of the heads of one layer and batch item."""
    _, _, H, T, S = weights.shape
    shown = min(H, MAX_HEADS)
    cell = max(1, min(12, HEAD_PX // max(T, S)))
    w_px, h_px = min(S * cell, HEAD_PX), min(T * cell, HEAD_PX)
    heads = [weights.head(layer, batch, h) for h in range(shown)]
    finite = [v for m in heads for v in m if v == v and v != float("inf")]
    vmax = max(finite) if finite else 1.0
    # pixel → cell, nearest sample (more tokens than pixels: some rows or columns are skipped)
    cols = [min(S - 1, x * S // w_px) for x in range(w_px)]
    width = shown * w_px + (shown - 1) * GAP
    gap = bytes(BACKGROUND) * GAP
    rows = []
    for y in range(h_px):
        q = min(T - 1, y * T // h_px)
        parts = []
        for m in heads:
            row = m[q * S : (q + 1) * S]
            parts.append(b"".join(bytes(colour(row[k], vmax)) for k in cols))
        rows.append(gap.join(parts))
    return png_bytes(width, h_px, rows), width, h_px, shown
