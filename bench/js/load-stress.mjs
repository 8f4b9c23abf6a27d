// Counts loadModel's hangs in Chromium (issue 38): hundreds of loads of the real all-MiniLM-L6-v2 (90 MB of
// weights) as Files in one page, then in two frames of one page loading at the same time. Each load is given 60 s
// (a good one takes about a second; the stall timer is 20 s): one that neither resolves nor rejects by then is a
// hang. Files of two kinds, alternating: the <input type=file>'s Files (on disk) and `new File([bytes])` made in JS.
//   node bench/js/load-stress.mjs [--loads 200] [--frame-loads 100] [--build mha.js]
// Needs dist/ (scripts/build) and build/models/minilm (tests/models/make_checkpoints.py). Prints one JSON summary.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { CHROMIUM } from '../../scripts/chromium.mjs';
import { serve } from '../../scripts/serve.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: opts } = parseArgs({
  options: {
    loads: { type: 'string', default: '200' },
    'frame-loads': { type: 'string', default: '100' },
    build: { type: 'string', default: 'mha.js' },
  },
});
const NAMES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
const MODEL = join(repo, 'build', 'models', 'minilm');
const HANG_MS = 60000;

// The page of one loader: its <input>, and runLoads(n) → {ok, hung, failed: {message: count}, ms: [per load]}.
const FRAME = `<!doctype html><meta charset="utf-8"><title>load stress</title>
<input type="file" id="pick" multiple><script src="/${opts.build}"></script><script>
const NAMES = ${JSON.stringify(NAMES)};
window.runLoads = async (n) => {
  const M = await createMhaModule();
  const bytes = await Promise.all(NAMES.map((f) => fetch('/m/' + f).then((r) => r.arrayBuffer())));
  const out = { ok: 0, hung: 0, failed: {}, ms: [] };
  for (let i = 0; i < n; i++) {
    const files = i % 2 ? NAMES.map((f, k) => new File([bytes[k]], f)) : [...document.querySelector('#pick').files];
    const t0 = performance.now();
    const controller = new AbortController();
    let timer;
    const hang = new Promise((r) => (timer = setTimeout(r, ${HANG_MS}, 'hung')));
    const r = await Promise.race([M.loadModel(files, { signal: controller.signal }).then((m) => m, (e) => e), hang]);
    clearTimeout(timer);
    if (r === 'hung') { out.hung++; controller.abort(); }
    else if (r instanceof Error) out.failed[r.message] = (out.failed[r.message] || 0) + 1;
    else { out.ok++; r.dispose(); }
    out.ms.push(Math.round(performance.now() - t0));
  }
  return out;
};
</script>`;
const TOP = `<!doctype html><meta charset="utf-8"><title>two frames</title>
<iframe id="a" src="/frame.html"></iframe><iframe id="b" src="/frame.html"></iframe>`;

async function pick(frame) {
  await frame.locator('#pick').setInputFiles(NAMES.map((f) => join(MODEL, f)));
}

const summary = (r) => {
  const ms = [...r.ms].sort((a, b) => a - b);
  return {
    loads: r.ms.length,
    ok: r.ok,
    hung: r.hung,
    failed: r.failed,
    medianMs: ms[ms.length >> 1],
    maxMs: ms.at(-1),
  };
};

const dir = mkdtempSync(join(tmpdir(), 'mha-load-stress-'));
symlinkSync(join(repo, 'dist', opts.build), join(dir, opts.build));
symlinkSync(MODEL, join(dir, 'm'));
writeFileSync(join(dir, 'frame.html'), FRAME);
writeFileSync(join(dir, 'index.html'), TOP);
const srv = await serve(dir);
const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'mha-chromium-')), CHROMIUM);
try {
  const page = await context.newPage();
  await page.goto(`${srv.origin}/frame.html`);
  await pick(page.mainFrame());
  const onePage = await page.evaluate((n) => window.runLoads(n), Number(opts.loads));
  await page.goto(`${srv.origin}/index.html`);
  const frames = await Promise.all(
    ['a', 'b'].map(async (id) => (await page.locator('#' + id).elementHandle()).contentFrame()),
  );
  for (const f of frames) {
    await f.waitForFunction(() => window.runLoads);
    await pick(f);
  }
  const twoFrames = await Promise.all(
    frames.map((f) => f.evaluate((n) => window.runLoads(n), Number(opts['frame-loads']))),
  );
  const result = {
    build: opts.build,
    chromium: context.browser()?.version() ?? 'persistent context',
    onePage: summary(onePage),
    twoFrames: twoFrames.map(summary),
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await context.close();
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
}
