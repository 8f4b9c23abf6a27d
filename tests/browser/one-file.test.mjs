// One file is enough: dist/mha-explorer.html copied alone, under another name, to a deep path as a course platform
// serves an upload (Moodle: /pluginfile.php/<context>/mod_resource/content/<n>/<file>.html), and opened from file://.
// The page runs, "Train heads ↗" switches to the lab inside the document (its address names the same file), the lab
// trains, "Random heads ↗" and the back button return to the page; no request leaves the file. The file holds each
// core build once and weighs at most 1.5 MB. Screenshots of the switched lab, desktop and phone, go to artifacts/.
// A core that runs but defines nothing (blocked, broken) is said in words; a build whose module does not start passes
// to the next.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { ARTIFACTS, DIST, guardedPage, launch } from './helpers.mjs';

const DEEP = ['pluginfile.php', '1234', 'mod_resource', 'content', '7'];
const NAME = 'attention-course.html'; // a platform may keep any name: the file's links follow it
const LIMIT = 1.5e6;

let browser, server, dir;
before(async () => {
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'mha-one-file-'));
  mkdirSync(join(dir, ...DEEP), { recursive: true });
  copyFileSync(join(DIST, 'mha-explorer.html'), join(dir, ...DEEP, NAME));
  copyFileSync(join(DIST, 'mha-explorer-lab.html'), join(dir, 'mha-explorer-lab.html'));
  server = await serve(dir);
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the one file: at most 1.5 MB, each core build inline once', () => {
  for (const name of ['mha-explorer.html', 'mha-explorer-lab.html']) {
    const text = readFileSync(join(DIST, name), 'utf8'),
      bytes = statSync(join(DIST, name)).size;
    console.log(`# ${name}: ${(bytes / 1e6).toFixed(3)} MB`);
    assert.ok(bytes <= LIMIT, `${name}: ${bytes} bytes`);
    const inline = JSON.parse(/window\.MHA_INLINE = (\{.*?\});<\/script>/.exec(text)[1]);
    assert.deepEqual(Object.keys(inline.cores).sort(), ['mha', 'mha-nosimd', 'mha-relaxed']);
    // the whole inline string: mha's and mha-relaxed's compressed streams can share a long prefix
    for (const [build, c] of Object.entries(inline.cores)) {
      // a later build's part may be a delta against the first's (web/build.mjs: mha-relaxed's wasm is a few kB)
      for (const part of ['wasm', 'glue']) {
        const delta = c[part + 'Delta'];
        if (delta) assert.ok(inline.cores[delta.of][part], `${name}: ${build}'s ${part} is a delta of a carried one`);
        if (delta || (part === 'glue' && c.glueOf)) continue;
        assert.equal(text.split(c[part]).length - 1, 1, `${name}: ${build}'s ${part} once`);
      }
      // a glue equal to an earlier build's is named, not carried again (mha-nosimd's is mha's)
      if (c.glueOf) assert.ok(inline.cores[c.glueOf].glue, `${name}: ${build}'s glueOf names a carried glue`);
    }
    assert.ok(inline.cores['mha-relaxed'].wasmDelta, `${name}: mha-relaxed's wasm is carried as a delta of mha's`);
  }
});

