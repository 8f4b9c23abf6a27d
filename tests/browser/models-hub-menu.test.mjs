// The model page's menu of an instructor's models (web/models/menu.js): menu=menus/<file>.json names a JSON file on
// the page's host listing folders next to it and Hub ids (here the local Hub of tests/node/fixtures/hub-server.mjs).
// The menu lists them, previews the chosen one (a folder's family and size, a Hub id's preview panel), Open loads it
// with the weights its folder gives; a missing, non-JSON, HTML, oversized or foreign index is said in words, its bad
// entries left out and said, nothing of it written as HTML, and the page stays usable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { guardedPage, DIST, launch } from './helpers.mjs';
import { serve } from '../../scripts/serve.mjs';
import { checkpoints } from './models-oracle.mjs';
import { startHub, folderFiles } from '../node/fixtures/hub-server.mjs';

const C1 = 'd'.repeat(40);
const WEIGHTS = /^(config\.json|model\.safetensors|tokenizer(_config)?\.json)$/;
let dir, srv, browser, hub, models, made;

const MENUS = {
  'course.json': JSON.stringify({
    models: [
      { name: 'Tiny GPT-2 (folder)', model: '../models/gpt2/', about: 'Two layers, four heads.' },
      { name: 'Tiny GPT-2 (Hub)', model: 'hf:tiny/gpt2' },
      'https://elsewhere.example/models/x/',
      { name: '<img src=x onerror=alert(1)>', model: 'hf:not a/valid id' },
      { model: 42 },
    ],
  }),
  'broken.json': '{"models": [',
  'shape.json': JSON.stringify({ list: ['gpt2/'] }),
  'big.json': JSON.stringify({ models: ['x/'.repeat(600000)] }),
  'page.html': '<!doctype html><title>not a menu</title>',
};

before(async () => {
  ({ models, made } = checkpoints());
  dir = mkdtempSync(join(tmpdir(), 'mha-menu-'));
  for (const f of readdirSync(DIST)) symlinkSync(join(DIST, f), join(dir, f));
  symlinkSync(models, join(dir, 'models'));
  mkdirSync(join(dir, 'menus'));
  for (const [name, text] of Object.entries(MENUS)) writeFileSync(join(dir, 'menus', name), text);
  srv = await serve(dir);
  browser = await launch();
  const files = Object.entries(folderFiles(join(models, 'gpt2'))).filter(([n]) => WEIGHTS.test(n));
  hub = await startHub({ 'tiny/gpt2': { refs: { main: C1 }, commits: { [C1]: Object.fromEntries(files) } } });
});
after(async () => {
  hub?.close();
  await browser?.close();
  await srv?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (made) rmSync(made, { recursive: true, force: true });
});

test('<mha-explorer menu="menus/course.json"> in a course page: the menu inside the element', async () => {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 3</title><link rel="icon" href="data:,"></head>
<body><mha-explorer menu="menus/course.json" hub="${hub.endpoint}"></mha-explorer><script src="mha-explorer-element.js"></script></body></html>`;
  writeFileSync(join(dir, 'week3.html'), html);
  const g = await guardedPage(browser.context, () => true);
  await g.page.goto(srv.origin + '/week3.html');
  const options = await g.page.waitForFunction(() => {
    const e = document.querySelector('mha-explorer');
    const root = e && e.shadowRoot;
    const list = root && root.querySelectorAll('[data-part="hub-menu"] option');
    return list && list.length ? Array.from(list, (o) => o.textContent) : null;
  });
  assert.deepEqual(await options.jsonValue(), ['Tiny GPT-2 (folder)', 'Tiny GPT-2 (Hub)']);
  await g.page.close();
});

async function open(query) {
  const g = await guardedPage(browser.context, () => true);
  await g.page.goto(srv.origin + '/models.html?' + query);
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  await g.page.evaluate(() => window.mhaExplorer.ready);
  return g;
}
const menuText = (page) => page.textContent('[data-part="hub-menu"]');
const messages = (page) => page.evaluate(() => window.mhaExplorer.getMessages().join(' '));

test('menu=: the entries listed, a folder previewed and opened with its weights, a Hub id previewed', async () => {
  const folder = await open('model=models/gpt2/');
  const want = await folder.page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data));
  await folder.page.close();
  const g = await open('menu=menus/course.json&hub=' + encodeURIComponent(hub.endpoint));
  await g.page.waitForSelector('[data-part="hub-menu"] dd');
  const options = await g.page.$$eval('[data-part="hub-menu"] option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(options, ['Tiny GPT-2 (folder)', 'Tiny GPT-2 (Hub)']);
  const text = await menuText(g.page);
  assert.match(text, /gpt2, 2 layers × 4 heads/);
  assert.match(text, /Two layers, four heads\./);
  assert.match(
    text,
    /Left out of the menu: entry 3 .*leads to another site.*entry 4 .*not a Hub id.*entry 5 has no "model"/,
  );
  assert.equal(await g.page.$('[data-part="hub-menu"] img'), null, 'nothing of the file written as HTML');
  await g.page.click('[data-part="hub-menu"] button');
  // The model's forward runs in its worker: the weights come after getInfo() does.
  await g.page.waitForFunction(
    () => (window.mhaExplorer.getInfo() || {}).modelType === 'gpt2' && window.mhaExplorer.getWeights() !== null,
  );
  assert.deepEqual(await g.page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data)), want);
  await g.page.selectOption('[data-part="hub-menu"] select', '1');
  await g.page.waitForFunction(() =>
    /tiny\/gpt2 @ dddddddddddd/.test(document.querySelector('[data-part="hub-preview"]').textContent),
  );
  assert.deepEqual(g.errors, []);
  await g.page.close();
});

test('a broken, foreign or hostile index: said in words, the page usable', async () => {
  const cases = [
    ['menus/broken.json', /menus\/broken\.json is not JSON/],
    ['menus/shape.json', /has no "models" list/],
    ['menus/big.json', /larger than 1\.0 MB/],
    ['menus/page.html', /answered an HTML page, not the menu JSON/],
    ['menus/none.json', /was not found \(the server answered 404\)/],
    ['https://elsewhere.example/index.json', /leads to another site/],
  ];
  for (const [menu, said] of cases) {
    const g = await open('menu=' + encodeURIComponent(menu) + '&model=models/gpt2/');
    await g.page.waitForFunction(() => document.querySelector('[data-part="hub-menu"] .note').textContent);
    assert.match(await menuText(g.page), said, menu);
    assert.match(await messages(g.page), said, menu + ': in the page messages');
    assert.equal(
      await g.page.evaluate(() => window.mhaExplorer.getInfo().modelType),
      'gpt2',
      menu + ': model= still loads',
    );
    await g.page.close();
  }
});
