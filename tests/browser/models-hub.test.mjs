// The model page and the element with a Hub model id (web/models/hub.js over the core's previewHubModel /
// downloadHubModel) against a local Hub on other origins (tests/node/fixtures/hub-server.mjs: resolve → 302 → a content
// host, CORS, Range): model=hf:…&hub=… loads the oracle's tiny GPT-2 with the weights its folder gives; the id box
// previews before it downloads; the second visit loads from the browser's store with the Hub stopped (no request);
// a download cut halfway resumes with Range; the stored list deletes; a gated repository is said and the page stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { guardedPage, DIST } from './helpers.mjs';
import { serve } from '../../scripts/serve.mjs';
import { modelSite } from './models-oracle.mjs';
import { startHub, folderFiles } from '../node/fixtures/hub-server.mjs';
import { MINILM_DIR } from '../node/fixtures/hub-caches.mjs';

const C1 = 'c'.repeat(40);
const WEIGHTS = /^(config\.json|model\.safetensors|tokenizer(_config)?\.json)$/;
let site, hubs;
const servers = [];
const repos = () => ({
  'tiny/gpt2': {
    refs: { main: C1 },
    commits: {
      [C1]: Object.fromEntries(Object.entries(folderFiles(join(site.models, 'gpt2'))).filter(([n]) => WEIGHTS.test(n))),
    },
  },
  'sentence-transformers/all-MiniLM-L6-v2': { refs: { main: C1 }, commits: { [C1]: folderFiles(MINILM_DIR) } },
  'tiny/gated': { gated: true, commits: {} },
});
const newHub = async () => {
  const h = await startHub(repos());
  hubs.push(h);
  return h;
};

before(async () => {
  site = await modelSite('mha-hub-');
  hubs = [];
});
after(async () => {
  for (const h of hubs) h.close();
  await site?.close();
  for (const s of servers) await s.close();
});

async function open(query, hub) {
  const g = await guardedPage(site.browser.context, () => true);
  await g.page.goto(site.srv.origin + '/models.html?' + query);
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  g.ready = await g.page.evaluate(() => window.mhaExplorer.ready);
  g.hubRequests = () =>
    g.requests.filter((u) => hub && (u.startsWith(hub.endpoint) || u.startsWith(hub.contentOrigin)));
  return g;
}
const weights = (page) => page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data));
const hf = (id, hub) => 'model=' + encodeURIComponent('hf:' + id) + '&hub=' + encodeURIComponent(hub.endpoint);

