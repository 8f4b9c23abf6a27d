// What the page says is true for what it shows (page issue, items 4–11): untrained heads said so,
// one numbered colour scale, dropout and masks explained, lesson 002's controls and trace in step with
// the example shown, masked cells read as masked, layout without overlaps or clipped labels, bad
// input that keeps the value in use, long texts cut at a token boundary with short links, a compact
// line view at 512 tokens, exports with legend and configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openPage, suite } from './helpers.mjs';

const env = suite();
async function open(query = '', width = 1360) {
  const g = await env.page();
  await g.page.setViewportSize({ width, height: 900 });
  if (/[?&]text=(&|$)/.test(query)) {
    // no tokens: the page is ready without weights
    await g.page.goto(env.srv.origin + '/index.html' + query);
    await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
    await g.page.evaluate(() => window.mhaExplorer.ready);
  } else await openPage(g.page, env.srv.origin + '/index.html' + query);
  return g.page;
}
const pageBox = (page, sel) =>
  page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return [r.x + window.scrollX, r.y + window.scrollY];
  }, sel);
const text = (page, sel) => page.textContent(sel);

test('the page says the heads are untrained, with one numbered colour scale', async () => {
  const page = await open('?preset=lesson000');
  assert.match(await text(page, '#heads-note'), /untrained: random initial weights/);
  assert.match(await text(page, '#heads-note'), /torch\.manual_seed\(0\)/);
  assert.doesNotMatch(await text(page, '#dk-note'), /more distinct patterns/);
  assert.equal(await page.getAttribute('#heads-note a', 'href'), 'lab.html?preset=train-two-offsets');
  // one scale: the legend's number is the largest weight of every head
  const { hi, max } = await page.evaluate(() => ({
    hi: document.querySelector('#legend .legend-hi').textContent,
    max: Math.max(...window.mhaExplorer.getWeights().data),
  }));
  assert.equal(hi, max.toFixed(2));
  assert.equal((await page.evaluate(() => window.mhaExplorer.getState())).norm, 'shared');
  await page.selectOption('#c-norm', 'max');
  assert.match(await text(page, '#heads-note'), /each heatmap from 0 to its own max/);
  assert.match(await text(page, '.head-card .head-max'), /^colours 0 – 0\.\d\d$/);
});

