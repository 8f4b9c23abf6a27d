// What a student and a host script meet in the lab (issue 28): its API works the moment it appears (the one-file lab
// from file://, and two labs of one document called at once while both train); paces of a few steps per second, the
// default one slow enough to watch; head cards labelled with their tokens, sorted by token for a task whose head attends
// by content (the pattern becomes the diagonal it is); one head worded as one; controls drawn with SVG and text, never
// a symbol glyph; and on the page, a note beside a legend whose range is not 0…1 (lesson 003's dropout), on a phone too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { ARTIFACTS, fileURL, guardedPage, labComponentBundle, launch, startServer } from './helpers.mjs';

const bundle = labComponentBundle();
const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Two labs</title>
<link rel="stylesheet" href="style.css"><link rel="stylesheet" href="lab.css"></head>
<body><div id="one"></div><div id="two"></div><script src="lab-component.js"></script></body></html>`;

const server = await startServer({ '/two-labs.html': HOST, '/lab-component.js': bundle });
const { context, close } = await launch();
after(async () => {
  await close();
  await server.close();
});
// Controls must not rely on a symbol font: no code point from the arrows, technical, shapes, symbols, dingbats or emoji blocks.
const GLYPHS = /[\u2190-\u2bff\u{1f000}-\u{1faff}]/u;

test("the one-file lab's API called the moment it appears (file://) trains, as a host script would call it", async () => {
  const g = await guardedPage(context, () => true);
  await g.page.addInitScript(() => {
    let api = null;
    Object.defineProperty(window, 'mhaExplorer', {
      configurable: true,
      get: () => api,
      set(v) {
        api = v;
        window.atOnce = Promise.all([v.train({ steps: 20 }), v.stateDict()]).then(
          ([r, sd]) => ({ step: r.step, tensors: Object.keys(sd).length }),
          (err) => ({ error: String(err) }),
        );
      },
    });
  });
  await g.page.goto(fileURL('mha-explorer-lab.html') + '?preset=train-two-offsets');
  const r = await g.page.evaluate(() => window.atOnce);
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.step, 20);
  assert.ok(r.tensors > 4);
  assert.deepEqual(g.errors, []);
  await g.page.close();
});

test('two labs in one document, their APIs called at once, train at the same time; paces, labels, sorting, wording', async () => {
  const g = await guardedPage(context, () => true),
    page = g.page;
  await page.goto(server.origin + '/two-labs.html');
  const both = await page.evaluate(() => {
    const one = window.MhaLab.createLab(document.getElementById('one'), { query: '?preset=train-next-larger' });
    const two = window.MhaLab.createLab(document.getElementById('two'), { query: '?preset=train-two-offsets' });
    window.labs = [one, two];
    return Promise.all([one.api.train({ steps: 300 }), two.api.train({ steps: 30 })]).then((r) => r.map((x) => x.step));
  });
  assert.deepEqual(both, [300, 30]);
  const el = (i, name) => `#${i === 0 ? 'one' : 'two'} [id$="-${name}"]`;

  // the paces: a few steps per second first, the default 10 per second; labels in words
  const speeds = await page.$$eval(el(0, 'c-speed') + ' option', (os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(
    speeds.slice(0, 4).map((s) => s[0]),
    ['2/s', '5/s', '10/s', '20/s'],
  );
  assert.equal(speeds[0][1], '2 steps per second');
  assert.equal(await page.inputValue(el(1, 'c-speed')), '10/s');
  await page.selectOption(el(1, 'c-speed'), '5/s');
  const played = await page.evaluate(async () => {
    const api = window.labs[1].api,
      from = api.getTraining().step;
    await api.play();
    await new Promise((go) => setTimeout(go, 2000));
    api.pause();
    return api.getTraining().step - from;
  });
  assert.ok(played >= 3 && played <= 13, `5 steps per second for 2 s: ${played} steps`);

  // the head cards carry their tokens; next-larger (by content) offers sorting, two offsets (by position) does not
  const cards = await page.evaluate(() =>
    Array.from(document.querySelectorAll('.lab-head canvas'), (c) => c._geom && c._geom.x0),
  );
  assert.ok(cards.length >= 3 && cards.every((x0) => x0 > 8), `token labels beside every card's plot: ${cards}`);
  assert.equal(await page.isVisible(el(0, 'f-sort')), true);
  assert.equal(await page.isVisible(el(1, 'f-sort')), false);
  await page.check(el(0, 'c-sort'));
  // sorted by token, a trained next-larger head's weight sits just right of the diagonal: darker (Blues) there than elsewhere
  const contrast = await page.evaluate((sel) => {
    const c = document.querySelector(sel + ' .lab-head canvas'),
      geo = c._geom,
      dpr = c.width / parseFloat(c.style.width);
    const px = c.getContext('2d'),
      T = geo.S,
      at = (i, j) =>
        px.getImageData(
          Math.round((geo.x0 + (j + 0.5) * geo.cell) * dpr),
          Math.round((geo.y0 + (i + 0.5) * geo.cell) * dpr),
          1,
          1,
        ).data[0];
    let next = 0,
      rest = 0,
      n = 0;
    for (let i = 0; i < T; i++)
      for (let j = 0; j < T; j++) {
        if (j === i + 1) next += at(i, j);
        else {
          rest += at(i, j);
          n++;
        }
      }
    return { next: next / (T - 1), rest: rest / n, title: c.parentNode.title };
  }, '#one');
  assert.ok(
    contrast.next < contrast.rest - 60,
    `sorted: the diagonal right of the main one is dark (${contrast.next} vs ${contrast.rest})`,
  );
  assert.match(contrast.title, /sorted by token/);
  await page.screenshot({ path: join(ARTIFACTS, 'lab-follow-two.png'), fullPage: true });

  // controls in text and SVG: no symbol glyph in a button
  const buttons = await page.$$eval('button', (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(
    buttons.filter((t) => GLYPHS.test(t)),
    [],
  );
  assert.equal(await page.$$eval(el(0, 'play') + ' svg', (s) => s.length), 1);

  // one head is worded as one
  await page.evaluate(() => window.labs[1].update({ task: 'reverse' }));
  assert.match(await page.textContent(el(1, 'ablation-note')), /^This head is untrained/);
  assert.deepEqual(g.errors, []);
  await page.close();
});

test("the page: a note beside a legend whose range is not 0 … 1 (lesson 003's dropout), on a phone too; no symbol glyph in a button", async () => {
  for (const [width, name] of [
    [1280, 'desktop'],
    [390, 'phone'],
  ]) {
    const g = await guardedPage(context, () => true),
      page = g.page;
    await page.setViewportSize({ width, height: 900 });
    await page.goto(fileURL('index.html') + '?preset=lesson003');
    await page.evaluate(() => window.mhaExplorer.ready);
    const note = await page.textContent('#legend-note');
    assert.match(note, /1\/\(1 − 0\.1\) = 1\.11/);
    const box = await page.evaluate(() => {
      const r = (id) => document.getElementById(id).getBoundingClientRect();
      return { legend: r('legend'), note: r('legend-note'), heads: r('heads') };
    });
    assert.ok(
      Math.abs(box.note.top - box.legend.top) < 60 && box.note.bottom <= box.heads.top,
      `${name}: the note sits by the legend, above the heads`,
    );
    await page.screenshot({ path: join(ARTIFACTS, `page-legend-note-${name}.png`) });
    await page.evaluate(() => window.mhaExplorer.set({ preset: '', norm: 'one' }));
    assert.equal(await page.textContent('#legend-note'), '', 'a 0 … 1 legend needs no note');
    await page.evaluate(() => window.mhaExplorer.set({ norm: 'shared' }));
    assert.match(await page.textContent('#legend-note'), /not 1/);
    const buttons = await page.$$eval('button', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual(
      buttons.filter((t) => GLYPHS.test(t)),
      [],
    );
    assert.deepEqual(g.errors, []);
    await page.close();
  }
});