test('model=hf:tiny/gpt2: the preview, then the weights its folder gives; the second visit from the store, the Hub stopped', async () => {
  const folder = await open('model=models/gpt2/');
  assert.equal(folder.ready, true);
  const want = await weights(folder.page);
  await folder.page.close();
  const hub = await newHub();
  const g = await open(hf('tiny/gpt2', hub), hub);
  assert.equal(g.ready, true, (await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '));
  assert.deepEqual(await weights(g.page), want, 'the weights of the folder, bit for bit');
  const facts = await g.page.textContent('[data-part="hub-preview"] dl');
  assert.match(facts, /gpt2, 2 layers × 4 heads/);
  assert.match(facts, /tiny\/gpt2 @ cccccccccccc/);
  assert.deepEqual(g.errors, []);
  await g.page.close();
  hub.close();
  const again = await open(hf('tiny/gpt2', hub), hub);
  assert.equal(again.ready, true, (await again.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '));
  assert.deepEqual(await weights(again.page), want, 'from the store: the same bits');
  assert.deepEqual(again.hubRequests(), [], 'nothing asked of the Hub');
  assert.match(await again.page.textContent('[data-part="hub-preview"] dl'), /stored/);
  await again.page.close();
});

test('the id box: Preview, then Download; the stored list and Delete; a gated repository said, the model kept', async () => {
  const hub = await newHub();
  const g = await open('hub=' + encodeURIComponent(hub.endpoint), hub);
  const { page } = g;
  await page.fill('input[name="hub-id"]', 'tiny/gpt2');
  await page.click('form[data-part="hub"] button');
  await page.waitForSelector('[data-part="hub-preview"]:not([hidden])');
  assert.equal(await page.evaluate(() => !!window.mhaExplorer.getInfo()), false, 'nothing loaded before Download');
  const asked = g.hubRequests().length;
  assert.ok(asked > 0 && asked <= 8, `the preview's few requests (${asked})`);
  await page.click('[data-part="hub-preview"] button');
  await page.waitForFunction(() => window.mhaExplorer.getInfo() !== null);
  assert.equal(await page.evaluate(() => window.mhaExplorer.getInfo().modelType), 'gpt2');
  await page.click('[data-part="hub-stored"] summary');
  await page.waitForFunction(() => document.querySelectorAll('[data-part="hub-stored"] li').length > 0);
  assert.match(await page.textContent('[data-part="hub-stored"] li'), /tiny\/gpt2 @ cccccccccccc/);
  await page.fill('input[name="hub-id"]', 'tiny/gated');
  await page.click('form[data-part="hub"] button');
  await page.waitForFunction(() => window.mhaExplorer.getMessages().some((m) => /gated/.test(m)));
  assert.equal(await page.evaluate(() => window.mhaExplorer.getInfo().modelType), 'gpt2', 'the model stays');
  const items = () => page.$$eval('[data-part="hub-stored"] li', (l) => l.length);
  const before = await items();
  await page.click('[data-part="hub-stored"] li button');
  await page.waitForFunction((n) => document.querySelectorAll('[data-part="hub-stored"] li').length === n - 1, before);
  await page.close();
});

test('all-MiniLM-L6-v2 cut at 40 %: resumed with Range, the weights of an uncut download', async () => {
  const plain = await newHub();
  const g0 = await open(hf('sentence-transformers/all-MiniLM-L6-v2', plain), plain);
  assert.equal(g0.ready, true, (await g0.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '));
  const want = await weights(g0.page);
  await g0.page.close();
  const hub = await newHub();
  let n = 0;
  hub.fault((r) => r.host === 'content' && r.range === null && n++ < 1 && { cutAt: 0.4 });
  const g = await open(hf('sentence-transformers/all-MiniLM-L6-v2', hub), hub);
  assert.equal(g.ready, true, (await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' '));
  const resumed = hub.requests.filter(
    (r) => r.host === 'content' && r.method === 'GET' && /^bytes=[1-9]\d*-$/.test(r.range || ''),
  );
  assert.equal(resumed.length, 1, 'one request from where the cut stopped');
  assert.deepEqual(await weights(g.page), want, 'the same bits');
  await g.page.close();
});

test('<mha-explorer model="hf:tiny/gpt2" hub="…"> in a course page', async () => {
  const hub = await newHub();
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 2</title><link rel="icon" href="data:,"></head>
<body><mha-explorer model="hf:tiny/gpt2" hub="${hub.endpoint}"></mha-explorer><script src="mha-explorer-element.js"></script></body></html>`;
  // a page served from 127.0.0.1 (a route-fulfilled page is in no address space, and Chromium's local network
  // access would refuse its requests to the loopback Hub)
  const course = await serve(DIST, { extra: { '/week2.html': html } });
  const g = await guardedPage(site.browser.context, () => true);
  await g.page.goto(course.origin + '/week2.html');
  await g.page.waitForFunction(() => {
    const e = document.querySelector('mha-explorer');
    return e && e.mhaExplorer && e.mhaExplorer.getInfo && e.mhaExplorer.getInfo();
  });
  assert.equal(
    await g.page.evaluate(() => document.querySelector('mha-explorer').mhaExplorer.getInfo().modelType),
    'gpt2',
  );
  assert.deepEqual(g.errors, []);
  await g.page.close();
  servers.push(course); // closed after the browser (its kept-alive connections hold server.close)
});

test('no CORS on the content host, and a model above the memory: said before any weight is fetched', async () => {
  const hub = await newHub();
  hub.fault((r) => r.host === 'content' && { noCors: true });
  const g = await open(hf('tiny/gpt2', hub), hub);
  assert.equal(g.ready, false);
  const said = (await g.page.evaluate(() => window.mhaExplorer.getMessages())).join(' ');
  assert.match(said, /model\.safetensors of tiny\/gpt2 could not be fetched .*Access-Control-Allow-Origin/);
  await g.page.close();
  hub.clear();
  const small = await guardedPage(site.browser.context, () => true);
  await small.page.addInitScript(() => Object.defineProperty(navigator, 'deviceMemory', { get: () => 0.0001 }));
  const before = hub.requests.length;
  await small.page.goto(site.srv.origin + '/models.html?' + hf('tiny/gpt2', hub));
  await small.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  assert.equal(await small.page.evaluate(() => window.mhaExplorer.ready), false);
  const msg = (await small.page.evaluate(() => window.mhaExplorer.getMessages())).join(' ');
  assert.match(msg, /needs more memory than this browser can give the page: nothing was downloaded/);
  const fetched = hub.requests.slice(before).filter((r) => r.host === 'content' && r.method === 'GET');
  assert.ok(
    fetched.every((r) => r.range === 'bytes=0-65535'),
    'only the header',
  );
  assert.match(await small.page.textContent('[data-part="hub-preview"] dl'), /too much/);
  await small.page.close();
});
