// How loadModel reads a checkpoint's files (wasm/api/files.js's FileCursor): every kind of source — bytes in memory, a
// Blob through a BYOB stream reader, a Blob whose stream has no BYOB reader (slice().arrayBuffer() instead), a url
// whose body is read by a BYOB reader, by plain reads, or (without Content-Length) whole — gives the same model, bit
// for bit, as the bytes in memory; one file or an index with its shards. Progress and cancel over a download; broken
// downloads and unreadable Blobs named, the memory returned. One build: the reading is the API's JS, not the core's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, openAsBlob, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BUILDS,
  heapUsed,
  load,
  modelCases,
  MODELS_DIR,
  rejects,
  requireHeapBack,
  weightFiles,
} from './fixtures/reference.mjs';

const CASES = modelCases();
const namesOf = (c) => weightFiles(CASES.find((x) => x.case === c));
const IDS = [1, 7, 3, 12, 5, 9, 2];

// The checkpoints over HTTP. Query: nolength (chunked, no Content-Length), cut=N (N bytes sent, then the connection
// dropped), short=N (N bytes fewer, with their Content-Length), slow (16 KiB pieces, 20 ms apart). Counts requests
// and the answers left unfinished (the client went away).
let server, origin;
const served = { requests: 0, unfinished: 0 };
before(async () => {
  server = createServer((req, res) => {
    served.requests++;
    const url = new URL(req.url, 'http://x');
    let body;
    try {
      body = readFileSync(join(MODELS_DIR, decodeURIComponent(url.pathname)));
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    const q = url.searchParams;
    if (q.has('short')) body = body.subarray(0, body.length - Number(q.get('short')));
    if (q.has('nolength')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < body.length; i += 5000) res.write(body.subarray(i, i + 5000));
      res.end();
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
    if (q.has('cut')) {
      res.write(body.subarray(0, Number(q.get('cut'))), () => res.destroy());
      return;
    }
    if (!q.has('slow')) {
      res.end(body);
      return;
    }
    let at = 0;
    res.on('close', () => {
      if (at < body.length) served.unfinished++;
    });
    const more = () => {
      if (res.destroyed) return;
      res.write(body.subarray(at, at + 16384));
      at += 16384;
      if (at < body.length) setTimeout(more, 20);
      else res.end();
    };
    more();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((ok) => server.close(ok)));

// A stream of the same chunks that is not a byte stream (no BYOB reader), as some browsers' streams are.
function plainStream(stream) {
  const reader = stream.getReader();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (why) => reader.cancel(why),
  });
}
// A Blob whose stream has no BYOB reader; `slices` counts the slice().arrayBuffer() reads the loader makes instead.
const counts = { slices: 0 };
function blobWithoutByob(blob) {
  return {
    size: blob.size,
    slice: (a, b) => blobWithoutByob(blob.slice(a, b)),
    arrayBuffer: () => {
      counts.slices++;
      return blob.arrayBuffer();
    },
    stream: () => plainStream(blob.stream()),
  };
}

// A case's files from one source: memory, blob, blob-no-byob, url, url-plain (fetch whose body has no BYOB reader),
// url-nolength. query: added to the weights' urls.
async function files(c, source, query = '') {
  const out = [];
  for (const name of namesOf(c)) {
    const path = join(MODELS_DIR, c, name),
      weights = name.endsWith('.safetensors');
    if (source === 'memory') out.push({ name, bytes: new Uint8Array(readFileSync(path)) });
    else if (source === 'blob') out.push({ name, bytes: await openAsBlob(path) });
    else if (source === 'blob-no-byob') out.push({ name, bytes: blobWithoutByob(await openAsBlob(path)) });
    else {
      const q = source === 'url-nolength' ? '?nolength' : weights ? query : '';
      out.push({ name: `${c}/${name}`, url: new URL(`/${c}/${name}${q}`, origin) });
    }
  }
  return out;
}
// The real fetch, its answers' bodies made plain streams, while `run` runs.
async function withPlainFetch(run) {
  const real = globalThis.fetch;
  globalThis.fetch = async (...a) => {
    const res = await real(...a);
    const body = plainStream(res.body);
    return { ok: res.ok, status: res.status, statusText: res.statusText, headers: res.headers, body };
  };
  try {
    return await run();
  } finally {
    globalThis.fetch = real;
  }
}

// gpt2's model.safetensors with a 5 MiB tensor the model does not read put in the middle of its data (as gpt2's own
// file holds 4 MiB attention masks between the weights); the file is then larger than the loader's 4 MiB buffer.
// `gap` and the loader's buffer: more than one buffer is read through a BYOB stream, what one buffer holds is sliced.
function withGap(bytes) {
  const n = Number(Buffer.from(bytes).readBigUInt64LE(0));
  const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + n)).toString());
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const middle = header[names.sort((a, b) => header[a].data_offsets[0] - header[b].data_offsets[0])[names.length >> 1]];
  const at = middle.data_offsets[0],
    gap = 5 << 20;
  for (const k of names)
    if (header[k].data_offsets[0] >= at) header[k].data_offsets = header[k].data_offsets.map((o) => o + gap);
  header['unread.weight'] = { dtype: 'F32', shape: [gap / 4], data_offsets: [at, at + gap] };
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = new Uint8Array(8 + text.length + bytes.length - 8 - n + gap);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(Buffer.from(text), 8);
  const data = bytes.subarray(8 + n),
    start = 8 + text.length;
  out.set(data.subarray(0, at), start);
  out.fill(0xff, start + at, start + at + gap); // NaN: refused were it copied into a weight
  out.set(data.subarray(at), start + at + gap);
  return out;
}
// A Blob's byte streams, counting the streams opened and the bytes they deliver.
function counting(blob, count) {
  return {
    size: blob.size,
    slice: (a, b) => counting(blob.slice(a, b), count),
    arrayBuffer: () => blob.arrayBuffer(),
    stream: () => {
      count.streams = (count.streams || 0) + 1;
      const reader = blob.stream().getReader();
      return new ReadableStream({
        type: 'bytes',
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          count.bytes += value.length;
          controller.enqueue(value);
        },
        cancel: (why) => reader.cancel(why),
      });
    },
  };
}

