// MHA Explorer, the model page — the worker that holds the core and the loaded model (model-host.js starts it), so
// the page keeps answering while a long text computes. Bundled by web/build.mjs into the model page's script as text
// (MHA_MODEL_WORKER): a blob: worker of it after importScripts(the core's URL) when served, after the core's own text
// from file:// and in the one-file page (as the lab's trainer and the page's forward workers start).
// Messages in: {init: WebAssembly.Module (the page's compiled core) or null, threads}, then {id, op, args} (ops below) and
// {abort: id} (a generation's or a patching's signal). Out: {ready} or {failed}, {id, result} (its tensors'
// buffers transferred), {id, error}, {id, progress} (a load's, a patching's), {id, token} (a generation's).
/* global createMhaModule */
import { textRoleScores, repeatRoleScores } from './roles.js';

let M = null,
  model = null,
  key = 0; // the loaded model's: the load request's id
const queue = [],
  aborts = new Map(),
  lenses = new Map();

self.onmessage = (e) => {
  const msg = e.data;
  if ('init' in msg) return start(msg.init, msg.threads || 1);
  if (msg.abort) {
    const a = aborts.get(msg.abort);
    if (a) a.abort();
    return;
  }
  if (!M) queue.push(msg);
  else run(msg);
};

// threads > 1: the threaded core (dist/mha-threads.js), its pthread workers started from here with the core's
// address (this blob: worker has none of its own to give them).
function start(wasmModule, threads) {
  const options = wasmModule ? { wasmModule } : {};
  const url = self.MHA_CORE_URL;
  if (threads > 1 && url)
    Object.assign(options, { threads, mainScriptUrlOrBlob: url, locateFile: (f) => new URL(f, url).href });
  let made;
  try {
    made = createMhaModule(options);
  } catch (err) {
    made = Promise.reject(err);
  }
  made.then(
    (m) => {
      M = m;
      self.postMessage({ ready: true, implementation: m.implementation, threads: m.threads || 1 });
      queue.splice(0).forEach(run);
    },
    (err) => self.postMessage({ failed: String((err && err.message) || err) }),
  );
}

// Every ArrayBuffer of the typed arrays in r (a few levels down): transferred, not copied. The core's tensors are
// fresh copies out of wasm memory, each its own buffer.
function buffersOf(r, out = new Set(), depth = 0) {
  if (!r || typeof r !== 'object' || depth > 3) return out;
  if (ArrayBuffer.isView(r)) {
    if (r.byteOffset === 0 && r.byteLength === r.buffer.byteLength) out.add(r.buffer);
    return out;
  }
  for (const v of Array.isArray(r) ? r : Object.values(r)) buffersOf(v, out, depth + 1);
  return out;
}

async function run({ id, op, args }) {
  try {
    const result = await OPS[op](args || {}, id);
    self.postMessage({ id, result }, Array.from(buffersOf(result)));
  } catch (err) {
    self.postMessage({ id, error: String((err && err.message) || err) });
  } finally {
    aborts.delete(id);
  }
}

const need = () => {
  if (!model) throw new Error('no model is loaded in the worker');
  return model;
};
const signalOf = (id) => {
  const a = new AbortController();
  aborts.set(id, a);
  return a.signal;
};

// The ops: each a function of its args (and the request's id) → its result or a promise of it.
const OPS = {
  // files: loadModel's (File, {name, bytes}, {name, url} with an absolute url) → {info, warnings}
  load: async ({ files }, id) => {
    let last = 0;
    // the model shown stays until the new one is loaded (a failed or cancelled load keeps it)
    const loaded = await M.loadModel(files, {
      signal: signalOf(id),
      onProgress: (p) => {
        const now = Date.now();
        if (now - last < 50 && p.loaded < p.total) return;
        last = now;
        self.postMessage({ id, progress: { loaded: p.loaded, total: p.total } });
      },
    });
    if (model) model.dispose();
    model = loaded;
    key = id;
    return { key, info: Object.assign({}, model.info), warnings: model.warnings.slice() };
  },
  // model.forward, with the text's role scores ({roles: tokens}) or the repeated sequence's ({repeat: layout})
  // computed here from its attentions
  forward: ({ ids, options, roles, repeat }) => {
    const out = need().forward(ids, options);
    if (roles) out.scores = textRoleScores(out.attentions, roles);
    if (repeat) out.scores = repeatRoleScores(out.attentions, repeat);
    return out;
  },
  tokenize: ({ text }) => need().tokenize(text),
  generate: ({ ids, options }, id) =>
    need().generate(
      ids,
      Object.assign({}, options, {
        signal: signalOf(id),
        onToken: (t) => self.postMessage({ id, token: t }),
      }),
    ),
  lensOpen: ({ ids }, id) => {
    const lens = need().lensRows(ids);
    lenses.set(id, lens);
    return { session: id, rows: lens.rows };
  },
  lensRow: ({ session, row }) => {
    const lens = lenses.get(session);
    if (!lens) throw new Error('this lens was closed');
    return lens.row(row);
  },
  lensClose: ({ session }) => {
    const lens = lenses.get(session);
    if (lens) lens.dispose();
    lenses.delete(session);
    return true;
  },
  attribute: ({ ids, options }) => need().attribute(ids, options),
  patch: ({ options }, id) =>
    need().patch(
      Object.assign({}, options, {
        signal: signalOf(id),
        onProgress: (p) => self.postMessage({ id, progress: p }),
      }),
    ),
  // {key}: that model only (a model the page replaced was disposed here when the next one loaded)
  dispose: (a) => {
    if (a.key !== key) return false;
    for (const lens of lenses.values()) lens.dispose();
    lenses.clear();
    if (model) model.dispose();
    model = null;
    return true;
  },
};
