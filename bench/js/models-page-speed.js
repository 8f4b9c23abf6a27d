#!/usr/bin/env node
'use strict';
// The model page's speed (issue 31's "Speed"; the method and one run's numbers: docs/model-page.md#speed):
//   node bench/js/models-page-speed.js [--quick] [--rounds N] [--json FILE]
// GPT-2 small (bench/js/lib/gpt2.py's random-initialised gpt2 under build/bench-models/gpt2/, made once and shared
// with bench/js/models.js) with a byte-level BPE tokenizer (lib/gpt2_page.py: gpt2's own vocabulary is on the hub
// only) in build/bench-models/gpt2-page/, loaded by dist/models.html?model=… (scripts/serve.mjs) in headless Chromium,
// at 128 tokens. Paired rounds in one tab, each in alternating order after the task that follows a painted frame:
//   - keystroke: a one-letter change of the 128-token text (the textarea's value, its input event) until the frame
//     painted after the page drew every head (all 144 heatmaps, the predictions, the look table, the attention view),
//     against the core's forward of the same text (model.forward(ids, {logitsAt: [T − 1]}), what the page runs);
//     target: the median of keystroke ÷ forward ≤ 1.3;
//   - the same keystroke with a head off: until the frame that shows every head starts (the top 5 without the head
//     comes after it, from a second forward: its time is reported in forwards too);
//   - a head off: mhaExplorer.ablate([[l, h]]) (a different head each round, the previous one back on) until the
//     frame painted after the new top 5, against the core's forward with that head off; target: ≤ 1 forward (the
//     median of ablate ÷ forward ≤ 1.0 would need a forward cheaper than the core's: the ratio says what it costs
//     beyond the one forward it runs); the page's forward without attentions resumes from the core's activations
//     cache at the head's layer: the same change with a head of the last layer and of the first layer says what
//     that saves (against the same whole forward with the head off).
// `--profile`: a CPU profile (CDP) of 10 keystrokes and 10 heads off after the rounds, self time by function: where
// the page's time goes (read relative sizes only on a loaded machine: DEVELOPERS.md). `--quick`: the tiny GPT-2 of
// models.js --quick, few rounds (a smoke test).
const fs = require('fs');
const path = require('path');
const { ensureCheckpoint, runPython, venvPython } = require('./lib/checkpoint.js');
const { installAfterPaint } = require('./lib/after-paint.js');

const ROOT = path.resolve(__dirname, '..', '..');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
};
const QUICK = process.argv.includes('--quick');
const ROUNDS = Number(arg('--rounds', QUICK ? 4 : 20));
const T = 128;
const CASE = QUICK ? { dir: 'gpt2-tiny', tiny: true } : { dir: 'gpt2', tiny: false };
const TARGETS = { keystroke: 1.3, ablate: 1.0 };
const { median: med } = require('./lib/timing.js');

// The checkpoint bench/js/models.js benchmarks (lib/checkpoint.js: one made for both), then the page's folder beside it.
function pageFolder(python) {
  const { dir } = ensureCheckpoint(python, {
    name: CASE.dir,
    tiny: CASE.tiny,
    refTokens: 128,
    says: (d) => `models-page-speed: writing ${d} (once)`,
  });
  const page = dir + '-page';
  if (!fs.existsSync(path.join(page, 'texts.json'))) {
    runPython(python, [
      path.join(__dirname, 'lib', 'gpt2_page.py'),
      '--model',
      dir,
      '--out',
      page,
      '--tokens',
      String(T),
    ]);
  }
  return { page, texts: JSON.parse(fs.readFileSync(path.join(page, 'texts.json'), 'utf8'))[T] };
}

