// MHA Explorer — dist/mha-explorer-view.js: one ES module with no imports (web/build.mjs bundles it with
// esbuild, format esm). It exports mountAttention (web/views/attention.js), hostTheme / followHostTheme (the notebook's
// theme, followed live) and, as its default export, an anywidget front end: render({model, el}) reads the model's
// weights (base64 of little-endian float32, a DataView or ArrayBuffer from a binary trait, or a plain, possibly nested,
// array of numbers), shape, tokens, query_tokens, trace, title, caption, theme and scale, redraws on their change:…
// events and returns the cleanup. With the Python package's mx.Heads the model also has num_layers (weights then hold
// the one layer `layer`, which Python sends as a binary buffer when it is picked), layer, head and query: synced both
// ways. Hosts' models differ (Jupyter's anywidget, marimo, Jupyter Book 2's static {anywidget} directive): a method a
// model lacks or that throws is passed over.
import { mountAttention as mountView } from '../views/attention.js';
import { download } from '../chrome/download.js';
import { bytesOf } from '../state/base64.js';
import { PACKED, unpackWeights } from '../views/attention-packed.js';

export { unpackWeights };

// The view with the page's download for its exports (a sandboxed frame's refusal said next to the button, with the
// picture or the text to copy): the view itself knows no page code (web/views/ stands on widgets/ and state/).
export function mountAttention(element, options) {
  return mountView(element, Object.assign({ download }, options));
}

const TRAITS = [
  'weights',
  'shape',
  'tokens',
  'query_tokens',
  'queryTokens',
  'trace',
  'title',
  'caption',
  'theme',
  'scale',
];

// base64 → Float32Array: the bytes of a little-endian float32 array (as numpy's tobytes() writes them), or of
// float16 when dtype is 'float16' (the Python package's smaller outputs, on request).
export function decodeWeights(w, dtype = 'float32') {
  if (typeof w !== 'string') return w;
  let bytes;
  try {
    bytes = bytesOf(w.replace(/\s+/g, ''));
  } catch (e) {
    return w;
  } // not base64: the view names the problem
  const dv = new DataView(bytes.buffer);
  if (dtype === 'float16') {
    const n = bytes.length >> 1,
      out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = float16(dv.getUint16(i * 2, true));
    return out;
  }
  const n = bytes.length >> 2,
    out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getFloat32(i * 4, true);
  return out;
}

// The weights an HTML output of the Python package carries → a Promise of what mountAttention takes: its PACKED
// chunks (above 4 M values) unpacked, else decodeWeights' reading.
export function readWeights(data, dtype = 'float32') {
  if (dtype === PACKED) return unpackWeights(data);
  return Promise.resolve(decodeWeights(data, dtype));
}