test('dropout: rows do not sum to 1 in train(), and eval() says dropout does nothing', async () => {
  const page = await open('?preset=lesson003');
  assert.match(await text(page, '#heads-note'), /no longer sums to 1/);
  assert.doesNotMatch(await text(page, '#heads-note'), /Each row sums to 1/);
  await page.selectOption('#c-train', '0');
  await page.waitForFunction(() => /does nothing in eval\(\)/.test(document.getElementById('heads-note').textContent));
  assert.match(await text(page, '#heads-note'), /Each row sums to 1/);
  // lesson 003 with 8 heads: the title follows
  await page.selectOption('#c-heads', '8');
  await page.waitForFunction(() =>
    /MultiHeadAttention\(64, 8/.test(document.getElementById('lesson-title').textContent),
  );
});

test('lesson 002: trace, head names and controls follow the example shown', async () => {
  const page = await open('?preset=lesson002');
  assert.doesNotMatch(await text(page, '#trace-note'), /D=64/);
  assert.match(await text(page, '#trace-note'), /Hand-built weights/);
  assert.deepEqual(await page.$$eval('.head-card .head-title', (e) => e.map((x) => x.textContent)), [
    'HEAD 1 · Semantic Expert',
    'HEAD 2 · Syntactic Expert',
    'Average of 2 heads',
  ]);
  assert.ok(await page.locator('#model-fields').isHidden(), 'no model controls for hand-built heads');
  await page.selectOption('#c-view', 'causal');
  await page.waitForFunction(() => window.mhaExplorer.getState().view === 'causal');
  assert.ok(await page.isChecked('#c-causal'));
  assert.equal(await page.inputValue('#c-fill'), '-1e9');
  assert.equal(await page.inputValue('#c-dmodel'), '32');
  assert.match(await text(page, '#trace-note'), /D=32, H=4 \(d_k=8\)/);
  // a masked cell reads as masked, and the top keys leave it out
  await page.focus('#detail-canvas');
  await page.keyboard.press('ArrowRight');
  const readout = await text(page, '#cell-readout');
  assert.match(readout, /\(0\) → key “t1” \(1\): 0 \(masked: a later key\) · top keys: t0 1\.000$/);
});

test('layout: seed and mask fill do not overlap; axis labels are not clipped', async () => {
  for (const width of [1024, 1360]) {
    const page = await open('', width);
    const [a, b] = await Promise.all(['#c-seed', '#c-fill'].map((s) => page.locator(s).boundingBox()));
    const labelB = await page.locator('label[for="c-fill"]').boundingBox();
    const labelA = await page.locator('label[for="c-seed"]').boundingBox();
    assert.ok(
      a.x + a.width <= b.x || labelA.x + labelA.width <= labelB.x,
      `seed and mask fill side by side at ${width}`,
    );
    assert.ok(Math.abs(a.y + a.height - (b.y + b.height)) < 2, `the two controls align at ${width}`);
    assert.ok(
      labelB.y + labelB.height <= b.y + 1 && labelA.y + labelA.height <= a.y + 1,
      'labels above their controls',
    );
  }
  // no label pixel touches a labelled heatmap canvas's edge (a clipped label would; at 390 px the head cards,
  // two to a row, have no labels, the enlarged head has)
  for (const width of [390, 1360]) {
    const page = await open('?text=' + encodeURIComponent('The cat sat on the mat because it was soft'), width);
    const touching = await page.evaluate(() =>
      [...document.querySelectorAll('#heads canvas, #detail-canvas')]
        .filter((c) => c._geom.x0 > 1)
        .map((c) => {
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data,
            w = c.width,
            h = c.height;
          const edge = (x, y) => d[(y * w + x) * 4 + 3] > 0;
          let n = 0;
          for (let y = 0; y < h; y++) if (edge(0, y) || edge(w - 1, y)) n++;
          for (let x = 0; x < w; x++) if (edge(x, 0)) n++;
          return n;
        }),
    );
    assert.deepEqual(
      touching,
      touching.map(() => 0),
      `labels clipped at ${width}px`,
    );
  }
});

test('phone: the heatmaps come before the controls; the trace has no hidden scroll', async () => {
  const page = await open('?dmodel=32&heads=4', 390);
  const top = (await page.locator('#heads canvas').first().boundingBox()).y;
  assert.ok(top < 900, `first heatmap at ${top}px`);
  const scroll = await page.$eval('.table-scroll', (e) => e.scrollWidth - e.clientWidth);
  assert.ok(scroll <= 1, `trace table scrolls sideways by ${scroll}px`);
});

test('bad input keeps the value in use and says so; an empty text disables the exports', async () => {
  const page = await open('?preset=lesson003');
  await page.fill('#c-dropout', '2');
  await page.press('#c-dropout', 'Enter');
  await page.waitForFunction(() => /keeping 0\.1/.test(document.getElementById('messages').textContent));
  assert.equal(await page.inputValue('#c-dropout'), '0.1');
  assert.equal((await page.evaluate(() => window.mhaExplorer.getState())).dropout, 0.1);
  const p2 = await open('?text=');
  for (const id of ['#export-png', '#export-svg', '#show-table', '#copy-py']) assert.ok(await p2.isDisabled(id), id);
});

test('a 5,000-word paste is cut at a token boundary, said so, and its link is served', async () => {
  const page = await open('?dmodel=16&heads=2');
  const words = Array.from({ length: 5000 }, (_, i) => 'wordy' + (i % 311)).join(' ');
  await page.fill('#c-text', words);
  await page.waitForFunction(() => /the page keeps the first/.test(document.getElementById('messages').textContent));
  const st = await page.evaluate(() => ({
    text: window.mhaExplorer.getState().text,
    url: window.mhaExplorer.shareURL(),
    labels: window.mhaExplorer.getLabels(),
  }));
  assert.ok(words.startsWith(st.text) && /\d$/.test(st.text), 'cut after a whole token');
  assert.equal(st.labels.length, st.text.split(' ').length);
  assert.ok(st.url.length < 8000, `share link of ${st.url.length} characters`);
  const res = await fetch(st.url);
  assert.equal(res.status, 200);
});

test('512 tokens: the line view stays compact and labelled; focusing the heatmap does not move it', async () => {
  const t = Array.from({ length: 512 }, (_, i) => 'w' + (i % 97)).join(' ');
  const page = await open('?dmodel=64&heads=4&text=' + encodeURIComponent(t));
  const box = await page.locator('#lines').boundingBox();
  assert.ok(box.height < 400, `line view ${box.height}px tall`);
  assert.ok((await page.locator('#lines text.lv-tok').count()) >= 5, 'labelled');
  const small = await open('?dmodel=32&heads=4');
  const before = await pageBox(small, '#lines');
  await small.focus('#detail-canvas');
  await small.keyboard.press('ArrowDown');
  assert.deepEqual(await pageBox(small, '#lines'), before);
});

test('exports carry every heatmap, a numbered legend and the configuration', async () => {
  const page = await open('?dmodel=32&heads=4&seed=3');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
  const svg = readFileSync(await dl.path(), 'utf8');
  assert.match(svg, /MultiHeadAttention\(d_model=32, num_heads=4\), torch\.manual_seed\(3\)/);
  assert.match(svg, /Average of 4 heads/);
  assert.match(svg, /url\(#legend\)/);
  const hi = await page.textContent('#legend .legend-hi');
  assert.ok(svg.includes('>' + hi + '</text>'), 'the legend number ' + hi);
});
