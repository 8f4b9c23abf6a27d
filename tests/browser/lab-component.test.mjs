// The training lab as a component (web/lab/controller.js's createLab): two labs in one document, light DOM, each with
// its own id prefix. Training one does not move the other; their tasks, settings and themes are their own (a lab on
// 'auto' follows the system's); the arrow keys act on the lab with the focus; each API works; dispose() of one leaves none of its listeners on window and document, none of its workers (the model's
// and the one-head twin's) and none of its elements, and the other trains on. One page load.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { ARTIFACTS, guardedPage, labComponentBundle, launch, startServer } from './helpers.mjs';

// createLab as a host bundles it (window.MhaLab.createLab): /lab-component.js, served next to dist/'s files, where the
// lab's worker files (trainer-*.js) are.
const bundle = labComponentBundle();

// Before the bundle: listeners on window and document that the page's scripts register (not Playwright's: their
// stack has no frame of the bundle), counted while registered (removeEventListener or their signal's abort ends one);
// workers recorded with whether they were terminated.
const instrument = () => {
  const live = new Set();
  for (const target of [window, document]) {
    const add = target.addEventListener,
      remove = target.removeEventListener;
    const key = (type, fn, o) => type + '|' + (typeof o === 'boolean' ? o : !!(o && o.capture));
    const entries = new Map();
    target.addEventListener = function (type, fn, o) {
      const k = key(type, fn, o),
        entry = { target: target === window ? 'window' : 'document', type };
      if (!/lab-component\.js/.test(new Error().stack)) return add.call(this, type, fn, o);
      if (!entries.has(fn)) entries.set(fn, new Map());
      if (!entries.get(fn).has(k)) {
        entries.get(fn).set(k, entry);
        live.add(entry);
        if (o && o.signal)
          o.signal.addEventListener('abort', () => {
            live.delete(entry);
            entries.get(fn).delete(k);
          });
      }
      return add.call(this, type, fn, o);
    };
    target.removeEventListener = function (type, fn, o) {
      const k = key(type, fn, o),
        m = entries.get(fn);
      if (m && m.has(k)) {
        live.delete(m.get(k));
        m.delete(k);
      }
      return remove.call(this, type, fn, o);
    };
  }
  const workers = [],
    NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(...args) {
      super(...args);
      this.record = { terminated: false };
      workers.push(this.record);
    }
    terminate() {
      this.record.terminated = true;
      return super.terminate();
    }
  };
  window.probe = { live, workers };
  // the element named name of the lab in #rootId (its ids carry the lab's prefix: the one of its Play button's)
  window.labEl = (rootId, name) => {
    const root = document.getElementById(rootId),
      prefix = root.querySelector('[id$="-play"]').id.slice(0, -'play'.length);
    return root.querySelector('#' + prefix + name);
  };
};

