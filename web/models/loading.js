// MHA Explorer, the model page — loading a model: the files checked (files.js), the core's loadModel with the progress
// bar and Cancel, the model's facts in the side panel, the repeated sequence's scores, the text shown. A failed or
// cancelled load says why and keeps the model shown. ctx: context.js's.
import { el } from '../widgets/dom.js';
import { loadCore, buildOf, coreThreads } from './engine.js';
import { createModelHost } from './model-host.js';
import { pickCheckpoint, folderURL, filesFromFolder } from './files.js';
import { readVocabulary } from './vocab.js';
import { render, computeRepeat } from './forward.js';

const mb = (n) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0) + ' MB';

// base: the folder of the core files ('': the page's own). → {core (a promise of the core, once per document),
// loadFiles(files, source), loadFromURL(value), cancel()}.
export function createLoading(ctx, base = '') {
  const core = startCore(ctx, base);
  // where the model runs (model-host.js: its worker), made with the core
  const host = core.then((M) => (ctx.host = createModelHost({ M, build: buildOf(M), base })));
  host.catch(() => {});
  return {
    core,
    host,
    loadFiles: (files, source) => loadFiles(ctx, host, files, source),
    loadFromURL: (value) => loadFromURL(ctx, host, value),
    cancel: () => {
      if (ctx.S.loading) ctx.S.loading.abort();
    },
  };
}

// The core, with the status line saying whether it started.
function startCore(ctx, base) {
  const core = loadCore(base).then(
    (M) => {
      ctx.status('Ready (' + coreThreads + '): drop a model folder on the page.');
      return M;
    },
    (err) => {
      ctx.say('core', err.message);
      ctx.status('The core did not start.');
      throw err;
    },
  );
  core.catch(() => {});
  return core;
}

// A failed or cancelled load: the message, and the status of the model still shown.
function settle(ctx, abort, err) {
  const S = ctx.S;
  ctx.say(
    'load',
    abort.signal.aborted ? 'Loading was cancelled' + (S.model ? ': the previous model stays.' : '.') : err.message,
  );
  ctx.status(S.model ? ctx.shown() : 'No model loaded.');
}

// files: [File] (dropped, chosen or fetched); source: {folder, dropped} (the snippet's path); abort: the controller of
// a download that brought them. → promise, rejected with the message shown.
async function loadFiles(ctx, hostMade, files, source, abort = new AbortController()) {
  const { S, say, status, progress } = ctx;
  if (S.loading && S.loading !== abort) S.loading.abort();
  S.loading = abort;
  say('load', '');
  try {
    const picked = await pickCheckpoint(files);
    const vocab = readVocabulary(picked.text);
    vocab.eos = eosOf(picked.text.config);
    const host = await hostMade;
    // {name, url} entries (model=) are downloaded by loadModel itself, straight into the core's memory
    const verb = picked.files.some((f) => f.url) ? 'Downloading the weights' : 'Reading the weights';
    progress(verb + '…', 0);
    status('Loading the model…');
    const model = await host.load(picked.files, {
      signal: abort.signal,
      texts: picked.text,
      onProgress: (p) => progress(verb + ': ' + mb(p.loaded) + ' of ' + mb(p.total), p.loaded / p.total),
    });
    ctx.say('worker', host.where); // the page's thread when the worker could not start
    if (S.loading !== abort) {
      model.dispose();
      return;
    }
    await show(ctx, model, { vocab, source, shards: picked.shards.length, sentence: picked.sentence });
  } catch (err) {
    if (S.loading === abort) settle(ctx, abort, err);
    throw err;
  } finally {
    if (S.loading === abort) {
      S.loading = null;
      progress(null);
    }
  }
}

// config.json's eos_token_id (the first of a list; -1 without one): where generation stops, as generate's default.
function eosOf(config) {
  let e;
  try {
    e = JSON.parse(config).eos_token_id;
  } catch {
    return -1;
  }
  e = Array.isArray(e) ? e[0] : e;
  return Number.isInteger(e) && e >= 0 ? e : -1;
}

