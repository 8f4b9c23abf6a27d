// <mha-explorer model="checkpoints/gpt2/"> in a course page (web/entries/element.js mounting the model page,
// web/models/page.js): the folder is read relative to the course page, the text comes from the text attribute, the
// element's mhaExplorer is the model page's API (ready, getWeights, getTokens, set, load, ablate) and its weights,
// tokens and top 5s equal transformers' (the oracle's tiny checkpoints, tests/models/make_checkpoints.py); a changed
// model or text attribute loads or runs in place; a folder dropped on the element loads there; removing the element
// disposes the model page; a layer or head the loaded model lacks is refused before any text is shown; an explorer added
// beside a model element whose core fell back past a missing file starts its workers on that same build. No console
// error, nothing requested beyond the page's host; a screenshot in tests/browser/artifacts/models-element.png (the
// course page's first screen).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { serve } from '../../scripts/serve.mjs';
import { ARTIFACTS, axeViolations, DIST, guardedPage, launch } from './helpers.mjs';
import { checkAgainstOracle, checkpoints, readOracle } from './models-oracle.mjs';

let models, made, site, srv, browser;
const oracle = (c, k = 0) => readOracle(join(models, c, 'oracle-' + k + '.safetensors'));
const oracles = (c) => readdirSync(join(models, c)).filter((f) => /^oracle-\d+\.safetensors$/.test(f)).length;
const escape = (t) => t.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

