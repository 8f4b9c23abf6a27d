// A load always settles, and its failures say what happened and where (issue 38's items 2 and 3): reads that
// never answer (a Blob's stream, its slices, a stream that answers then stops) are retried once as a slice after the
// stall timeout, then refused naming the file and the byte; signal.abort() rejects at once and frees the memory; a
// server answering HTML, a Blob the browser refuses to read back, a config with fewer layers than the weights (the
// unused ones in model.warnings), Node's relative and file:// URLs, forward after dispose(). The reading code is JS
// only (wasm/api/cursor.js), the same in every build: this file runs dist/mha.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILDS, heapUsed, load, MODELS_DIR, rejects, requireHeapBack } from './fixtures/reference.mjs';

const FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
const bytesOf = (c, f) => new Uint8Array(readFileSync(join(MODELS_DIR, c, f)));
const filesOf = (c, change = {}) => FILES.map((f) => ({ name: f, bytes: f in change ? change[f] : bytesOf(c, f) }));
const never = () => new Promise(() => {});

// A Blob whose reads behave as told: `slices` 'ok' | 'hang' | 'hang-once' (the first slice read never answers) |
// Error (every slice read rejects with it); `stream` 'ok' | 'hang' | a byte count after which it stops answering.
class TestBlob {
  constructor(bytes, how, state = { sliceReads: 0 }) {
    Object.assign(this, { bytes, how, state });
  }
  get size() {
    return this.bytes.length;
  }
  slice(a = 0, b = this.size) {
    return new TestBlob(this.bytes.subarray(a, b), this.how, this.state);
  }
  arrayBuffer() {
    const { slices } = this.how;
    this.state.sliceReads++;
    if (slices instanceof Error) return Promise.reject(slices);
    if (slices === 'hang' || (slices === 'hang-once' && this.state.sliceReads === 1)) return never();
    return Promise.resolve(this.bytes.slice().buffer);
  }
  stream() {
    const { stream } = this.how,
      bytes = this.bytes;
    let at = 0;
    return new ReadableStream({
      type: 'bytes',
      pull(controller) {
        const stopAt = stream === 'hang' ? 0 : stream === 'ok' ? bytes.length : stream;
        if (at >= bytes.length) return controller.close();
        if (at >= stopAt) return never();
        const n = Math.min(1 << 20, bytes.length - at, stopAt - at);
        controller.enqueue(bytes.slice(at, at + n));
        at += n;
      },
    });
  }
}

let M;
before(async () => {
  M = await load(BUILDS[0]);
});

// The same forward's attentions from a model loaded from `files` as from the checkpoint's bytes.
async function requireSameModel(files, c, options) {
  const ref = await M.loadModel(filesOf(c));
  const model = await M.loadModel(files, options);
  try {
    const ids = ref.tokenize('The cat sat on the mat').ids;
    assert.deepEqual(model.forward(ids).attentions, ref.forward(ids).attentions);
  } finally {
    ref.dispose();
    model.dispose();
  }
}

test('stall: a slice read that never answers is read again once; the load gives the same model', async () => {
  const blob = new TestBlob(bytesOf('gpt2', 'model.safetensors'), { slices: 'hang-once', stream: 'hang' });
  await requireSameModel(filesOf('gpt2', { 'model.safetensors': blob }), 'gpt2', { stallTimeout: 50 });
  assert.ok(blob.state.sliceReads >= 2, 'the stalled slice was read again');
});

test('stall: a Blob whose reads never answer is refused after the retry, naming the file and the byte', async () => {
  const blob = new TestBlob(bytesOf('gpt2', 'model.safetensors'), { slices: 'hang', stream: 'hang' });
  const t0 = Date.now();
  await rejects(
    M.loadModel(filesOf('gpt2', { 'model.safetensors': blob }), { stallTimeout: 50 }),
    'model.safetensors could not be read: the browser gave no bytes for 0.05 s at byte 0 of ',
    'twice',
  );
  assert.ok(Date.now() - t0 < 5000, 'refused within a few stall timeouts');
});

test('stall: a large Blob whose stream answers, then stops, goes on in slices; one whose slices hang too is refused at the byte reached', async () => {
  const weights = bytesOf('minilm', 'model.safetensors');
  const stops = new TestBlob(weights, { slices: 'ok', stream: 5 << 20 });
  await requireSameModel(filesOf('minilm', { 'model.safetensors': stops }), 'minilm', { stallTimeout: 100 });
  const dead = new TestBlob(weights, { slices: 'hang', stream: 5 << 20 });
  await rejects(
    M.loadModel(filesOf('minilm', { 'model.safetensors': dead }), { stallTimeout: 100 }),
    `at byte ${5 << 20} of ${weights.length}`,
  );
});

test('abort: signal.abort() rejects at once while a read waits forever, and frees what the load held', async () => {
  const blob = new TestBlob(bytesOf('minilm', 'model.safetensors'), { slices: 'ok', stream: 20 << 20 });
  const warm = await M.loadModel(filesOf('gpt2'));
  warm.dispose();
  const before = heapUsed(M);
  const controller = new AbortController();
  const loading = M.loadModel(filesOf('minilm', { 'model.safetensors': blob }), {
    signal: controller.signal,
    stallTimeout: 3600000,
  });
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  controller.abort(new Error('stopped by the test'));
  await rejects(loading, 'stopped by the test');
  assert.ok(Date.now() - t0 < 200, `rejected ${Date.now() - t0} ms after abort()`);
  requireHeapBack(M, before, 'after the aborted load');
});

