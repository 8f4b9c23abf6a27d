// Loading GPT-2 small by its Hub id from the local Hub (tests/node/fixtures/hub-server.mjs, 127.0.0.1) in headless
// Chromium (issue 42's "Speed and memory"), against the same file fetched into an ArrayBuffer, and the two browser
// stores (the Cache API, the Origin Private File System) compared on the same file:
//   node bench/js/hub-load.mjs [--quick] [--rounds N] [--only way,way] [--json FILE]
// The checkpoint: lib/random-gpt2.mjs's (GPT-2 small's tensors, random float32, 548 MB, under build/bench-models/;
// --quick: the oracle's tiny gpt2 of build/models). Each way runs in a browser of its own (launched on the same
// profile, so the store persists from the first visit to the second), timed from the call to its end; its peak
// memory is the most the browser's processes held above what they held just before (their resident sizes from
// /proc, sampled every 20 ms: the renderer, where the page and the core run, and all of them together).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startHub } from '../../tests/node/fixtures/hub-server.mjs';
import { serve } from '../../scripts/serve.mjs';
import { CHROMIUM } from '../../scripts/chromium.mjs';
import { randomGpt2 } from './lib/random-gpt2.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { median } = require('./lib/timing.js');
const { chromium } = require(require.resolve('playwright-core', { paths: [ROOT] }));
const arg = (name, def) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : def);
const ROUNDS = Number(arg('--rounds', 3));
const C = 'e'.repeat(40);
const HUB = 'bench/gpt2';

const dir = process.argv.includes('--quick')
  ? path.join(ROOT, 'build', 'models', 'gpt2')
  : randomGpt2(path.join(ROOT, 'build', 'bench-models', 'gpt2-random')).dir;
const files = {
  'config.json': path.join(dir, 'config.json'),
  'model.safetensors': path.join(dir, 'model.safetensors'),
};
const BYTES = fs.statSync(files['model.safetensors']).size;

// Each way: [name, setup (untimed, in the page), timed (in the page)]; both get {endpoint, hub}.
const WAYS = {
  fetch: [null, async ({ url }) => (await (await fetch(url('model.safetensors'))).arrayBuffer()).byteLength],
  urls: [
    null,
    async ({ M, url }) => M.loadModel(['config.json', 'model.safetensors'].map((name) => ({ name, url: url(name) }))),
  ],
  first: [({ M }) => M.deleteStoredHubModel(), ({ M, hub, endpoint }) => M.loadModel({ hub, endpoint })],
  second: [null, ({ M, hub, endpoint }) => M.loadModel({ hub, endpoint })],
  noStore: [null, ({ M, hub, endpoint }) => M.loadModel({ hub, endpoint, store: false })],
  cacheWrite: [
    () => caches.delete('bench'),
    async ({ url }) => (await caches.open('bench')).put('/w', await fetch(url('model.safetensors'))),
  ],
  cacheRead: [
    null,
    async ({ M, url }) => {
      const blob = await (await (await caches.open('bench')).match('/w')).blob();
      return M.loadModel([
        { name: 'config.json', url: url('config.json') },
        { name: 'model.safetensors', bytes: blob },
      ]);
    },
  ],
  opfsWrite: [
    async () => (await navigator.storage.getDirectory()).removeEntry('w').catch(() => {}),
    async ({ url }) => {
      const handle = await (await navigator.storage.getDirectory()).getFileHandle('w', { create: true });
      await (await fetch(url('model.safetensors'))).body.pipeTo(await handle.createWritable());
    },
  ],
  opfsRead: [
    null,
    async ({ M, url }) => {
      const file = await (await (await navigator.storage.getDirectory()).getFileHandle('w')).getFile();
      return M.loadModel([
        { name: 'config.json', url: url('config.json') },
        { name: 'model.safetensors', bytes: file },
      ]);
    },
  ],
};

// The resident bytes of this process's descendants (Chromium's processes): {all, renderer}.
function resident() {
  const kids = new Map();
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(p));
    } catch {
      // gone
    }
  }
  const out = { all: 0, renderer: 0 };
  const walk = (pid) => {
    for (const k of kids.get(pid) || []) {
      try {
        const rss = Number(fs.readFileSync(`/proc/${k}/statm`, 'utf8').split(' ')[1]) * 4096;
        out.all += rss;
        if (fs.readFileSync(`/proc/${k}/cmdline`, 'utf8').includes('--type=renderer')) out.renderer += rss;
      } catch {
        // gone
      }
      walk(k);
    }
  };
  walk(process.pid);
  return out;
}