// Every build the file carries starts and computes, its parts put back from their deltas: the browser's first choice
// (relaxed SIMD), then mha as where relaxed SIMD is missing, then mha-nosimd as where SIMD is (features.js's probes
// answered no).
test('each core build of the one file starts, rebuilt from its delta', async () => {
  const want = { 0: 'wasmsimd-relaxed', 1: 'wasmsimd', 2: 'scalar' };
  for (const [refused, implementation] of Object.entries(want)) {
    const g = await guardedPage(browser.context, () => true);
    await g.page.addInitScript((n) => {
      const validate = WebAssembly.validate.bind(WebAssembly);
      let probes = 0;
      WebAssembly.validate = (bytes) => (probes++ < n ? false : validate(bytes));
    }, Number(refused));
    await g.page.goto(pathToFileURL(join(dir, ...DEEP, NAME)).href);
    await g.page.waitForFunction(() => window.mhaExplorer?.getWeights?.() != null, null, { timeout: 30000 });
    const got = await g.page.evaluate(() => {
      const w = window.mhaExplorer.getWeights();
      return {
        implementation: window.mhaExplorer.getCompute().implementation,
        size: w.shape,
        first: Array.from(w.data.slice(0, 4)),
      };
    });
    console.log(`# ${implementation}: weights ${JSON.stringify(got.size)}`);
    assert.equal(got.implementation, implementation);
    assert.ok(
      got.first.every((x) => x >= 0 && x <= 1),
      `${implementation}: weights are probabilities`,
    );
    assert.deepEqual(g.errors, [], `${implementation}: no console errors`);
    await g.page.close();
  }
});

