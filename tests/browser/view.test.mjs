// The attention view (dist/mha-explorer-view.js: mountAttention and the anywidget front end), from file://
// and over http: two views and the page in one document stay independent, getWeights() is the input bit for
// bit, dispose() leaves no listeners, the anywidget contract with a minimal model, each bad input's note, a
// large view's layer and batch pickers, the exports, axe-core in the light and the dark theme. Screenshots go
// to tests/browser/artifacts/view/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { ARTIFACTS, DIST, fileURL, openPage, suite } from './helpers.mjs';
import { DEFAULT_SCALE, SCALE_NAMES } from '../../web/state/scales.js';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const SHOTS = join(ARTIFACTS, 'view');
mkdirSync(SHOTS, { recursive: true });
const VIEW_SOURCE = readFileSync(join(DIST, 'mha-explorer-view.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

const HOST =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A course page</title>' +
  '<style>body{font:15px system-ui;margin:20px;max-width:1100px}</style></head><body><main><h1>Attention in a course page</h1>' +
  '<div class="here"></div><div class="there"></div></main></body></html>';
const env = suite({ extra: { '/host/view.html': HOST } });

// Loads the view module into window.mhaView: over http by its URL; from file:// (where Chromium refuses module
// scripts from files) from a blob: URL of the same text.
async function loadView(page, http) {
  if (http)
    await page.evaluate(async (u) => {
      window.mhaView = await import(u);
    }, env.srv.origin + '/mha-explorer-view.js');
  else {
    await page.evaluate(async (src) => {
      window.mhaView = await import(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    }, VIEW_SOURCE);
  }
}

// In the page: deterministic softmax rows for a [L, B, H, T, S] tensor (every row sums to 1).
const SOFTMAX = `window.softmaxWeights = (shape, seed = 1) => {
  const n = shape.reduce((a, b) => a * b, 1), S = shape[shape.length - 1], d = new Float32Array(n);
  let x = seed >>> 0;
  const rnd = () => { x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x9e3779b9) >>> 0; return (x >>> 8) / 16777216; };
  for (let r = 0; r < n / S; r++) {
    let sum = 0;
    for (let j = 0; j < S; j++) { const v = Math.exp(4 * rnd()); d[r * S + j] = v; sum += v; }
    for (let j = 0; j < S; j++) d[r * S + j] /= sum;
  }
  return d;
};`;

// Counts the listeners and resize observers added to anything that outlives a view (window, document, media
// queries, the host element): only those on the view's own removed elements may stay.
const TRACKER = `(() => {
  const live = new Map(); let observers = 0;
  const key = (t, type, fn, opts) => { let m = live.get(t); if (!m) live.set(t, m = []); return m; };
  const add = EventTarget.prototype.addEventListener, remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) { key(this).push([type, fn]); return add.call(this, type, fn, opts); };
  EventTarget.prototype.removeEventListener = function (type, fn, opts) {
    const m = live.get(this); if (m) { const i = m.findIndex((e) => e[0] === type && e[1] === fn); if (i >= 0) m.splice(i, 1); }
    return remove.call(this, type, fn, opts);
  };
  const RO = window.ResizeObserver;
  window.ResizeObserver = class extends RO {
    observe(...a) { if (!this.on) { this.on = true; observers++; } return super.observe(...a); }
    disconnect() { if (this.on) { this.on = false; observers--; } return super.disconnect(); }
  };
  window.listenerReport = () => {
    let outside = 0;
    for (const [t, m] of live) if (m.length && (!(t instanceof Node) || t.isConnected)) outside += m.length;
    return { outside, observers };
  };
})();`;

// The host page from file://: a file of its own next to the screenshots.
const HOST_FILE = join(SHOTS, 'host.html');
writeFileSync(HOST_FILE, HOST);

async function hostPage(http, url) {
  const distURL = pathToFileURL(DIST).href,
    hostURL = pathToFileURL(HOST_FILE).href;
  const g = await env.page(
    http ? env.own : (u) => u.startsWith(distURL) || u === hostURL || u.startsWith('data:') || u.startsWith('blob:'),
  );
  await g.page.addInitScript(SOFTMAX);
  if (url) await openPage(g.page, url);
  else await g.page.goto(http ? env.srv.origin + '/host/view.html' : hostURL);
  await loadView(g.page, http);
  return g;
}

for (const http of [true, false]) {
  const how = http ? 'over http' : 'from file://';

  test(`two views and the page in one document are independent (${how})`, async () => {
    const { page } = await hostPage(http, http ? env.srv.origin + '/index.html' : fileURL('index.html'));
    const pageBefore = await page.evaluate(() => ({
      w: Array.from(window.mhaExplorer.getWeights().data),
      pressed: [...document.querySelectorAll('#heads .head-card')].map((c) => c.getAttribute('aria-pressed')),
    }));
    await page.evaluate(() => {
      for (const c of ['a', 'b']) {
        const d = document.createElement('div');
        d.className = 'host-' + c;
        document.querySelector('main').prepend(d);
      }
      const a = window.softmaxWeights([1, 1, 4, 6, 6], 7),
        b = window.softmaxWeights([2, 1, 2, 3, 5], 9);
      window.inputs = { a, b };
      window.va = window.mhaView.mountAttention(document.querySelector('.host-a'), {
        weights: a,
        shape: [1, 1, 4, 6, 6],
        tokens: ['The', 'cat', 'sat', 'on', 'the', 'mat'],
        title: 'View A',
      });
      window.vb = window.mhaView.mountAttention(document.querySelector('.host-b'), {
        weights: b,
        shape: [2, 1, 2, 3, 5],
        tokens: ['k0', 'k1', 'k2', 'k3', 'k4'],
        queryTokens: ['q0', 'q1', 'q2'],
        title: 'View B',
        theme: 'light',
      });
    });
    const roots = page.locator('[data-mha-explorer-view]');
    assert.equal(await roots.count(), 2);
    const A = roots.nth(1),
      B = roots.nth(0); // .host-b was prepended last, so it comes first
    assert.equal(await A.getAttribute('aria-label'), 'View A');
    // bit for bit: the same 32-bit patterns as the input
    const same = await page.evaluate(() =>
      ['a', 'b'].map((k) => {
        const got = document.querySelector('.host-' + k + ' [data-mha-explorer-view]').mhaExplorer.getWeights();
        const u = new Uint32Array(got.data.buffer),
          v = new Uint32Array(window.inputs[k].buffer);
        return { shape: got.shape, equal: u.length === v.length && u.every((x, i) => x === v[i]) };
      }),
    );
    assert.deepEqual(same, [
      { shape: [1, 1, 4, 6, 6], equal: true },
      { shape: [2, 1, 2, 3, 5], equal: true },
    ]);
    assert.deepEqual(await B.evaluate((r) => r.mhaExplorer.getLabels()), {
      tokens: ['k0', 'k1', 'k2', 'k3', 'k4'],
      queryTokens: ['q0', 'q1', 'q2'],
    });
    assert.equal(await A.locator('canvas[data-head]').count(), 4);
    assert.equal(await A.locator('canvas[data-avg]').count(), 1);
    assert.equal(await B.locator('canvas[data-head]').count(), 2);
    assert.equal(
      await page.evaluate(() => document.querySelectorAll('[data-mha-explorer-view] [id]').length),
      0,
      'no ids',
    );
    assert.ok(await B.locator('label:has-text("layer") select').isVisible(), 'B has two layers: a layer picker');
    assert.ok(!(await A.locator('label:has-text("layer") select').isVisible()), 'A has one layer: no picker');

    const state = () =>
      page.evaluate(() => ({
        a: document.querySelector('.host-a [data-mha-explorer-view]').mhaExplorer.getSelection(),
        b: document.querySelector('.host-b [data-mha-explorer-view]').mhaExplorer.getSelection(),
        tips: [...document.querySelectorAll('[data-mha-explorer-view] .tooltip')].map((t) => !t.hidden),
        pageTip: !document.getElementById('tooltip').hidden,
        readouts: [...document.querySelectorAll('[data-mha-explorer-view] .readout')].map((t) => t.textContent),
        themes: [...document.querySelectorAll('[data-mha-explorer-view]')].map((t) =>
          t.getAttribute('data-mhav-theme'),
        ),
        legends: [...document.querySelectorAll('[data-mha-explorer-view] .legend-hi')].map((t) => t.textContent),
        page: {
          w: Array.from(window.mhaExplorer.getWeights().data),
          pressed: [...document.querySelectorAll('#heads .head-card')].map((c) => c.getAttribute('aria-pressed')),
        },
      }));
    const s0 = await state();
    // a click on A's head 2 enlarges it in A only
    await A.locator('button.head-card').nth(2).click();
    // hover: A's tooltip shows, B's and the page's stay hidden
    const box = await A.locator('canvas[data-head="1"]').boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6);
    // keyboard: A's enlarged heatmap reads its cells; B's readout stays
    await A.locator('.mhav-map canvas').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const s1 = await state();
    assert.deepEqual(s1.a, { layer: 0, batch: 0, head: 2, query: 1 }); // ArrowDown moved the cursor to query 1
    assert.deepEqual(s1.b, s0.b);
    assert.match(s1.readouts[1], /query “cat” \(1\) → key “cat” \(1\): 0\.\d{6}/);
    assert.equal(s1.readouts[0], s0.readouts[0]);
    assert.deepEqual(s1.page, s0.page);
    assert.deepEqual(s1.page, pageBefore);
    const box2 = await A.locator('canvas[data-head="1"]').boundingBox(); // focusing may have scrolled
    await page.mouse.move(box2.x + box2.width * 0.5, box2.y + box2.height * 0.5);
    await page.mouse.move(box2.x + box2.width * 0.6, box2.y + box2.height * 0.65);
    const s2 = await state();
    assert.deepEqual(s2.tips, [false, true], "only A's tooltip");
    assert.equal(s2.pageTip, false);
    // B's layer picker switches B's layer only
    await B.locator('label:has-text("layer") select').selectOption('1');
    // A's theme and data change; B's stay
    await page.evaluate(() => window.va.update({ theme: 'dark', weights: window.softmaxWeights([1, 1, 4, 6, 6], 3) }));
    const s3 = await state();
    assert.deepEqual(s3.b, { layer: 1, batch: 0, head: 0, query: 0 });
    assert.deepEqual(s3.a, s1.a);
    assert.deepEqual(s3.themes, ['light', 'dark']);
    assert.deepEqual(s3.page, s0.page);
    // the page still works after the views joined it, and the views follow none of its changes
    const [, H, T] = await page.evaluate(() => window.mhaExplorer.getWeights().shape);
    await page.evaluate(() => window.mhaExplorer.set({ heads: 2 }));
    assert.notEqual(H, 2);
    assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getWeights().shape), [1, 2, T, T]);
    assert.equal(await page.locator('#heads canvas[data-head]').count(), 2);
    assert.deepEqual((await state()).b, s3.b);
    await page.screenshot({ path: join(SHOTS, `page-and-two-views-${http ? 'http' : 'file'}.png`), fullPage: true });
  });

  test(`dispose() leaves no listeners or observers behind (${how})`, async () => {
    const g = await hostPage(http);
    const { page } = g;
    await page.evaluate(TRACKER);
    const r = await page.evaluate(() => {
      const before = window.listenerReport();
      const host = document.querySelector('.here');
      const v = window.mhaView.mountAttention(host, {
        weights: window.softmaxWeights([2, 2, 3, 5, 5]),
        shape: [2, 2, 3, 5, 5],
        trace: [{ name: 'input', shape: [2, 5, 12], strides: [60, 12, 1], contiguous: true }],
      });
      const during = window.listenerReport();
      v.dispose();
      return {
        before,
        during,
        after: window.listenerReport(),
        children: host.childNodes.length,
        roots: document.querySelectorAll('[data-mha-explorer-view]').length,
      };
    });
    assert.ok(
      r.during.outside > r.before.outside || r.during.observers > r.before.observers,
      "the tracker sees the view's listeners",
    );
    assert.deepEqual(r.after, r.before);
    assert.equal(r.children, 0);
    assert.equal(r.roots, 0);
  });

  test(`the anywidget contract with a minimal model (${how})`, async () => {
    const { page } = await hostPage(http);
    const r = await page.evaluate(async () => {
      const b64 = (f) => {
        let s = '';
        const u = new Uint8Array(f.buffer);
        for (const x of u) s += String.fromCharCode(x);
        return btoa(s);
      };
      const handlers = {};
      const values = {
        weights: b64(window.softmaxWeights([1, 1, 2, 4, 4])),
        shape: [1, 1, 2, 4, 4],
        tokens: ['a', 'b', 'c', 'd'],
        title: 'From a notebook',
      };
      const model = {
        get: (k) => values[k],
        set: (k, v) => {
          values[k] = v;
        },
        on: (e, fn) => {
          (handlers[e] = handlers[e] || []).push(fn);
        },
        off: (e, fn) => {
          handlers[e] = (handlers[e] || []).filter((f) => f !== fn);
        },
        save_changes: () => {
          throw new Error('static host: no kernel');
        },
      };
      const el = document.querySelector('.here');
      const cleanup = await window.mhaView.default.render({ model, el });
      const root = () => el.querySelector('[data-mha-explorer-view]');
      const first = {
        heads: root().querySelectorAll('canvas[data-head]').length,
        title: root().querySelector('.mhav-title').textContent,
        shape: root().mhaExplorer.getWeights().shape,
      };
      const next = window.softmaxWeights([1, 1, 3, 5, 5], 5);
      model.set('shape', [1, 1, 3, 5, 5]);
      model.set('tokens', ['v', 'w', 'x', 'y', 'z']);
      model.set('weights', b64(next));
      for (const fn of handlers['change:weights'] || []) fn();
      const got = root().mhaExplorer.getWeights();
      const u = new Uint32Array(got.data.buffer),
        v = new Uint32Array(next.buffer);
      const second = {
        heads: root().querySelectorAll('canvas[data-head]').length,
        shape: got.shape,
        equal: u.length === v.length && u.every((x, i) => x === v[i]),
        labels: root().mhaExplorer.getLabels().tokens,
      };
      const listening = Object.values(handlers).reduce((n, l) => n + l.length, 0);
      cleanup();
      const left = Object.values(handlers).reduce((n, l) => n + l.length, 0);
      // a host whose model has no off() and a plain array as weights
      const bare = {
        get: (k) =>
          ({
            weights: [
              [
                [
                  [0.5, 0.5],
                  [1, 0],
                ],
              ],
            ],
            shape: [1, 1, 2, 2],
          })[k],
        on: () => {
          throw new Error('no events here');
        },
      };
      const c2 = window.mhaView.default.render({ model: bare, el });
      const bareHeads = el.querySelectorAll('canvas[data-head]').length;
      c2();
      return { first, second, listening, left, children: el.childNodes.length, bareHeads };
    });
    assert.deepEqual(r.first, { heads: 2, title: 'From a notebook', shape: [1, 1, 2, 4, 4] });
    assert.deepEqual(r.second, { heads: 3, shape: [1, 1, 3, 5, 5], equal: true, labels: ['v', 'w', 'x', 'y', 'z'] });
    assert.ok(r.listening > 0);
    assert.equal(r.left, 0, 'the cleanup removes its handlers');
    assert.equal(r.children, 0, 'the cleanup removes the view');
    assert.equal(r.bareHeads, 1);
  });
}

