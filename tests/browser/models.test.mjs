// The model page (dist/models.html) in Chromium with the oracle's tiny checkpoints (tests/models/make_checkpoints.py,
// build/models/<case>/: save_pretrained files and transformers' float64 results with their float32 error bounds), loaded
// by model= (a folder next to the page) and by dropped files: getWeights() equals transformers' attentions within the
// bounds, the tokens equal Python tokenizers', the top 5 with heads switched off equal the fixtures' ablated logits' top
// 5; broken folders (each file missing in turn, a truncated shard, a config that lies) get a message naming the file
// and the page still loads the next good folder; the Copy as Python snippet prints the page's numbers in transformers;
// file:// with a dropped folder; a strict Content-Security-Policy; no request beyond the page's host; the grid without a
// sideways scroll from 1280 to 320 px wide (on a phone a layer's heads wrap into equal rows; the keys across a wrap);
// axe-core finds no violation; screenshots (desktop, phone, dark, the grid at 320 px) in
// tests/browser/artifacts/models-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { ARTIFACTS, DIST, axeViolations, guardedPage, launch } from './helpers.mjs';
import { checkAgainstOracle as check, checkpoints, python, readOracle } from './models-oracle.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
// The policy an instructor's host can send: nothing from elsewhere, wasm compiled, inline styles (the attention view's
// stylesheet), blob: workers.
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; worker-src 'self' blob:";
// The oracle's cases loaded by model= (every family, F16 and BF16 files, a sharded checkpoint, one without a head, and the
// real all-MiniLM-L6-v2), each on all its texts but MiniLM's 20: lesson 004's sentence and the 5 after it.
const CASES = [
  'gpt2',
  'distilgpt2',
  'gpt2-f16',
  'bert',
  'bert-noprefix',
  'bert-gamma',
  'bert-bf16',
  'distilbert',
  'llama',
  'llama-untied',
  'llama-sharded',
  'qwen2',
  'qwen2-bf16',
  'pythia',
  'neox-sequential',
  'tinystories',
  'tinystories-bf16',
  'opt',
  'opt-postnorm',
  'qwen3',
  'qwen3-bf16',
  'smollm3',
  'gemma',
  'gemma-bf16',
  'gemma2',
  'gemma2-bf16',
  'gemma3',
  'gemma3-bf16',
  'modernbert',
  'modernbert-bf16',
  'roberta',
  'xlm-roberta',
  'minilm',
];
const TEXTS = { minilm: 6 };

// ---- The fixtures ---------------------------------------------------------------------------------------------------
const oracle = (c, k = 0) => readOracle(join(models, c, 'oracle-' + k + '.safetensors'));
const checkAgainstOracle = (page, c, k = 0) => check(page, oracle(c, k), c);
const filesOf = (c) => readdirSync(join(models, c)).filter((f) => !/^oracle-/.test(f));

// Broken copies of good checkpoints: each file missing in turn, a missing and a truncated shard, configs that lie.
// {what, from (the good case), skip (files left out), edit: {file: bytes → bytes}, names (what the message must name)};
// shard: the first or second shard of llama-sharded, by name.
const shardsOf = (c) =>
  filesOf(c)
    .filter((f) => /^model-\d+-of-\d+\.safetensors$/.test(f))
    .sort();
