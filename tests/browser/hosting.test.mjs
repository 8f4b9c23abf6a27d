// Hosting as an instructor meets it: the page and the lab served under the strict Content-Security-Policy
// docs/hosting.md names (no violation, the forward and training workers run); a policy that lacks one of its sources
// gets a message naming the policy; a folder with files missing says which file and what to upload (and, for a lab page
// whose script is in another folder, that folder).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { DIST, guardedPage, launch } from './helpers.mjs';

const CSP = "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:";
const NO_WASM = "script-src 'self'; worker-src 'self' blob:"; // wasm compilation refused
const NO_BLOB = "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'"; // the lab's Blob worker refused

let browser,
  servers = {},
  partial;
before(async () => {
  browser = await launch();
  for (const [name, policy] of Object.entries({ strict: CSP, noWasm: NO_WASM, noBlob: NO_BLOB })) {
    servers[name] = await serve(DIST, { headers: { 'content-security-policy': policy } });
  }
  // an upload without the core builds and the training workers (only the pages and their scripts)
  partial = mkdtempSync(join(tmpdir(), 'mha-partial-'));
  for (const f of readdirSync(DIST).filter((f) => !/^(trainer-)?mha(-relaxed|-nosimd)?\.js$/.test(f)))
    copyFileSync(join(DIST, f), join(partial, f));
  mkdirSync(join(partial, 'course'));
  writeFileSync(
    join(partial, 'course', 'lab.html'),
    readFileSync(join(DIST, 'lab.html'), 'utf8').replace('src="lab.js"', 'src="../lab.js"'),
  );
  servers.partial = await serve(partial);
});
after(async () => {
  await browser?.close();
  for (const s of Object.values(servers)) await s.close();
  if (partial) rmSync(partial, { recursive: true, force: true });
});

// A page that records the policy's violations (securitypolicyviolation events) from its first script on.
async function open(url, wait) {
  const g = await guardedPage(browser.context, () => true);
  await g.page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__violations.push(e.effectiveDirective + ' ' + e.blockedURI),
    );
  });
  await g.page.goto(url);
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 20000 });
  const ready = await g.page.evaluate(() => window.mhaExplorer.ready);
  if (wait) await g.page.waitForFunction(wait, null, { timeout: 20000 });
  return { ...g, ready, violations: () => g.page.evaluate(() => window.__violations) };
}

test(`the page under ${CSP}: no violation, the forward worker runs`, async () => {
  const text = Array.from({ length: 300 }, (_, i) => 'tok' + i).join(' ');
  const g = await open(
    `${servers.strict.origin}/index.html?dmodel=512&heads=8&text=${encodeURIComponent(text)}`,
    () => !/Computing/.test(document.getElementById('status').textContent),
  );
  assert.equal(g.ready, true);
  // the pool split (wherever the page measured the forward fastest, the workers started and ran at load)
  await g.page.evaluate(() => {
    window.mhaPoolCost = 0;
    return window.mhaExplorer.render();
  });
  assert.match((await g.page.evaluate(() => window.mhaExplorer.getCompute())).where, /^(\d+ )?Web Workers?$/);
  await g.page.fill('#c-seed', '3');
  await g.page.press('#c-seed', 'Enter'); // Enter in the form: no submit, no reload
  await g.page.waitForFunction(
    () => window.mhaExplorer.getState().seed === 3 && !/Computing/.test(document.getElementById('status').textContent),
  );
  assert.deepEqual(await g.violations(), []);
  assert.deepEqual(g.errors, []);
  await g.page.close();
});

test(`the lab under ${CSP}: no violation, it trains in its worker`, async () => {
  const g = await open(`${servers.strict.origin}/lab.html?preset=train-two-offsets`);
  assert.equal(g.ready, true);
  const r = await g.page.evaluate(() => window.mhaExplorer.train({ steps: 20 }));
  assert.equal(r.step, 20);
  assert.deepEqual(await g.violations(), []);
  assert.deepEqual(g.errors, []);
  await g.page.close();
});

