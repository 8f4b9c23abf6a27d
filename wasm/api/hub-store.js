// A Hub model's files downloaded (resumed with Range from where a cut connection stopped, at most TRIES times; the
// size and ETag checked against the preview) and kept in the browser's Cache API under repository @ commit, so the
// next visit loads them with no request; the store listed and emptied. The JS API's names: hubApi(core).
import { fail, describe, checkConfig } from './checks.js';
import { LiveFile, liveBlob } from './hub-live.js';
import { resumable } from './hub-download.js';
import { readingState, STALL_TIMEOUT } from './cursor.js';
import { parseHubId, checkEndpoint, resolveUrl, previewHub, messageOf, TRIES, HEADS } from './hub.js';

export const HUB_CACHE = 'mha-explorer-hub'; // the Cache API's cache of this project
const META = '.mha-explorer'; // the store's own entries, beside the files: ref (revision → commit), manifest.json
const PROGRESS_STEP = 1 << 20;

// The store: options.store (a CacheStorage, or false for none), else the browser's caches (none in Node, on file://
// pages, in a sandboxed frame: then the files are downloaded every time).
function storeOf(option) {
  if (option === false || option === null) return null;
  if (option !== undefined) {
    if (typeof option !== 'object' || typeof option.open !== 'function')
      fail(`store must be a CacheStorage (globalThis.caches) or false, got ${describe(option)}`);
    return option;
  }
  try {
    return typeof caches === 'object' && caches && typeof caches.open === 'function' ? caches : null;
  } catch (e) {
    return null; // a sandboxed frame's caches throws
  }
}

const refKey = (s) => resolveUrl(s.endpoint, s.repo, s.revision, `${META}/ref`);
const manifestKey = (p) => resolveUrl(p.endpoint, p.repo, p.commit, `${META}/manifest.json`);
const fileKey = (p, path) => resolveUrl(p.endpoint, p.repo, p.commit, path);

// The preview kept with a complete stored copy of spec's repository @ revision, or null (nothing asked of the network).
async function storedPreview(cache, spec) {
  const ref = await cache.match(refKey(spec));
  if (!ref) return null;
  const commit = (await ref.text()).trim();
  const kept = await cache.match(manifestKey({ ...spec, commit }));
  if (!kept) return null;
  const preview = await kept.json();
  for (const f of preview.files) if (!(await cache.match(fileKey(preview, f.path)))) return null;
  return { ...preview, stored: true, requests: 0, headerBytes: 0 };
}

// One file as a Blob: stored (the store's copy, on disk), or downloaded into the store then read from it, or (no
// store, or a store that refused the write: io.storeError) downloaded into a Blob.
function whereOf(p, file) {
  const rev = p.commit || p.revision;
  return { ...p, revision: rev, path: file.path, url: resolveUrl(p.endpoint, p.repo, rev, file.path) };
}

async function fileBlob(p, file, io, cache, progress) {
  const where = whereOf(p, file);
  let failed = null;
  const stream = (count) => {
    const it = resumable(file, where, io, count);
    return new ReadableStream({
      async pull(c) {
        try {
          const { done, value } = await it.next();
          if (done) c.close();
          else c.enqueue(value); // the body's own chunk: no copy
        } catch (e) {
          failed = e;
          throw e;
        }
      },
      cancel: () => it.return(),
    });
  };
  if (cache && p.commit && !io.storeError) {
    let counted = 0;
    const key = fileKey(p, file.path);
    try {
      await cache.put(
        key,
        new Response(
          stream((n) => {
            counted += n;
            progress(n);
          }),
        ),
      );
      const kept = await cache.match(key);
      if (kept) return kept.blob();
      io.storeError = 'the browser kept no copy in its Cache API';
    } catch (e) {
      if (failed) throw failed;
      io.stop();
      io.storeError = `the browser refused to store ${file.path} (${messageOf(e)})`;
    }
    progress(-counted);
  }
  return new Response(stream(progress)).blob();
}