const lie = (change) => (bytes) => JSON.stringify(Object.assign(JSON.parse(bytes.toString('utf8')), change));
const BROKEN = [
  ...['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => ({
    what: 'no ' + f,
    from: 'gpt2',
    skip: [f],
    names: f + ' is missing',
  })),
  { what: 'a missing shard', from: 'llama-sharded', skip: [1], names: 1 },
  { what: 'a truncated shard', from: 'llama-sharded', edit: { 0: (b) => b.subarray(0, b.length - 100) }, names: 0 },
  {
    what: 'a truncated model.safetensors',
    from: 'gpt2',
    edit: { 'model.safetensors': (b) => b.subarray(0, Math.floor(b.length / 2)) },
    names: 'model.safetensors',
  },
  {
    what: 'a config that lies about the width',
    from: 'gpt2',
    edit: { 'config.json': lie({ n_embd: 64 }) },
    names: /config\.json/,
  },
  {
    what: 'a config that lies about the vocabulary',
    from: 'bert',
    edit: { 'config.json': lie({ vocab_size: 999 }) },
    names: /config\.json/,
  },
  {
    what: 'a config of a model the core does not implement',
    from: 'gpt2',
    edit: { 'config.json': lie({ model_type: 'bloom' }) },
    names: /bloom/,
  },
].map((b, i) => Object.assign(b, { folder: 'broken-' + i }));
function makeBroken(dir) {
  for (const b of BROKEN) {
    const shard = (x) => (typeof x === 'number' ? shardsOf(b.from)[x] : x);
    const skip = (b.skip || []).map(shard),
      edit = Object.fromEntries(Object.entries(b.edit || {}).map(([k, f]) => [shard(/^\d+$/.test(k) ? +k : k), f]));
    if (typeof b.names === 'number') b.names = shard(b.names);
    const to = join(dir, b.folder);
    mkdirSync(to, { recursive: true });
    for (const f of filesOf(b.from)) {
      if (skip.includes(f)) continue;
      if (edit[f]) writeFileSync(join(to, f), edit[f](readFileSync(join(models, b.from, f))));
      else copyFileSync(join(models, b.from, f), join(to, f));
    }
  }
}

let models,
  made = null,
  site,
  srv,
  cspSrv,
  browser;
before(async () => {
  ({ models, made } = checkpoints());
  // the page's folder as an instructor uploads it: dist/'s files, the checkpoints in models/, and broken folders in broken/
  site = mkdtempSync(join(tmpdir(), 'mha-models-site-'));
  for (const f of readdirSync(DIST)) symlinkSync(join(DIST, f), join(site, f));
  symlinkSync(models, join(site, 'models'));
  makeBroken(join(site, 'broken'));
  // a good folder without the optional tokenizer_config.json
  mkdirSync(join(site, 'optional', 'gpt2'), { recursive: true });
  for (const f of filesOf('gpt2'))
    if (f !== 'tokenizer_config.json') copyFileSync(join(models, 'gpt2', f), join(site, 'optional', 'gpt2', f));
  srv = await serve(site);
  cspSrv = await serve(site, { headers: { 'content-security-policy': CSP } });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
  await cspSrv?.close();
  if (site) rmSync(site, { recursive: true, force: true });
  if (made) rmSync(made, { recursive: true, force: true });
});

// ---- Helpers ------------------------------------------------------------------------------------------------------
async function open(url, { allowed, csp, console } = {}) {
  const base = (csp ? cspSrv : srv).origin;
  const g = await guardedPage(
    browser.context,
    allowed || ((u) => u.startsWith(base + '/') || u.startsWith('data:') || u.startsWith('blob:')),
  );
  if (console) g.page.on('console', console);
  if (csp) {
    await g.page.addInitScript(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__violations.push(e.effectiveDirective + ' ' + e.blockedURI),
      );
    });
  }
  await g.page.goto(url.startsWith('file:') ? url : base + '/' + url);
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 20000 });
  g.ready = await g.page.evaluate(() => window.mhaExplorer.ready);
  return g;
}
// Console errors but the server's 404s for the files a folder may lack (tokenizer_config.json, model.safetensors of a
// sharded checkpoint) and those a broken folder lacks.
const realErrors = (g) =>
  g.errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e));
async function closeClean(g) {
  assert.deepEqual(realErrors(g), [], 'console errors');
  assert.deepEqual(g.foreign, [], "requests beyond the page's host");
  await g.page.close();
}