test('each bad input gives its note; the rest still shows', async () => {
  const { page } = await hostPage(true);
  const cases = await page.evaluate(() => {
    const ok = () => window.softmaxWeights([1, 1, 2, 3, 3]);
    const mk = (o) => {
      const d = document.createElement('div');
      document.querySelector('.there').appendChild(d);
      const v = window.mhaView.mountAttention(d, Object.assign({ shape: [1, 1, 2, 3, 3], tokens: ['x', 'y', 'z'] }, o));
      const out = {
        notes: [...v.root.querySelectorAll('.mhav-problem')].map((p) => p.textContent),
        heads: v.root.querySelectorAll('canvas[data-head]').length,
        api: v.root.mhaExplorer.getNotes().length,
      };
      v.dispose();
      return out;
    };
    const rows = ok();
    rows[0] = 0.9;
    const nan = ok();
    nan[4] = NaN;
    const inf = ok();
    inf[7] = Infinity;
    return {
      good: mk({ weights: ok() }),
      rows: mk({ weights: rows }),
      nan: mk({ weights: nan }),
      inf: mk({ weights: inf }),
      tokens: mk({ weights: ok(), tokens: ['x', 'y'] }),
      queries: mk({ weights: window.softmaxWeights([1, 1, 2, 2, 3]), shape: [1, 1, 2, 2, 3], queryTokens: ['p'] }),
      size: mk({ weights: ok().subarray(1) }),
      none: mk({ weights: undefined }),
      scale: mk({ weights: ok(), scale: 'rainbow' }),
    };
  });
  assert.deepEqual(cases.good, { notes: [], heads: 2, api: 0 });
  const one = (c, re) => {
    assert.equal(c.notes.length, 1, JSON.stringify(c.notes));
    assert.match(c.notes[0], re);
  };
  one(cases.rows, /1 of 6 rows do not sum to 1 \(the first: head 0, query 0 sums to \d\.\d+\)/);
  one(cases.nan, /1 weight is NaN or infinite \(the first at head 0, query 1\)/);
  one(cases.inf, /1 weight is NaN or infinite \(the first at head 0, query 2\)/);
  one(cases.tokens, /tokens has 2 labels for 3 keys: the keys are numbered 0 to 2 instead/);
  one(cases.queries, /queryTokens has 1 label for 2 queries/);
  one(cases.size, /weights has 17 values, but shape \[1, 1, 2, 3, 3\] needs 18/);
  one(cases.none, /No weights were given/);
  assert.deepEqual(cases.scale.notes, [
    'scale "rainbow" is not one of ' + SCALE_NAMES.join(', ') + ': drawn in ' + DEFAULT_SCALE + '.',
  ]);
  for (const k of ['rows', 'nan', 'inf', 'tokens', 'queries', 'scale'])
    assert.equal(cases[k].heads, 2, k + ': the heads still show');
  assert.equal(cases.size.heads, 0);
});