async function outputs(M, given) {
  const model = await M.loadModel(given);
  try {
    const out = model.forward(IDS, { logitsAt: model.info.hasLmHead ? [IDS.length - 1] : [] });
    return { info: model.info, attentions: out.attentions.data, hidden: out.hidden.data, logits: out.logits?.data };
  } finally {
    model.dispose();
  }
}

test('loadModel reads every kind of source into the same model', async (t) => {
  const M = await load(BUILDS[0]);
  for (const c of ['gpt2', 'llama-sharded', 'qwen2']) {
    const ref = await outputs(M, await files(c, 'memory'));
    for (const source of ['blob', 'blob-no-byob', 'url', 'url-plain', 'url-nolength']) {
      await t.test(`${c} from ${source}: the same weights, bit for bit`, async () => {
        counts.slices = 0;
        const given = await files(c, source);
        const got = source === 'url-plain' ? await withPlainFetch(() => outputs(M, given)) : await outputs(M, given);
        assert.deepEqual(got, ref);
        if (source === 'blob-no-byob') assert.ok(counts.slices > 0, 'read by slices');
      });
    }
  }

  await t.test('a tensor the model does not read, 5 MiB between the weights: a Blob skips it, unread', async () => {
    const given = await files('gpt2', 'memory');
    const ref = await outputs(M, given);
    const weights = given.find((f) => f.name === 'model.safetensors');
    const gapped = withGap(weights.bytes),
      count = { bytes: 0 };
    const swap = (bytes) => given.map((f) => (f === weights ? { name: f.name, bytes } : f));
    for (const bytes of [gapped, new Blob([gapped]), blobWithoutByob(new Blob([gapped]))])
      assert.deepEqual(await outputs(M, swap(bytes)), ref);
    const path = join(mkdtempSync(join(tmpdir(), 'mha-reading-')), 'model.safetensors');
    writeFileSync(path, gapped); // a file's Blob streams 64 KiB at a time (a Blob in memory, all at once)
    assert.deepEqual(await outputs(M, swap(counting(await openAsBlob(path), count))), ref);
    rmSync(dirname(path), { recursive: true });
    assert.ok(count.streams > 0 && count.bytes > 0, 'read through its stream');
    assert.ok(count.bytes < gapped.length - (4 << 20), `${count.bytes} of ${gapped.length} bytes streamed`);
  });

  await t.test('a Blob that one 4 MiB buffer holds is read in one slice, never through its stream', async () => {
    // Chromium's BYOB read of a small Blob's stream sometimes never answered while another frame read a Blob
    const given = await files('gpt2', 'memory'),
      count = { bytes: 0 };
    const ref = await outputs(M, given);
    const blobs = given.map((f) => ({ name: f.name, bytes: counting(new Blob([f.bytes]), count) }));
    assert.deepEqual(await outputs(M, blobs), ref);
    assert.equal(count.streams || 0, 0, 'streams opened');
  });

  await t.test('a url: progress from 0 to the weights, one request per file, shards named', async () => {
    const seen = [],
      requests = served.requests;
    const given = await files('llama-sharded', 'url');
    const model = await M.loadModel(given, { onProgress: (p) => seen.push(p) });
    model.dispose();
    assert.equal(
      served.requests - requests,
      given.length + 3,
      'each file once, and the shards after the first again for their data',
    );
    assert.equal(seen[0].loaded, 0);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].loaded > seen[i - 1].loaded);
    assert.equal(seen.at(-1).loaded, seen[0].total);
    assert.equal(new Set(seen.slice(1).map((p) => p.file)).size, 4, 'every shard read');
  });

  await t.test('a single file from a url is downloaded once', async () => {
    const requests = served.requests;
    const given = await files('gpt2', 'url');
    (await M.loadModel(given)).dispose();
    assert.equal(served.requests - requests, given.length, 'one request per file');
  });

  await t.test('cancel during a download: the load rejects, the download stops, the memory comes back', async () => {
    (await M.loadModel(await files('gpt2', 'memory'))).dispose();
    const before = heapUsed(M),
      unfinished = served.unfinished;
    const controller = new AbortController();
    const started = served.requests;
    const loading = M.loadModel(await files('gpt2', 'url', '?slow'), { signal: controller.signal });
    const poll = setInterval(() => served.requests > started + 1 && controller.abort(), 5);
    await assert.rejects(loading, (e) => e.name === 'AbortError');
    clearInterval(poll);
    requireHeapBack(M, before, 'after a cancelled download');
    for (let i = 0; i < 100 && served.unfinished === unfinished; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(served.unfinished, unfinished + 1, 'the server saw the download dropped');
  });

  await t.test('hostile downloads and Blobs: named, the memory back', async () => {
    (await M.loadModel(await files('gpt2', 'memory'))).dispose();
    const before = heapUsed(M);
    const size = readFileSync(join(MODELS_DIR, 'gpt2', 'model.safetensors')).length;
    await rejects(
      M.loadModel(
        (await files('gpt2', 'url')).map((f) =>
          f.name.endsWith('config.json') ? { ...f, url: `${origin}/nowhere/config.json` } : f,
        ),
      ),
      `config.json could not be fetched: ${origin}/nowhere/config.json answered 404 Not Found`,
    );
    await rejects(
      M.loadModel(await files('gpt2', 'url', '?cut=30000')),
      `the download of model.safetensors from ${origin}/gpt2/model.safetensors?cut=30000 failed after`,
      `of ${size} bytes`,
    );
    await rejects(
      M.loadModel(await files('gpt2', 'url', '?short=100')),
      'model.safetensors: this is not a valid .safetensors file: its tensors need',
      '(is it cut short?)',
    );
    await rejects(
      M.loadModel(['config.json', 'model.safetensors'].map((name) => ({ name, url: 'not a url' }))),
      'config.json could not be fetched from not a url',
    );
    // a Blob that fails or ends early, read in one slice (gpt2's weights) and through its stream (with a 5 MiB gap)
    const memory = await files('gpt2', 'memory'),
      weights = memory.find((f) => f.name === 'model.safetensors').bytes;
    for (const bytes of [weights, withGap(weights)]) {
      const n = bytes.length,
        withWeights = (blob) => memory.map((f) => (f.bytes === weights ? { name: f.name, bytes: blob } : f));
      const failing = {
        size: n,
        slice: () => failing,
        arrayBuffer: () => Promise.reject(new Error('the disk went away')),
        stream: () => new ReadableStream({ type: 'bytes', pull: (c) => c.error(new Error('the disk went away')) }),
      };
      await rejects(
        M.loadModel(withWeights(failing)),
        'model.safetensors could not be read (the disk went away): was it changed or moved since it was chosen?',
      );
      const cut = new Blob([bytes.subarray(0, n - 5000)]);
      const short = {
        size: n,
        slice: (a, b) => cut.slice(a, b),
        arrayBuffer: () => cut.arrayBuffer(),
        stream: () => cut.stream(),
      };
      await rejects(
        M.loadModel(withWeights(short)),
        `model.safetensors ended after ${n - 5000} of its ${n} bytes: was it changed while it was read?`,
      );
    }
    requireHeapBack(M, before, 'after the failed loads');
  });
});
