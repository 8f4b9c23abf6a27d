// MHA Explorer — dist/mha-explorer-view.js: one ES module with no imports (web/build.mjs bundles it with
// esbuild, format esm). It exports mountAttention (web/views/attention.js) and, as its default export, an
// anywidget front end: render({model, el}) reads the model's weights (base64 of little-endian float32, a
// DataView or ArrayBuffer from a binary trait, or a plain, possibly nested, array of numbers), shape, tokens,
// query_tokens, trace, title, theme and scale, redraws on their change:… events and returns the cleanup.
// Hosts' models differ (Jupyter's anywidget, Jupyter Book 2's static {anywidget} directive): a method a model
// lacks or that throws is passed over.
import { mountAttention } from '../views/attention.js';
import { bytesOf } from '../compute/base64.js';

export { mountAttention };

const TRAITS = ['weights', 'shape', 'tokens', 'query_tokens', 'queryTokens', 'trace', 'title', 'theme', 'scale'];

// base64 → Float32Array: the bytes of a little-endian float32 array (as numpy's tobytes() writes them), or of
// float16 when dtype is 'float16' (the Python package's smaller outputs, on request).
export function decodeWeights(w, dtype = 'float32') {
  if (typeof w !== 'string') return w;
  let bytes;
  try { bytes = bytesOf(w.replace(/\s+/g, '')); } catch (e) { return w; }   // not base64: the view names the problem
  const dv = new DataView(bytes.buffer);
  if (dtype === 'float16') {
    const n = bytes.length >> 1, out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = float16(dv.getUint16(i * 2, true));
    return out;
  }
  const n = bytes.length >> 2, out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getFloat32(i * 4, true);
  return out;
}

// IEEE half → number (exact: every half is a float32).
function float16(h) {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function attempt(fn) { try { return fn(); } catch (e) { return undefined; } }

// The model's traits as mountAttention's options (absent ones left out, so the view's defaults apply).
function optionsOf(model) {
  const get = (k) => attempt(() => model.get(k));
  const o = {};
  const w = get('weights');
  if (w != null) o.weights = decodeWeights(w, get('dtype') || 'float32');
  const shape = get('shape'), tokens = get('tokens'), q = get('query_tokens') ?? get('queryTokens');
  o.shape = shape ?? undefined; o.tokens = tokens ?? undefined; o.queryTokens = q ?? undefined;
  o.trace = get('trace') ?? undefined;
  for (const k of ['title', 'theme', 'scale']) { const v = get(k); if (v != null && v !== '') o[k] = v; }
  return o;
}

function render({ model, el }) {
  const view = mountAttention(el, optionsOf(model));
  const redraw = () => view.update(optionsOf(model));
  const events = TRAITS.map((k) => 'change:' + k);
  for (const e of events) attempt(() => model.on(e, redraw));
  return () => {
    for (const e of events) attempt(() => typeof model.off === 'function' && model.off(e, redraw));
    view.dispose();
  };
}

export default { render };