test('L=3, B=2, H=8, T=S=64: renders, the pickers switch layer and batch, the exports write the visible heads', async () => {
  const { page } = await hostPage(true);
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.evaluate(() => {
    const shape = [3, 2, 8, 64, 64];
    window.big = window.softmaxWeights(shape, 11);
    const tokens = Array.from({ length: 64 }, (_, i) => 'tok' + i);
    const trace = [
      { op: 'input', shape: [2, 64, 32], strides: [2048, 32, 1], contiguous: true },
      { op: 'linear', shape: [2, 64, 32], strides: [2048, 32, 1], contiguous: true },
      { op: 'view', shape: [2, 64, 8, 4], strides: [2048, 32, 4, 1], contiguous: true },
      { op: 'transpose', shape: [2, 8, 64, 4], strides: [2048, 4, 32, 1], contiguous: false },
      { op: 'attention', shape: [2, 8, 64, 4], strides: [2048, 256, 4, 1], contiguous: true, weights: [2, 8, 64, 64] },
    ];
    window.vbig = window.mhaView.mountAttention(document.querySelector('.here'), {
      weights: window.big,
      shape,
      tokens,
      trace,
      title: 'Three layers, two sentences',
    });
  });
  const root = page.locator('[data-mha-explorer-view]');
  assert.equal(await root.locator('canvas[data-head]').count(), 8);
  assert.equal(await root.locator('.mhav-trace tbody tr').count(), 5);
  const pixels = () => root.locator('canvas[data-head="0"]').evaluate((c) => c.toDataURL());
  const p0 = await pixels();
  await page.screenshot({ path: join(SHOTS, 'large-light.png'), fullPage: true });
  await root.locator('label:has-text("layer") select').selectOption('2');
  const p1 = await pixels();
  assert.notEqual(p1, p0, 'layer 2 draws other weights');
  await root.locator('label:has-text("batch item") select').selectOption('1');
  const p2 = await pixels();
  assert.notEqual(p2, p1, 'batch item 1 draws other weights');
  assert.deepEqual(await root.evaluate((r) => r.mhaExplorer.getSelection()), { layer: 2, batch: 1, head: 0, query: 0 });
  assert.match(await root.locator('.mhav-sub').first().textContent(), /Head 0 · layer 2 · batch item 1/);
  // the shown heads' colour range: the largest weight of layer 2, batch item 1
  const hi = await page.evaluate(() => {
    const n = 8 * 64 * 64,
      off = (2 * 2 + 1) * n;
    let mx = 0;
    for (let i = off; i < off + n; i++) mx = Math.max(mx, window.big[i]);
    return mx >= 0.1 ? mx.toFixed(2) : mx.toPrecision(2);
  });
  assert.equal(await root.locator('.legend-hi').textContent(), hi);
  // the enlarged head at 64 tokens: the line view shows one query's strongest keys
  assert.match(await root.locator('.mhav-lines figcaption').textContent(), /one query/);
  // exports: SVG (vector, one rect per cell of the 8 heads and the average) and PNG
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    root.locator('button:has-text("Save as SVG")').click(),
  ]);
  assert.equal(dl.suggestedFilename(), 'attention-heads.svg');
  const svg = readFileSync(await dl.path(), 'utf8');
  assert.equal((svg.match(/<rect x=/g) || []).length, 9 * 64 * 64 + 1);
  assert.match(svg, /layer 2 · batch item 1/);
  const [dl2] = await Promise.all([
    page.waitForEvent('download'),
    root.locator('button:has-text("Save as PNG")').click(),
  ]);
  assert.equal(dl2.suggestedFilename(), 'attention-heads.png');
  assert.deepEqual(
    [...readFileSync(await dl2.path()).subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''),
    'PNG',
  );
  await dl2.saveAs(join(SHOTS, 'export-large.png'));
  await page.evaluate(() => window.vbig.update({ theme: 'dark' }));
  await root.locator('.mhav-map canvas').focus();
  await page.keyboard.press('ArrowDown');
  await page.screenshot({ path: join(SHOTS, 'large-dark-pickers.png'), fullPage: true });
});

