// Shared helpers of the browser tests: the static server (scripts/serve.mjs) on a free port over
// dist/, headless Debian Chromium through playwright-core, and request/console guards.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildSync } from 'esbuild';

import { CHROMIUM } from '../../scripts/chromium.mjs';
import { serve } from '../../scripts/serve.mjs';
import { DRAWS_PATH, torchEnv } from '../node/fixtures/reference.mjs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

export const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
export const DIST = resolve(process.env.MHA_DIST || join(repo, 'dist'));
export const ARTIFACTS = join(here, 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

// extra: {'/path': 'html text'} served in addition to dist/ (host pages for the custom element).
export const startServer = (extra = {}) => serve(DIST, { extra });

// axe-core (injected into the page once) over the whole document, open shadow roots included: the WCAG 2.0/2.1 A and
// AA rules and the main-landmark rules (a component brings no second main landmark into its host page). → the
// violations, "rule: the nodes' targets" each.
export async function axeViolations(page) {
  if (!(await page.evaluate(() => 'axe' in window)))
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    const l = await window.axe.run(document, {
      runOnly: {
        type: 'rule',
        values: ['landmark-no-duplicate-main', 'landmark-main-is-top-level', 'landmark-one-main'],
      },
    });
    return [...r.violations, ...l.violations].map(
      (v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '),
    );
  });
}

// In the page: the scroll box that shows less than the content of `root` (a view), as "class: client of scroll px",
// or null. It looks at root's ancestors below the first that matches `stop` or holds every element of `all` (the
// page's own scrolling container holds every view), passing over those that match `skip`. A test hands it to the page
// as text: page.evaluate(`(${fn})(${scrollBoxAround})`).
export function scrollBoxAround(root, all, stop = 'body', skip = null) {
  for (
    let e = root.parentElement;
    e && !e.matches(stop) && !(all.length > 1 && all.every((r) => e.contains(r)));
    e = e.parentElement
  ) {
    if (skip && e.matches(skip)) continue;
    const s = getComputedStyle(e);
    if (
      (s.overflowY === 'auto' || s.overflowY === 'scroll' || s.overflowY === 'hidden') &&
      e.scrollHeight > e.clientHeight + 1
    )
      return (e.className || e.tagName) + ': ' + e.clientHeight + ' of ' + e.scrollHeight + ' px';
  }
  return null;
}

// A TCP port free on 127.0.0.1 right now (a server of a test or a benchmark then listens on it).
export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });

// WCAG 2's relative luminance of a computed rgb() colour (white when none is given), and the contrast ratio of two
// (bench/notebook-peers.mjs's dark export, the notebook front ends' code colours).
export function luminance(c) {
  const [r, g, b] = ((c && c.match(/[\d.]+/g)) || [255, 255, 255])
    .slice(0, 3)
    .map(Number)
    .map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
export function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

// An element's height once it has stopped changing (an embed resizes as its page loads): the same at 4 looks 150 ms
// apart, 6 s at the most.
export async function settledHeight(page, el) {
  let last = -1,
    same = 0;
  for (let i = 0; i < 40 && same < 4; i++) {
    await page.waitForTimeout(150);
    const h = await el.evaluate((f) => f.getBoundingClientRect().height);
    same = h === last ? same + 1 : 0;
    last = h;
  }
  return last;
}

// createLab as a host bundles it: web/lab/controller.js as a classic script setting window.MhaLab (its text).
export const labComponentBundle = () =>
  buildSync({
    entryPoints: [join(repo, 'web', 'lab', 'controller.js')],
    write: false,
    bundle: true,
    format: 'iife',
    globalName: 'MhaLab',
    loader: { '.py': 'text', '.html': 'text', '.css': 'text' },
    target: 'es2019',
    charset: 'utf8',
    logLevel: 'warning',
  }).outputFiles[0].text;

export const fileURL = (name = 'index.html') => pathToFileURL(join(DIST, name)).href;

// The suites run on each way the explorer is published: dist/ as a folder of files (the hosted page), and the
// one-file pages (dist/mha-explorer.html, mha-explorer-lab.html), which may request nothing but themselves.
export const VARIANTS = [
  { name: 'hosted', page: 'index.html', lab: 'lab.html', oneFile: false },
  { name: 'one-file', page: 'mha-explorer.html', lab: 'mha-explorer-lab.html', oneFile: true },
];
// allowed(url) for a page of a variant at base (an http origin or dist/'s file:// URL, no trailing slash):
// its own files (hosted), or only the page's own document (one-file); data: and blob: URLs in both.
export function allowedFor(variant, base) {
  return (u) =>
    u.startsWith('data:') ||
    u.startsWith('blob:') ||
    (variant.oneFile
      ? [variant.page, variant.lab].includes(u.slice(base.length + 1).split(/[?#]/)[0]) && u.startsWith(base + '/')
      : u.startsWith(base + '/'));
}

export { CHROMIUM, chromium };

export async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'mha-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    ...CHROMIUM,
    viewport: { width: 1360, height: 900 },
  });
  const close = async () => {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, close };
}

// A page that records console errors, page errors and every request URL.
export async function guardedPage(context, allowed) {
  const page = await context.newPage();
  const errors = [],
    requests = [],
    foreign = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => {
    const u = r.url();
    requests.push(u);
    if (!allowed(u)) foreign.push(u);
  });
  return { page, errors, requests, foreign };
}

