// MHA Explorer, the model page — where the model lives: a worker holding the core and the loaded model
// (model-worker.js), so that a long text's forward never freezes the page, behind one async model the page and its
// panels call (forward, generate, lensRows, attribute, patch, tokenize, dispose) wherever it runs. The weights of the
// answers are transferred, not copied. Cancel terminates the worker and starts another from the kept files (the
// files are read again, not kept twice); a worker that cannot start leaves the model on the page's thread, said.
// createModelHost({M, build, base}) → {load(files, {onProgress, signal, texts}) → a promise of the model, cancel(),
// where (the words of where it runs), dispose()}.
import { INLINE, coreText, blobURL, explain } from '../compute/source.js';
import { loadTokenizer } from '../../wasm/tokenizer.mjs';
import { textRoleScores, repeatRoleScores } from './roles.js';

/* global MHA_MODEL_WORKER */
// model-worker.js bundled as text (web/build.mjs defines it in the bundles that hold the model page).
const WORKER_CODE = typeof MHA_MODEL_WORKER === 'string' ? MHA_MODEL_WORKER : null;
const START_MS = 30000; // a worker that says nothing this long is given up for the page's thread

// The worker's source text: the core (imported by URL when served; its text from file:// and the one-file page),
// then the worker code. → a promise of the text.
function workerSource(build, base) {
  if (!WORKER_CODE) return Promise.reject(new Error('this page was built without the model worker'));
  if (INLINE) return coreText(build).then((core) => core + '\n' + WORKER_CODE);
  if (location.protocol !== 'file:') {
    const url = new URL(build + '.js', new URL(base || '.', document.baseURI)).href;
    // MHA_CORE_URL: where a threaded core's pthread workers load it from (a blob: worker has no address of its own)
    const u = JSON.stringify(url);
    return Promise.resolve('self.MHA_CORE_URL = ' + u + ';\nimportScripts(' + u + ');\n' + WORKER_CODE);
  }
  // file://: Chromium refuses importScripts there; dist/trainer-<build>.js carries the core's text (MHA_CORE_TEXT)
  const have = () => window.MHA_CORE_TEXT && window.MHA_CORE_TEXT[build];
  if (have()) return Promise.resolve(have() + '\n' + WORKER_CODE);
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = base + 'trainer-' + build + '.js';
    s.onload = () => (
      s.remove(),
      have() ? resolve(have() + '\n' + WORKER_CODE) : reject(new Error(s.src + ' holds no core'))
    );
    s.onerror = () => (s.remove(), reject(new Error('trainer-' + build + '.js is missing')));
    document.head.appendChild(s);
  });
}

// One worker: its start (→ a promise resolved once its core runs), its requests ({id, op, args} → a promise; on:
// {progress, token} callbacks) and its end (every pending request rejected with err.cancelled set).
function startWorker(text, wasmModule, threads) {
  const url = blobURL(text),
    pending = new Map();
  let next = 1,
    worker;
  const w = { pending, stopped: null };
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('its worker did not start within ' + START_MS / 1000 + ' s')),
      START_MS,
    );
    try {
      worker = new Worker(url);
    } catch (err) {
      clearTimeout(timer);
      reject(err);
      return;
    }
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.ready || m.failed) {
        clearTimeout(timer);
        URL.revokeObjectURL(url);
        return m.ready ? resolve(m.implementation) : reject(new Error(m.failed));
      }
      const p = pending.get(m.id);
      if (!p) return;
      if (m.progress) return p.on.progress && p.on.progress(m.progress);
      if (m.token) return p.on.token && p.on.token(m.token);
      pending.delete(m.id);
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m.result);
    };
    worker.onerror = (e) => {
      if (e && e.preventDefault) e.preventDefault();
      const err = new Error('the model worker stopped: ' + explain((e && e.message) || 'it did not say why'));
      clearTimeout(timer);
      reject(err);
      w.end(err);
    };
    worker.postMessage({ init: wasmModule || null, threads });
  });
  w.started = started;
  w.request = (op, args, on = {}, signal = null) =>
    new Promise((resolve, reject) => {
      if (w.stopped) return reject(w.stopped);
      const id = next++;
      pending.set(id, { resolve, reject, on });
      worker.postMessage({ id, op, args });
      if (signal) signal.addEventListener('abort', () => worker.postMessage({ abort: id }), { once: true });
    });
  w.end = (err) => {
    w.stopped = err;
    if (worker) worker.terminate();
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  return w;
}

const cancelled = () => Object.assign(new Error('cancelled'), { cancelled: true });

export function createModelHost({ M, build, base = '' }) {
  const h = { worker: null, ready: null, files: null, model: null, local: false, note: '', generation: 0 };
  // → a promise of the worker, its core started (made on demand; a new one after Cancel)
  h.open = () => {
    if (h.ready) return h.ready;
    const gen = ++h.generation;
    h.ready = workerSource(build, base)
      .then((text) => startWorker(text, M.wasmModule, build === 'mha-threads' ? M.threads : 1))
      .then((w) =>
        w.started.then(() => {
          if (gen !== h.generation) throw (w.end(cancelled()), cancelled());
          return (h.worker = w);
        }),
      );
    return h.ready;
  };
  h.call = async (op, args, on, signal) => {
    let w = await h.open();
    if (w.stopped && h.files) w = (await restart(h), await h.ready); // it crashed: a new one
    if (h.reloading) await h.reloading;
    return w.request(op, args, on, signal);
  };
  return {
    load: (files, o) => load(h, M, files, o),
    // stops what the worker computes: a new worker, the model loaded again from its files (→ a promise of the reload)
    cancel: () => restart(h),
    get where() {
      return h.note;
    },
    get local() {
      return h.local;
    },
    // how many times Cancel ended the worker and started another
    get restarts() {
      return h.restarts || 0;
    },
    dispose: () => {
      h.generation++;
      if (h.worker) h.worker.end(cancelled());
      h.worker = h.ready = null;
      if (h.model && h.local) h.model.dispose();
    },
  };
}

