// Models by their Hub id (wasm/api/hub.js, hub-store.js) against a local Hub (fixtures/hub-server.mjs: resolve with
// a 302 to a content host on another port, Range, ETag, X-Repo-Commit, X-Error-Code): the oracle's tiny checkpoints
// and the real all-MiniLM-L6-v2 load by id with the bits their files give (and transformers' results within the
// oracle's bounds); the preview costs one ranged request per weight file; every failure of the network is said;
// a cut download resumes; the store (a CacheStorage) serves a second visit with no request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFile, execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { BUILDS, load, modelCases, MODELS_DIR, rejects, weightFiles } from './fixtures/reference.mjs';
import { readOracle, requireWithin } from './fixtures/oracle.mjs';
import { startHub, folderFiles } from './fixtures/hub-server.mjs';
import { MemoryCaches, MINILM_DIR } from './fixtures/hub-caches.mjs';

const CASES = modelCases();
const C1 = 'a'.repeat(40),
  C2 = 'b'.repeat(40);
const caseFiles = (name) => {
  const c = CASES.find((x) => x.case === name);
  return Object.fromEntries(weightFiles(c).map((f) => [f, join(MODELS_DIR, name, f)]));
};
const repos = {
  'sentence-transformers/all-MiniLM-L6-v2': { refs: { main: C1 }, commits: { [C1]: folderFiles(MINILM_DIR) } },
  'tiny/revisions': { refs: { main: C2, v1: C1 }, commits: { [C1]: caseFiles('gpt2'), [C2]: caseFiles('llama') } },
  'tiny/gated': { gated: true, commits: {} },
  'tiny/pickle': {
    refs: { main: C1 },
    commits: { [C1]: { 'config.json': caseFiles('gpt2')['config.json'], 'pytorch_model.bin': Buffer.from('pk') } },
  },
  'tiny/no-shard': {
    refs: { main: C1 },
    commits: {
      [C1]: Object.fromEntries(Object.entries(caseFiles('llama-sharded')).filter(([n]) => !/00002/.test(n))),
    },
  },
};
for (const c of CASES) repos[`tiny/${c.case}`] = { refs: { main: C1 }, commits: { [C1]: caseFiles(c.case) } };

let hub, M;
before(async () => {
  hub = await startHub(repos);
  M = await load(BUILDS[0]);
});
after(() => hub.close());

const fromDisk = (dir, names) => names.map((n) => ({ name: n, bytes: new Uint8Array(readFileSync(join(dir, n))) }));
const opts = (extra = {}) => ({ endpoint: hub.endpoint, store: false, ...extra });
const contentGets = () => hub.requests.filter((r) => r.host === 'content' && r.method === 'GET');

// The same forward's outputs, bit for bit.
function requireSameBits(what, a, b, ids) {
  const x = a.forward(ids),
    y = b.forward(ids);
  for (const k of ['attentions', 'hidden', 'logits']) assert.deepEqual(x[k], y[k], `${what}: ${k}, bit for bit`);
}

test('every tiny checkpoint by its id: the bits of its files, within transformers’ bounds', async () => {
  for (const c of CASES) {
    const model = await M.loadModel({ hub: `hf:tiny/${c.case}`, ...opts() });
    const files = await M.loadModel(fromDisk(join(MODELS_DIR, c.case), weightFiles(c)));
    const { meta, tensors } = readOracle(join(MODELS_DIR, c.case, c.oracles[0]));
    assert.deepEqual(model.tokenize(meta.text).ids, meta.ids, `${c.case}: token ids`);
    requireSameBits(c.case, model, files, meta.ids);
    requireWithin(c.case, model.forward(meta.ids).attentions, tensors, 'attentions');
    assert.equal(model.hub.commit, C1);
    model.dispose();
    files.dispose();
  }
});

test('the preview: family, layers × heads, dtype, parameters and bytes, one ranged request a weight file', async () => {
  const start = hub.requests.length;
  const p = await M.previewHubModel({ hub: 'tiny/llama-sharded', ...opts() });
  const asked = hub.requests.slice(start);
  const shards = p.files.filter((f) => f.kind === 'weights');
  assert.ok(shards.length > 1, 'a sharded checkpoint');
  const ranged = asked.filter((r) => r.host === 'content');
  assert.equal(ranged.length, shards.length, 'one request to the content host per shard');
  assert.ok(
    ranged.every((r) => r.range === 'bytes=0-65535'),
    'each a Range request',
  );
  assert.ok(p.headerBytes <= 1 << 20, 'at most 1 MB of headers');
  assert.equal(p.commit, C1);
  assert.equal(p.modelType, 'llama');
  assert.equal(p.unsupported, null);
  const c = CASES.find((x) => x.case === 'llama-sharded');
  const sizes = weightFiles(c).map((n) => readFileSync(join(MODELS_DIR, 'llama-sharded', n)).length);
  assert.equal(
    p.downloadBytes,
    sizes.reduce((a, b) => a + b, 0),
    'the bytes to download: every file',
  );
  assert.ok(p.params > 0 && p.dtype === 'F32' && p.memory.fits);
});