test('a policy without what docs/hosting.md names: the message names the policy', async () => {
  const page = await open(`${servers.noWasm.origin}/index.html`);
  assert.equal(page.ready, false);
  assert.match(await page.page.textContent('#messages'), /Content-Security-Policy blocked .*wasm-unsafe-eval/);
  await page.page.close();
  const lab = await open(`${servers.noBlob.origin}/lab.html`);
  assert.equal(lab.ready, false);
  const said = await lab.page.textContent('#messages');
  assert.match(said, /Content-Security-Policy blocked worker-src blob/);
  assert.doesNotMatch(said, /unknown error/);
  await lab.page.close();
});

test('a folder missing its core files says which files and what to upload', async () => {
  for (const base of [servers.partial.origin, pathToFileURL(partial).href]) {
    const page = await open(`${base}/index.html`);
    assert.equal(page.ready, false);
    const msg = await page.page.textContent('#messages');
    assert.match(msg, /mha-relaxed\.js, mha\.js, mha-nosimd\.js are missing next to index\.html/);
    assert.match(msg, /Upload the whole dist\/ folder/);
    assert.doesNotMatch(msg + (await page.page.textContent('#status')), /scripts\/build|Loading the WebAssembly core/);
    await page.page.close();
    const lab = await open(`${base}/lab.html`);
    assert.equal(lab.ready, false);
    // Served, the lab's worker imports the core builds; from file://, it needs their text (trainer-<build>.js).
    const files = base.startsWith('file:')
      ? 'trainer-mha-relaxed\\.js, trainer-mha\\.js, trainer-mha-nosimd\\.js'
      : 'mha-relaxed\\.js, mha\\.js, mha-nosimd\\.js';
    assert.match(
      await lab.page.textContent('#messages'),
      new RegExp(`(^|[^-])${files} are missing next to lab\\.html.*Upload the whole dist/ folder`),
    );
    await lab.page.close();
    // a copy of the lab page one folder below its script: the folder its script looked in is named
    if (base === servers.partial.origin) {
      const below = await open(`${base}/course/lab.html`);
      assert.match(
        await below.page.textContent('#messages'),
        new RegExp(
          `: mha-relaxed\\.js, mha\\.js, mha-nosimd\\.js are missing in ${base}/\\. Upload the whole dist/ folder`,
        ),
      );
      await below.page.close();
    }
    // the model page, through the same loader (compute/source.js's loadPageCore): the same words, its own one-file twin
    const models = await guardedPage(browser.context, () => true);
    await models.page.goto(`${base}/models.html`);
    await models.page.waitForFunction(() => /missing/.test(document.getElementById('messages').textContent), null, {
      timeout: 20000,
    });
    assert.match(
      await models.page.textContent('#messages'),
      /mha-relaxed\.js, mha\.js, mha-nosimd\.js are missing next to models\.html.*Upload the whole dist\/ folder.*mha-explorer-models\.html/,
    );
    await models.page.close();
  }
  // the page alone (its script missing too): the note in the page itself appears
  const lone = mkdtempSync(join(tmpdir(), 'mha-lone-'));
  try {
    copyFileSync(join(DIST, 'index.html'), join(lone, 'index.html'));
    const g = await guardedPage(browser.context, () => true);
    await g.page.goto(pathToFileURL(join(lone, 'index.html')).href);
    await g.page.waitForFunction(
      () => getComputedStyle(document.getElementById('boot-note')).visibility === 'visible',
      null,
      { timeout: 10000 },
    );
    assert.match(
      await g.page.textContent('#boot-note'),
      /its script app\.js did not load.*upload the whole dist\/ folder/,
    );
    // the shell holds nothing else: no "Loading the WebAssembly core…" that never ends
    assert.equal(await g.page.locator('#status').count(), 0);
    assert.doesNotMatch(await g.page.textContent('body'), /Loading the WebAssembly core/);
    await g.page.close();
  } finally {
    rmSync(lone, { recursive: true, force: true });
  }
});