// The checkpoint's files in the worker (or, when it cannot start, on the page's thread) → a promise of the model.
// o: {onProgress, signal, texts: {tokenizer, tokenizerConfig} (the page's copies of tokenizer.json and its config)}.
async function load(h, M, files, o) {
  const args = { files: files.map(portable) };
  let w;
  try {
    w = await h.open();
  } catch (err) {
    return loadHere(h, M, files, o, err);
  }
  if (h.reloading) await h.reloading;
  const got = await w.request('load', args, { progress: o.onProgress }, o.signal);
  if (h.model && h.local) h.model.dispose();
  Object.assign(h, { local: false, note: '', files: args.files });
  h.model = new WorkerModel(h, got, loadTokenizer(o.texts.tokenizer, o.texts.tokenizerConfig));
  return h.model;
}

// The page's thread, when the worker did not start: the core's model itself, its methods answering promises.
async function loadHere(h, M, files, o, why) {
  h.generation++;
  h.ready = Promise.reject(why);
  h.ready.catch(() => {});
  const model = await M.loadModel(files, { onProgress: o.onProgress, signal: o.signal });
  if (h.model && h.local) h.model.dispose();
  h.local = true;
  h.note =
    'The model runs on the page’s own thread (its worker did not start: ' +
    explain(why) +
    '): a long text holds the page while it computes, and Cancel cannot stop it.';
  h.model = new LocalModel(model);
  return h.model;
}

// A file as a worker receives it: a File or Blob as itself (a reference), {name, bytes} copied, {name, url} with its
// address made absolute (a worker's base is its blob: URL).
function portable(f) {
  if (f && typeof f.url === 'string' && !(typeof Blob === 'function' && f instanceof Blob))
    return { name: f.name, url: new URL(f.url, document.baseURI).href };
  return f;
}

// Cancel: the worker ends (what it computes with it), a new one loads the kept files again.
function restart(h) {
  if (h.local || !h.files) return Promise.resolve(false);
  h.restarts = (h.restarts || 0) + 1;
  if (h.worker) h.worker.end(cancelled());
  h.worker = h.ready = null;
  const reload = h.open().then((w) => w.request('load', { files: h.files }));
  reload.then(
    (got) => h.model && !h.local && (h.model.key = got.key),
    () => {},
  );
  h.reloading = reload.then(
    () => (h.reloading = null),
    () => (h.reloading = null),
  );
  return reload.then(() => true);
}

// The model in the worker: info and warnings as loaded, tokenize here (the same tokenizer module as the core's, from
// the same files), everything else a request.
class WorkerModel {
  // got: the worker's load answer {key, info, warnings}
  constructor(h, got, tokenizer) {
    Object.assign(this, { h, key: got.key, info: Object.freeze(got.info), warnings: Object.freeze(got.warnings) });
    this.hub = null;
    this.tokenizer = tokenizer;
    this.disposed = false;
  }
  tokenize(text) {
    if (typeof text !== 'string') throw new Error('tokenize expects a string');
    return this.tokenizer.encode(text);
  }
  // extra: {roles: tokens} or {repeat: layout}: the role scores computed where the attentions are (out.scores)
  forward(ids, options = {}, extra = {}) {
    return this.h.call('forward', Object.assign({ ids: Array.from(ids), options }, extra));
  }
  generate(ids, options = {}) {
    const { onToken, signal, ...rest } = options;
    return this.h.call('generate', { ids: Array.from(ids), options: rest }, { token: onToken }, signal);
  }
  async lensRows(ids) {
    const { session, rows } = await this.h.call('lensOpen', { ids: Array.from(ids) });
    const h = this.h;
    return {
      rows,
      row: (row) => h.call('lensRow', { session, row }),
      dispose: () => h.call('lensClose', { session }).catch(() => {}),
    };
  }
  attribute(ids, options) {
    return this.h.call('attribute', { ids: Array.from(ids), options });
  }
  patch(options) {
    const { onProgress, signal, ...rest } = options;
    return this.h.call('patch', { options: rest }, { progress: onProgress }, signal);
  }
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    if (this.h.worker && !this.h.worker.stopped) this.h.worker.request('dispose', { key: this.key }).catch(() => {});
  }
}

// The core's model on the page's thread, with the worker model's promises.
class LocalModel {
  constructor(model) {
    Object.assign(this, { m: model, info: model.info, warnings: model.warnings, hub: model.hub });
  }
  tokenize(text) {
    return this.m.tokenize(text);
  }
  async forward(ids, options = {}, extra = {}) {
    const out = this.m.forward(ids, options);
    if (extra.roles) out.scores = textRoleScores(out.attentions, extra.roles);
    if (extra.repeat) out.scores = repeatRoleScores(out.attentions, extra.repeat);
    return out;
  }
  generate(ids, options) {
    return this.m.generate(ids, options);
  }
  async lensRows(ids) {
    const lens = this.m.lensRows(ids);
    return { rows: lens.rows, row: async (l) => lens.row(l), dispose: () => lens.dispose() };
  }
  async attribute(ids, options) {
    return this.m.attribute(ids, options);
  }
  patch(options) {
    return this.m.patch(options);
  }
  get disposed() {
    return this.m.disposed;
  }
  dispose() {
    this.m.dispose();
  }
}