// A course page in a folder of the site (course/week1.html), its checkpoints in course/models/, the element's script
// (and the core) one folder up, as an instructor uploads dist/ beside the course.
const coursePage = (text) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Week 1: real heads</title><link rel="icon" href="data:,"></head>
<body style="max-width: 1100px; margin: 0 auto; font: 16px/1.5 Georgia, serif">
<main><h1>Week 1: the heads of a trained model</h1>
<p>Which head links “it” to “road”? Look at every head below, then switch some off.</p>
<mha-explorer id="m" model="models/gpt2/" text="${escape(text)}"></mha-explorer></main>
<script src="../mha-explorer-element.js"></script>
</body></html>`;

before(async () => {
  ({ models, made } = checkpoints());
  site = mkdtempSync(join(tmpdir(), 'mha-models-element-'));
  for (const f of readdirSync(DIST)) symlinkSync(join(DIST, f), join(site, f));
  mkdirSync(join(site, 'course'));
  symlinkSync(models, join(site, 'course', 'models'));
  writeFileSync(join(site, 'course', 'week1.html'), coursePage(oracle('gpt2', 0).metadata.text));
  writeFileSync(join(site, 'course', 'week0.html'), coursePage(''));
  srv = await serve(site);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
  if (site) rmSync(site, { recursive: true, force: true });
  if (made) rmSync(made, { recursive: true, force: true });
});

async function open(name = 'week1') {
  const g = await guardedPage(
    browser.context,
    (u) => u.startsWith(srv.origin + '/') || u.startsWith('data:') || u.startsWith('blob:'),
  );
  await g.page.goto(srv.origin + '/course/' + name + '.html');
  await g.page.waitForFunction(() => {
    const m = document.querySelector('#m');
    return m && m.mhaExplorer && m.mhaExplorer.ready;
  });
  g.ready = await g.page.evaluate(() => document.querySelector('#m').mhaExplorer.ready);
  return g;
}
async function closeClean(g) {
  assert.deepEqual(g.errors, [], 'console errors');
  assert.deepEqual(g.foreign, [], "requests beyond the page's host");
  await g.page.close();
}
// The element's attribute set, then its API's ready.
const setAttr = (page, name, value) =>
  page.evaluate(
    ([name, value]) => {
      const m = document.querySelector('#m');
      m.setAttribute(name, value);
      return m.mhaExplorer.ready;
    },
    [name, value],
  );
const api = (page, method, arg) =>
  page.evaluate(([method, arg]) => document.querySelector('#m').mhaExplorer[method](arg), [method, arg]);

test("model= relative to the course page, text= as an attribute: the element's weights, tokens and top 5s equal transformers'", async () => {
  const g = await open();
  const { page } = g;
  assert.equal(g.ready, true, 'loaded: ' + JSON.stringify(await api(page, 'getMessages')));
  // the text attribute, as shown before any call
  assert.deepEqual(await api(page, 'getTokens'), oracle('gpt2', 0).metadata.tokens, 'the text attribute');
  assert.equal(
    await page.evaluate(() => document.querySelector('#m').shadowRoot.querySelector('#text').value),
    oracle('gpt2', 0).metadata.text,
  );
  for (let k = 0; k < oracles('gpt2'); k++) await checkAgainstOracle(page, oracle('gpt2', k), 'gpt2', '#m');
  // a new text attribute runs in place
  const t1 = oracle('gpt2', 1).metadata;
  assert.equal(await setAttr(page, 'text', t1.text), true);
  assert.deepEqual(await api(page, 'getTokens'), t1.tokens, 'a changed text attribute');
  // layer and head attributes select a head; one the model lacks is said, and the selection stays
  await setAttr(page, 'layer', '1');
  await setAttr(page, 'head', '2');
  assert.deepEqual(await api(page, 'getMessages'), []);
  const heads = (await api(page, 'getInfo')).heads;
  await setAttr(page, 'head', '99');
  assert.deepEqual(await api(page, 'getSelection'), { layer: 1, head: 2 });
  assert.deepEqual(await api(page, 'getMessages'), [
    `head must be a whole number from 0 to ${heads - 1}, got "99"; keeping head 2.`,
  ]);
  await setAttr(page, 'layer', 'last');
  assert.deepEqual(await api(page, 'getMessages'), ['layer must be a whole number from 0; keeping layer 1.']);
  await setAttr(page, 'layer', '0');
  assert.deepEqual(await api(page, 'getSelection'), { layer: 0, head: 2 });
  assert.deepEqual(await api(page, 'getMessages'), [], 'a good value clears the message');
  // a new model attribute loads that folder in place; what was said of the old model's selection goes with it
  await setAttr(page, 'head', '98');
  assert.equal((await api(page, 'getMessages')).length, 1);
  assert.equal(await setAttr(page, 'model', 'models/bert/'), true);
  assert.equal((await api(page, 'getInfo')).modelType, 'bert');
  assert.deepEqual(await api(page, 'getMessages'), [], "the old model's refusal is not said of the new one");
  await checkAgainstOracle(page, oracle('bert', 0), 'bert', '#m');
  await page.screenshot({ path: join(ARTIFACTS, 'models-element.png') });
  // one named region of the course page (no second main landmark), and axe finds nothing there, shadow root included
  const box = await page.evaluate(() => {
    const box = document.querySelector('#m').shadowRoot.querySelector('.mhx');
    return {
      region: box.getAttribute('role') + ' ' + box.getAttribute('aria-label'),
      landmarks: box.querySelectorAll('main, header').length,
    };
  });
  assert.deepEqual(box, { region: 'region MHA Explorer: real models', landmarks: 0 });
  assert.deepEqual(await axeViolations(page), []);
  await closeClean(g);
});

test('a model loaded, no text yet: a head attribute the model lacks is refused, the selection kept', async () => {
  const g = await open('week0');
  const { page } = g;
  assert.equal(g.ready, false, 'no text, no forward');
  const heads = (await api(page, 'getInfo')).heads;
  await setAttr(page, 'head', '99');
  assert.deepEqual(await api(page, 'getSelection'), { layer: 0, head: 0 });
  const noTokens = 'The text gives no tokens: write something.';
  assert.deepEqual(await api(page, 'getMessages'), [
    `head must be a whole number from 0 to ${heads - 1}, got "99"; keeping head 0.`,
    noTokens,
  ]);
  await setAttr(page, 'head', '1');
  assert.deepEqual(await api(page, 'getMessages'), [noTokens], 'a good value clears the message');
  assert.equal(await setAttr(page, 'text', 'The chicken crossed the road.'), true);
  assert.deepEqual(await api(page, 'getSelection'), { layer: 0, head: 1 });
  await page.locator('#m #off-one').click();
  assert.deepEqual((await api(page, 'getTop')).headsOff, [[0, 1]]);
  await closeClean(g);
});

test('load({files}) and a folder dropped on the element; the host page around it untouched', async () => {
  const g = await open();
  const { page } = g;
  const files = (c) =>
    readdirSync(join(models, c))
      .filter((f) => !/^oracle-/.test(f))
      .map((f) => ({ name: f, b64: readFileSync(join(models, c, f)).toString('base64') }));
  const loaded = await page.evaluate(async (files) => {
    const m = document.querySelector('#m');
    const list = files.map((f) => new File([Uint8Array.from(atob(f.b64), (ch) => ch.charCodeAt(0))], f.name));
    return m.mhaExplorer.load({ files: list });
  }, files('distilbert'));
  assert.equal(loaded, true);
  await checkAgainstOracle(page, oracle('distilbert', 0), 'distilbert', '#m');
  // a drop on the element (inside its shadow root)
  const said = await page.evaluate(async (files) => {
    const m = document.querySelector('#m'),
      dt = new DataTransfer();
    for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (ch) => ch.charCodeAt(0))], f.name));
    m.shadowRoot
      .querySelector('#grid')
      .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true, composed: true }));
    await m.mhaExplorer.ready;
    return m.mhaExplorer.getMessages();
  }, files('llama'));
  assert.deepEqual(said, []);
  await checkAgainstOracle(page, oracle('llama', 0), 'llama', '#m');
  // the host page's own markup and address are the course's
  assert.equal(await page.evaluate(() => document.querySelectorAll('h1').length), 1);
  assert.equal(new URL(page.url()).search, '');
  await closeClean(g);
});

test("a model element's core build, fallen back to from a missing file, is the one a second element's workers import", async () => {
  // a folder without mha-relaxed.js: the model element falls back to the next build, an explorer added later shares it
  const dir = join(site, 'partial');
  mkdirSync(dir);
  for (const f of readdirSync(DIST)) if (!/^mha-relaxed/.test(f)) symlinkSync(join(DIST, f), join(dir, f));
  symlinkSync(models, join(dir, 'models'));
  writeFileSync(
    join(dir, 'two.html'),
    coursePage('The road.').replace('../mha-explorer-element.js', 'mha-explorer-element.js'),
  );
  const page = await browser.context.newPage(),
    cores = [];
  page.on('request', (r) => /\/mha(-relaxed|-nosimd)?\.js$/.test(r.url()) && cores.push(r.url().split('/').pop()));
  await page.goto(srv.origin + '/partial/two.html');
  await page.waitForFunction(() => document.querySelector('#m')?.mhaExplorer?.ready);
  assert.equal(await page.evaluate(() => document.querySelector('#m').mhaExplorer.ready), true);
  await page.evaluate(() => document.querySelector('main').appendChild(document.createElement('mha-explorer')));
  await page.waitForFunction(() =>
    document.querySelector('main > mha-explorer:last-child').mhaExplorer?.getWeights?.(),
  );
  // the page's script: mha-relaxed.js missing (where the browser runs relaxed SIMD), then mha.js; the workers: mha.js
  const rest = cores.slice(cores.indexOf('mha.js'));
  assert.ok(rest.length > 1 && rest.every((c) => c === 'mha.js'), 'the core scripts requested: ' + cores.join(', '));
  await page.close();
});

test('removed from the page, the element disposes the model page; put back, it loads again', async () => {
  const g = await open();
  const { page } = g;
  const after = await page.evaluate(async () => {
    const m = document.querySelector('#m'),
      old = m.mhaExplorer;
    m.remove();
    const gone = {
      api: m.mhaExplorer,
      shadow: m.shadowRoot.childNodes.length,
      weights: old.getWeights(),
      set: await old.set({ text: 'still there?' }),
    };
    document.body.appendChild(m);
    return { gone, again: await m.mhaExplorer.ready, fresh: m.mhaExplorer !== old };
  });
  assert.deepEqual(after, { gone: { api: null, shadow: 0, weights: null, set: false }, again: true, fresh: true });
  await closeClean(g);
});
