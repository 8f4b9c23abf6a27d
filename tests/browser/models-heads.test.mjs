// The model page's panels of issue 41 through window.mhaExplorer in Chromium, on the oracle's tiny causal checkpoints
// (gpt2, llama), against tests/models/heads_reference.py's references (build/heads/<case>.json: float64 values checked
// there against TransformerLens 4.3 and transformers, each with its bound on a float32 implementation's error):
// generation (greedy and sampled, the text and grid following it, the top 5 of a new token), the logit lens,
// direct logit attribution (its terms' sum against the logit), activation patching (every map, Cancel, bad input),
// and each panel's Copy as Python run in the models' venv, printing the page's numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { ARTIFACTS, axeViolations, guardedPage, repo } from './helpers.mjs';
import { modelSite, python } from './models-oracle.mjs';

const CASES = ['gpt2', 'llama'];
const env = { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', OMP_NUM_THREADS: '1' };
let models, srv, browser, site;
before(async () => {
  site = await modelSite('mha-heads-');
  ({ models, srv, browser } = site);
});
after(() => site?.close());

function reference(c) {
  const path = join(repo, 'build', 'heads', c + '.json');
  assert.ok(existsSync(path), path + " is missing: CTest's heads.references writes it (scripts/fixtures heads)");
  return JSON.parse(readFileSync(path, 'utf8'));
}
async function open(c) {
  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  await g.page.goto(srv.origin + '/models.html?model=models/' + c + '/');
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  assert.equal(await g.page.evaluate(() => window.mhaExplorer.ready), true);
  return g;
}
const api = (page, method, ...args) => page.evaluate(([m, a]) => window.mhaExplorer[m](...a), [method, args]);
const setText = async (page, text) => assert.equal(await api(page, 'set', { text }), true);
// The reference's tokens up to its first step whose float64 margin is within its bound.
const clear = (g) => g.new.slice(0, g.clear.indexOf(false) < 0 ? g.new.length : g.clear.indexOf(false));
const near = (got, want, bound, what) =>
  assert.ok(Math.abs(got - want) <= bound, what + ': ' + got + ', the reference ' + want + ' ± ' + bound);
// softmax in float64; the probability's bound from the logits' (each logit within b_j: p_i moves by at most a factor
// exp(b_i + max_j b_j))
function probs(z) {
  const m = Math.max(...z),
    e = z.map((v) => Math.exp(v - m)),
    s = e.reduce((a, v) => a + v, 0);
  return e.map((v) => v / s);
}

test('generation: greedy and sampled tokens equal transformers’ generate; the text, grid and look follow', async () => {
  for (const c of CASES) {
    const g = await open(c),
      { page } = g,
      ref = reference(c);
    for (const run of ref.generate.concat(ref.sampled)) {
      await setText(page, run.text);
      assert.deepEqual(await api(page, 'getIds'), run.prompt, c + ': the prompt’s ids');
      const o = { maxNewTokens: 20 };
      if (run.seed !== undefined)
        Object.assign(o, { temperature: run.temperature, topK: run.top_k, topP: run.top_p, seed: run.seed });
      const r = await api(page, 'generate', o);
      const want = clear(run);
      assert.deepEqual(r.ids.slice(0, want.length), want, c + ' ' + JSON.stringify(o));
      assert.deepEqual(r.tokens.length, r.ids.length);
      // the page's text holds them, its ids are the prompt's and the new ones, every head has their rows
      assert.deepEqual(await api(page, 'getIds'), run.prompt.concat(r.ids));
      const T = run.prompt.length + r.ids.length,
        w = await page.evaluate(() => window.mhaExplorer.getWeights().shape);
      assert.deepEqual(w.slice(3), [T, T]);
      assert.equal(await page.inputValue('#look-from'), String(T - 1), 'where a token looks: the newest token');
      const steps = (await api(page, 'getGeneration')).steps;
      assert.deepEqual(
        steps.map((s) => s.id),
        r.ids,
      );
      for (const s of steps) assert.equal(s.top.length, 5);
      if (run.seed === undefined) for (const s of steps) assert.equal(s.top[0].id, s.id, 'greedy takes the top token');
    }
    // a new token's chip shows the top 5 it was drawn from; the end of the model's positions stops it and says so
    await page.click('#gen-tokens .chip');
    assert.equal(await page.$$eval('#gen-top tbody tr', (trs) => trs.length), 5);
    const info = await api(page, 'getInfo');
    const far = await api(page, 'generate', { maxNewTokens: info.maxPositions });
    assert.ok(far.stopped === 'positions' || far.stopped === 'eos', far.stopped);
    if (far.stopped === 'positions') assert.match(await page.textContent('#gen-note'), /last position/);
    assert.deepEqual(g.errors, []);
    await page.close();
  }
});

test('generation: Stop ends it, the controls come back', async () => {
  const g = await open('gpt2'),
    { page } = g;
  await setText(page, 'The quick brown fox');
  const r = await page.evaluate(() => {
    const p = window.mhaExplorer.generate({ maxNewTokens: 100 });
    setTimeout(() => window.mhaExplorer.stop(), 0);
    return p;
  });
  assert.equal(r.stopped, 'cancelled');
  assert.ok(r.ids.length < 100);
  assert.equal(await page.isDisabled('#gen-run'), false);
  assert.equal(await page.isDisabled('#gen-stop'), true);
  assert.equal(await page.evaluate(() => document.getElementById('text').readOnly), false);
  await page.close();
});

test('the logit lens: each layer’s top token and its probability, as accumulated_resid(apply_ln=True) @ W_U', async () => {
  for (const c of CASES) {
    const g = await open(c),
      { page } = g,
      ref = reference(c);
    await setText(page, ref.ioi.text[0]);
    assert.deepEqual(await api(page, 'getIds'), ref.ioi.clean);
    const lens = await api(page, 'getLens');
    assert.equal(lens.rows, ref.lens.logits.length);
    assert.equal(lens.positions, ref.ioi.clean.length);
    for (let r = 0; r < lens.rows; r++)
      for (let p = 0; p < lens.positions; p++) {
        const z = ref.lens.logits[r][p],
          b = ref.lens.bound[r][p],
          B = Math.max(...b),
          pr = probs(z);
        const best = z.indexOf(Math.max(...z)),
          t = lens.top[r][p];
        assert.ok(
          z[t.id] + b[t.id] + b[best] >= z[best],
          c + ' row ' + r + ' pos ' + p + ': top ' + t.id + ', not ' + best,
        );
        near(t.prob, pr[t.id], pr[t.id] * Math.expm1(b[t.id] + B) + 1e-12, c + ' prob ' + r + ' ' + p);
        const f = lens.target[p];
        near(lens.targetProb[r][p], pr[f], pr[f] * Math.expm1(b[f] + B) + 1e-12, c + ' target ' + r + ' ' + p);
      }
    // the table: a row per layer (and the embeddings), a cell per position, ★ where the final answer first leads
    await page.click('#lens-box summary');
    await page.waitForSelector('#lens tbody tr');
    assert.equal(await page.$$eval('#lens tbody tr', (trs) => trs.length), lens.rows);
    assert.equal(await page.$$eval('#lens td.mp-lead', (tds) => tds.length), lens.positions);
    assert.match(await api(page, 'getLens', { target: 'zzqqxxyy' }).catch((e) => e.message), /not one token/);
    assert.deepEqual(g.errors, []);
    await page.close();
  }
});

test('direct logit attribution: each head’s term, the MLPs’, embeddings’, biases’, their sum and the logit', async () => {
  for (const c of CASES) {
    const g = await open(c),
      { page } = g,
      ref = reference(c);
    await setText(page, ref.ioi.text[0]);
    for (const want of ref.attribution) {
      const got = await api(page, 'getAttribution', { tokens: want.tokens });
      assert.equal(got.position, ref.ioi.clean.length - 1);
      got.heads.flat().forEach((v, i) => near(v, want.heads.flat()[i], want.heads_bound.flat()[i], c + ' head ' + i));
      got.mlps.forEach((v, i) => near(v, want.mlps[i], want.mlps_bound[i], c + ' mlp ' + i));
      for (const k of ['embed', 'biases', 'sum', 'logit', 'centred'])
        near(got[k], want[k], want[k + '_bound'], c + ' ' + k);
      near(got.sum, got.centred, want.sum_bound + want.centred_bound, c + ': the terms add up to the logit');
    }
    // the panel: L rows of H heads and the MLP
    await page.click('#dla-box summary');
    await page.waitForSelector('#dla tbody tr');
    const info = await api(page, 'getInfo');
    assert.equal(await page.$$eval('#dla tbody tr', (trs) => trs.length), info.layers);
    assert.equal(await page.$$eval('#dla tbody tr:first-child td', (tds) => tds.length), info.heads + 1);
    assert.match(await page.textContent('#dla-note'), /adds up to/);
    const bad = await api(page, 'getAttribution', { tokens: ['zzqqxxyy'] }).catch((e) => e.message);
    assert.match(bad, /not one token for this tokenizer: it is .* \+ /);
    assert.deepEqual(g.errors, []);
    await page.close();
  }
});

test('heads switched off by zero, mean and resample as hooks on hook_z; the norm view as α·‖v·W_O‖', async () => {
  for (const c of CASES) {
    const g = await open(c),
      { page } = g,
      ref = reference(c),
      T = ref.ioi.clean.length;
    await setText(page, ref.ioi.text[1]); // the other text tokenizes to the corrupted ids
    assert.deepEqual(await api(page, 'getIds'), ref.ioi.corrupted);
    await setText(page, ref.ioi.text[0]);
    assert.deepEqual(await api(page, 'getIds'), ref.ioi.clean);
    for (const e of ref.ablation) {
      const top = await api(page, 'ablate', e.heads, { ablation: e.mode, text: ref.ioi.text[1] });
      assert.equal((await api(page, 'getTop')).position, T - 1);
      assert.deepEqual(await api(page, 'getAblation'), { ablation: e.mode, text: ref.ioi.text[1], headsOff: e.heads });
      const p = probs(e.logits),
        bmax = Math.max(...e.bound),
        order = p.map((v, i) => i).sort((i, j) => p[j] - p[i]);
      assert.equal(top.length, 5);
      top.forEach((t, r) => {
        const what = c + ' ' + e.mode + ' of ' + JSON.stringify(e.heads) + ': p(' + t.id + ')';
        near(t.prob, p[t.id], p[t.id] * Math.expm1(e.bound[t.id] + bmax) + 2 ** -23, what);
        const rival = p[order[r]]; // the r-th largest: no larger probability left out of the top 5
        assert.ok(t.prob >= rival * Math.exp(-2 * bmax) - 2 ** -23, what + ' ranks ' + r);
      });
    }
    const bad = await api(page, 'ablate', [[0, 0]], { ablation: 'shuffle' }).catch((e) => e.message);
    assert.match(bad, /ablation must be 'zero', 'mean' or 'resample'/);
    await api(page, 'ablate', [], { ablation: 'zero' });
    await api(page, 'setWeighting', 'norm');
    await page.waitForFunction(() => window.mhaExplorer.getWrites());
    const w = await api(page, 'getWrites'),
      [L, H] = [ref.writes.norms.length, ref.writes.norms[0].length];
    assert.deepEqual(w.shape, [L, H, T]);
    ref.writes.norms.flat(2).forEach((v, i) => near(w.data[i], v, ref.writes.bound.flat(2)[i], c + ' writes ' + i));
    const a = await api(page, 'getWeights'),
      shown = await api(page, 'getShownWeights');
    assert.deepEqual(shown.shape, a.shape);
    for (let i = 0; i < a.data.length; i++) {
      const lh = Math.floor(i / (T * T)),
        j = i % T;
      assert.equal(
        shown.data[i],
        Math.fround(a.data[i] * w.data[lh * T + j]),
        c + ': the grid draws α·‖v·W_O‖ at ' + i,
      );
    }
    assert.equal(await page.isChecked('#weighting'), true);
    await api(page, 'setWeighting', 'attention');
    assert.deepEqual((await api(page, 'getShownWeights')).data, Array.from(a.data));
    assert.deepEqual(g.errors, []);
    await page.close();
  }
});

test('activation patching: every map as TransformerLens’s patching module; Cancel and a count mismatch said', async () => {
  for (const c of CASES) {
    const g = await open(c),
      { page } = g,
      ref = reference(c);
    for (const what of ['heads', 'resid', 'attn', 'mlp']) {
      const o = { clean: ref.ioi.clean, corrupted: ref.ioi.corrupted, tokens: ref.ioi.tokens, what };
      const map = await api(page, 'patch', o);
      assert.deepEqual(map.shape, [ref.patching[what].length, ref.patching[what][0].length]);
      const w = ref.patching[what].flat(),
        b = ref.patching[what + '_bound'].flat();
      map.data.forEach((v, i) => near(v, w[i], b[i], c + ' ' + what + ' ' + i));
    }
    assert.equal(await page.$$eval('#patch tbody tr', (trs) => trs.length), ref.patching.mlp.length);
    const cancelled = await page.evaluate(
      (o) => {
        const p = window.mhaExplorer.patch(o);
        setTimeout(() => window.mhaExplorer.stop(), 0);
        return p.then(
          () => 'finished',
          (e) => e.message,
        );
      },
      { clean: ref.ioi.clean, corrupted: ref.ioi.corrupted, tokens: ref.ioi.tokens, what: 'resid' },
    );
    assert.match(cancelled, /cancelled/);
    assert.equal(await page.isDisabled('#patch-run'), false);
    const bad = await api(page, 'patch', { clean: 'one two three', corrupted: 'one' }).catch((e) => e.message);
    assert.match(bad, /same count/);
    assert.deepEqual(g.errors, []);
    await page.close();
  }
});

// A snippet run in the models' venv from the folder the page's model= is relative to.
const runSnippet = (code) =>
  execFileSync(python(), ['-c', code], {
    cwd: dirname(models),
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const lines = (out, tag) =>
  out
    .split('\n')
    .filter((l) => l.startsWith(tag + ' '))
    .map((l) => l.split(' ').slice(1));

// An encoder's page: the causal panels hidden, the lens shown, as transformers computes it, and its snippet printing the
// page's numbers (its top token, or one the bounds cannot tell from it); the causal methods said. Returns the page.
async function checkEncoderLens(name) {
  const g = await open(name),
    { page } = g,
    ref = reference(name);
  for (const id of ['gen', 'dla', 'patch'])
    assert.equal(await page.isHidden('section[aria-labelledby="' + id + '-title"]'), true, id);
  assert.equal(await page.isHidden('section[aria-labelledby="lens-title"]'), false);
  await setText(page, ref.text);
  const lens = await api(page, 'getLens');
  assert.deepEqual([lens.rows, lens.positions], [ref.lens.logits.length, ref.ids.length]);
  const printed = lines(runSnippet(await api(page, 'getPanelSnippet', 'lens')), 'lens');
  assert.equal(printed.length, lens.rows * lens.positions);
  for (const [row, pos, id] of printed) {
    const t = lens.top[+row][+pos],
      z = ref.lens.logits[+row][+pos],
      b = ref.lens.bound[+row][+pos];
    assert.ok(+id === t.id || Math.abs(z[+id] - z[t.id]) <= b[+id] + b[t.id], 'lens ' + row + ' ' + pos);
  }
  const why = (m, ...a) =>
    page.evaluate(
      ([m, a]) =>
        Promise.resolve()
          .then(() => window.mhaExplorer[m](...a))
          .catch((e) => e.message),
      [m, a],
    );
  for (const [m, a] of [
    ['getAttribution', [{ tokens: [1] }]],
    ['generate', [{ maxNewTokens: 2 }]],
    ['patch', [{}]],
  ])
    assert.match(await why(m, ...a), /not a causal language model/, m);
  assert.deepEqual(g.errors, []);
  return g;
}

test('BERT: the lens reads each layer through the MLM head and its snippet prints the page’s numbers; the causal panels hidden and said', async () => {
  await (await checkEncoderLens('bert')).page.close();
  const h = await open('bert-noprefix'); // BertModel: no MLM head to read the layers through
  assert.equal(await h.page.isHidden('section[aria-labelledby="lens-title"]'), true);
  assert.match(
    await h.page.evaluate(() => window.mhaExplorer.getLens().catch((e) => e.message)),
    /no language-model head/,
  );
  // a BertModel folder may be a sentence-transformers one: model= asks for modules.json, and its 404 is not an error
  assert.deepEqual(
    h.errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e)),
    [],
  );
  await h.page.close();
});

test('ModernBERT: the lens reads each layer through final_norm and the MLM head, and its snippet prints the page’s numbers', async () => {
  await (await checkEncoderLens('modernbert')).page.close();
});

test('Copy as Python: each panel’s snippet runs as pasted in TransformerLens 4.3 and prints the page’s numbers', async () => {
  const c = 'gpt2',
    g = await open(c),
    { page } = g,
    ref = reference(c);
  // generation: transformers' generate prints the page's new tokens (where the reference says they are clear)
  const run = ref.generate[0];
  await setText(page, run.text);
  const r = await api(page, 'generate', { maxNewTokens: 20 });
  const printed = lines(runSnippet(await api(page, 'getPanelSnippet', 'generate')), 'new')[0].map(Number);
  assert.deepEqual(printed.slice(0, clear(run).length), r.ids.slice(0, clear(run).length));
  // sampled: generate(do_sample=True) under torch.manual_seed(seed) draws the page's tokens
  const sam = ref.sampled.find((x) => x.top_p < 1);
  await setText(page, sam.text);
  const o = { maxNewTokens: 20, temperature: sam.temperature, topK: sam.top_k, topP: sam.top_p, seed: sam.seed };
  const rs = await api(page, 'generate', o);
  const drawn = lines(runSnippet(await api(page, 'getPanelSnippet', 'generate')), 'new')[0].map(Number);
  assert.deepEqual(drawn.slice(0, clear(sam).length), rs.ids.slice(0, clear(sam).length), JSON.stringify(o));
  // the lens, the attribution, patching on the reference's clean text
  await setText(page, ref.ioi.text[0]);
  const lens = await api(page, 'getLens');
  for (const [row, pos, id, prob] of lines(runSnippet(await api(page, 'getPanelSnippet', 'lens')), 'lens')) {
    const t = lens.top[+row][+pos],
      b = ref.lens.bound[+row][+pos];
    const z = ref.lens.logits[+row][+pos];
    assert.ok(+id === t.id || Math.abs(z[+id] - z[t.id]) <= b[+id] + b[t.id], 'lens ' + row + ' ' + pos);
    if (+id === t.id) near(+prob, t.prob, 2 * t.prob * Math.expm1(b[t.id] + Math.max(...b)) + 5e-7, 'lens prob');
  }
  const want = ref.attribution[1];
  const got = await api(page, 'getAttribution', { tokens: want.tokens });
  const out = runSnippet(await api(page, 'getPanelSnippet', 'attribution'));
  const dla = lines(out, 'head');
  assert.equal(dla.length, got.heads.flat().length);
  dla.forEach(([l, h, v]) =>
    near(+v, got.heads[+l][+h], 2 * want.heads_bound[+l][+h] + 5e-7, 'the snippet’s head ' + l + ' ' + h),
  );
  near(+lines(out, 'logit')[0][0], got.logit, 2 * want.logit_bound + 5e-7, 'the snippet’s logit difference');
  const map = await api(page, 'patch', {
    clean: ref.ioi.clean,
    corrupted: ref.ioi.corrupted,
    tokens: ref.ioi.tokens,
    what: 'heads',
  });
  const H = map.shape[1],
    pb = ref.patching.heads_bound;
  for (const [l, h, v] of lines(runSnippet(await api(page, 'getPanelSnippet', 'patch')), 'patch')) {
    const n = map.data[+l * H + +h],
      k = ref.patching.clean,
      cc = ref.patching.corrupted;
    // TransformerLens's patching returns float32 metrics: one rounding more of each (heads_reference.py's extra)
    const extra =
      (2 ** -24 * (Math.abs(n * (k - cc) + cc) + Math.abs(cc))) / Math.abs(k - cc) +
      ((ref.patching.clean_bound + ref.patching.corrupted_bound) / Math.abs(k - cc)) * (1 + Math.abs(n));
    near(+v, n, 2 * pb[+l][+h] + extra + 5e-7, 'the snippet’s patch ' + l + ' ' + h);
  }
  assert.deepEqual(g.errors, []);
  await page.close();
});

test('the panels open and filled: axe-core at 1280 and 390 px, light and dark, no sideways scroll; screenshots', async () => {
  const g = await open('gpt2'),
    { page } = g,
    ref = reference('gpt2');
  await setText(page, ref.generate[0].text);
  await api(page, 'generate', { maxNewTokens: 6, temperature: 0.8, topK: 20, topP: 0.9, seed: 1 });
  await page.click('#gen-tokens .chip');
  await setText(page, ref.ioi.text[0]);
  for (const box of ['lens-box', 'dla-box', 'patch-box']) await page.click('#' + box + ' summary');
  await page.fill('#dla-a', 'zzqqxxyy'); // several pieces: said, and offered as buttons
  await page.dispatchEvent('#dla-a', 'change');
  assert.match(await page.textContent('#dla-note'), /not one token/);
  assert.ok((await page.$$('#dla-pieces button')).length > 1);
  await page.click('#dla-pieces button');
  // the attribution is computed in the model's worker: the note follows when its answer comes
  await page.waitForFunction(() => /adds up to/.test(document.getElementById('dla-note').textContent));
  await api(page, 'patch', {
    clean: ref.ioi.clean,
    corrupted: ref.ioi.corrupted,
    tokens: ref.ioi.tokens,
    what: 'resid',
  });
  for (const [width, theme] of [
    [1280, 'light'],
    [1280, 'dark'],
    [390, 'dark'],
    [390, 'light'],
  ]) {
    await page.setViewportSize({ width, height: 900 });
    if ((await page.getAttribute('body', 'data-theme')) !== theme) await page.click('#theme-toggle');
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
    assert.deepEqual(await axeViolations(page), [], 'axe-core at ' + width + ' px, ' + theme);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(wide <= 0, 'no sideways scroll at ' + width + ' px: ' + wide);
    for (const id of ['gen', 'lens', 'dla', 'patch'])
      await (
        await page.$('section[aria-labelledby="' + id + '-title"]')
      ).screenshot({
        path: join(ARTIFACTS, 'models-' + id + '-' + width + '-' + theme + '.png'),
      });
  }
  assert.deepEqual(g.errors, []);
  await page.close();
});