test('axe-core: zero WCAG 2.1 A/AA violations on a view, light and dark (the option and prefers-color-scheme)', async () => {
  for (const [label, theme, scheme] of [
    ['light', 'light', 'light'],
    ['dark', 'dark', 'light'],
    ['auto-dark', 'auto', 'dark'],
  ]) {
    const g = await hostPage(true);
    const { page } = g;
    await page.emulateMedia({ colorScheme: scheme });
    await page.evaluate((theme) => {
      const tokens = ['The', 'cat', 'sat', 'on', 'the', 'mat'];
      window.v = window.mhaView.mountAttention(document.querySelector('.here'), {
        weights: window.softmaxWeights([2, 2, 4, 6, 6]),
        shape: [2, 2, 4, 6, 6],
        tokens,
        theme,
        title: 'Attention of a two-layer model',
        trace: [
          { op: 'input', shape: [2, 6, 8], strides: [48, 8, 1], contiguous: true },
          { op: 'transpose', shape: [2, 4, 6, 2], strides: [48, 2, 8, 1], contiguous: false },
        ],
      });
      const nan = window.softmaxWeights([1, 1, 2, 6, 6]);
      nan[3] = NaN;
      const d = document.querySelector('.there');
      window.mhaView.mountAttention(d, { weights: nan, shape: [1, 1, 2, 6, 6], tokens: tokens.slice(1), theme });
    }, theme);
    await page.locator('.here .mhav-btn:has-text("Show as table")').click();
    assert.equal(
      await page.locator('.here [data-mha-explorer-view]').getAttribute('data-mhav-theme'),
      label === 'light' ? 'light' : 'dark',
    );
    await page.screenshot({ path: join(SHOTS, `axe-${label}.png`), fullPage: true });
    await page.addScriptTag({ path: AXE });
    const v = await page.evaluate(
      (values) =>
        window.axe
          .run('[data-mha-explorer-view]', { runOnly: { type: 'tag', values } })
          .then((r) =>
            r.violations.map(
              (x) => x.id + ': ' + x.nodes.map((n) => n.target.join(' ') + ' ' + n.failureSummary).join(' | '),
            ),
          ),
      TAGS,
    );
    assert.deepEqual(v, [], label);
  }
});