// One server and one browser for a test file's tests, closed after them. Pages from page()/open() are
// checked after the tests too: no console errors, no request that their `allowed` refuses.
// extra: as for startServer. own: the server's files, data: and blob: URLs. A file's own before()
// that needs srv or browser awaits `ready`: Node 20 starts the next top-level hook without waiting.
export function suite({ extra } = {}) {
  const s = { srv: null, browser: null, guards: [], ready: null };
  before(
    () =>
      (s.ready = (async () => {
        s.srv = await startServer(extra);
        s.browser = await launch();
      })()),
  );
  after(async () => {
    try {
      for (const g of s.guards) {
        assert.deepEqual(g.errors, [], 'console errors on ' + g.page.url());
        assert.deepEqual(g.foreign, [], "requests beyond the page's own files on " + g.page.url());
      }
    } finally {
      await s.browser?.close();
      await s.srv?.close();
    }
  });
  s.own = (u) => u.startsWith(s.srv.origin + '/') || u.startsWith('data:') || u.startsWith('blob:');
  s.allowed = (variant) => allowedFor(variant, s.srv.origin);
  s.page = async (allowed = () => true) => {
    const g = await guardedPage(s.browser.context, allowed);
    s.guards.push(g);
    return g;
  };
  s.open = async (url, allowed) => {
    const g = await s.page(allowed);
    await openPage(g.page, url);
    return g;
  };
  return s;
}

// The Python package installed as a student installs it (scripts/python-env [venv]: a venv that sees Debian's torch,
// with its kernel) and the environment notebooks run in (the venv's kernelspec; Jupyter's files in dir; one thread).
export function pythonEnv(dir, venvPath) {
  const venv = execFileSync('bash', [join(repo, 'scripts', 'python-env'), ...(venvPath ? [venvPath] : [])], {
    encoding: 'utf8',
  }).trim();
  return {
    venv,
    env: {
      ...process.env,
      JUPYTER_PATH: join(venv, 'share', 'jupyter'),
      PYDEVD_DISABLE_FILE_VALIDATION: '1',
      JUPYTER_CONFIG_DIR: join(dir, '.jupyter'),
      JUPYTER_RUNTIME_DIR: join(dir, '.runtime'),
      OMP_NUM_THREADS: '1',
    },
  };
}
// The output elements (.jp-OutputArea-output) of a JupyterLab or Notebook 7 cell, or of nbconvert's export of one, that
// hold `selector` (a view's root, a text output's <pre>): those of `root` (a cell; by default every cell). It runs in
// the page: installOutputFinder(page) defines it there as window.cellOutputs, in every document the page loads.
export function cellOutputs(selector, root = document) {
  return [...root.querySelectorAll('.jp-OutputArea-output')].filter(
    (o) => o.matches(selector) || o.querySelector(selector),
  );
}
export const installOutputFinder = (page) => page.addInitScript('window.cellOutputs = ' + cellOutputs + ';');

// The notebook dir/name executed by jupyter nbconvert in the venv's kernel (dir/executed.ipynb), then exported with
// Debian's HTML template (dir/executed.html: require.js and MathJax from libjs-requirejs / libjs-mathjax). options:
// nbconvert's options for the execution (such as --ExecutePreprocessor.store_widget_state=False).
export async function executeNotebook(dir, name, env, options = []) {
  const run = promisify(execFile);
  await run('jupyter-nbconvert', ['--to', 'notebook', '--execute', ...options, '--output', 'executed.ipynb', name], {
    cwd: dir,
    env,
  });
  await run('jupyter-nbconvert', ['--to', 'html', 'executed.ipynb'], { cwd: dir, env });
}

