// The single-file builds under a strict Content-Security-Policy (no 'unsafe-eval') in headless
// Chromium, served from 127.0.0.1, and from file:// next to a copy of the build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILDS, IMPLEMENTATION, testedBuilds, randnSeed1, buildName } from './fixtures/reference.mjs';
import { CHROMIUM, chromium } from '../browser/helpers.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'";

const FILES = {
  '/': [join(FIXTURES, 'csp.html'), 'text/html; charset=utf-8'],
  '/csp.html': [join(FIXTURES, 'csp.html'), 'text/html; charset=utf-8'],
  '/csp-page.js': [join(FIXTURES, 'csp-page.js'), 'text/javascript; charset=utf-8'],
  '/eval-probe.js': [
    "try { window.evalProbe = String(eval('1 + 1')); } catch (e) { window.evalProbe = e.name; }",
    'text/javascript; charset=utf-8',
    true,
  ],
  ...Object.fromEntries(BUILDS.map((b) => [`/${buildName(b)}`, [b, 'text/javascript; charset=utf-8']])),
};

let server, origin, browser, tmp;
before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    const entry = FILES[path];
    if (!entry) {
      res.writeHead(404, { 'content-security-policy': CSP });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': entry[1], 'content-security-policy': CSP, 'cache-control': 'no-store' });
    res.end(entry[2] ? entry[0] : readFileSync(entry[0]));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch(CHROMIUM);
  tmp = mkdtempSync(join(tmpdir(), 'mha-csp-'));
  for (const f of ['csp.html', 'csp-page.js']) copyFileSync(join(FIXTURES, f), join(tmp, f));
  for (const b of testedBuilds()) copyFileSync(b, join(tmp, buildName(b)));
});
after(async () => {
  if (browser) await browser.close();
  if (server) await new Promise((ok) => server.close(ok));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function runPage(url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e}`));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.cspResult !== undefined, null, { timeout: 30_000 });
    const result = await page.evaluate(() => window.cspResult);
    const violations = await page.evaluate(() => window.cspViolations);
    return { result, violations, errors };
  } finally {
    await context.close();
  }
}

function checkResult({ result, violations, errors }, build) {
  assert.equal(result.error, undefined, `the page failed: ${result.error}`);
  assert.equal(result.implementation, IMPLEMENTATION[build]);
  assert.deepEqual(result.outputShape, [2, 5, 32]);
  assert.deepEqual(result.weightsShape, [2, 4, 5, 5]);
  assert.equal(result.traceSteps, 8);
  assert.equal(result.finite, true);
  assert.deepEqual(result.firstRow, [1, 0, 0, 0, 0], 'causal: query 0 sees only key 0');
  result.randn.forEach((v, i) => assert.equal(Math.fround(v), randnSeed1()[i], `randn[${i}] = ${v}`));
  assert.deepEqual(
    { violations, errors: errors.map((e) => e.slice(0, 240)) },
    { violations: [], errors: [] },
    'no CSP violations and no console errors',
  );
}

for (const build of testedBuilds().map(buildName)) {
  test(`served with ${CSP} — ${build}`, async () => {
    const out = await runPage(`${origin}/csp.html?build=${build}`);
    checkResult(out, build);
  });

  test(`file:// next to a copy of the build — ${build}`, async () => {
    const out = await runPage(`${pathToFileURL(join(tmp, 'csp.html')).href}?build=${build}`);
    checkResult(out, build);
  });
}

test('the CSP is really enforced: an inline script is refused', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  try {
    await page.goto(`${origin}/csp.html`);
    await page.waitForFunction(() => window.cspResult !== undefined, null, { timeout: 30_000 });
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.inlineRan = true';
      document.head.appendChild(s);
    });
    await page.waitForFunction(() => window.cspViolations.some((v) => v.startsWith('script-src')), null, {
      timeout: 5_000,
    });
    assert.equal(await page.evaluate(() => window.inlineRan), undefined);
    // eval is refused too ('unsafe-eval' is not granted), so the module never needed it
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.src = '/eval-probe.js';
      document.head.appendChild(s);
    });
    await page.waitForFunction(() => window.evalProbe !== undefined, null, { timeout: 5_000 });
    assert.equal(await page.evaluate(() => window.evalProbe), 'EvalError');
  } finally {
    await context.close();
  }
});
