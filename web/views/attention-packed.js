// @ts-check
// MHA Explorer — the Python package's compact weights (python/mha_explorer/_weights.py's PACKED,
// 'float16-planes-deflate'): chunks, each zlib (RFC 1950) of float16 values' low bytes then their high bytes, as base64
// text (an HTML output: one string a chunk, so that no string is longer than a chunk's) or as bytes (a widget's binary
// buffers: DataView, ArrayBuffer or a typed array). unpackWeights inflates them with the browser's DecompressionStream
// and returns one Float32Array of every chunk's values, in order (a chunk per task, 4 M values at most).
import { bytesOf } from '../state/base64.js';

export const PACKED = 'float16-planes-deflate';

/** @type {Float32Array | null} */
let halves = null;
// The 65536 float16 values as float32 (exact: every half is a float32), made once.
function halfTable() {
  if (halves) return halves;
  halves = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1,
      exp = (h >> 10) & 0x1f,
      frac = h & 0x3ff;
    if (exp === 0) halves[h] = sign * frac * 2 ** -24;
    else if (exp === 31) halves[h] = frac ? NaN : sign * Infinity;
    else halves[h] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return halves;
}

/** @param {any} c @returns {Uint8Array} */
function chunkBytes(c) {
  if (typeof c === 'string') return bytesOf(c.replace(/\s+/g, ''));
  if (c instanceof ArrayBuffer) return new Uint8Array(c);
  if (ArrayBuffer.isView(c)) return new Uint8Array(c.buffer, c.byteOffset, c.byteLength);
  throw new Error('a chunk of the weights is neither base64 text nor bytes');
}

/** @param {Uint8Array} bytes @returns {Promise<Uint8Array>} */
async function inflate(bytes) {
  if (typeof DecompressionStream !== 'function')
    throw new Error('this browser has no DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 have it)');
  const stream = new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)])
    .stream()
    .pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// One chunk's planes (n low bytes, then n high bytes) → out[at … at + n).
function halvesInto(planes, out, at) {
  const n = planes.length >> 1,
    table = halfTable();
  if (planes.length !== 2 * n) throw new Error('a chunk of the weights has an odd number of bytes');
  for (let i = 0; i < n; i++) out[at + i] = table[planes[i] | (planes[n + i] << 8)];
}

/** @param {any[]} chunks @returns {Promise<Float32Array>} */
export async function unpackWeights(chunks) {
  if (!Array.isArray(chunks)) throw new Error('the weights are not a list of chunks');
  const parts = [];
  let total = 0;
  for (const c of chunks) {
    const planes = await inflate(chunkBytes(c));
    parts.push(planes);
    total += planes.length >> 1;
  }
  const out = new Float32Array(total);
  let at = 0;
  for (const p of parts) {
    halvesInto(p, out, at);
    at += p.length >> 1;
    await new Promise((r) => setTimeout(r, 0)); // one chunk per task: the page stays responsive
  }
  return out;
}