// An executed notebook as the page `name` of a Sphinx site built by nbsphinx in site/_build (not executed again),
// offline, as a course built without network: require.js from libjs-requirejs copied into the site (nbsphinx loads it
// from a CDN by default), MathJax from libjs-mathjax (Sphinx's default is a CDN too).
export async function buildSphinxSite(site, notebook, name, env) {
  cpSync(notebook, join(site, name + '.ipynb'));
  cpSync('/usr/share/javascript/requirejs/require.min.js', join(site, '_static', 'require.min.js'));
  writeFileSync(
    join(site, 'conf.py'),
    "project = 'Course'\nextensions = ['nbsphinx']\nnbsphinx_execute = 'never'\n" +
      "html_theme = 'alabaster'\nhtml_static_path = ['_static']\nnbsphinx_requirejs_path = 'require.min.js'\n" +
      'nbsphinx_requirejs_options = {}\n' +
      "mathjax_path = 'file:///usr/share/javascript/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML'\n" +
      "exclude_patterns = ['_build', '**.ipynb_checkpoints']\n",
  );
  writeFileSync(join(site, 'index.rst'), 'Course\n======\n\n.. toctree::\n\n   ' + name + '\n');
  await promisify(execFile)('/usr/bin/python3', ['-m', 'sphinx', '-q', '-b', 'html', site, join(site, '_build')], {
    env,
  });
}

export async function openPage(page, url) {
  await page.goto(url);
  await page.waitForFunction(
    () => window.mhaExplorer && window.mhaExplorer.getWeights && window.mhaExplorer.getWeights() !== null,
    null,
    { timeout: 20000 },
  );
}

// Snippets run as pasted into fresh notebooks by real PyTorch (Debian's python3-torch, /usr/bin/python3,
// one thread, on the CPU path whose random draws the page reproduces: DRAWS_PATH, pinned so that the
// draws are the page's whatever ATEN_CPU_CAPABILITY the caller exported): items [{id, code, cwd?}] →
// [{id, stdout, error}].
export function runInPyTorch(items) {
  try {
    return JSON.parse(
      execFileSync('/usr/bin/python3', [join(repo, 'tests', 'torch', 'run_snippets.py')], {
        input: JSON.stringify(items.map(({ id, code, cwd }) => ({ id, code, cwd }))),
        maxBuffer: 1 << 28,
        env: torchEnv(DRAWS_PATH),
      }),
    );
  } catch (e) {
    throw new Error(
      `/usr/bin/python3 with torch is needed (scripts/test installs Debian's python3-torch): ${e.message}`,
      { cause: e },
    );
  }
}

// Snippets the page printed, run in PyTorch (runInPyTorch): items [{id, code, printed, cwd?}] → one line for each
// that raised or printed other text than the page (comparePrinted), [] when PyTorch printed what the page did.
export function printedMismatches(items) {
  const failures = [];
  runInPyTorch(items).forEach((r, i) => {
    if (r.error) failures.push(`${r.id}: raised\n${r.error}`);
    else {
      const diff = comparePrinted(r.stdout.replace(/\n$/, ''), items[i].printed);
      if (diff.text) failures.push(`${r.id}: ${diff.text}`);
    }
  });
  return failures;
}