// In the page: `rounds` paired rounds (after 2 unpaired ones) of keystroke vs forward and head off vs forward.
function measure(page, rounds) {
  return page.evaluate(
    async ({ rounds }) => {
      const X = window.mhaExplorer,
        box = document.querySelector('#text');
      const afterPaint = window.afterPaint; // lib/after-paint.js
      const time = async (f) => {
        await afterPaint();
        const t = performance.now();
        await f();
        await afterPaint();
        return performance.now() - t;
      };
      const { L, H } = { L: X.getInfo().layers, H: X.getInfo().heads };
      const texts = window.TEXTS,
        out = { keystroke: [], ablate: [], keystrokeOff: [], ablateLast: [], ablateFirst: [] };
      for (let i = 0; i < rounds + 2; i++) {
        const text = texts[i % 2];
        const keystroke = () =>
          time(() => {
            box.value = text;
            box.dispatchEvent(new Event('input', { bubbles: true }));
            return X.ready;
          });
        const forward = () =>
          time(() => {
            const m = X.getModel(),
              ids = m.tokenize(text).ids;
            return m.forward(ids, { logitsAt: [ids.length - 1] }); // a promise: the model is in its worker
          });
        const first = i % 4 < 2;
        const k = first ? await keystroke() : 0,
          f = await forward(),
          k2 = first ? k : await keystroke();
        if (X.getIds().length !== 128) throw new Error('the text has ' + X.getIds().length + ' tokens, not 128');
        const head = [i % L, (i * 5) % H];
        const ablate = () => time(() => X.ablate([head]));
        const forwardOff = () =>
          time(() => {
            const ids = X.getIds();
            return X.getModel().forward(ids, { headsOff: [head], logitsAt: [ids.length - 1] });
          });
        const a = first ? await ablate() : 0,
          fo = await forwardOff(),
          a2 = first ? a : await ablate();
        const last = await time(() => X.ablate([[L - 1, i % H]])),
          firstLayer = await time(() => X.ablate([[0, i % H]]));
        // a keystroke with that head off: the grid's frame, then the top 5 without it (a second forward, after it)
        await X.ablate([head]);
        await afterPaint();
        const before = X.getIds().join(),
          t0 = performance.now();
        box.value = texts[(i + 1) % 2];
        box.dispatchEvent(new Event('input', { bubbles: true }));
        // the first frame after the render (its ids are the new text's): the one that paints every head
        const grid = await new Promise((r) => {
          const frame = () => (X.getIds().join() !== before ? r(performance.now() - t0) : requestAnimationFrame(frame));
          requestAnimationFrame(frame);
        });
        await X.ready;
        await afterPaint();
        const top5 = performance.now() - t0;
        await X.ablate([]);
        if (i >= 2) {
          out.keystroke.push({ page: k2, forward: f });
          out.ablate.push({ page: a2, forward: fo });
          out.keystrokeOff.push({ page: grid, top5, forward: f });
          out.ablateLast.push({ page: last, forward: fo });
          out.ablateFirst.push({ page: firstLayer, forward: fo });
        }
      }
      return out;
    },
    { rounds },
  );
}