test("styles stay scoped: one stylesheet per document or shadow root, none of it on the host's elements", async () => {
  const { page } = await hostPage(true);
  const r = await page.evaluate(() => {
    const w = window.softmaxWeights([1, 1, 2, 3, 3]),
      o = { weights: w, shape: [1, 1, 2, 3, 3] };
    const a = window.mhaView.mountAttention(document.querySelector('.here'), o);
    const b = window.mhaView.mountAttention(document.querySelector('.there'), o);
    const host = document.createElement('div');
    document.body.appendChild(host);
    const shadow = host.attachShadow({ mode: 'open' }),
      inner = document.createElement('div');
    shadow.appendChild(inner);
    const c = window.mhaView.mountAttention(inner, o);
    const btn = document.createElement('button');
    btn.className = 'head-card';
    document.body.appendChild(btn);
    return {
      docSheets: document.querySelectorAll('style[data-mha-explorer-view-style]').length,
      shadowSheets: shadow.querySelectorAll('style[data-mha-explorer-view-style]').length,
      radius: [a.root, b.root, c.root].map((x) => getComputedStyle(x).borderTopLeftRadius),
      hostButton: getComputedStyle(btn).borderTopLeftRadius,
      h1: getComputedStyle(document.querySelector('h1')).fontFamily,
    };
  });
  assert.equal(r.docSheets, 1);
  assert.equal(r.shadowSheets, 1);
  assert.deepEqual(r.radius, ['12px', '12px', '12px']);
  assert.notEqual(r.hostButton, '10px', 'a host element of the same class name keeps its own style');
  assert.match(r.h1, /system-ui/);
});