// IEEE half → number (exact: every half is a float32).
function float16(h) {
  const sign = h & 0x8000 ? -1 : 1,
    exp = (h >> 10) & 0x1f,
    frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function attempt(fn) {
  try {
    return fn();
  } catch (e) {
    return undefined;
  }
}

// The model's traits as mountAttention's options (absent ones left out, so the view's defaults apply).
function optionsOf(model) {
  const get = (k) => attempt(() => model.get(k));
  const o = {};
  const w = get('weights');
  if (w != null) o.weights = decodeWeights(w, get('dtype') || 'float32');
  const shape = get('shape'),
    tokens = get('tokens'),
    q = get('query_tokens') ?? get('queryTokens');
  o.shape = shape ?? undefined;
  o.tokens = tokens ?? undefined;
  o.queryTokens = q ?? undefined;
  o.trace = get('trace') ?? undefined;
  for (const k of ['title', 'caption', 'theme', 'scale']) {
    const v = get(k);
    if (v != null && v !== '') o[k] = v;
  }
  return o;
}

// The notebook's theme where the host says it (JupyterLab / Notebook 7: <body data-jp-theme-light>; VS Code: a
// vscode-dark / vscode-light class on <body>; marimo: a dark class on <html> or <body>), else 'auto' (the system's).
export function hostTheme(node) {
  const doc = node.ownerDocument,
    body = doc.body,
    html = doc.documentElement;
  const lab = body && body.getAttribute('data-jp-theme-light');
  if (lab === 'false' || (body && body.classList.contains('vscode-dark'))) return 'dark';
  if (lab === 'true' || (body && body.classList.contains('vscode-light'))) return 'light';
  if ((html && html.classList.contains('dark')) || (body && body.classList.contains('dark-theme'))) return 'dark';
  return 'auto';
}

// Keeps view's theme on the host's while the host switches theme (a theme chosen by the caller is left alone);
// returns the cleanup.
export function followHostTheme(view, node, chosen) {
  const doc = node.ownerDocument;
  if (chosen === 'light' || chosen === 'dark' || typeof MutationObserver !== 'function') return () => {};
  let shown = hostTheme(node);
  const seen = new MutationObserver(() => {
    const now = hostTheme(node);
    if (now !== shown) {
      shown = now;
      try {
        view.update({ theme: now });
      } catch (e) {
        seen.disconnect();
      }
    }
  });
  const watch = { attributes: true, attributeFilter: ['class', 'data-jp-theme-light', 'data-jp-theme-name'] };
  if (doc.body) seen.observe(doc.body, watch);
  seen.observe(doc.documentElement, watch);
  return () => seen.disconnect();
}

// mx.Heads' every layer as PACKED chunks (its `packed` trait, kept in a saved widget state): unpacked once, then
// fromPacked(l) is layer l's weights (float16's precision), null before that or without the trait; onError(message).
function packedLayers(get, onReady, onError) {
  const chunks = get('packed');
  let all = null;
  if (Array.isArray(chunks) && chunks.length)
    unpackWeights(chunks).then(
      (w) => {
        all = w;
        onReady();
      },
      (e) => onError('The saved layers could not be read (' + ((e && e.message) || e) + '): run the cell.'),
    );
  return (l) => {
    const shape = get('shape');
    if (!all || !Array.isArray(shape)) return null;
    const n = shape.slice(1).reduce((a, b) => a * b, 1);
    return (l + 1) * n <= all.length ? all.subarray(l * n, (l + 1) * n) : null;
  };
}

// mx.Heads' layer picker in the view's tools (num_layers of them): a pick is saved to the model's layer. → show(),
// which keeps it on the model's num_layers and layer.
function layerPicker(el, view, get, save) {
  let layers = null;
  return () => {
    const n = get('num_layers') || 1;
    if (n <= 1) {
      if (layers) layers.wrap.hidden = true;
      return;
    }
    if (!layers) {
      const doc = el.ownerDocument,
        wrap = doc.createElement('label'),
        s = doc.createElement('select');
      wrap.append('layer ', s);
      s.addEventListener('change', () => save({ layer: +s.value }));
      const tools = view.root.querySelector('.mhav-tools');
      tools.insertBefore(wrap, tools.firstChild);
      layers = { wrap, s, n: 0 };
    }
    layers.wrap.hidden = false;
    if (layers.n !== n) {
      layers.n = n;
      layers.s.textContent = '';
      for (let i = 0; i < n; i++) {
        const o = el.ownerDocument.createElement('option');
        o.value = o.textContent = String(i);
        layers.s.appendChild(o);
      }
    }
    layers.s.value = String(get('layer') || 0);
  };
}

function render({ model, el }) {
  const get = (k) => attempt(() => model.get(k));
  const save = (changes) => {
    let changed = false;
    for (const [k, v] of Object.entries(changes))
      if (get(k) !== undefined && get(k) !== v) {
        attempt(() => model.set(k, v));
        changed = true;
      }
    if (changed) attempt(() => model.save_changes());
  };
  // the layer `weights` holds (Python sends it with the layer); another layer picked: its packed weights meanwhile
  // (and for good without the kernel)
  let weightsLayer = get('layer') || 0;
  const fromPacked = packedLayers(
    get,
    () => redraw(),
    (caption) => view.update({ caption }),
  );
  const options = () => {
    const o = optionsOf(model),
      l = get('layer') || 0,
      w = get('weights'),
      p = (l !== weightsLayer || !w || !w.byteLength) && fromPacked(l);
    if (p) o.weights = p;
    if (!o.theme) o.theme = hostTheme(el);
    o.onSelect = (s) => save({ head: s.head === 'avg' ? -1 : s.head, query: s.query });
    return o;
  };
  const view = mountAttention(el, options());
  const stopTheme = followHostTheme(view, el, get('theme'));
  // mx.Heads: one layer at a time; the layer picker asks Python for the layer (it answers with that layer's weights)
  const showLayers = layerPicker(el, view, get, save);
  const selectFromModel = () => {
    const h = get('head'),
      q = get('query'),
      s = {};
    if (typeof h === 'number') s.head = h < 0 ? 'avg' : h;
    if (typeof q === 'number') s.query = q;
    if (Object.keys(s).length) view.root.mhaExplorer.select(s);
  };
  const redraw = () => {
    view.update(options());
    showLayers();
    selectFromModel();
  };
  const events = TRAITS.map((k) => 'change:' + k);
  const trackLayer = () => (weightsLayer = get('layer') || 0); // before redraw: registered first
  attempt(() => model.on('change:weights', trackLayer));
  const layerPicked = () => {
    showLayers();
    if (fromPacked(get('layer') || 0)) redraw();
  };
  const more = {
    'change:num_layers': showLayers,
    'change:layer': layerPicked,
    'change:head': selectFromModel,
    'change:query': selectFromModel,
  };
  for (const e of events) attempt(() => model.on(e, redraw));
  for (const [e, f] of Object.entries(more)) attempt(() => model.on(e, f));
  showLayers();
  selectFromModel();
  return () => {
    attempt(() => typeof model.off === 'function' && model.off('change:weights', trackLayer));
    for (const e of events) attempt(() => typeof model.off === 'function' && model.off(e, redraw));
    for (const [e, f] of Object.entries(more)) attempt(() => typeof model.off === 'function' && model.off(e, f));
    stopTheme();
    view.dispose();
  };
}

export default { render };