// A weight file as the loader reads it while it downloads (hub-live.js), its whole body written to the store at the
// same time when there is one. → {file (the LiveFile), stored (the write's promise: an error message or null)}.
function liveWeights(p, file, io, cache, progress) {
  const where = whereOf(p, file);
  const live = new LiveFile({
    size: file.size,
    head: HEADS.get(file),
    name: `${file.path} of ${p.repo}`,
    chunks: () => resumable(file, where, io, progress),
  });
  if (!cache || !p.commit || io.storeError) return { live, stored: Promise.resolve(null) };
  const stored = cache.put(fileKey(p, file.path), new Response(live.storeStream())).then(
    () => null,
    (e) => {
      live.unstore();
      return live.failure ? null : `the browser refused to store ${file.path} (${messageOf(e)})`;
    },
  );
  return { live, stored };
}

// The files of a first visit: the small ones downloaded (and stored) first, the weights as live files. →
// {files: [{name, bytes}], finish() (each download to its end, the store's writes, the manifest → {stored,
// storeError}), abort(reason), failure() (the download's own error, when one failed)}.
async function liveFiles(p, source, cache, io, report) {
  const files = [],
    lives = [];
  for (const file of p.files.filter((f) => f.kind !== 'weights'))
    files.push({ name: file.path, bytes: await fileBlob(p, file, io, cache, report(file)) });
  for (const file of p.files.filter((f) => f.kind === 'weights')) {
    const w = liveWeights(p, file, io, cache, report(file));
    lives.push(w);
    files.push({ name: file.path, bytes: liveBlob(w.live) });
  }
  const failure = () => (lives.find((w) => w.live.failure) || { live: {} }).live.failure || null;
  const abort = (reason) => {
    for (const w of lives) w.live.abort(reason);
    io.done();
  };
  const finish = async () => {
    try {
      for (const w of lives) await w.live.finish();
      for (const w of lives) io.storeError = io.storeError || (await w.stored);
      if (cache && p.commit && !io.storeError) await keep(cache, p).catch((e) => (io.storeError = messageOf(e)));
      if (io.storeError && cache) for (const f of p.files) await cache.delete(fileKey(p, f.path)).catch(() => {});
    } finally {
      io.done();
    }
    return { stored: !!cache && !io.storeError, storeError: io.storeError || null };
  };
  return { files, finish, abort, failure };
}

// After every file is stored: the manifest (the preview) and the revision's ref, so the next visit finds them.
async function keep(cache, p) {
  const json = (v) => new Response(JSON.stringify(v), { headers: { 'content-type': 'application/json' } });
  await cache.put(manifestKey(p), json({ ...p, stored: true, storedAt: new Date().toISOString() }));
  await cache.put(refKey(p), new Response(p.commit));
  if (p.revision !== p.commit) await cache.put(refKey({ ...p, revision: p.commit }), new Response(p.commit));
  const storage = typeof navigator === 'object' && navigator && navigator.storage;
  if (storage && typeof storage.persist === 'function') storage.persist().catch(() => false); // asked once a model
}

function checkSource(source, known) {
  checkConfig(source, 'the Hub source', known);
  const { repo, revision } = parseHubId(source.hub, source.revision);
  return { repo, revision, endpoint: checkEndpoint(source.endpoint) };
}

// What stops a download before any weight is fetched: a model the core does not compute, above the memory, maxBytes.
function refuse(p, source) {
  if (p.unsupported) fail(`${p.repo}: ${p.unsupported}`);
  if (!p.memory.fits)
    fail(
      `${p.repo} needs about ${(p.memory.needed / 1e9).toFixed(1)} GB for its weights, more than the ` +
        `${(p.memory.limit / 1e9).toFixed(1)} GB this browser can give the core: nothing was downloaded`,
    );
  if (!p.stored && source.maxBytes !== undefined && p.downloadBytes > source.maxBytes)
    fail(`${p.repo} is ${(p.downloadBytes / 1e6).toFixed(0)} MB to download, above maxBytes: nothing was downloaded`);
}