// Files of a folder dropped on the page: a DataTransfer of Files (their bytes from Node) and a drop event on the body.
async function drop(page, c, dir = join(models, c)) {
  const files = filesOf(c).map((f) => ({ name: f, b64: readFileSync(join(dir, f)).toString('base64') }));
  return page.evaluate(async (files) => {
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (ch) => ch.charCodeAt(0))], f.name));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    await window.mhaExplorer.ready; // the drop's load
    return window.mhaExplorer.getMessages();
  }, files);
}

// ---- The tests ----------------------------------------------------------------------------------------------------
for (const c of CASES) {
  test(
    c + " by model=: tokens, every head of every layer and the top 5 with heads off equal transformers'",
    async () => {
      const g = await open('models.html?model=models/' + c + '/');
      assert.equal(
        g.ready,
        true,
        'loaded: ' + JSON.stringify(await g.page.evaluate(() => window.mhaExplorer.getMessages())),
      );
      const n = TEXTS[c] || readdirSync(join(models, c)).filter((f) => /^oracle-\d+\.safetensors$/.test(f)).length;
      for (let k = 0; k < n; k++) await checkAgainstOracle(g.page, c, k);
      await closeClean(g);
    },
  );
}

test('dropped files: the page loads them as model= does, then the next folder', async () => {
  const g = await open('models.html');
  assert.equal(g.ready, false, 'no model yet');
  assert.deepEqual(await drop(g.page, 'gpt2'), []);
  await checkAgainstOracle(g.page, 'gpt2');
  assert.deepEqual(await drop(g.page, 'distilbert'), []);
  await checkAgainstOracle(g.page, 'distilbert');
  // the same tokens again (the same folder, or a sibling checkpoint of one tokenizer): the picked token stays
  const picked = () => g.page.evaluate(() => document.getElementById('look-from').value);
  await g.page.selectOption('#look-from', '1');
  assert.deepEqual(await drop(g.page, 'distilbert'), []);
  assert.equal(await picked(), '1');
  await checkAgainstOracle(g.page, 'distilbert');
  await closeClean(g);
});

