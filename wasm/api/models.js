// Real checkpoints (model_bindings.cpp): loadModel (config.json, the weights' headers, the plan, the weights read
// straight into wasm memory, the tokenizer) and Model (info, tokenize, forward, dispose).
import { fail, describe, isCount, checkCount, checkConfig, unwrap } from './checks.js';
import { checkFiles } from './files.js';
import { htmlMessage, openCursor, readingState, readText, STALL_TIMEOUT } from './cursor.js';
import { loadTokenizer } from './tokenizer.js';
import { hubApi } from './hub-store.js';
import { POOLS, ABLATIONS } from './protocol.js';

const WEIGHTS = 'model.safetensors',
  INDEX = 'model.safetensors.index.json';

function checkLoadOptions(options) {
  checkConfig(options, 'loadModel options', ['onProgress', 'signal', 'stallTimeout']);
  const { onProgress, signal, stallTimeout = STALL_TIMEOUT } = options;
  checkCount(stallTimeout, 'stallTimeout (ms)', 1, 3600000);
  if (onProgress !== undefined && typeof onProgress !== 'function')
    fail(`onProgress must be a function, got ${describe(onProgress)}`);
  if (signal !== undefined && !(signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean')) {
    fail(`signal must be an AbortSignal (new AbortController().signal), got ${describe(signal)}`);
  }
  return { onProgress, signal, stallTimeout };
}

// The first 8 bytes of a weight file as HTML ("<!doctyp", "<html>…"), not a header's length (whose top bytes are 0).
function looksLikeHtml(first) {
  return first.length === 8 && first[7] !== 0 && /^\s*<[!a-z]/i.test(String.fromCharCode(...first));
}

// model.warnings for the tensors of layers config.json does not run (model_bindings.cpp's unusedLayers).
function unusedLayersWarnings(names, info) {
  if (!names.length) return [];
  const layerOf = (n) => Number(n.split('.').find((part) => /^\d+$/.test(part)));
  const layers = [...new Set(names.map(layerOf))].sort((a, b) => a - b);
  const which = layers.length === 1 ? `layer ${layers[0]}` : `layers ${layers.join(', ')}`;
  return [
    `the weights hold ${which} (${names.length} tensors, such as ${names[0]}), which config.json's ${info.layers} ` +
      `layers do not reach: they are not used. Is config.json this checkpoint's own (its layer count, such as ` +
      `num_hidden_layers or n_layer)?`,
  ];
}

// The plan's copies of each file, [offset in the file, length, address in wasm memory], in file order.
function copiesByFile(plan) {
  const byFile = plan.files.map(() => []);
  for (const read of plan.reads) {
    const c = read.copies;
    for (let k = 0; k < c.length; k += 3) byFile[read.file].push([read.offset + c[k], c[k + 1], c[k + 2]]);
  }
  return byFile;
}

// config.json and the weights' file or index among loadModel's files, or a message naming what is missing.
function requiredFiles(byName) {
  const config =
    byName.get('config.json') ||
    fail(
      `config.json is missing: loadModel needs the checkpoint's config.json with its weights (given: ${[...byName.keys()].join(', ') || 'nothing'})`,
    );
  const index = byName.get(INDEX);
  if (!index && !byName.has(WEIGHTS)) {
    const other = [...byName.keys()].find((n) => /\.(bin|pt|pth|ckpt|h5|gguf|onnx)$/i.test(n));
    fail(
      `${WEIGHTS} is missing: loadModel reads the weights from model.safetensors, or from model.safetensors.index.json ` +
        `with its shards${other ? ` (${other} is another format: save the model with save_pretrained(..., safe_serialization=True))` : ''}`,
    );
  }
  return { config, index };
}

function checkIds(ids, info) {
  if (!Array.isArray(ids) && !(ArrayBuffer.isView(ids) && !(ids instanceof DataView))) {
    fail(
      `forward expects token ids (an array of whole numbers, as model.tokenize(text).ids gives), got ${describe(ids)}`,
    );
  }
  const list = Array.from(ids);
  if (list.length === 0) fail('forward needs at least one token id');
  if (list.length > info.maxPositions) {
    fail(
      `${list.length} tokens are more than this model's ${info.maxPositions} positions (config.json's max_position_embeddings); shorten the text`,
    );
  }
  list.forEach((t, i) => {
    if (!isCount(t, 0, info.vocab - 1))
      fail(
        `token id ${i} must be a whole number from 0 to ${info.vocab - 1} (the model's vocabulary), got ${describe(t)}`,
      );
  });
  return list;
}

function checkHeadsOff(headsOff, info) {
  if (!Array.isArray(headsOff))
    fail(`headsOff must be a list of [layer, head] pairs such as [[0, 3]], got ${describe(headsOff)}`);
  headsOff.forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2)
      fail(`headsOff[${i}] must be a [layer, head] pair, got ${describe(pair)}`);
    checkCount(pair[0], `headsOff[${i}]'s layer`, 0, info.layers - 1);
    checkCount(pair[1], `headsOff[${i}]'s head`, 0, info.heads - 1);
  });
  return headsOff.map((p) => [p[0], p[1]]);
}