const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Two labs</title>
<link rel="stylesheet" href="style.css"><link rel="stylesheet" href="lab.css"></head>
<body><div id="one"></div><div id="two"></div>
<script>(${instrument})();</script><script src="lab-component.js"></script></body></html>`;

const server = await startServer({ '/two-labs.html': HOST, '/lab-component.js': bundle });
const { context, close } = await launch();
after(async () => {
  await close();
  await server.close();
});

test('two labs in one document: independent; dispose() of one leaves nothing of it behind', async () => {
  const g = await guardedPage(
    context,
    (u) => u.startsWith(server.origin + '/') || u.startsWith('data:') || u.startsWith('blob:'),
  );
  const { page } = g;
  await page.goto(server.origin + '/two-labs.html');
  // the second lab first: what exists before the first one is the second's and the document's
  const before = await page.evaluate(async () => {
    window.two = window.MhaLab.createLab(document.getElementById('two'), {
      query: '?preset=train-next-larger',
      theme: 'auto',
    });
    await window.two.ready;
    return { listeners: window.probe.live.size, workers: window.probe.workers.length };
  });
  const started = await page.evaluate(async () => {
    window.one = window.MhaLab.createLab(document.getElementById('one'), {
      query: '?preset=train-two-offsets&compare=1',
      values: { heads: 4 },
      theme: 'dark',
    });
    return window.one.ready;
  });
  assert.equal(started, true);
  assert.ok(before.listeners >= 2, 'the second lab listens on window and document (resize, visibilitychange)');

  const state = await page.evaluate(() => {
    const ids = Array.from(document.querySelectorAll('[id]'), (n) => n.id);
    const [one, two] = [document.getElementById('one'), document.getElementById('two')];
    return {
      duplicates: ids.filter((id, i) => ids.indexOf(id) !== i),
      plays: [window.labEl('one', 'play').id, window.labEl('two', 'play').id],
      classes: [one.className, two.className],
      apis: [
        one.mhaExplorer === window.one.api,
        two.mhaExplorer === window.two.api,
        one.hasAttribute('data-mha-explorer-lab'),
      ],
      themes: [
        one.getAttribute('data-theme'),
        two.getAttribute('data-theme'),
        document.documentElement.getAttribute('data-theme'),
      ],
      tasks: [window.labEl('one', 'c-task').value, window.labEl('two', 'c-task').value],
      heads: [window.labEl('one', 'c-heads').value, window.labEl('two', 'c-heads').value],
      // every label and aria reference of a lab names an element of that lab
      dangling: [one, two].flatMap((root) =>
        Array.from(root.querySelectorAll('[for], [aria-labelledby]')).flatMap((n) =>
          (n.getAttribute('for') || n.getAttribute('aria-labelledby'))
            .split(' ')
            .filter((id) => !root.querySelector('#' + id)),
        ),
      ),
      url: window.location.search,
      share: [one, two].map((root) => root.querySelector('[data-section="share"]').hidden),
      regions: [one, two].map((root) => root.getAttribute('role') + ' ' + root.getAttribute('aria-label')),
      landmarks: document.querySelectorAll('main, header').length,
    };
  });
  assert.deepEqual(state.duplicates, [], 'no id twice in the document');
  assert.match(state.plays[0], /^mhxlab\d+-play$/);
  assert.match(state.plays[1], /^mhxlab\d+-play$/);
  assert.notEqual(state.plays[0], state.plays[1], 'each lab its own prefix');
  assert.deepEqual(state.classes, ['mhx mhx-lab', 'mhx mhx-lab']);
  assert.deepEqual(state.apis, [true, true, true], "each root carries data-mha-explorer-lab and its lab's API");
  assert.deepEqual(
    state.themes,
    ['dark', 'light', null],
    'each root its theme (the second follows the light system), <html> none',
  );
  assert.deepEqual(state.tasks, ['two-offsets', 'next-larger']);
  assert.equal(state.heads[0], '4');
  assert.notEqual(state.heads[1], '4', "the second lab keeps its task's number of heads");
  assert.deepEqual(state.dangling, []);
  assert.equal(state.url, '', "neither lab writes the document's URL");
  assert.deepEqual(state.share, [true, true], 'no share panel (links to this address) in a mounted lab');
  assert.deepEqual(
    state.regions,
    ['region MHA Explorer training lab', 'region MHA Explorer training lab'],
    'each lab a region of the host page',
  );
  assert.equal(state.landmarks, 0, 'no main or header landmark brought into the host page');

  // Training one (its API, then its Step button) does not move the other; playing the other does not move the first.
  const trained = await page.evaluate(async () => {
    const r = await window.one.api.train({ steps: 5 });
    window.labEl('one', 'step').click();
    const stepped = () => /^step 6 /.test(window.labEl('one', 'stats').textContent);
    while (!stepped()) await new Promise((go) => setTimeout(go, 20));
    return {
      one: r.step,
      oneHead: r.oneHead && r.oneHead.step,
      two: window.two.api.getTraining().step,
      stats: window.labEl('one', 'stats').textContent,
    };
  });
  assert.deepEqual({ one: trained.one, oneHead: trained.oneHead, two: trained.two }, { one: 5, oneHead: 5, two: 0 });
  assert.match(trained.stats, /^step 6 /);
  await page.evaluate(() => window.labEl('two', 'play').click());
  await page.waitForFunction(() => window.two.api.getTraining().step >= 3);
  const played = await page.evaluate(() => {
    window.two.api.pause();
    return {
      one: window.one.api.getTraining().step,
      pressed: [window.labEl('one', 'play').getAttribute('aria-pressed')],
      twin: window.two.api.getTraining().oneHead,
    };
  });
  assert.equal(played.one, 6, 'playing the second lab leaves the first at its step');
  assert.deepEqual(played.pressed, ['false']);
  assert.equal(played.twin, null, 'the second lab has no one-head twin');
  // update(): new settings for one lab only
  const updated = await page.evaluate(async () => {
    await window.one.update({ seed: 7, heads: 2 });
    return {
      one: [
        window.labEl('one', 'c-seed').value,
        window.labEl('one', 'c-heads').value,
        window.one.api.getTraining().step,
      ],
      two: [window.labEl('two', 'c-seed').value, window.labEl('two', 'c-heads').value],
    };
  });
  assert.deepEqual(updated, { one: ['7', '2', 0], two: ['0', state.heads[1]] });
  // the arrow keys move the closer look's query in the lab whose heatmap has the focus only
  const readouts = () =>
    page.evaluate(() => [
      window.labEl('one', 'closer-readout').textContent,
      window.labEl('two', 'closer-readout').textContent,
    ]);
  const keysBefore = await readouts();
  await page.evaluate(() => window.labEl('one', 'closer-map').focus());
  await page.keyboard.press('ArrowUp');
  const keysAfter = await readouts();
  assert.notEqual(keysAfter[0], keysBefore[0], "the focused lab's query moved");
  assert.equal(keysAfter[1], keysBefore[1], "the other lab's did not");
  // a system switching to dark: the lab on 'auto' follows, the one set to dark stays
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.getElementById('two').getAttribute('data-theme') === 'dark');
  assert.equal(await page.evaluate(() => document.getElementById('one').getAttribute('data-theme')), 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => document.getElementById('two').getAttribute('data-theme') === 'light');
  await page.screenshot({ path: join(ARTIFACTS, 'lab-component-two.png'), fullPage: true });

  // dispose() of the first: its listeners, workers and elements go; the second trains on.
  const disposed = await page.evaluate(async (before) => {
    const prefix = window.labEl('one', 'play').id.slice(0, -'play'.length);
    const mine = window.probe.workers.slice(before.workers);
    window.one.dispose();
    const stepBefore = window.two.api.getTraining().step;
    const r = await window.two.api.train({ steps: 3 });
    return {
      listeners: window.probe.live.size,
      workersOfOne: mine.length,
      terminated: mine.filter((w) => w.terminated).length,
      workersOfTwo: window.probe.workers.slice(0, before.workers).filter((w) => !w.terminated).length,
      left: document.querySelectorAll('[id^="' + prefix + '"]').length,
      root: document.getElementById('one').outerHTML,
      api: 'mhaExplorer' in document.getElementById('one'),
      twoTrained: r.step - stepBefore,
    };
  }, before);
  assert.equal(disposed.listeners, before.listeners, "the first lab's window and document listeners are gone");
  assert.equal(disposed.workersOfOne, 2, "the first lab had its model's worker and its twin's");
  assert.equal(disposed.terminated, 2, 'both terminated');
  assert.equal(disposed.workersOfTwo, 1, "the second lab's worker runs");
  assert.equal(disposed.left, 0);
  assert.equal(disposed.root, '<div id="one" class=""></div>');
  assert.equal(disposed.api, false);
  assert.equal(disposed.twoTrained, 3, 'the second lab trains on');
  assert.deepEqual(g.errors, [], 'no console errors');
  await page.close();
});