test('files chosen in the file dialog (one by one, and a folder)', async () => {
  const g = await open('models.html');
  await g.page.setInputFiles(
    '#pick-files',
    filesOf('qwen2').map((f) => join(models, 'qwen2', f)),
  );
  assert.equal(await g.page.evaluate(() => window.mhaExplorer.ready), true);
  await checkAgainstOracle(g.page, 'qwen2');
  await g.page.setInputFiles('#pick-folder', join(site, 'broken', BROKEN[0].folder));
  assert.equal(await g.page.evaluate(() => window.mhaExplorer.ready), false);
  assert.match((await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '), /config\.json is missing/);
  await closeClean(g);
});

for (const b of BROKEN) {
  test('a broken folder (' + b.what + '): a message naming the file, and the next good folder loads', async () => {
    const g = await open('models.html?model=broken/' + b.folder + '/');
    assert.equal(g.ready, false);
    const said = (await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' ');
    if (b.names instanceof RegExp) assert.match(said, b.names);
    else assert.ok(said.includes(b.names), b.names + ' not named in: ' + said);
    assert.equal(await g.page.evaluate(() => window.mhaExplorer.getWeights()), null);
    assert.equal(
      await g.page.evaluate(
        (u) =>
          window.mhaExplorer.loadURL(u).then(
            () => true,
            () => false,
          ),
        'models/bert/',
      ),
      true,
    );
    await checkAgainstOracle(g.page, 'bert');
    await closeClean(g);
  });
}

test("tokenizer_config.json is optional; model= never leaves the page's host; from a file, model= says to drop the folder", async () => {
  // a folder without it loads as with it; the console's only error is the server's 404 for it (docs/model-page.md)
  const missing = [];
  let g = await open('models.html?model=optional/gpt2/', {
    console: (m) => m.type() === 'error' && missing.push(m.location().url.split('/').slice(-2).join('/')),
  });
  assert.equal(g.ready, true);
  await checkAgainstOracle(g.page, 'gpt2');
  assert.deepEqual(missing, ['gpt2/tokenizer_config.json']);
  await closeClean(g);
  g = await open('models.html?model=https://example.org/gpt2/');
  assert.match(
    (await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '),
    /address: the page loads a folder relative to itself only/,
  );
  await closeClean(g);
  g = await open('models.html?model=//example.org/gpt2/');
  assert.match((await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '), /relative to itself only/);
  await closeClean(g);
  const fileURL = pathToFileURL(join(site, 'models.html')).href;
  g = await open(fileURL + '?model=models/gpt2/', {
    allowed: (u) => u.startsWith(pathToFileURL(site).href + '/') || /^(data|blob):/.test(u),
  });
  assert.match((await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '), /opened as a file/);
  // file:// with a dropped folder
  assert.deepEqual(await drop(g.page, 'llama'), []);
  await checkAgainstOracle(g.page, 'llama');
  assert.equal((await g.page.evaluate(() => window.mhaExplorer.getBusy())).worker, true, 'file://: in its worker');
  await closeClean(g);
});

test('Cancel while a model loads: the message says so and the model shown stays', async () => {
  const g = await open('models.html?model=models/gpt2/');
  const { page } = g;
  const said = await page.evaluate(async () => {
    const loading = window.mhaExplorer.loadURL('models/minilm/').then(
      () => 'loaded',
      (e) => 'rejected: ' + e.name,
    );
    await new Promise((r) => {
      const t = setInterval(() => {
        if (!document.getElementById('progress-box').hidden) {
          clearInterval(t);
          r();
        }
      }, 1);
    });
    document.getElementById('cancel').click();
    return [
      await loading,
      window.mhaExplorer.getMessages().join(' '),
      window.mhaExplorer.getInfo().modelType,
      document.getElementById('progress-box').hidden,
    ];
  });
  assert.match(said[0], /^rejected/);
  assert.match(said[1], /cancelled: the previous model stays/);
  assert.deepEqual(said.slice(2), ['gpt2', true]);
  await checkAgainstOracle(page, 'gpt2');
  await closeClean(g);
});

test('the one-file twin (dist/mha-explorer-models.html, no weights in it) from a file: a dropped folder, nothing else requested', async () => {
  const url = pathToFileURL(join(DIST, 'mha-explorer-models.html')).href;
  assert.ok(readFileSync(join(DIST, 'mha-explorer-models.html')).length < 2e6, 'no weights inside');
  const g = await open(url, { allowed: (u) => u.split(/[?#]/)[0] === url || /^(data|blob):/.test(u) });
  assert.equal(g.ready, false);
  assert.deepEqual(await drop(g.page, 'bert'), []);
  await checkAgainstOracle(g.page, 'bert');
  assert.equal((await g.page.evaluate(() => window.mhaExplorer.getBusy())).worker, true, 'one file: in its worker');
  assert.equal(
    await g.page.getAttribute('a[href^="mha-explorer-lab.html"]', 'href'),
    'mha-explorer-lab.html?preset=train-two-offsets',
  );
  await closeClean(g);
});

test('the text box retokenizes as the student types; role scores, where a token looks, the snippet', async () => {
  const g = await open('models.html?model=models/gpt2/');
  const { page } = g;
  await page.fill('#text', 'The cat sat on the mat because it was warm');
  await page.waitForFunction(() => window.mhaExplorer.getTokens().join('').includes('warm'));
  const T = (await page.evaluate(() => window.mhaExplorer.getTokens())).length;
  assert.deepEqual((await page.evaluate(() => window.mhaExplorer.getWeights().shape)).slice(3), [T, T]);
  const roles = await page.evaluate(() => window.mhaExplorer.getRoles());
  assert.deepEqual(Object.keys(roles).sort(), [
    'current',
    'duplicate',
    'first',
    'induction',
    'last',
    'next',
    'previous',
    'punctuation',
  ]);
  for (const v of Object.values(roles)) for (const x of v) assert.ok(x >= 0 && x <= 1);
  // sorting and filtering the grid by a role
  await page.selectOption('#role', 'previous');
  await page.selectOption('#order', 'ranked');
  const order = await page.$$eval('.mg-card', (cards) => cards.map((c) => +c.querySelector('.mg-score').textContent));
  for (let i = 1; i < order.length; i++) assert.ok(order[i - 1] >= order[i], 'ranked by score');
  // keyboard: the grid's arrows move the selected head
  await page.focus('.mg-card[aria-pressed="true"]');
  await page.selectOption('#order', 'grid');
  await page.focus('.mg-card[aria-pressed="true"]');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getSelection()), { layer: 1, head: 1 });
  await page.keyboard.press('o');
  assert.deepEqual((await page.evaluate(() => window.mhaExplorer.getTop())).headsOff, [[1, 1]]);
  await closeClean(g);
});

test("the shape trace of the shown layer: RoPE and repeat_kv for a Llama-style model, in the attention view's trace table", async () => {
  const g = await open('models.html?model=models/llama/&layer=1');
  const rows = await g.page.$$eval('.mhav-trace tbody tr', (trs) => trs.map((tr) => tr.textContent));
  for (const want of [
    'Layer 1: RMSNorm before the attention',
    'RoPE on the queries',
    'RoPE on the keys',
    'repeat_kv: keys',
    'repeat_kv: values',
    'Softmax: the attention weights',
    'self_attn.o_proj',
  ])
    assert.ok(
      rows.some((r) => r.includes(want)),
      want + ' in ' + rows.join(' | '),
    );
  assert.ok(
    rows.some((r) => /\[1, 4, \d+, \d+\]/.test(r)),
    "the heads' shapes",
  );
  await closeClean(g);
  // a layer the model lacks, or a head that is no number, is said (the page shows the last layer, head 0)
  const bad = await open('models.html?model=models/llama/&layer=99&head=first');
  const info = await bad.page.evaluate(() => window.mhaExplorer.getInfo());
  assert.deepEqual(await bad.page.evaluate(() => window.mhaExplorer.getSelection()), {
    layer: info.layers - 1,
    head: 0,
  });
  assert.deepEqual(await bad.page.evaluate(() => window.mhaExplorer.getMessages()), [
    'head must be a whole number from 0; using head 0 instead of "first". ' +
      `This model has no layer 99 (its layers are 0 to ${info.layers - 1}): showing layer ${info.layers - 1}.`,
  ]);
  await closeClean(bad);
});

test("Copy as Python: the snippet, run in transformers next to the page, prints the page's numbers", async () => {
  const g = await open(
    'models.html?model=models/bert/&text=' +
      encodeURIComponent("The chicken didn't cross the [MASK] because it was too wide."),
  );
  const { page } = g;
  await page.evaluate(() => {
    window.mhaExplorer.select({ layer: 1, head: 2 });
    return window.mhaExplorer.ablate([
      [0, 1],
      [1, 3],
    ]);
  });
  const code = await page.evaluate(() => window.mhaExplorer.getSnippet());
  const file = join(site, 'snippet.py');
  writeFileSync(file, code);
  const printed = execFileSync(python(), [file], {
    cwd: site,
    encoding: 'utf8',
    env: { ...process.env, TRANSFORMERS_VERBOSITY: 'error', OMP_NUM_THREADS: '1' },
  });
  const { parsePrinted } = await import('../../web/models/snippet.js');
  const out = parsePrinted(printed);
  const w = await page.evaluate(() => {
    const x = window.mhaExplorer.getWeights();
    return { shape: x.shape, data: Array.from(x.data) };
  });
  const [, , H, T] = w.shape,
    at = (1 * H + 2) * T * T;
  const ref = oracle('bert');
  out.weights.forEach((r, q) =>
    r.forEach((v, k) => {
      const i = at + q * T + k;
      assert.ok(
        Math.abs(v - w.data[i]) <= 0.5e-4 + 2 * ref.tensors['attentions.bound'].data[i] + 1e-9,
        'printed ' + v + ', page ' + w.data[i],
      );
    }),
  );
  const top = await page.evaluate(() => window.mhaExplorer.getTop());
  for (const [printed2, ours] of [
    [out.full, top.full],
    [out.ablated, top.ablated],
  ]) {
    assert.equal(printed2.length, 5);
    printed2.forEach((p, r) =>
      assert.ok(p.id === ours[r].id || Math.abs(p.percent - 100 * ours[r].prob) < 0.02, 'rank ' + r),
    );
    printed2.forEach((p, r) => {
      if (p.id === ours[r].id) assert.ok(Math.abs(p.percent - 100 * ours[r].prob) <= 0.005 + 1e-3);
    });
  }
  await closeClean(g);
});

test('under a strict Content-Security-Policy: no violation, nothing requested from elsewhere', async () => {
  const g = await open('models.html?model=models/llama-sharded/', { csp: true });
  assert.equal(g.ready, true);
  await checkAgainstOracle(g.page, 'llama-sharded');
  assert.deepEqual(await g.page.evaluate(() => window.__violations), []);
  assert.equal((await g.page.evaluate(() => window.mhaExplorer.getBusy())).worker, true, 'under the policy too');
  await closeClean(g);
});

test('a 12-head model shows every head column without a horizontal scroll from 901 px wide (two columns) up', async () => {
  const g = await open('models.html?model=models/minilm/');
  const { page } = g;
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true);
  assert.equal((await page.evaluate(() => window.mhaExplorer.getInfo())).heads, 12);
  for (const width of [901, 930, 1100, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    // the grid redraws at its new width in the frame after the resize (page.js's ResizeObserver)
    const fits = await page
      .waitForFunction(
        (w) => {
          const grid = document.querySelector('#grid');
          return window.innerWidth === w && grid.clientWidth > 0 && grid.scrollWidth <= grid.clientWidth;
        },
        width,
        { timeout: 5000 },
      )
      .then(
        () => true,
        () => false,
      );
    const sizes = await page.$eval('#grid', (x) => x.scrollWidth + ' px of heads in ' + x.clientWidth + ' px');
    assert.ok(fits, `${width} px wide: ${sizes}`);
  }
  await closeClean(g);
});

// The grid at a phone's width, measured: {scroll: the grid's and the page's sideways overflow, outside: cards not wholly
// inside the grid's box, small: cards under 24 px (WCAG 2.5.8), layers: per layer its cards' rows (heads top to bottom,
// left to right), their top and bottom, its label's centre and whether the label's text fits}.
async function gridAt(page, width) {
  await page.setViewportSize({ width, height: 900 });
  await page.waitForFunction((w) => window.innerWidth === w, width);
  // the grid redraws at its new width in the frame after the resize (page.js's ResizeObserver)
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.evaluate(() => {
    const grid = document.querySelector('#grid'),
      box = grid.getBoundingClientRect(),
      layers = [];
    for (const c of grid.querySelectorAll('.mg-card:not([hidden])')) {
      const r = c.getBoundingClientRect(),
        l = +c.getAttribute('data-layer');
      const at = (layers[l] = layers[l] || { rows: [], top: Infinity, bottom: -Infinity });
      const row =
        at.rows.find((x) => Math.abs(x.top - r.top) < 1) || at.rows[at.rows.push({ top: r.top, heads: [] }) - 1];
      row.heads.push({ head: +c.getAttribute('data-head'), left: r.left });
      Object.assign(at, { top: Math.min(at.top, r.top), bottom: Math.max(at.bottom, r.bottom) });
    }
    const labels = grid.querySelectorAll('.mg-row:not(.mg-heads) > .mg-label');
    layers.forEach((at, l) => {
      at.rows = at.rows
        .sort((a, b) => a.top - b.top)
        .map((x) => x.heads.sort((a, b) => a.left - b.left).map((h) => h.head));
      const label = labels[l], // none in the ranked order
        r = label && label.getBoundingClientRect();
      if (label)
        Object.assign(at, { label: (r.top + r.bottom) / 2, labelFits: label.scrollWidth <= label.clientWidth });
    });
    const cards = [...grid.querySelectorAll('.mg-card:not([hidden])')].map((c) => c.getBoundingClientRect());
    return {
      scroll: [grid.scrollWidth - grid.clientWidth, document.documentElement.scrollWidth - window.innerWidth],
      outside: cards.filter((r) => r.left < box.left - 0.5 || r.right > box.right + 0.5).length,
      small: cards.filter((r) => r.width < 24 || r.height < 24).length,
      layers,
    };
  });
}
const selectionOf = (page) =>
  page.evaluate(() => {
    const f = document.activeElement;
    return [window.mhaExplorer.getSelection(), +f.getAttribute('data-layer'), +f.getAttribute('data-head')];
  });

test("a phone: a layer's 12 heads wrap into 6 + 6, grouped, with no sideways scroll down to 320 px; the keyboard crosses a wrap", async () => {
  const g = await open('models.html?model=models/minilm/');
  const { page } = g;
  assert.equal((await page.evaluate(() => window.mhaExplorer.getInfo())).heads, 12);
  // 508 px: 12 cards of the floor size still fit in a row; 507 px: just below, the heads wrap (docs/model-page.md)
  for (const [width, lines] of [
    [508, 1],
    [507, 2],
    [390, 2],
    [320, 2],
  ]) {
    const m = await gridAt(page, width),
      at = width + ' px wide';
    assert.deepEqual(m.scroll, [0, 0], at + ": the grid's and the page's sideways scroll");
    assert.equal(m.outside, 0, at + ': cards outside the grid');
    assert.equal(m.small, 0, at + ': cards under 24 px');
    assert.equal(m.layers.length, 6);
    m.layers.forEach((layer, l) => {
      // every head once, in reading order, in equal rows
      const perRow = 12 / lines;
      assert.deepEqual(
        layer.rows,
        Array.from({ length: lines }, (_, r) => Array.from({ length: perRow }, (_, c) => r * perRow + c)),
        at + ': layer ' + l + "'s rows",
      );
      assert.ok(
        layer.label > layer.top && layer.label < layer.bottom,
        at + ': layer ' + l + "'s label beside its rows",
      );
      assert.ok(layer.labelFits, at + ': layer ' + l + "'s label fits");
      const next = m.layers[l + 1];
      if (next) {
        assert.ok(next.top > layer.bottom, at + ': layer ' + l + ' above layer ' + (l + 1));
        if (lines > 1) assert.ok(next.top - layer.bottom >= 8, at + ': the layers apart more than their rows');
      }
    });
  }
  // the keyboard at 390 px: → from head 5 (a row's end) to head 6 (the next row's start), ↓ and ↑ a layer, O
  await gridAt(page, 390);
  await page.evaluate(() => window.mhaExplorer.select({ layer: 2, head: 5 }));
  await page.focus('.mg-card[aria-pressed="true"]');
  for (const [key, layer, head] of [
    ['ArrowRight', 2, 6],
    ['ArrowLeft', 2, 5],
    ['ArrowRight', 2, 6],
    ['ArrowDown', 3, 6],
    ['ArrowUp', 2, 6],
  ]) {
    await page.keyboard.press(key);
    assert.deepEqual(await selectionOf(page), [{ layer, head }, layer, head], key);
  }
  await page.keyboard.press('o');
  assert.deepEqual((await page.evaluate(() => window.mhaExplorer.getTop())).headsOff, [[2, 6]]);
  assert.ok(
    await page.$eval('.mg-card[data-layer="2"][data-head="6"]', (c) => c.classList.contains('off')),
    'marked off',
  );
  // a role's scores: heads below the minimum dimmed in place; ranked, they are hidden and the rest flow in rank order
  await page.selectOption('#role', 'previous');
  await page.$eval('#min-score', (x) => {
    x.value = '0.1';
    x.dispatchEvent(new Event('input'));
  });
  const dim = await page.$$eval('.mg-card.dim', (x) => x.length);
  assert.ok(dim > 0 && dim < 72, dim + ' heads below 0.1');
  await page.selectOption('#order', 'ranked');
  const m = await gridAt(page, 320);
  assert.deepEqual([m.scroll, m.outside, m.small], [[0, 0], 0, 0], 'ranked at 320 px');
  assert.equal(await page.$$eval('.mg-card:not([hidden])', (x) => x.length), 72 - dim);
  // ranked, → and ← step through the rank order across the flow's lines
  const ranked = await page.$$eval('.mg-card:not([hidden])', (x) =>
    x
      .slice(0, 8)
      .map((c) => [+c.getAttribute('data-layer'), +c.getAttribute('data-head'), c.getBoundingClientRect().top]),
  );
  assert.ok(ranked[7][2] > ranked[0][2], 'the first 8 ranked heads take more than one line at 320 px');
  await page.evaluate(([layer, head]) => window.mhaExplorer.select({ layer, head }), ranked[0]);
  await page.focus('.mg-card[aria-pressed="true"]');
  for (const [key, k] of [1, 2, 3, 4, 5, 6, 7].map((k) => ['ArrowRight', k]).concat([['ArrowLeft', 6]])) {
    await page.keyboard.press(key);
    const [layer, head] = ranked[k];
    assert.deepEqual(await selectionOf(page), [{ layer, head }, layer, head], 'ranked ' + key + ' to ' + k);
  }
  assert.deepEqual(await axeViolations(page), [], 'axe-core at 320 px, ranked');
  await page.selectOption('#order', 'grid');
  await gridAt(page, 320);
  const grid = await page.$('section[aria-labelledby="grid-title"]');
  for (const theme of ['light', 'dark']) {
    if (theme === 'dark') await page.click('#theme-toggle');
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished))); // the colours' transitions
    assert.deepEqual(await axeViolations(page), [], 'axe-core at 320 px, layer by layer, ' + theme);
    await grid.screenshot({ path: join(ARTIFACTS, 'models-grid-320-' + theme + '.png') });
  }
  await closeClean(g);
});

test('axe-core finds no WCAG 2.1 A/AA violation (desktop, phone, dark); screenshots', async () => {
  const shots = [
    ['desktop', 1360, 900, 'light'],
    ['phone', 390, 844, 'light'],
    ['dark', 1360, 900, 'dark'],
  ];
  for (const [name, width, height, theme] of shots) {
    const g = await open('models.html?model=models/gpt2/&theme=' + theme);
    const { page } = g;
    await page.setViewportSize({ width, height });
    await page.evaluate(() => {
      window.mhaExplorer.select({ layer: 1, head: 2 });
      document.querySelector('#role').value = 'previous';
      document.querySelector('#role').dispatchEvent(new Event('change'));
      return window.mhaExplorer.ablate([[1, 2]]);
    });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: join(ARTIFACTS, 'models-' + name + '.png'), fullPage: true });
    await page.addScriptTag({ path: AXE });
    const v = await page.evaluate(() =>
      window.axe
        .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
        .then((r) =>
          r.violations.map(
            (x) =>
              x.id +
              ': ' +
              x.nodes
                .slice(0, 3)
                .map((n) => n.target.join(' ') + ' ' + (n.failureSummary || ''))
                .join(' | '),
          ),
        ),
    );
    assert.deepEqual(v, [], name);
    await closeClean(g);
  }
});
