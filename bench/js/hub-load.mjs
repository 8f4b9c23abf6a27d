// Loading GPT-2 small (548 MB; lib/checkpoint.js's random-initialised gpt2 under build/bench-models/gpt2/, never from
// a hub) by its Hub id from the local Hub (tests/node/fixtures/hub-server.mjs, 127.0.0.1) in headless Chromium
// (issue 42's "Speed and memory"), against the same file fetched into an ArrayBuffer:
//   node bench/js/hub-load.mjs [--quick] [--rounds N] [--json FILE]   (--quick: the oracle's tiny gpt2, build/models)
// Each round, in one page of dist/mha.js: fetch → arrayBuffer (the floor); loadModel([{name, url}]) (today's
// streaming load); loadModel({hub}) with the store emptied (the first visit: download into the Cache API, then
// read from it); loadModel({hub}) again (the second visit: from the store, no request); loadModel({hub, store:
// false}) (downloaded into a Blob). Medians in seconds and their ratio to the fetch. Peak memory is not measured.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startHub } from '../../tests/node/fixtures/hub-server.mjs';
import { serve } from '../../scripts/serve.mjs';
import { CHROMIUM } from '../../scripts/chromium.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { ensureCheckpoint, venvPython } = require('./lib/checkpoint.js');
const { median } = require('./lib/timing.js');
const { chromium } = require(require.resolve('playwright-core', { paths: [ROOT] }));
const arg = (name, def) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : def);
const ROUNDS = Number(arg('--rounds', 3));
const C = 'e'.repeat(40);

const dir = process.argv.includes('--quick')
  ? path.join(ROOT, 'build', 'models', 'gpt2')
  : ensureCheckpoint(venvPython(), {
      name: 'gpt2',
      tiny: false,
      refTokens: 128,
      says: (d) => `hub-load: writing ${d} (once)`,
    }).dir;
const files = {
  'config.json': path.join(dir, 'config.json'),
  'model.safetensors': path.join(dir, 'model.safetensors'),
};
const hub = await startHub({ 'bench/gpt2': { refs: { main: C }, commits: { [C]: files } } });
const site = await serve(path.join(ROOT, 'dist'), {
  extra: { '/hub-bench.html': '<!doctype html><meta charset="utf-8"><script src="mha.js"></script>' },
});
const profile = fs.mkdtempSync(path.join(ROOT, 'build', 'hub-bench-'));
const context = await chromium.launchPersistentContext(profile, { ...CHROMIUM });
const page = await context.newPage();
await page.goto(site.origin + '/hub-bench.html');

// One round: the seconds of each way, in the page.
const round = (endpoint) =>
  page.evaluate(async (endpoint) => {
    const M = await createMhaModule(); // eslint-disable-line no-undef
    const hub = 'bench/gpt2';
    const resolve = (f) => `${endpoint}/${hub}/resolve/main/${f}`;
    const time = async (f) => {
      const t0 = performance.now();
      const m = await f();
      const s = (performance.now() - t0) / 1000;
      if (m && m.dispose) m.dispose();
      return s;
    };
    const fetchBody = await time(
      async () => (await (await fetch(resolve('model.safetensors'))).arrayBuffer()).byteLength,
    );
    const urls = await time(() =>
      M.loadModel(['config.json', 'model.safetensors'].map((name) => ({ name, url: resolve(name) }))),
    );
    await M.deleteStoredHubModel();
    const first = await time(() => M.loadModel({ hub, endpoint }));
    const second = await time(() => M.loadModel({ hub, endpoint }));
    const noStore = await time(() => M.loadModel({ hub, endpoint, store: false }));
    return { fetchBody, urls, first, second, noStore };
  }, endpoint);

const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  rounds.push(await round(hub.endpoint));
  process.stderr.write(`round ${r + 1}: ${JSON.stringify(rounds.at(-1))}\n`);
}
const keys = Object.keys(rounds[0]);
const med = Object.fromEntries(keys.map((k) => [k, median(rounds.map((x) => x[k]))]));
console.log('| way | median s | ÷ fetch |');
console.log('| --- | --- | --- |');
for (const k of keys) console.log(`| ${k} | ${med[k].toFixed(2)} | ${(med[k] / med.fetchBody).toFixed(2)} |`);
if (arg('--json')) fs.writeFileSync(arg('--json'), JSON.stringify({ rounds, median: med }, null, 2));
await context.close();
fs.rmSync(profile, { recursive: true, force: true });
hub.close();
await site.close();