function sampler() {
  const base = resident();
  const peak = { all: 0, renderer: 0 };
  const timer = setInterval(() => {
    const r = resident();
    peak.all = Math.max(peak.all, r.all - base.all);
    peak.renderer = Math.max(peak.renderer, r.renderer - base.renderer);
  }, 20);
  return () => (clearInterval(timer), peak);
}

const hub = await startHub({ [HUB]: { refs: { main: C }, commits: { [C]: files } } });
const site = await serve(path.join(ROOT, 'dist'), {
  extra: { '/hub-bench.html': '<!doctype html><meta charset="utf-8"><script src="mha.js"></script>' },
});
const profile = fs.mkdtempSync(path.join(ROOT, 'build', 'hub-bench-'));

// One way in a browser of its own: {s, peakMB: {all, renderer}}.
async function runWay(name) {
  const [setup, timed] = WAYS[name];
  const context = await chromium.launchPersistentContext(profile, { ...CHROMIUM });
  try {
    const page = await context.newPage();
    await page.goto(site.origin + '/hub-bench.html');
    const src = { setup: setup && String(setup), timed: String(timed), hub: HUB, endpoint: hub.endpoint };
    await page.evaluate(async (s) => {
      const M = (window.M = await createMhaModule()); // eslint-disable-line no-undef
      const resolve = (f) => `${s.endpoint}/${s.hub}/resolve/main/${f}`;
      window.args = { M, url: resolve, hub: s.hub, endpoint: s.endpoint };
      if (s.setup) await (0, eval)(`(${s.setup})`)(window.args);
    }, src);
    await new Promise((r) => setTimeout(r, 300));
    const stop = sampler();
    const s = await page.evaluate(async (s) => {
      const t0 = performance.now();
      const m = await (0, eval)(`(${s.timed})`)(window.args);
      const took = (performance.now() - t0) / 1000;
      if (m && m.dispose) m.dispose();
      return took;
    }, src);
    const peak = stop();
    return { s, peakMB: { all: peak.all / 1e6, renderer: peak.renderer / 1e6 } };
  } finally {
    await context.close();
  }
}

// The store's facts in this browser: quota, persistence.
async function storeFacts() {
  const context = await chromium.launchPersistentContext(profile, { ...CHROMIUM });
  const page = await context.newPage();
  await page.goto(site.origin + '/hub-bench.html');
  const facts = await page.evaluate(async () => ({
    estimate: await navigator.storage.estimate(),
    persisted: await navigator.storage.persisted(),
    persist: await navigator.storage.persist(),
  }));
  await context.close();
  return facts;
}

const only = arg('--only') ? arg('--only').split(',') : Object.keys(WAYS);
const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const round = {};
  for (const name of only) round[name] = await runWay(name);
  rounds.push(round);
  process.stderr.write(`round ${r + 1}: ${JSON.stringify(round)}\n`);
}
const facts = await storeFacts();
const med = (k, f) => median(rounds.map((x) => f(x[k])));
const floor = only.includes('fetch') ? med('fetch', (x) => x.s) : NaN;
console.log(`${(BYTES / 1e6).toFixed(0)} MB, medians of ${ROUNDS} rounds\n`);
console.log('| way | s | ÷ fetch | peak MB (renderer) | peak MB (all) |');
console.log('| --- | --- | --- | --- | --- |');
for (const k of only) {
  const s = med(k, (x) => x.s);
  const [r, a] = [med(k, (x) => x.peakMB.renderer), med(k, (x) => x.peakMB.all)];
  console.log(`| ${k} | ${s.toFixed(2)} | ${(s / floor).toFixed(2)} | ${r.toFixed(0)} | ${a.toFixed(0)} |`);
}
console.log(`\nstorage: ${JSON.stringify(facts)}`);
if (arg('--json')) fs.writeFileSync(arg('--json'), JSON.stringify({ bytes: BYTES, rounds, facts }, null, 2));
fs.rmSync(profile, { recursive: true, force: true });
hub.close();
await site.close();
