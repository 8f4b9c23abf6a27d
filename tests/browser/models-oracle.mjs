// The model page's checks against the oracle's tiny checkpoints (tests/models/make_checkpoints.py, build/models/<case>/:
// save_pretrained files and transformers' float64 results with their float32 error bounds), shared by the page's test
// (models.test.mjs) and the <mha-explorer model="…"> element's (models-element.test.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { serve } from '../../scripts/serve.mjs';
import { DIST, launch, repo } from './helpers.mjs';

export const python = () =>
  process.env.MHA_MODELS_PYTHON ||
  execFileSync('bash', [join(repo, 'scripts', 'venv-models')], { encoding: 'utf8' }).trim();

// The checkpoints' folder: build/models (CTest's models.checkpoints), or made now in a temporary folder (a test run
// alone). → {models, made (the folder to remove after, or null)}.
export function checkpoints() {
  const models = join(repo, 'build', 'models');
  if (existsSync(join(models, 'index.json'))) return { models, made: null };
  const made = mkdtempSync(join(tmpdir(), 'mha-models-'));
  execFileSync(python(), [join(repo, 'tests', 'models', 'make_checkpoints.py'), '--out', join(made, 'models')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { models: join(made, 'models'), made };
}

// A safetensors file of F64 tensors → {metadata (JSON-decoded), tensors: name → {shape, data: Float64Array}}.
export function readOracle(file) {
  const bytes = readFileSync(file),
    n = Number(bytes.readBigUInt64LE(0)),
    header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const out = { metadata: {}, tensors: {} };
  for (const [k, v] of Object.entries(header.__metadata__ || {})) {
    try {
      out.metadata[k] = JSON.parse(v);
    } catch {
      out.metadata[k] = v;
    }
  } // versions are plain
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [a, b] = t.data_offsets,
      buf = bytes.subarray(8 + n + a, 8 + n + b);
    out.tensors[name] = {
      shape: t.shape,
      data: new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)),
    };
  }
  return out;
}
// |ours − transformers' float64| ≤ the fixture's bound, element by element.
export function assertWithin(ours, ref, what) {
  const t = ref.tensors[what],
    b = ref.tensors[what + '.bound'];
  assert.deepEqual(ours.shape, t.shape, what + ' shape');
  assert.equal(ours.data.length, t.data.length);
  let worst = 0,
    at = -1;
  for (let i = 0; i < t.data.length; i++) {
    const excess = Math.abs(ours.data[i] - t.data[i]) - b.data[i];
    if (!(excess <= 0) && (at < 0 || excess > worst)) {
      worst = excess;
      at = i;
    }
  }
  assert.ok(
    at < 0,
    what + ': element ' + at + ' is ' + ours.data[at] + ', transformers ' + t.data[at] + ' ± ' + b.data[at],
  );
}
// The page's top 5 (ids, most probable first) against the float64 logits of one position with their bounds: every id
// the page lists is in transformers' top 5 up to ties within the bounds, in transformers' order up to such ties.
export function assertTop5(ids, logits, bounds, what) {
  const V = logits.length,
    order = Array.from({ length: V }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
  const fifth = logits[order[4]];
  assert.equal(ids.length, 5, what);
  ids.forEach((id, r) => {
    assert.ok(
      logits[id] + bounds[id] + bounds[order[4]] >= fifth,
      what + ': ' + id + ' (rank ' + r + ") is not in transformers' top 5 " + order.slice(0, 5),
    );
    if (r)
      assert.ok(
        logits[ids[r - 1]] + bounds[ids[r - 1]] + bounds[id] >= logits[id],
        what + ': ' + ids[r - 1] + ' before ' + id,
      );
  });
  for (const id of order.slice(0, 5)) {
    if (!ids.includes(id))
      assert.ok(
        logits[id] - bounds[id] - bounds[ids[4]] <= logits[ids[4]],
        what + ": transformers' " + id + ' is missing',
      );
  }
}
const row = (t, p, V) => ({ logits: Array.from(t.data.subarray(p * V, (p + 1) * V)) });

// Checks a loaded page against a case's oracle k: tokens, ids, every attention weight, and the top 5 with and without
// the fixture's heads switched off.
export async function checkAgainstOracle(page, ref, c, sel = null) {
  const meta = ref.metadata;
  // the API: window.mhaExplorer, or the element's at sel
  const call = (method, arg) =>
    page.evaluate(
      ([sel, method, arg]) => {
        const api = sel ? document.querySelector(sel).mhaExplorer : window.mhaExplorer,
          x = api[method](arg);
        return method === 'getWeights' ? { shape: x.shape, data: Array.from(x.data) } : x;
      },
      [sel, method, arg],
    );
  await call('set', { text: meta.text });
  assert.deepEqual(await call('getTokens'), meta.tokens, c + ': tokens');
  assert.deepEqual(await call('getIds'), meta.ids, c + ': ids');
  assertWithin(await call('getWeights'), ref, 'attentions');
  const top = await call('getTop');
  if (!ref.tensors.logits) {
    assert.equal(top.position, -1, c + ': no head, no prediction');
    return;
  }
  const at = meta.logits_at.indexOf(top.position),
    V = ref.tensors.logits.shape[1];
  assert.ok(at >= 0, c + ': the page predicts at ' + top.position + ', the fixture has ' + meta.logits_at);
  const full = row(ref.tensors.logits, at, V),
    fullB = row(ref.tensors['logits.bound'], at, V);
  assertTop5(
    top.full.map((t) => t.id),
    full.logits,
    fullB.logits,
    c + ' full model',
  );
  const ablated = await call('ablate', meta.heads_off);
  const off = row(ref.tensors['ablated.logits'], at, V),
    offB = row(ref.tensors['ablated.logits.bound'], at, V);
  assertTop5(
    ablated.map((t) => t.id),
    off.logits,
    offB.logits,
    c + ' heads ' + JSON.stringify(meta.heads_off) + ' off',
  );
  await call('ablate', []);
}

// A site of dist/ with the checkpoints at models/, served, and a browser: → {models, srv, browser, close()}.
export async function modelSite(prefix) {
  const { models, made } = checkpoints();
  const site = mkdtempSync(join(tmpdir(), prefix));
  for (const f of readdirSync(DIST)) symlinkSync(join(DIST, f), join(site, f));
  symlinkSync(models, join(site, 'models'));
  const srv = await serve(site);
  const browser = await launch();
  const close = async () => {
    await browser.close();
    await srv.close();
    rmSync(site, { recursive: true, force: true });
    if (made) rmSync(made, { recursive: true, force: true });
  };
  return { models, srv, browser, close };
}