// thumbnail: 0 (none) or each map's side in cells (at most 4096; min(thumbnail, T) used); pool: one of POOLS.
function checkThumbnail(thumbnail, pool) {
  checkCount(thumbnail, 'thumbnail (the side of each pooled map, 0 for none)', 0, 4096);
  if (!POOLS.includes(pool))
    fail(
      `pool must be ${POOLS.map((p) => `'${p}'`).join(' or ')} (how a thumbnail's cell sums its weights), got ${describe(pool)}`,
    );
}

// How headsOff are switched off: ablation one of ABLATIONS ('zero': their output zeroed; 'mean': its mean over the
// text's positions; 'resample': its output on resampleFrom, ids of another text of the same token count).
function checkAblation(options, info, T) {
  const { ablation = ABLATIONS[0], resampleFrom = null } = options;
  if (!ABLATIONS.includes(ablation))
    fail(
      `ablation must be ${ABLATIONS.map((a) => `'${a}'`).join(', ')} (how headsOff are switched off), got ${describe(ablation)}`,
    );
  if (ablation !== 'resample') {
    if (resampleFrom !== null) fail(`resampleFrom is the text of ablation 'resample' only (ablation is '${ablation}')`);
    return { ablation, other: [] };
  }
  if (resampleFrom === null)
    fail("ablation 'resample' needs resampleFrom: the ids of the text whose head outputs to use");
  const other = checkIds(resampleFrom, info);
  if (other.length !== T)
    fail(
      `resampleFrom has ${other.length} tokens and the text ${T}: resampling a head needs texts of the same token count`,
    );
  return { ablation, other };
}

function checkForwardOptions(options, info, T) {
  checkConfig(options, 'forward options', [
    'headsOff',
    'ablation',
    'resampleFrom',
    'logitsAt',
    'attentions',
    'thumbnail',
    'pool',
    'writes',
  ]);
  const { headsOff = [], logitsAt = [], attentions = true, thumbnail = 0, pool = POOLS[0], writes = false } = options;
  if (typeof writes !== 'boolean')
    fail(`writes must be true or false (true: out.writes, the norm of what each key writes), got ${describe(writes)}`);
  if (typeof attentions !== 'boolean')
    fail(
      `attentions must be true or false (false: no attention weights, a faster forward), got ${describe(attentions)}`,
    );
  const off = checkHeadsOff(headsOff, info);
  if (!Array.isArray(logitsAt))
    fail(`logitsAt must be a list of positions such as [${T - 1}], got ${describe(logitsAt)}`);
  if (logitsAt.length > 0 && !info.hasLmHead)
    fail(`this ${info.modelType} checkpoint has no LM or MLM head: it gives no logits`);
  logitsAt.forEach((p, i) => checkCount(p, `logitsAt[${i}]`, 0, T - 1));
  checkThumbnail(thumbnail, pool);
  return {
    headsOff: off,
    ...checkAblation(options, info, T),
    logitsAt: logitsAt.slice(),
    attentions,
    thumbnail,
    pool,
    writes,
  };
}

// model.attention(ids, {layer, head, headsOff, ablation, resampleFrom}): layer is required; head: one head's [T, T],
// else [1, H, T, T].
function checkAttentionOptions(options, info, T) {
  if (options === null || typeof options !== 'object')
    fail(`attention expects options such as {layer: 0}, got ${describe(options)}`);
  checkConfig(options, 'attention options', ['layer', 'head', 'headsOff', 'ablation', 'resampleFrom']);
  const { layer, head = -1, headsOff = [] } = options;
  if (layer === undefined) fail(`attention needs a layer (0 to ${info.layers - 1}), such as {layer: 0}`);
  checkCount(layer, 'layer', 0, info.layers - 1);
  if (head !== -1) checkCount(head, 'head', 0, info.heads - 1);
  return { layer, head, headsOff: checkHeadsOff(headsOff, info), ...checkAblation(options, info, T) };
}