function checkHubOptions(o) {
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function')
    fail(`onProgress must be a function, got ${describe(o.onProgress)}`);
  if (o.maxBytes !== undefined && !(typeof o.maxBytes === 'number' && o.maxBytes > 0))
    fail(`maxBytes must be a number of bytes, got ${describe(o.maxBytes)}`);
}

const SOURCE = ['hub', 'revision', 'endpoint', 'signal', 'store', 'refresh', 'stallTimeout'];
export const HUB_OPTIONS = [...SOURCE, 'onProgress', 'preview', 'maxBytes'];

export function hubApi(core) {
  // → the preview: stored (no request) or asked of the Hub (config.json, the weights' headers, HEAD requests).
  async function previewHubModel(source) {
    const spec = checkSource(source, HUB_OPTIONS);
    const io = readingState(source.signal, source.stallTimeout || STALL_TIMEOUT);
    Object.assign(io, { requests: 0, headerBytes: 0 });
    try {
      const store = storeOf(source.store);
      const cache = store && !source.refresh ? await openCache(store) : null;
      const stored = cache ? await storedPreview(cache, spec) : null;
      return stored || (await previewHub(core, spec, io));
    } finally {
      io.done();
    }
  }

  // → {preview, files: [{name (the path in the repository), bytes: Blob}], stored, storeError}: every file the
  // preview lists, from the store or downloaded (onProgress({loaded, total, file})), refused before any weight is
  // fetched when the core cannot compute the model, it exceeds the memory, or maxBytes.
  async function downloadHubModel(source) {
    checkHubOptions(source);
    const p = source.preview || (await previewHubModel(source));
    refuse(p, source);
    const io = readingState(source.signal, source.stallTimeout || STALL_TIMEOUT);
    const store = storeOf(source.store),
      cache = store ? await openCache(store, io) : null;
    let loaded = 0,
      reported = -Infinity;
    const files = [];
    try {
      for (const file of p.files) {
        const report = (n) => {
          loaded += n;
          if (!source.onProgress || (loaded - reported < PROGRESS_STEP && n >= 0)) return;
          reported = loaded;
          source.onProgress({ loaded, total: p.downloadBytes, file: file.path });
        };
        const kept = cache && p.commit ? await cache.match(fileKey(p, file.path)) : null;
        const blob = kept ? await kept.blob() : await fileBlob(p, file, io, cache, report);
        if (kept) report(blob.size);
        files.push({ name: file.path, bytes: blob });
      }
      if (source.onProgress) source.onProgress({ loaded, total: Math.max(loaded, p.downloadBytes), file: null });
      if (cache && p.commit && !io.storeError && !p.stored)
        await keep(cache, p).catch((e) => (io.storeError = messageOf(e)));
    } finally {
      io.done();
    }
    return { preview: p, files, stored: !!cache && !io.storeError, storeError: io.storeError || null };
  }

  // A first visit's files for loadModel({hub}): the weights read by the loader while they download (liveFiles).
  async function downloadLive(source) {
    checkHubOptions(source);
    const p = source.preview;
    refuse(p, source);
    const io = readingState(source.signal, source.stallTimeout || STALL_TIMEOUT);
    const store = storeOf(source.store),
      cache = store ? await openCache(store, io) : null;
    let loaded = 0,
      reported = -Infinity;
    const report = (file) => (n) => {
      loaded += n;
      if (!source.onProgress || (loaded - reported < PROGRESS_STEP && n >= 0 && loaded < p.downloadBytes)) return;
      reported = loaded;
      source.onProgress({ loaded, total: p.downloadBytes, file: file.path });
    };
    try {
      return { preview: p, ...(await liveFiles(p, source, cache, io, report)) };
    } catch (e) {
      io.done();
      throw e;
    }
  }

  // loadModel({hub}, options): the stored copy (downloadHubModel), else the weights loaded while they download and
  // are stored. load: models.js's loadModel of files. → the Model, with model.hub (where it came from).
  async function loadHubModel(source, options, load) {
    const merged = { ...source, ...(options === undefined ? {} : options) };
    checkConfig(merged, 'loadModel({hub}) options', HUB_OPTIONS);
    const { onProgress, signal, stallTimeout = STALL_TIMEOUT } = merged;
    const say = (phase) => onProgress && ((p) => onProgress({ ...p, phase }));
    const preview = merged.preview || (await previewHubModel(merged));
    const how = { ...merged, preview, onProgress: say('download') };
    const got = preview.stored ? await downloadHubModel(how) : await downloadLive(how);
    const top = got.files.filter((f) => !f.name.includes('/')); // 1_Pooling/config.json is the page's, not the core's
    let model;
    try {
      // (a live file's reads wait for its download, which retries a stalled connection itself: TRIES times)
      const wait = got.finish ? Math.min(3600000, stallTimeout * (TRIES + 2)) : stallTimeout;
      model = await load(top, { onProgress: say('load'), signal, stallTimeout: wait });
    } catch (e) {
      if (!got.finish) throw e;
      got.abort(e);
      throw got.failure() || e;
    }
    const kept = got.finish ? await got.finish().catch((e) => ({ stored: false, storeError: messageOf(e) })) : got;
    const p = got.preview;
    model.hub = Object.freeze({
      repo: p.repo,
      revision: p.revision,
      commit: p.commit,
      endpoint: p.endpoint,
      fromStore: p.stored,
      stored: kept.stored,
      storeError: kept.storeError,
    });
    return model;
  }

  // The stored models: [{id, repo, commit, revision, endpoint, bytes, files, storedAt}].
  async function storedHubModels(options = {}) {
    const cache = await openCache(storeOf(options.store));
    if (!cache) return [];
    const out = [];
    for (const req of await cache.keys()) {
      if (!req.url.endsWith(`/${META}/manifest.json`)) continue;
      const m = await (await cache.match(req)).json();
      const { id, repo, commit, revision, endpoint, files, storedAt } = m;
      out.push({ id, repo, commit, revision, endpoint, files: files.length, bytes: m.downloadBytes, storedAt });
    }
    return out;
  }

  // Deletes one stored model ('owner/name@commit' as storedHubModels lists it; options.endpoint: that Hub's copy
  // only), or every one (no id).
  async function deleteStoredHubModel(id, options = {}) {
    const store = storeOf(options.store);
    if (!store) return false;
    if (id === undefined) return store.delete(HUB_CACHE);
    const endpoint = options.endpoint === undefined ? null : checkEndpoint(options.endpoint);
    const models = (await storedHubModels(options)).filter(
      (m) => (m.id === id || `hf:${m.id}` === id) && (!endpoint || m.endpoint === endpoint),
    );
    if (!models.length) return false;
    const cache = await openCache(store);
    for (const req of await cache.keys()) {
      const hit = models.some((m) => req.url.startsWith(`${m.endpoint}/${m.repo}/resolve/`));
      if (!hit) continue;
      const m = models.find((x) => req.url.startsWith(`${x.endpoint}/${x.repo}/resolve/`));
      const ofCommit = req.url.includes(`/resolve/${m.commit}/`);
      const ref = req.url.endsWith(`/${META}/ref`) && (await (await cache.match(req)).text()).trim() === m.commit;
      if (ofCommit || ref) await cache.delete(req);
    }
    return true;
  }

  return { previewHubModel, downloadHubModel, loadHubModel, storedHubModels, deleteStoredHubModel };
}

async function openCache(store, io) {
  if (!store) return null;
  try {
    return await store.open(HUB_CACHE);
  } catch (e) {
    if (io) io.storeError = `the browser's Cache API cannot be opened (${messageOf(e)})`;
    return null;
  }
}
