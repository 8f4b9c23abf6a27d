// Components sharing one document: two explorers mounted with createExplorer (light DOM, the element script's
// window.MhaExplorer), one <mha-explorer> (its shadow root) and two attention views (dist/mha-explorer-view.js).
// Changing one changes nothing in the others; each explorer's weights are what the hosted page computes for its
// state; dispose() leaves no listener on window, document or a media query, no worker and no element behind.
/* global probe, MhaExplorer, mountAttention, A, B, V1, V2 -- globals of the test page (HOST below) */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, openPage, ARTIFACTS, axeViolations } from './helpers.mjs';

// Runs before any other script of the host page: window/document/media-query listeners live by (target, type,
// listener, capture) (a listener added with a signal leaves when it aborts), and every Worker and its termination.
const PROBE = `
window.probe = { live: new Map(), workers: [] };
(function () {
  const watched = (t) => t === window || t === document || (typeof MediaQueryList !== 'undefined' && t instanceof MediaQueryList);
  const id = new WeakMap(); let n = 0;
  const key = (t, type, fn, o) => (id.get(t) || (id.set(t, ++n), n)) + '|' + type + '|' + (id.get(fn) || (id.set(fn, ++n), n)) + '|' + !!(o === true || (o && o.capture));
  const add = EventTarget.prototype.addEventListener, remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, o) {
    if (watched(this) && fn) {
      const k = key(this, type, fn, o);
      probe.live.set(k, type);
      if (o && o.signal) o.signal.addEventListener('abort', () => probe.live.delete(k));
    }
    return add.call(this, type, fn, o);
  };
  EventTarget.prototype.removeEventListener = function (type, fn, o) {
    if (watched(this) && fn) probe.live.delete(key(this, type, fn, o));
    return remove.call(this, type, fn, o);
  };
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) { super(...a); this.terminated = false; probe.workers.push(this); }
    terminate() { this.terminated = true; return super.terminate(); }
  };
})();`;

const HOST =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Components</title>' +
  `<script>${PROBE}</script><style>body{margin:16px;font-family:serif} .two{display:grid;grid-template-columns:1fr 1fr;gap:12px}</style></head><body>` +
  '<main><h1>Two explorers, an element and two attention views</h1><div class="two"><div id="a"></div><div id="b"></div></div>' +
  '<div class="two"><div id="v1"></div><div id="v2"></div></div><div id="e"></div></main>' +
  '<script src="/mha-explorer-element.js"></script>' +
  '<script type="module">import { mountAttention } from "/mha-explorer-view.js"; window.mountAttention = mountAttention;</script>' +
  '</body></html>';

const env = suite({ extra: { '/host/components.html': HOST } });

// Two attention views' weights: [1, 1, 2, 3, 3] rows that sum to 1.
const VIEW_WEIGHTS = [
  [0.5, 0.25, 0.25, 1, 0, 0, 0.2, 0.3, 0.5, 0.1, 0.1, 0.8, 0.3, 0.3, 0.4, 0, 1, 0],
  [1, 0, 0, 0.5, 0.5, 0, 0.25, 0.25, 0.5, 0.6, 0.2, 0.2, 0.1, 0.9, 0, 0.3, 0.3, 0.4],
];