// The file at url: the page, then the lab by its link, training, then the page by the lab's link and by Back.
// Every link the view shows (a hidden one cannot be followed): to this very file.
const otherFiles = (page, own) =>
  page.evaluate(
    (file) =>
      [...document.querySelectorAll('a[href]')]
        .filter((a) => a.checkVisibility())
        .map((a) => a.href.split(/[?#]/)[0])
        .filter((href) => href !== file),
    own,
  );

async function switchAndTrain(url, what, shots) {
  const own = url.split('?')[0];
  const g = await guardedPage(
    browser.context,
    (u) => u.startsWith('data:') || u.startsWith('blob:') || u.split(/[?#]/)[0] === own,
  );
  const { page } = g;
  await page.goto(url);
  await page.waitForFunction(
    () => window.mhaExplorer && window.mhaExplorer.getWeights && window.mhaExplorer.getWeights() !== null,
    null,
    { timeout: 30000 },
  );
  assert.equal(
    await page.getAttribute('#open-lab', 'href'),
    NAME + '?preset=train-two-offsets',
    `${what}: the lab link names this file`,
  );
  assert.deepEqual(await otherFiles(page, own), [], `${what}: the page links to no other file`);

  await page.click('#open-lab');
  await page.waitForFunction(
    () => document.querySelector('.mhx-lab') && window.mhaExplorer && window.mhaExplorer.train,
    null,
    { timeout: 30000 },
  );
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true, `${what}: the lab started`);
  await page.waitForFunction(
    (name) =>
      location.pathname.endsWith('/' + name) &&
      new URLSearchParams(location.search).get('preset') === 'train-two-offsets',
    NAME,
  ); // the address names the lab, in the same file
  assert.match(await page.title(), /training lab/);
  assert.deepEqual(await otherFiles(page, own), [], `${what}: the lab links to no other file`);
  // the page left nothing behind: the lab's root carries its theme (its chart's colours come from it)
  assert.match(
    String(await page.evaluate(() => document.body.getAttribute('data-theme'))),
    /^(light|dark)$/,
    `${what}: the lab's theme`,
  );
  const r = await page.evaluate(() => window.mhaExplorer.train({ steps: 40 }));
  assert.equal(r.step, 40, `${what}: trained in the lab`);
  await page.waitForFunction(() => /40/.test(document.getElementById('stats').textContent));
  if (shots) {
    await page.screenshot({ path: join(ARTIFACTS, `one-file-lab-${shots}.png`) });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(ARTIFACTS, `one-file-lab-${shots}-phone.png`) });
    await page.setViewportSize({ width: 1360, height: 900 });
  }

  await page.click('a.btn:has-text("Random heads")');
  await page.waitForFunction(
    () =>
      !document.querySelector('.mhx-lab') && window.mhaExplorer.getWeights && window.mhaExplorer.getWeights() !== null,
    null,
    { timeout: 30000 },
  );
  assert.equal(
    await page.evaluate(() => document.querySelectorAll('#heads canvas').length > 0),
    true,
    `${what}: the page again`,
  );
  await page.goBack();
  await page.waitForFunction(() => !!document.querySelector('.mhx-lab'), null, { timeout: 30000 });
  const requests = g.requests.filter((u) => !u.startsWith('data:') && !u.startsWith('blob:'));
  console.log(
    `# ${what}: page → lab (40 steps) → page → Back to the lab; ${g.requests.length} requests, ${requests.length} of them ` +
      `not data:/blob: (${[...new Set(requests.map((u) => u.split('?')[0]))].join(', ')})`,
  );
  assert.deepEqual(g.foreign, [], `${what}: no request beyond the file itself`);
  assert.equal(requests.length, 1, `${what}: the file is loaded once, switching loads nothing`);
  assert.deepEqual(g.errors, [], `${what}: no console errors`);
  await page.close();
}

test(
  'served alone from a deep path, as a course platform serves an upload: page → lab → training → page',
  { timeout: 120000 },
  async () => {
    await switchAndTrain(`${server.origin}/${DEEP.join('/')}/${NAME}`, 'http, deep path', 'http');
  },
);

test('opened from file://: page → lab → training → page', { timeout: 120000 }, async () => {
  await switchAndTrain(pathToFileURL(join(dir, ...DEEP, NAME)).href, 'file://', 'file');
});

test('mha-explorer-lab.html opens on the lab; its link to the page stays in the file', { timeout: 60000 }, async () => {
  const url = `${server.origin}/mha-explorer-lab.html`;
  const g = await guardedPage(
    browser.context,
    (u) => u.startsWith('data:') || u.startsWith('blob:') || u.split(/[?#]/)[0] === url,
  );
  await g.page.goto(url);
  await g.page.waitForFunction(
    () => document.querySelector('.mhx-lab') && window.mhaExplorer && window.mhaExplorer.train,
    null,
    { timeout: 30000 },
  );
  assert.equal(await g.page.getAttribute('a.btn:has-text("Random heads")', 'href'), 'mha-explorer-lab.html');
  await g.page.click('a.btn:has-text("Random heads")');
  await g.page.waitForFunction(
    () =>
      !document.querySelector('.mhx-lab') && window.mhaExplorer.getWeights && window.mhaExplorer.getWeights() !== null,
    null,
    { timeout: 30000 },
  );
  assert.deepEqual(g.foreign, [], 'no request beyond the file');
  assert.deepEqual(g.errors, []);
  await g.page.close();
});

test('a core that defines no createMhaModule (a script blocker, a broken copy) is said in words', async () => {
  const page = await browser.context.newPage();
  // window.createMhaModule that no script can set: each build's text runs and defines nothing
  await page.addInitScript(() =>
    Object.defineProperty(window, 'createMhaModule', { get: () => undefined, set() {}, configurable: false }),
  );
  await page.goto(`${server.origin}/${DEEP.join('/')}/${NAME}`);
  await page.waitForFunction(() => /could not/.test(document.getElementById('messages').textContent));
  assert.match(
    await page.textContent('#messages'),
    /could not start its WebAssembly core: mha[-a-z]*\.js ran but defined no createMhaModule: blocked, or not the core/,
  );
  await page.close();
});

test('a build whose module does not start passes to the next: the page runs on the next build', async () => {
  const page = await browser.context.newPage();
  // the first build's createMhaModule() rejects (as a module whose memory cannot be had); the next one's starts
  await page.addInitScript(() => {
    let f;
    Object.defineProperty(window, 'createMhaModule', {
      get: () => f,
      set: (g) => {
        f = f ? g : () => Promise.reject(new Error('this build does not start here'));
      },
    });
  });
  await page.goto(`${server.origin}/${DEEP.join('/')}/${NAME}`);
  await page.waitForFunction(
    () =>
      document.getElementById('messages').textContent ||
      (window.mhaExplorer && window.mhaExplorer.getWeights && window.mhaExplorer.getWeights()),
  );
  assert.equal(await page.textContent('#messages'), '');
  assert.notEqual(await page.evaluate(() => window.mhaExplorer.getWeights()), null);
  await page.close();
});