// Text equal up to the printing of numbers past a matrix multiply. PyTorch's and our float32 sums
// round differently, so a printed number may differ by one unit of its last digit, and with it the
// padding, the sign of a zero (-0.0000), a column's width (9.9999 / 10.0000), the line wrapping or
// PyTorch's choice of scientific notation. So the words between numbers must be equal (any run of
// whitespace counts as one space) and the numbers agree as values, within one unit of the last digit
// of the coarser of the two; every such difference is listed in `roundings`.
const NUM = /-?\d+\.\d+(?:e[+-]\d+)?/g;
const lastDigitUnit = (printed) => {
  const [mantissa, exponent = '0'] = printed.split('e');
  return 10 ** (Number(exponent) - (mantissa.split('.')[1] || '').length);
};
export function comparePrinted(got, want) {
  const words = (text) => text.split(NUM).map((t) => t.replace(/\s+/g, ' '));
  const gs = words(got),
    ws = words(want);
  if (gs.length !== ws.length || gs.some((t, i) => t !== ws[i]))
    return { text: firstDifference(got, want), roundings: [] };
  const gn = got.match(NUM) || [],
    wn = want.match(NUM) || [],
    roundings = [];
  for (let i = 0; i < gn.length; i++) {
    if (gn[i] === wn[i]) continue;
    const unit = Math.max(lastDigitUnit(gn[i]), lastDigitUnit(wn[i]));
    if (Math.abs(Number(gn[i]) - Number(wn[i])) > unit * (1 + 1e-9)) {
      return { text: `number ${i}: PyTorch ${gn[i]}, page ${wn[i]}`, roundings: [] };
    }
    roundings.push(`${gn[i]} vs ${wn[i]}`);
  }
  return { text: '', roundings };
}
function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `text differs at character ${i}: PyTorch …${JSON.stringify(a.slice(Math.max(0, i - 30), i + 30))}, page …${JSON.stringify(b.slice(Math.max(0, i - 30), i + 30))}`;
}

// The forward pool (web/compute/forward-pool.js) on a page showing a large forward, split by heads (window.mhaPoolCost = 0:
// wherever the page would run it on this machine, tests/browser/placement.test.mjs): it ran across min(cores, 8, heads)
// workers; its weights are the main thread's one-part forward's bit for bit; and rapid changes while the workers are
// busy never draw a mix of two configurations (every head of each drawn result causal or none, the last state's result
// drawn in the end, equal to the main thread's).
export async function checkForwardPool(page) {
  const settled = () => page.waitForFunction(() => !/Computing/.test(document.getElementById('status').textContent));
  await settled();
  await page.evaluate(() => {
    window.mhaPoolCost = 0;
    return window.mhaExplorer.render();
  });
  const info = await page.evaluate(() => ({
    c: window.mhaExplorer.getCompute(),
    hc: navigator.hardwareConcurrency,
    H: window.mhaExplorer.getWeights().shape[1],
  }));
  const n = Math.max(1, Math.min(info.hc, 8, info.H));
  assert.equal(info.c.where, n > 1 ? n + ' Web Workers' : 'Web Worker');
  const causalHeads = () =>
    page.evaluate(() => {
      const w = window.mhaExplorer.getWeights(),
        [, H, S] = w.shape,
        out = [];
      for (let h = 0; h < H; h++) {
        let masked = true;
        for (let i = 0; i < S - 1 && masked; i++) if (w.data[(h * S + i) * S + S - 1] !== 0) masked = false;
        out.push(masked);
      }
      return out;
    });
  const compare = async (label) => {
    const pooled = await page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data));
    const main = await page.evaluate(async () => {
      window.mhaPoolCost = Infinity;
      await window.mhaExplorer.render();
      window.mhaPoolCost = 0;
      return { where: window.mhaExplorer.getCompute().where, data: Array.from(window.mhaExplorer.getWeights().data) };
    });
    assert.equal(main.where, 'main thread');
    assert.equal(pooled.length, main.data.length);
    assert.ok(
      pooled.every((v, i) => Object.is(v, main.data[i])),
      label + ": the split forward's weights are the one-part forward's",
    );
  };
  await compare('first');
  const seen = await page.evaluate(async () => {
    const X = window.mhaExplorer,
      drawn = [];
    const heads = () => {
      const w = X.getWeights(),
        [, H, S] = w.shape,
        out = [];
      for (let h = 0; h < H; h++) out.push(w.data[h * S * S + S - 1] === 0 && w.data[(h * S + 1) * S + S - 1] === 0);
      return out;
    };
    const steps = [
      { causal: true },
      { seed: 3 },
      { causal: false },
      { seed: 4, causal: true },
      { causal: false },
      { causal: true, seed: 5 },
    ];
    await Promise.all(steps.map((s) => X.set(s).then(() => drawn.push(heads()))));
    return { drawn, state: X.getState() };
  });
  for (const d of seen.drawn)
    assert.ok(
      d.every((v) => v === d[0]),
      'a drawn result mixes causal and non-causal heads: ' + JSON.stringify(d),
    );
  assert.equal(seen.state.causal, true);
  assert.equal(seen.state.seed, 5);
  await settled();
  assert.ok((await causalHeads()).every(Boolean), 'the last state (causal) is what is drawn');
  await compare('after rapid changes');
  await page.evaluate(() => {
    delete window.mhaPoolCost;
  });
}