export function modelsApi({ core, own, release, withBytes }) {
  const hub = hubApi(core);
  // Each weight file's header (its first 8 bytes, then 8 + N) into the loader. Only the first file's cursor stays
  // open for the weights (a browser opens few connections per host: every shard's download at once could stall).
  async function addHeaders(loading, files, io) {
    for (const [i, file] of files.entries()) {
      io.stop();
      const cursor = await openCursor(file, 0, io);
      const first = await cursor.readInto(new Uint8Array(Math.min(8, file.size)));
      if (looksLikeHtml(first)) fail(htmlMessage(file));
      const n = unwrap(withBytes(first, (addr) => loading.headerBytes(file.name, addr, first.length, file.size)));
      const header = new Uint8Array(n);
      header.set(first);
      await cursor.readInto(header, first.length);
      io.stop();
      unwrap(withBytes(header, (addr) => loading.addFile(file.name, addr, header.length, file.size)));
      if (i > 0) cursor.close();
    }
  }

  const REPORT = 4 << 20; // onProgress after every 4 MiB of weights and at the end of each file
  // Each file read once, in order, each byte of a kept tensor copied from the read buffer to its place in wasm
  // memory; the first file goes on from its header's cursor.
  async function fillWeights(plan, byName, onProgress, io) {
    const byFile = copiesByFile(plan);
    const total = byFile.reduce((sum, list) => list.reduce((s, c) => s + c[1], sum), 0);
    let loaded = 0,
      reported = 0;
    const report = (name) => {
      reported = loaded;
      if (onProgress) onProgress({ loaded, total, file: name });
    };
    report(plan.files[0]);
    for (const [f, copies] of byFile.entries()) {
      if (!copies.length) continue;
      const file = byName.get(plan.files[f]);
      const cursor = io.open.find((c) => c.file === file && c.reader) || (await openCursor(file, copies[0][0], io));
      for (const [offset, length, to] of copies) {
        await cursor.skipTo(offset);
        for (let done = 0; done < length;) {
          const bytes = await cursor.take(length - done);
          core.HEAPU8.set(bytes, to + done); // HEAPU8 re-read after every await: memory growth replaces the view
          done += bytes.length;
          loaded += bytes.length;
          if (loaded - reported >= REPORT) report(file.name);
        }
      }
      cursor.close();
      if (loaded > reported) report(file.name);
    }
  }

  // A checkpoint's files → a Model: config.json, then model.safetensors (or the index and its shards), each
  // read once in order straight into wasm memory; optional tokenizer.json (+ tokenizer_config.json).
  async function loadModel(files, options = {}) {
    if (files !== null && typeof files === 'object' && 'hub' in files) return loadFromHub(files, options);
    const { onProgress, signal, stallTimeout } = checkLoadOptions(options === undefined ? {} : options);
    const byName = checkFiles(files);
    const io = readingState(signal, stallTimeout);
    io.stop();
    const { config, index } = requiredFiles(byName);
    let loading = null,
      handle = null;
    try {
      loading = unwrap(core.modelLoadingCreate(await readText(config, io)));
      let weightFiles = [byName.get(WEIGHTS)];
      if (index)
        weightFiles = unwrap(loading.addIndex(await readText(index, io)))
          .filter((n) => byName.has(n))
          .map((n) => byName.get(n));
      await addHeaders(loading, weightFiles, io);
      const plan = unwrap(loading.plan());
      await fillWeights(plan, byName, onProgress, io);
      const unused = unwrap(loading.unusedLayers());
      handle = unwrap(loading.finish());
      // threads: the kernels' pool that runs its forward (index.js's setThreads), read when asked
      const info = Object.freeze(
        Object.defineProperty(handle.info(), 'threads', { enumerable: true, get: core.threads }),
      );
      const tokenizer = await loadTokenizer(byName, info, io);
      io.stop();
      const model = new Model(handle, info, tokenizer, unusedLayersWarnings(unused, info));
      handle = null;
      return model;
    } finally {
      io.done();
      for (const cursor of io.open) cursor.close(); // a download cancelled, not left running
      if (loading) loading.delete();
      if (handle) handle.delete();
    }
  }

  // {hub: 'owner/name', revision, endpoint, ...}: hub-store.js's loadHubModel, which loads the files with loadModel.
  const loadFromHub = (source, options) => hub.loadHubModel(source, options, loadModel);

  // A loaded checkpoint: info, warnings (what of the files it does not use), tokenize, forward, dispose (its memory,
  // weights and activations cache, back to the core).
  class Model {
    #tokenizer;
    constructor(handle, info, tokenizer, warnings) {
      own(this, handle);
      this.info = info;
      this.warnings = Object.freeze(warnings);
      this.hub = null; // where a Hub id's files came from (loadModel({hub})), else null
      this.#tokenizer = tokenizer;
    }
    #live() {
      if (!this._handle) fail('this model was disposed (model.dispose()): load the checkpoint again with loadModel');
      return this._handle;
    }
    tokenize(text) {
      this.#live();
      if (typeof text !== 'string') fail(`tokenize expects a string, got ${describe(text)}`);
      if (!this.#tokenizer)
        fail(
          'this model was loaded without tokenizer.json: give it to loadModel with the other files (or pass token ids to forward)',
        );
      return this.#tokenizer.encode(text);
    }
    forward(ids, options = {}) {
      const handle = this.#live();
      const list = checkIds(ids, this.info);
      const o = checkForwardOptions(options === undefined ? {} : options, this.info, list.length);
      return unwrap(
        handle.forward(list, o.headsOff, o.ablation, o.other, o.logitsAt, o.attentions, o.thumbnail, o.pool, o.writes),
      );
    }
    // One layer's attention at any length (the whole forward's attentions[layer], bit for bit), from the
    // activations cache: after a forward of the same ids, one layer's compute.
    attention(ids, options) {
      const handle = this.#live();
      const list = checkIds(ids, this.info);
      const o = checkAttentionOptions(options, this.info, list.length);
      return unwrap(handle.attention(list, o.layer, o.headsOff, o.ablation, o.other, o.head));
    }
    get disposed() {
      return !this._handle;
    }
    dispose() {
      if (this._handle) release(this, 'model');
    }
  }

  return { loadModel, Model, ...hub };
}