test('all-MiniLM-L6-v2 by its id: the sentence-transformers layout, the bits of its files', async () => {
  const id = 'sentence-transformers/all-MiniLM-L6-v2';
  const p = await M.previewHubModel({ hub: id, ...opts() });
  assert.equal(p.modelType, 'bert');
  assert.deepEqual([p.layers, p.heads, p.dtype], [6, 12, 'F32']);
  assert.ok(Math.abs(p.params - 22.7e6) < 0.1e6, `22.7M parameters, got ${p.params}`);
  assert.ok(p.files.some((f) => f.path === '1_Pooling/config.json') && p.files.some((f) => f.path === 'modules.json'));
  const got = await M.downloadHubModel({ hub: id, ...opts() });
  assert.deepEqual(got.files.map((f) => f.name).sort(), p.files.map((f) => f.path).sort());
  const model = await M.loadModel({ hub: id, ...opts() });
  const files = await M.loadModel(
    fromDisk(MINILM_DIR, ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']),
  );
  requireSameBits('MiniLM', model, files, model.tokenize('The cat sat on the mat.').ids);
  model.dispose();
  files.dispose();
});

test('a revision: @v1 and revision: resolve to their commits, pinned in model.hub', async () => {
  const v1 = await M.loadModel({ hub: 'tiny/revisions@v1', ...opts() });
  const main = await M.loadModel({ hub: 'tiny/revisions', ...opts() });
  assert.equal(v1.info.modelType, 'gpt2');
  assert.equal(main.info.modelType, 'llama');
  assert.deepEqual([v1.hub.commit, main.hub.commit, v1.hub.revision], [C1, C2, 'v1']);
  v1.dispose();
  main.dispose();
  const pinned = await M.previewHubModel({ hub: 'tiny/revisions', revision: C1, ...opts() });
  assert.equal(pinned.modelType, 'gpt2');
});

test('the Hub’s refusals, each said with the file and what to do', async () => {
  await rejects(M.loadModel({ hub: 'tiny/nothing', ...opts() }), 'tiny/nothing is not a model on');
  await rejects(M.loadModel({ hub: 'tiny/gated', ...opts() }), 'gated', 'cannot log in', 'hf download tiny/gated');
  await rejects(M.loadModel({ hub: 'tiny/llama@nope', ...opts() }), 'has no revision "nope"');
  await rejects(M.loadModel({ hub: 'tiny/pickle', ...opts() }), 'only pytorch_model.bin');
  await rejects(M.loadModel({ hub: 'tiny/no-shard', ...opts() }), 'has no file', '00002');
  await rejects(M.loadModel({ hub: 'not a/model id', ...opts() }), 'is not a Hub model id');
  await rejects(M.loadModel({ hub: 'tiny/llama@v1', revision: 'main', ...opts() }), 'give the revision once');
  await rejects(M.loadModel({ hub: 'tiny/llama', ...opts({ endpoint: 'http://127.0.0.1:9' }) }), 'offline');
  hub.fault((r) => r.host === 'hub' && { status: 429 });
  await rejects(M.loadModel({ hub: 'tiny/llama', ...opts() }), 'too many requests (429)');
  hub.clear();
});

test('a 503 then a 200: tried again; maxBytes refuses before any weight is fetched', async () => {
  let n = 0;
  hub.fault((r) => r.host === 'hub' && n++ < 1 && { status: 503 });
  const model = await M.loadModel({ hub: 'tiny/gpt2', ...opts() });
  model.dispose();
  hub.clear();
  const start = contentGets().length;
  await rejects(
    M.loadModel({ hub: 'tiny/gpt2', maxBytes: 1000, ...opts() }),
    'above maxBytes',
    'nothing was downloaded',
  );
  assert.ok(
    contentGets()
      .slice(start)
      .every((r) => r.range === 'bytes=0-65535'),
    'only the header was read',
  );
});

test('a download cut at 40 %, once and twice in a row: resumed with Range, the same bits; four times: said', async () => {
  const reference = await M.loadModel({ hub: 'sentence-transformers/all-MiniLM-L6-v2', ...opts() });
  const ids = reference.tokenize('Resumed downloads give the same bits.').ids;
  for (const cuts of [1, 2]) {
    let n = 0;
    hub.fault((r) => r.host === 'content' && r.range !== 'bytes=0-65535' && n++ < cuts && { cutAt: 0.4 + 0.1 * n });
    const start = contentGets().length;
    const model = await M.loadModel({ hub: 'sentence-transformers/all-MiniLM-L6-v2', ...opts() });
    const resumed = contentGets()
      .slice(start)
      .filter((r) => r.range && r.range !== 'bytes=0-65535');
    assert.equal(resumed.length, cuts, `${cuts} resumed request(s)`);
    assert.ok(
      resumed.every((r) => /^bytes=[1-9]\d*-$/.test(r.range)),
      'each from where it stopped',
    );
    requireSameBits(`cut ${cuts}×`, model, reference, ids);
    model.dispose();
    hub.clear();
  }
  reference.dispose();
  hub.fault((r) => r.host === 'content' && r.range !== 'bytes=0-65535' && { cutAt: 0.4 });
  await rejects(
    M.loadModel({ hub: 'sentence-transformers/all-MiniLM-L6-v2', ...opts() }),
    'the download of model.safetensors of sentence-transformers/all-MiniLM-L6-v2 failed 4 times',
    'at byte',
  );
  hub.clear();
});

test('a body shorter than its Content-Length (resumed once, refused when it always is), a changed ETag: said', async () => {
  // every answer ends short of the file and of its Content-Length: refused after TRIES resumptions
  hub.fault((r) => r.host === 'content' && r.range !== 'bytes=0-65535' && { lie: 1000, cutAt: 0.5 });
  await rejects(M.loadModel({ hub: 'tiny/gpt2', ...opts() }), 'failed 4 times', 'model.safetensors');
  hub.clear();
  // the whole file, then the connection cut before the Content-Length's extra bytes: the file's size (the preview's)
  // is all that is read, the same bits
  hub.fault((r) => r.host === 'content' && r.range !== 'bytes=0-65535' && { lie: 1000 });
  const lied = await M.loadModel({ hub: 'tiny/gpt2', ...opts() });
  const folder = await M.loadModel(fromDisk(join(MODELS_DIR, 'gpt2'), ['config.json', 'model.safetensors']));
  requireSameBits('a lying Content-Length', lied, folder, [1, 2, 3]);
  lied.dispose();
  folder.dispose();
  hub.clear();
  let n = 0;
  hub.fault((r) => r.host === 'content' && r.range !== 'bytes=0-65535' && n++ < 1 && { lie: 1000 });
  (await M.loadModel({ hub: 'tiny/gpt2', ...opts() })).dispose();
  hub.clear();
  hub.fault((r) => r.host === 'content' && r.range === null && { etag: '"changed"' });
  await rejects(
    M.loadModel({ hub: 'tiny/gpt2', ...opts() }),
    'changed on the Hub between its preview and its download',
  );
  hub.clear();
});

test('the store: a second visit with no request, the same bits; listed, deleted; a refused write still loads', async () => {
  const store = new MemoryCaches();
  const first = await M.loadModel({ hub: 'tiny/llama-sharded', ...opts({ store }) });
  assert.equal(first.hub.stored, true);
  const listed = await M.storedHubModels({ store });
  assert.deepEqual(
    listed.map((m) => [m.id, m.commit]),
    [[`tiny/llama-sharded@${C1}`, C1]],
  );
  assert.ok(listed[0].bytes > 0);
  const start = hub.requests.length;
  const second = await M.loadModel({ hub: 'tiny/llama-sharded', ...opts({ store }) });
  assert.equal(hub.requests.length, start, 'no request on the second visit');
  assert.equal(second.hub.fromStore, true);
  requireSameBits('stored', first, second, [1, 2, 3, 4]);
  first.dispose();
  second.dispose();
  assert.equal(await M.deleteStoredHubModel(listed[0].id, { store }), true);
  assert.deepEqual(await M.storedHubModels({ store }), []);
  const full = new MemoryCaches({ refuse: true });
  const model = await M.loadModel({ hub: 'tiny/gpt2', ...opts({ store: full }) });
  assert.equal(model.hub.stored, false);
  assert.match(model.hub.storeError, /refused to store/);
  model.dispose();
});

test('the first visit: the weights loaded while they download and are stored, one GET each; a cut resumed in both', async () => {
  const id = 'sentence-transformers/all-MiniLM-L6-v2';
  const store = new MemoryCaches();
  let n = 0;
  hub.fault((r) => r.host === 'content' && r.range !== 'bytes=0-65535' && n++ < 1 && { cutAt: 0.4 });
  const start = contentGets().length;
  const first = await M.loadModel({ hub: id, ...opts({ store }) });
  hub.clear();
  const gets = contentGets()
    .slice(start)
    .filter((r) => r.range !== 'bytes=0-65535'); // the preview's header
  assert.deepEqual(
    gets.map((r) => (r.range === null ? 'whole' : 'resumed')),
    ['whole', 'resumed'],
    'model.safetensors asked once, then resumed once: never read twice',
  );
  assert.equal(first.hub.stored, true, first.hub.storeError);
  const cache = await store.open('mha-explorer-hub');
  const kept = await cache.match(`${hub.endpoint}/${id}/resolve/${C1}/model.safetensors`);
  const want = readFileSync(join(MINILM_DIR, 'model.safetensors'));
  assert.ok(Buffer.from(await kept.arrayBuffer()).equals(want), 'the stored file: the bytes of the file');
  const second = await M.loadModel({ hub: id, ...opts({ store }) });
  assert.equal(second.hub.fromStore, true);
  requireSameBits('first and second visit', first, second, first.tokenize('Kept for the next visit.').ids);
  first.dispose();
  second.dispose();
});

test('Cancel during the download: rejects with the signal’s reason at once, nothing stored', async () => {
  const store = new MemoryCaches();
  const abort = new AbortController();
  const loading = M.loadModel({
    hub: 'sentence-transformers/all-MiniLM-L6-v2',
    ...opts({ store }),
    signal: abort.signal,
    onProgress: (p) => p.phase === 'download' && p.loaded > 4e6 && abort.abort(new Error('cancelled by the test')),
  });
  await assert.rejects(loading, /cancelled by the test/);
  assert.deepEqual(await M.storedHubModels({ store }), [], 'no model listed');
  assert.equal(await M.deleteStoredHubModel(undefined, { store }), true, 'the whole cache deleted');
});

// The models' venv's python (huggingface_hub 1.33).
const modelsPython = () =>
  process.env.MHA_MODELS_PYTHON ||
  execFileSync('bash', [fileURLToPath(new URL('../../scripts/venv-models', import.meta.url))], {
    encoding: 'utf8',
  }).trim();
const HF_CHECK = `
import json, os, sys
import huggingface_hub as h
from mha_explorer import _hub_cache
out = {"files": {f: os.path.getsize(h.hf_hub_download("tiny/gpt2", f)) for f in sys.argv[1:]}, "errors": []}
for repo, f, rev in [("tiny/gpt2", "nope.json", "main"), ("tiny/gpt2", "config.json", "nope"), ("tiny/nothing", "config.json", "main"), ("tiny/gated", "config.json", "main")]:
    try:
        h.hf_hub_download(repo, f, revision=rev)
    except Exception as e:
        out["errors"].append(type(e).__name__)
folder, repo, commit = _hub_cache.snapshot_folder("tiny/gpt2")
out["snapshot"] = [str(folder), commit, sorted(os.listdir(folder))]
print(json.dumps(out))
`;

test('huggingface_hub reads the local Hub as the Hub: its downloads, its errors, its cache as mx reads it', async () => {
  const names = ['config.json', 'model.safetensors', 'tokenizer.json'];
  const local = await startHub(repos, { contentHost: 'localhost' }); // another host name than the Hub's (below)
  const home = mkdtempSync(join(tmpdir(), 'mha-hf-home-'));
  try {
    const env = { ...process.env, HF_ENDPOINT: local.endpoint, HF_HOME: home, HF_HUB_DISABLE_XET: '1' };
    Object.assign(env, { HF_HUB_ETAG_TIMEOUT: '120', HF_HUB_DOWNLOAD_TIMEOUT: '120' }); // a busy machine's answers
    env.PYTHONPATH = fileURLToPath(new URL('../../python', import.meta.url));
    delete env.HF_HUB_CACHE;
    // scripts/env.sh's offline switches: huggingface_hub reads TRANSFORMERS_OFFLINE as HF_HUB_OFFLINE (constants.py)
    delete env.HF_HUB_OFFLINE;
    delete env.TRANSFORMERS_OFFLINE;
    const run = promisify(execFile)(modelsPython(), ['-c', HF_CHECK, ...names], { env });
    const { stdout } = await run.catch((e) => assert.fail(`huggingface_hub failed: ${e.stderr || e.message}`));
    const got = JSON.parse(stdout);
    for (const n of names)
      assert.equal(got.files[n], readFileSync(join(MODELS_DIR, 'gpt2', n)).length, `${n}: huggingface_hub's download`);
    assert.deepEqual(got.errors, [
      'RemoteEntryNotFoundError',
      'RevisionNotFoundError',
      'RepositoryNotFoundError',
      'GatedRepoError',
    ]);
    const [folder, commit, files] = got.snapshot;
    assert.equal(folder, join(home, 'hub', 'models--tiny--gpt2', 'snapshots', C1));
    assert.equal(commit, C1);
    assert.deepEqual(files, names.slice().sort());
    const redirected = local.requests.filter((r) => r.host === 'content').map((r) => r.method);
    assert.ok(redirected.includes('GET'), "model.safetensors from the content host, after the Hub's 302");
  } finally {
    local.close();
    rmSync(home, { recursive: true, force: true });
  }
});