test("a Blob the browser will not read back: the message says what Chromium's Blob memory limit means", async () => {
  const refused = new DOMException('The requested file could not be read', 'NotReadableError');
  const blob = new TestBlob(bytesOf('gpt2', 'model.safetensors'), { slices: refused, stream: 'hang' });
  await rejects(
    M.loadModel(filesOf('gpt2', { 'model.safetensors': blob })),
    'model.safetensors could not be read at byte 0 of',
    'Blob memory is full',
    "load from an <input>'s Files or from URLs",
  );
});

test('config.json with fewer layers than the weights: the model runs them and model.warnings names the rest', async () => {
  const config = JSON.parse(new TextDecoder().decode(bytesOf('gpt2', 'config.json')));
  assert.ok(config.n_layer >= 2, 'the tiny GPT-2 has layers to leave out');
  const fewer = new TextEncoder().encode(JSON.stringify({ ...config, n_layer: 1 }));
  const model = await M.loadModel(filesOf('gpt2', { 'config.json': fewer }));
  const whole = await M.loadModel(filesOf('gpt2'));
  try {
    assert.equal(model.info.layers, 1);
    assert.equal(model.warnings.length, 1);
    const layers = Array.from({ length: config.n_layer - 1 }, (_, i) => i + 1).join(', ');
    assert.match(
      model.warnings[0],
      new RegExp(`^the weights hold layers? ${layers} \\(\\d+ tensors, such as h\\.1\\.`),
    );
    assert.match(model.warnings[0], /config\.json's 1 layers do not reach: they are not used/);
    assert.deepEqual(whole.warnings, [], 'a checkpoint read whole has no warning');
    assert.ok(Object.isFrozen(model.warnings));
  } finally {
    model.dispose();
    whole.dispose();
  }
});

test('forward and tokenize after dispose() say that the model was disposed', async () => {
  const model = await M.loadModel(filesOf('gpt2'));
  model.dispose();
  assert.throws(
    () => model.forward([1, 2]),
    /this model was disposed \(model\.dispose\(\)\): load the checkpoint again/,
  );
  assert.throws(() => model.tokenize('a'), /this model was disposed/);
});

test("Node's URLs: a file:// URL is read in place (fs.openAsBlob); a relative one is refused with the ways to give it", async () => {
  const dir = join(MODELS_DIR, 'gpt2');
  const files = FILES.map((f) => ({ name: f, url: pathToFileURL(join(dir, f)) }));
  await requireSameModel(files, 'gpt2');
  await rejects(
    M.loadModel([{ name: 'config.json', url: 'models/gpt2/config.json' }, ...filesOf('gpt2').slice(1)]),
    'files[0] (config.json): the url "models/gpt2/config.json" is relative, and Node has no page',
    'url.pathToFileURL(path)',
    'fs.openAsBlob(path)',
  );
  await rejects(
    M.loadModel([{ name: 'config.json', url: pathToFileURL(join(dir, 'missing.json')) }, ...filesOf('gpt2').slice(1)]),
    'config.json could not be opened from file://',
    'missing.json',
  );
});

// A dev server that answers every path with its index.html (200), as Vite's and webpack's do for a missing file;
// /octet/… answers the same page as application/octet-stream (the type no guide for HTML).
let server, origin;
before(async () => {
  server = createServer((req, res) => {
    const type = req.url.startsWith('/octet/') ? 'application/octet-stream' : 'text/html';
    res.writeHead(200, { 'content-type': type });
    res.end('<!doctype html><html><head><title>app</title></head><body><div id="app"></div></body></html>\n');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
});
after(() => server?.close());

test("a server that answers HTML where a checkpoint's file was expected: the message names the URL and says why", async () => {
  const rest = filesOf('gpt2').slice(1);
  await rejects(
    M.loadModel([{ name: 'config.json', url: `${origin}/models/gpt2/config.json` }, ...rest]),
    `${origin}/models/gpt2/config.json answered an HTML page where config.json was expected: is the path right?`,
    'Dev servers answer a missing file with their index.html',
  );
  await rejects(
    M.loadModel([{ name: 'config.json', url: `${origin}/octet/config.json` }, ...rest]),
    `${origin}/octet/config.json answered an HTML page where config.json was expected`,
  );
  const [config, , ...tok] = filesOf('gpt2');
  await rejects(
    M.loadModel([config, { name: 'model.safetensors', url: `${origin}/octet/model.safetensors` }, ...tok]),
    `${origin}/octet/model.safetensors answered an HTML page where model.safetensors was expected`,
  );
  const page = new TextEncoder().encode('<!DOCTYPE html>\n<html lang="en"></html>\n');
  await rejects(
    M.loadModel(filesOf('gpt2', { 'model.safetensors': page })),
    "model.safetensors is an HTML page, not the checkpoint's file",
  );
});