test('explorers, an element and attention views share a document without touching each other', async () => {
  const g = await env.page(env.own);
  const { page } = g;
  await page.goto(env.srv.origin + '/host/components.html');
  await page.waitForFunction(() => window.MhaExplorer && window.mountAttention);

  // A alone first: what it adds to window and document, and the workers its pool starts, are its own.
  const mineA = await page.evaluate(async () => {
    const before = new Set(probe.live.keys()),
      w0 = probe.workers.length;
    window.A = MhaExplorer.createExplorer(document.getElementById('a'), {
      values: { text: 'the cat sat on the mat', heads: 2 },
    });
    const ok = await A.ready;
    return { ok, listeners: [...probe.live.keys()].filter((k) => !before.has(k)), workers: probe.workers.length - w0 };
  });
  assert.equal(mineA.ok, true);
  assert.ok(
    mineA.listeners.length >= 2,
    'A listens to window (resize) and the colour-scheme query: ' + mineA.listeners,
  );
  assert.ok(mineA.workers >= 1, 'A started its forward pool');

  await page.evaluate(async ([w1, w2]) => {
    window.B = MhaExplorer.createExplorer(document.getElementById('b'), {
      query: '?heads=4&causal=1&text=' + encodeURIComponent('one two three four five'),
    });
    const e = document.createElement('mha-explorer');
    e.setAttribute('heads', '8');
    e.setAttribute('text', 'an element in a shadow root');
    e.setAttribute('hide', 'lesson');
    document.getElementById('e').appendChild(e);
    window.V1 = mountAttention(document.getElementById('v1'), {
      weights: new Float32Array(w1),
      shape: [1, 1, 2, 3, 3],
      tokens: ['a', 'b', 'c'],
      title: 'View one',
    });
    window.V2 = mountAttention(document.getElementById('v2'), {
      weights: new Float32Array(w2),
      shape: [1, 1, 2, 3, 3],
      tokens: ['x', 'y', 'z'],
      title: 'View two',
    });
    await B.ready;
    await new Promise((r) => {
      const t = setInterval(() => {
        if (e.mhaExplorer) {
          clearInterval(t);
          r();
        }
      }, 20);
    });
    await e.mhaExplorer.ready;
  }, VIEW_WEIGHTS);

  // every id once in the document (each explorer's prefixed); the element's live in its shadow root
  const ids = await page.evaluate(() => {
    const all = [...document.querySelectorAll('[id]')].map((n) => n.id);
    return {
      dup: all.filter((x, i) => all.indexOf(x) !== i),
      a: !!document.getElementById('mhx1-heads'),
      b: !!document.getElementById('mhx2-heads'),
      labels: [...document.querySelectorAll('#a label[for]')].every(
        (l) => document.getElementById(l.htmlFor) && document.getElementById(l.htmlFor).closest('#a'),
      ),
      shadow: !!document.querySelector('mha-explorer').shadowRoot.getElementById('mhx3-heads'),
    };
  });
  assert.deepEqual(ids, { dup: [], a: true, b: true, labels: true, shadow: true });

  const snapshot = () =>
    page.evaluate(() => {
      const E = document.querySelector('mha-explorer').mhaExplorer;
      const one = (api) => ({
        w: Array.from(api.getWeights().data),
        shape: api.getWeights().shape,
        st: api.getState(),
      });
      const text = (root, sel) => root.querySelector(sel).textContent;
      const eRoot = document.querySelector('mha-explorer').shadowRoot;
      return {
        A: one(A.api),
        B: one(B.api),
        E: one(E),
        V1: Array.from(V1.root.mhaExplorer.getWeights().data),
        V2: Array.from(V2.root.mhaExplorer.getWeights().data),
        readout: {
          A: text(document, '#mhx1-cell-readout'),
          B: text(document, '#mhx2-cell-readout'),
          E: text(eRoot, '#mhx3-cell-readout'),
        },
        theme: { A: document.getElementById('a').dataset.theme, B: document.getElementById('b').dataset.theme },
        url: location.href,
      };
    });
  const s0 = await snapshot();
  assert.deepEqual(
    [s0.A.shape, s0.B.shape, s0.E.shape],
    [
      [1, 2, 6, 6],
      [1, 4, 5, 5],
      [1, 8, 6, 6],
    ],
  );
  // the views hold exactly the weights they were given
  assert.deepEqual(s0.V1, Array.from(new Float32Array(VIEW_WEIGHTS[0])));
  assert.deepEqual(s0.V2, Array.from(new Float32Array(VIEW_WEIGHTS[1])));

  // A: heads and causal set, a head clicked, an arrow key on its enlarged head, its theme switched
  await page.evaluate(() => A.update({ heads: 4, causal: true }));
  await page.click('#a [data-head="2"]');
  await page.focus('#mhx1-detail-canvas');
  await page.keyboard.press('ArrowDown');
  await page.click('#mhx1-theme-toggle');
  const s1 = await snapshot();
  assert.deepEqual(s1.A.shape, [1, 4, 6, 6]);
  assert.equal(s1.A.st.head, 2);
  assert.equal(s1.A.st.causal, true);
  assert.match(s1.readout.A, /query “cat” \(1\) → key “the” \(0\)/);
  assert.notEqual(s1.theme.A, s1.theme.B);
  for (const k of ['B', 'E']) assert.deepEqual(s1[k], s0[k], k + ' unchanged by A');
  assert.deepEqual(
    [s1.V1, s1.V2, s1.readout.B, s1.readout.E, s1.theme.B, s1.url],
    [s0.V1, s0.V2, s0.readout.B, s0.readout.E, s0.theme.B, s0.url],
  );

  // B: a head clicked, then a key in the element
  await page.click('#b [data-head="3"]');
  await page.evaluate(() =>
    document.querySelector('mha-explorer').shadowRoot.getElementById('mhx3-detail-canvas').focus(),
  );
  await page.keyboard.press('ArrowRight');
  const s2 = await snapshot();
  assert.equal(s2.B.st.head, 3);
  assert.match(s2.readout.E, /query “an” \(0\) → key “element” \(1\)/);
  assert.deepEqual([s2.A, s2.readout.A, s2.readout.B, s2.V1, s2.V2], [s1.A, s1.readout.A, s1.readout.B, s1.V1, s1.V2]);
  assert.equal(s2.E.st.head, s1.E.st.head);

  await page.screenshot({ path: join(ARTIFACTS, 'components.png'), fullPage: true });

  // one document, many components: each a named region of the host's page (no second main landmark), and axe finds
  // nothing (WCAG 2.1 A/AA, and the main-landmark rules), the element's shadow root included. (Two explorers have the
  // same sections, so axe's best-practice landmark-unique cannot hold for them: a reader tells them apart by place.)
  const landmarks = await page.evaluate(() => {
    const shadow = document.querySelector('mha-explorer').shadowRoot;
    return {
      mains: document.querySelectorAll('main').length - 1 + shadow.querySelectorAll('main').length, // but the host's
      regions: [
        ...document.querySelectorAll('[role="region"].mhx'),
        ...shadow.querySelectorAll('[role="region"].mhx'),
      ].map((e) => e.getAttribute('aria-label')),
    };
  });
  assert.equal(landmarks.mains, 0, 'no component brings a main landmark into the host page');
  assert.deepEqual(landmarks.regions, ['MHA Explorer', 'MHA Explorer', 'MHA Explorer']);
  assert.deepEqual(await axeViolations(page), []);

  // each explorer's weights are the hosted page's for its state, bit for bit
  const reference = await env.page(env.own);
  await openPage(reference.page, env.srv.origin + '/index.html');
  for (const k of ['A', 'B', 'E']) {
    const st = s2[k].st;
    const w = await reference.page.evaluate(
      async (v) => {
        await window.mhaExplorer.set(v);
        return Array.from(window.mhaExplorer.getWeights().data);
      },
      { text: st.text, dmodel: st.dmodel, heads: st.heads, causal: st.causal, seed: st.seed, pos: st.pos },
    );
    assert.deepEqual(s2[k].w, w, k + ": the hosted page's weights");
  }

  // A's dispose(): none of its listeners, workers or elements stay; the others go on working
  const gone = await page.evaluate(async (mine) => {
    const workersA = probe.workers.slice(0, mine.workers);
    A.dispose();
    const a = document.getElementById('a');
    await B.update({ heads: 2 });
    return {
      listeners: mine.listeners.filter((k) => probe.live.has(k)),
      workers: workersA.filter((w) => !w.terminated).length,
      children: a.childNodes.length,
      cls: a.className,
      theme: a.getAttribute('data-theme'),
      role: a.getAttribute('role'),
      ids: document.querySelectorAll('[id^="mhx1-"]').length,
      B: B.api.getWeights().shape,
    };
  }, mineA);
  assert.deepEqual(gone, {
    listeners: [],
    workers: 0,
    children: 0,
    cls: '',
    theme: null,
    role: null,
    ids: 0,
    B: [1, 2, 5, 5],
  });

  // the element follows its host's theme when the host switches (a dark-mode toggle on <html>)
  const followed = await page.evaluate(async () => {
    const root = document.querySelector('mha-explorer').shadowRoot.querySelector('.mhx');
    const before = root.getAttribute('data-theme');
    const style = document.createElement('style');
    style.textContent = 'html.dark-mode body { background: #15181c; color: #eee; }';
    document.head.appendChild(style);
    document.documentElement.classList.add('dark-mode');
    await new Promise((r) => setTimeout(r, 50));
    const after = root.getAttribute('data-theme'),
      mountedB = document.getElementById('b').getAttribute('data-theme');
    document.documentElement.classList.remove('dark-mode');
    await new Promise((r) => setTimeout(r, 50));
    return [before, after, root.getAttribute('data-theme'), mountedB];
  });
  assert.deepEqual(
    followed,
    ['light', 'dark', 'light', 'light'],
    'the element follows the host; B (its own theme) does not',
  );

  // the element leaves nothing either when removed
  const elementGone = await page.evaluate(() => {
    const before = probe.live.size,
      e = document.querySelector('mha-explorer'),
      live = probe.workers.filter((w) => !w.terminated).length;
    e.remove();
    return {
      shadow: e.shadowRoot.childNodes.length,
      listeners: probe.live.size - before,
      workersLeft: probe.workers.filter((w) => !w.terminated).length - live,
    };
  });
  assert.equal(elementGone.shadow, 0);
  assert.ok(elementGone.listeners < 0 && elementGone.workersLeft < 0, JSON.stringify(elementGone));
});
