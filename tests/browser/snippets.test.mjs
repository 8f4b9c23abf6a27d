// Every snippet the page offers (each cell's "Copy code" and "Copy as PyTorch") runs as pasted into a
// fresh notebook with real PyTorch (Debian's python3-torch, /usr/bin/python3) and prints exactly the
// text the page shows as printed — lesson presets, every lesson 002 example, changed seeds, dropout,
// masks, long texts (PyTorch's summarized printing) and non-ASCII text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openPage, runInPyTorch, comparePrinted as compare } from './helpers.mjs';

const CASES = [
  'preset=lesson000',
  'preset=lesson000&seed=7&heads=4',
  'preset=lesson000&causal=1',
  'preset=lesson001',
  'preset=lesson001&seed=3',
  'preset=lesson002',
  'preset=lesson002&view=pipeline',
  'preset=lesson003',
  'preset=lesson003&train=0',
  'preset=lesson003&seed=5&heads=8&dropout=0.3',
  'preset=lesson004',
  'preset=lesson004&dmodel=64&heads=2&seed=9',
  '',
  'seed=7&dmodel=32&heads=4',
  'causal=1&fill=-1e9&dmodel=16&heads=2',
  'pos=0&dmodel=8&heads=2&head=1',
  'dropout=0.2&train=1&dmodel=32&heads=4&causal=1',
  'text=' +
    encodeURIComponent("नमस्ते दुनिया, didn't café naïve ＡＢＣ 東京タワー 🙂 e\u0301t\u00e9 wo\uFEFFrd") +
    '&dmodel=32&heads=4',
  'text=' +
    encodeURIComponent(Array.from({ length: 40 }, (_, i) => 'word' + (i % 13)).join(' ')) +
    '&dmodel=16&heads=2&head=1',
  'text=' +
    encodeURIComponent(Array.from({ length: 240 }, (_, i) => 'tok' + (i % 57)).join(' ')) +
    '&dmodel=32&heads=4&causal=1',
];

// Cases whose every forward also runs split by heads in the forward pool (window.mhaPoolCost = 0): the joined
// result prints what PyTorch prints too.
const SPLIT_CASES = [
  'seed=7&dmodel=32&heads=4',
  'causal=1&fill=-1e9&dmodel=16&heads=2',
  'preset=lesson000&seed=7&heads=4',
  CASES[CASES.length - 1],
];

const env = suite();

async function snippetsOf(query, split) {
  const g = await env.page();
  if (split)
    await g.page.addInitScript(() => {
      window.mhaPoolCost = 0;
    });
  await openPage(g.page, env.srv.origin + '/index.html?' + query);
  if (split) assert.match(await g.page.evaluate(() => window.mhaExplorer.getCompute().where), /Web Worker/, query);
  const out = [];
  const views = query === 'preset=lesson002' ? ['heads', 'module'] : [null];
  for (const view of views) {
    if (view && view !== 'heads') {
      await g.page.selectOption('#c-view', view);
      await g.page.waitForFunction((v) => window.mhaExplorer.getState().view === v, view);
    }
    out.push(...(await g.page.evaluate(() => window.mhaExplorer.getSnippets())));
  }
  await g.page.close();
  return out;
}

test('every snippet runs in PyTorch and prints what the page prints', { timeout: 600000 }, async () => {
  const all = [];
  for (const q of CASES) {
    for (const s of await snippetsOf(q)) all.push({ ...s, id: (q || 'default') + ' · ' + s.id });
  }
  for (const q of SPLIT_CASES) {
    for (const s of await snippetsOf(q, true)) all.push({ ...s, id: q + ' (heads split) · ' + s.id });
  }
  assert.ok(all.length >= CASES.length * 2, 'each case offers its snippets');
  const results = runInPyTorch(all);
  const failures = [],
    roundings = [];
  results.forEach((r, i) => {
    const want = all[i].printed;
    if (r.error) failures.push(`${r.id}: raised\n${r.error}`);
    else {
      const diff = compare(r.stdout.replace(/\n$/, ''), want);
      if (diff.text)
        failures.push(`${r.id}: ${diff.text}\n--- PyTorch printed ---\n${r.stdout}\n--- the page shows ---\n${want}`);
      roundings.push(...diff.roundings.map((d) => `${r.id}: ${d}`));
    }
  });
  if (roundings.length)
    console.log(
      `# ${roundings.length} printed numbers differ in the last digit (float32 matmul rounding):\n# ` +
        roundings.slice(0, 20).join('\n# '),
    );
  assert.deepEqual(failures, [], failures.join('\n\n'));
});
