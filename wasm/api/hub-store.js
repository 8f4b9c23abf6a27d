// A Hub model's files downloaded (resumed with Range from where a cut connection stopped, at most TRIES times; the
// size and ETag checked against the preview) and kept in the browser's Cache API under repository @ commit, so the
// next visit loads them with no request; the store listed and emptied. The JS API's names: hubApi(core).
import { fail, describe, checkConfig } from './checks.js';
import { readingState, STALL_TIMEOUT } from './cursor.js';
import { parseHubId, checkEndpoint, resolveUrl, hubFetch, normalEtag, previewHub, messageOf, TRIES } from './hub.js';

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

function stallRace(promise, io) {
  let timer;
  const stall = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no bytes for ${io.stallTimeout / 1000} s`)), io.stallTimeout);
  });
  return Promise.race([promise, stall, io.aborted]).finally(() => clearTimeout(timer));
}

// An answer's checks against the preview: the same file (ETag), the same size, the range asked for. → bytes to skip.
function checkAnswer(res, file, pos, where) {
  const etag = normalEtag(res.headers.get('x-linked-etag') || res.headers.get('etag'));
  if (file.etag && etag && etag !== file.etag)
    fail(
      `${file.path} of ${where.repo} changed on the Hub between its preview and its download (ETag ${file.etag}, ` +
        `then ${etag}): nothing was computed from it; load the model again`,
    );
  const range = /^bytes (\d+)-\d+\/(\d+)$/.exec(res.headers.get('content-range') || '');
  const total =
    res.status === 206 && range
      ? Number(range[2])
      : res.headers.get('content-encoding')
        ? NaN
        : Number(res.headers.get('content-length') ?? NaN);
  // (a Content-Length is not the file's size: a body shorter than it is resumed, one longer refused, byte by byte)
  if (file.kind === 'weights' && res.status === 206 && Number.isSafeInteger(total) && total !== file.size)
    fail(`${file.path} of ${where.repo} has ${total} bytes now, ${file.size} in its preview: load the model again`);
  if (res.status === 206 && range && Number(range[1]) !== pos)
    fail(`${where.url} answered bytes from ${range[1]} where ${pos} was asked for`);
  return { skip: res.status === 206 ? 0 : pos, total };
}

// The file's bytes from 0 to its end, in order: a connection that fails or ends early is asked again from where it
// stopped (Range), at most TRIES times, then refused naming the file and the byte.
async function* resumable(file, where, io, progress) {
  let pos = 0,
    failures = 0,
    size = file.kind === 'weights' ? file.size : undefined;
  for (;;) {
    const res = await hubFetch(where, pos > 0 ? { headers: { Range: `bytes=${pos}-` } } : {}, io);
    let { skip, total } = checkAnswer(res, file, pos, where);
    if (size === undefined && Number.isSafeInteger(total)) size = total;
    const reader = res.body.getReader();
    let why = null;
    for (;;) {
      let r;
      try {
        r = await stallRace(reader.read(), io);
      } catch (e) {
        io.stop();
        why = messageOf(e);
        break;
      }
      if (r.done) break;
      let v = r.value;
      if (skip) [v, skip] = [v.subarray(Math.min(skip, v.length)), Math.max(0, skip - v.length)];
      if (!v.length) continue;
      pos += v.length;
      if (size !== undefined && pos > size) fail(`${file.path} of ${where.repo} sent more than its ${size} bytes`);
      progress(v.length);
      yield v;
    }
    reader.cancel().catch(() => {});
    if (!why && (size === undefined || pos === size)) return;
    why = why || `the answer ended after ${pos} of its ${size} bytes`;
    if (++failures > TRIES)
      fail(
        `the download of ${file.path} of ${where.repo} failed ${failures} times, the last at byte ${pos} of ` +
          `${size === undefined ? '?' : size} (${why}): check the connection and load it again`,
      );
  }
}

// One file as a Blob: stored (the store's copy, on disk), or downloaded into the store then read from it, or (no
// store, or a store that refused the write: io.storeError) downloaded into a Blob.
async function fileBlob(p, file, io, cache, progress) {
  const rev = p.commit || p.revision;
  const where = { ...p, revision: rev, path: file.path, url: resolveUrl(p.endpoint, p.repo, rev, file.path) };
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
    if (p.unsupported) fail(`${p.repo}: ${p.unsupported}`);
    if (!p.memory.fits)
      fail(
        `${p.repo} needs about ${(p.memory.needed / 1e9).toFixed(1)} GB for its weights, more than the ` +
          `${(p.memory.limit / 1e9).toFixed(1)} GB this browser can give the core: nothing was downloaded`,
      );
    if (!p.stored && source.maxBytes !== undefined && p.downloadBytes > source.maxBytes)
      fail(`${p.repo} is ${(p.downloadBytes / 1e6).toFixed(0)} MB to download, above maxBytes: nothing was downloaded`);
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

  return { previewHubModel, downloadHubModel, storedHubModels, deleteStoredHubModel };
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