// The selection's layer or head within a model with n of them: the last one, and said (after what was said of the
// selection already: a refused layer= or head=), when it has fewer.
function fit(ctx, name, v, n) {
  if (v < n) return v;
  const note = 'This model has no ' + name + ' ' + v + ' (its ' + name + 's are 0 to ' + (n - 1) + '): showing ';
  ctx.say('select', [ctx.messages.select, note + name + ' ' + (n - 1) + '.'].filter(Boolean).join(' '));
  return n - 1;
}

// A loaded model in place of the one shown: its facts, the repeated sequence's scores, the text's forward. → a promise.
async function show(ctx, model, { vocab, source, shards, sentence }) {
  const S = ctx.S;
  if (S.model) {
    S.model.dispose();
    ctx.say('select', ''); // said of that model's selection (what was said at mount stays for the first model)
  }
  // the picked query and key stay when the new model's tokens are the text's old ones (render resets them otherwise)
  Object.assign(S, { model, info: model.info, vocab, source, headsOff: [], repeat: null });
  if (S.follow) S.follow.id = S.follow.text ? vocab.findToken(S.follow.text) : -1;
  S.sentence = sentence && sentence.pooling ? sentence : null; // sentence.js's config: the embedding panel
  ctx.say('sentence', sentence && sentence.refused ? 'No sentence embedding: ' + sentence.refused + '.' : '');
  S.sel = {
    layer: fit(ctx, 'layer', S.sel.layer, model.info.layers),
    head: fit(ctx, 'head', S.sel.head, model.info.heads),
  };
  // model.warnings (the JS API's): the files' tensors it does not use, said as it says them
  const warned = model.warnings || [];
  ctx.say('unused', warned.map((w) => 'Loaded with a warning: ' + w.replace(/^./, (c) => c.toUpperCase())).join(' '));
  showInfo(ctx, shards);
  ctx.cancelledText = null;
  await computeRepeat(ctx);
  if (S.model !== model) return;
  await render(ctx);
  ctx.status('Loaded ' + (source.folder || 'the model') + ' (' + coreThreads + ').');
}

// model=: a folder next to the page, downloaded (with the progress bar and Cancel) then loaded.
function loadFromURL(ctx, host, value) {
  const { S, progress } = ctx;
  let base;
  try {
    base = folderURL(value, document.baseURI);
  } catch (err) {
    ctx.say('load', err.message);
    return Promise.reject(err);
  }
  if (S.loading) S.loading.abort();
  const abort = (S.loading = new AbortController());
  progress('Downloading ' + value + '…', 0);
  ctx.status('Downloading the model…');
  return filesFromFolder(base, {
    signal: abort.signal,
    onProgress: (done, total) => progress('Downloading ' + value + ': ' + mb(done) + ' of ' + mb(total), done / total),
  }).then(
    (files) => loadFiles(ctx, host, files, { folder: value, dropped: false }, abort),
    (err) => {
      if (S.loading === abort) {
        S.loading = null;
        progress(null);
        settle(ctx, abort, err);
      }
      throw err;
    },
  );
}

// What the checkpoint can show besides its attention, in words.
function shows(i, sentence) {
  if (i.hasLmHead) return 'attention, and its ' + (i.causal ? 'next-token' : 'masked-token') + ' prediction head';
  return (
    'no prediction head: attention, hidden states' +
    (sentence ? ' and sentence embeddings (sentence-transformers)' : ' only')
  );
}

// The model's facts in the side panel.
function showInfo(ctx, shards) {
  const i = ctx.S.info,
    dl = ctx.$('model-info');
  dl.textContent = '';
  const row = (k, v) => {
    dl.appendChild(el('dt', null, k));
    dl.appendChild(el('dd', null, v));
  };
  row('Folder', ctx.S.source.folder || '(files)');
  row('Model', i.modelType + ' (' + i.family + ')');
  row(
    'Layers × heads',
    i.layers + ' × ' + i.heads + (i.kvHeads && i.kvHeads !== i.heads ? ' (' + i.kvHeads + ' key/value heads)' : ''),
  );
  row('Width', 'd_model ' + i.dModel + ', vocabulary ' + i.vocab.toLocaleString('en-US'));
  row('Attention', i.causal ? 'causal (each token sees the ones before it)' : 'bidirectional');
  row('What it shows', shows(i, ctx.S.sentence));
  row('Weights', i.dtype + (shards ? ', ' + shards + ' shards' : ''));
  dl.hidden = false;
}