// Self time by function over `n` keystrokes and `n` heads off: the top rows, in ms per change.
async function profile(page, n) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await page.evaluate(async (n) => {
    const X = window.mhaExplorer,
      box = document.querySelector('#text');
    for (let i = 0; i < n; i++) {
      box.value = window.TEXTS[i % 2];
      box.dispatchEvent(new Event('input', { bubbles: true }));
      await X.ready;
      await X.ablate([[i % X.getInfo().layers, i % X.getInfo().heads]]);
      await new Promise((r) => requestAnimationFrame(r));
    }
    await X.ablate([]);
  }, n);
  const { profile: p } = await cdp.send('Profiler.stop');
  const self = new Map(),
    byId = new Map(p.nodes.map((x) => [x.id, x]));
  const dt = p.timeDeltas;
  p.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame,
      key = `${f.functionName || '(anonymous)'} ${path.basename(f.url || '')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) || 0) + (dt[i] || 0) / 1000);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([k, ms]) => `${(ms / n).toFixed(1).padStart(8)} ms  ${k}`)
    .join('\n');
}

async function main() {
  const python = venvPython();
  const { page: folder, texts } = pageFolder(python);
  const { serve } = await import(path.join(ROOT, 'scripts', 'serve.mjs'));
  const { CHROMIUM } = await import(path.join(ROOT, 'scripts', 'chromium.mjs'));
  const { chromium } = require(require.resolve('playwright-core', { paths: [ROOT] }));
  // the page's folder: dist/ and the checkpoint in models/gpt2/
  const site = fs.mkdtempSync(path.join(require('os').tmpdir(), 'mha-models-speed-'));
  const dist = path.join(ROOT, 'dist');
  for (const f of fs.readdirSync(dist)) fs.symlinkSync(path.join(dist, f), path.join(site, f));
  fs.mkdirSync(path.join(site, 'models'));
  fs.symlinkSync(folder, path.join(site, 'models', 'gpt2'));
  const srv = await serve(site);
  // a profile on disk, as a student's browser has (an incognito context keeps every Blob in memory)
  const profileDir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'mha-models-speed-profile-'));
  const browser = await chromium.launchPersistentContext(profileDir, {
    ...CHROMIUM,
    viewport: { width: 1360, height: 900 },
  });
  let result;
  try {
    const page = await browser.newPage();
    await page.addInitScript((t) => (window.TEXTS = t), texts);
    await page.addInitScript(installAfterPaint);
    await page.goto(`${srv.origin}/models.html?model=models/gpt2/&text=${encodeURIComponent(texts[0])}`);
    await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 120000 });
    if (!(await page.evaluate(() => window.mhaExplorer.ready)))
      throw new Error('the page did not load: ' + (await page.evaluate(() => window.mhaExplorer.getMessages())));
    const info = await page.evaluate(() => window.mhaExplorer.getInfo());
    const m = await measure(page, ROUNDS);
    if (process.argv.includes('--profile')) log('self time per keystroke + head off:\n' + (await profile(page, 10)));
    const ratio = (rs) => med(rs.map((x) => x.page / x.forward));
    result = {
      model: `${info.modelType} ${info.layers}×${info.heads}, d_model ${info.dModel}`,
      layers: info.layers,
      tokens: T,
      rounds: ROUNDS,
      load: require('os').loadavg(),
      keystroke: {
        ratio: ratio(m.keystroke),
        target: TARGETS.keystroke,
        pageMs: med(m.keystroke.map((x) => x.page)),
        forwardMs: med(m.keystroke.map((x) => x.forward)),
      },
      keystrokeOff: {
        ratio: ratio(m.keystrokeOff),
        target: TARGETS.keystroke,
        pageMs: med(m.keystrokeOff.map((x) => x.page)),
        forwardMs: med(m.keystrokeOff.map((x) => x.forward)),
        top5Ratio: med(m.keystrokeOff.map((x) => x.top5 / x.forward)),
      },
      ablate: {
        ratio: ratio(m.ablate),
        target: TARGETS.ablate,
        pageMs: med(m.ablate.map((x) => x.page)),
        forwardMs: med(m.ablate.map((x) => x.forward)),
      },
      samples: m,
    };
    for (const name of ['ablateLast', 'ablateFirst'])
      result[name] = {
        ratio: ratio(m[name]),
        target: TARGETS.ablate,
        pageMs: med(m[name].map((x) => x.page)),
        forwardMs: med(m[name].map((x) => x.forward)),
      };
  } finally {
    await browser.close();
    await srv.close();
    fs.rmSync(site, { recursive: true, force: true });
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
  const row = (name, r) =>
    `| ${name} | ${r.pageMs.toFixed(1)} | ${r.forwardMs.toFixed(1)} | ${r.ratio.toFixed(2)} | ≤ ${r.target} |`;
  console.log(`${result.model}, ${T} tokens, ${ROUNDS} paired rounds, load ${result.load.map((x) => x.toFixed(1)).join(' ')}
| change | page (ms) | forward (ms) | page ÷ forward (median of rounds) | target |
| --- | --- | --- | --- | --- |
${row('keystroke → all heads drawn', result.keystroke)}
${row('keystroke, a head off → all heads drawn', result.keystrokeOff)}
${row('a head off → the new top 5', result.ablate)}
${row(`a head of the last layer (${result.layers - 1}) off → the new top 5`, result.ablateLast)}
${row('a head of the first layer (0) off → the new top 5', result.ablateFirst)}
(keystroke with a head off → its top 5 without the head too: ${result.keystrokeOff.top5Ratio.toFixed(2)} forwards)`);
  const json = arg('--json');
  if (json) fs.writeFileSync(json, JSON.stringify(result, null, 1));
}

main().catch((e) => {
  console.error(`models-page-speed: BROKEN: ${(e && e.stack) || e}`);
  process.exit(1);
});
