// The Python package in real notebook front ends, opened in Chromium. One notebook (python/tests/make_notebook.py:
// the lessons' MultiHeadAttention of lessons 000, 002 and 003, nn.MultiheadAttention with batch_first both ways,
// nn.TransformerEncoderLayer's self_attn, three layers' attentions as a tuple) runs in a real kernel of the
// installed package (scripts/python-env: a venv with --system-site-packages, its own kernelspec), and is seen:
//   (a) executed by jupyter nbconvert --execute and exported to HTML (Debian's template: require.js and MathJax
//       from libjs-requirejs / libjs-mathjax), (b) in a Sphinx site built by nbsphinx, (c) in the classic
//       Jupyter Notebook server on localhost with its cells run through the menu, (d) a view saved with save().
// In each: every view renders at its content's height (no scroll box), its getWeights() equals what PyTorch
// computed in the same kernel (expected.json), its trace PyTorch's shapes and strides, no console errors, no
// request beyond the document (and the front end's own files). axe-core audits a rendered notebook view.
/* global Jupyter -- the classic Notebook's page */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, guardedPage, repo, ARTIFACTS, pythonEnv, executeNotebook, buildSphinxSite } from './helpers.mjs';
import { scrollBoxAround } from './helpers.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']; // as tests/browser/a11y.test.mjs
const DIR = mkdtempSync(join(tmpdir(), 'mha-notebook-'));
const VIEWS = 7; // the notebook's mx.show outputs
let venv, env, browser;

before(async () => {
  ({ venv, env } = pythonEnv(DIR));
  for (const d of ['nbconvert', 'server']) {
    execFileSync(join(venv, 'bin', 'python'), [join(repo, 'python', 'tests', 'make_notebook.py'), join(DIR, d)]);
  }
  const nb = join(DIR, 'nbconvert');
  // (a) executed in the venv's kernel by nbconvert, then exported with Debian's HTML template
  await executeNotebook(nb, 'views.ipynb', env);
  // (b) the executed notebook in a Sphinx site (nbsphinx, not executed again)
  await buildSphinxSite(join(DIR, 'site'), join(nb, 'executed.ipynb'), 'views', env);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  rmSync(DIR, { recursive: true, force: true });
});

// Every view of the page: its weights, trace, and whether it (and the output holding it) shows all its content.
// A scroll box: an ancestor within the view's cell (below the first one holding every view: the page's own
// scrolling container) that shows less than its content.
const views = (page) => page.evaluate(`(${readViews})(${scrollBoxAround})`);
// (in the page)
function readViews(scrollBox) {
  return [...document.querySelectorAll('[data-mha-explorer-view]')].map((root, _, all) => {
    const box = root.getBoundingClientRect();
    const clipped = scrollBox(root, all);
    const w = root.mhaExplorer.getWeights();
    return {
      shape: w.shape,
      data: Array.from(w.data),
      trace: root.mhaExplorer.getTrace(),
      height: box.height,
      content: root.scrollHeight,
      inner: root.clientHeight,
      clipped,
      notes: root.mhaExplorer.getNotes(),
      fallback: !!root.parentElement.querySelector('.mhax-fallback'),
    };
  });
}

function checkViews(got, expected, where) {
  assert.equal(got.length, expected.length, where + ': one view per mx.show output');
  got.forEach((v, i) => {
    const e = expected[i],
      at = where + ', view ' + i;
    assert.equal(v.clipped, null, at + ': in a scroll box');
    assert.ok(
      v.height > 200 && v.content <= v.inner + 1,
      at + ": rendered at its content's height (" + v.content + ' px in ' + v.inner + ')',
    );
    assert.equal(v.fallback, false, at + ': the static picture gave way to the view');
    assert.deepEqual(v.notes, [], at);
    assert.equal(v.data.length, e.weights.length, at);
    const diff = Math.max(...v.data.map((x, k) => Math.abs(x - e.weights[k])));
    assert.ok(diff <= 1e-6, at + ": weights differ from PyTorch's by " + diff);
    assert.deepEqual(v.shape.slice(-4), e.shape.slice(-4), at);
    if (e.trace) assert.deepEqual(v.trace, e.trace, at + ": the lesson's trace");
    if (e.first) {
      const pick = (s) => ({ shape: s.shape, strides: s.strides, contiguous: s.contiguous });
      assert.deepEqual(pick(v.trace[0]), e.first, at + ': the input as PyTorch got it');
      assert.deepEqual(pick(v.trace[v.trace.length - 1]), e.last, at + ': the output PyTorch made');
      assert.deepEqual(v.trace.find((s) => s.weights).weights, e.attention, at + ': the weights PyTorch made');
    }
    if (!e.first && !e.trace) assert.deepEqual(v.trace, [], at);
  });
}

// A page with its console errors and requests; `own` says which requests are the front end's own files.
async function open(url, own) {
  const g = await guardedPage(
    browser.context,
    (u) => u === url.split('#')[0] || u.startsWith('data:') || u.startsWith('blob:') || own(u),
  );
  await g.page.goto(url);
  return g;
}
const settle = (page, n) =>
  page.waitForFunction(
    (k) =>
      document.querySelectorAll('[data-mha-explorer-view]').length >= k && !document.querySelector('.mhax-fallback'),
    n,
    { timeout: 60000 },
  );
function clean(g, where) {
  assert.deepEqual(g.foreign, [], where + ': requests beyond the document');
  assert.deepEqual(g.errors, [], where + ': console errors');
}
const expected = (dir) => JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));

test(
  "(a) nbconvert --execute in the package's kernel, exported to HTML beside require.js and MathJax",
  { timeout: 120000 },
  async () => {
    const dir = join(DIR, 'nbconvert');
    const g = await open(pathToFileURL(join(dir, 'executed.html')).href, (u) =>
      u.startsWith('file:///usr/share/javascript/'),
    );
    await settle(g.page, VIEWS);
    assert.equal(
      await g.page.evaluate(() => typeof window.require === 'function' && typeof window.define === 'function'),
      true,
      "the template's require.js is on the page",
    );
    checkViews(await views(g.page), expected(dir), 'nbconvert HTML');
    const first = g.page.locator('[data-mha-explorer-view]').first();
    await first.screenshot({ path: join(ARTIFACTS, 'notebook-nbconvert.png') });
    // axe-core on a rendered view, as tests/browser/a11y.test.mjs audits the page
    await g.page.addScriptTag({ path: AXE });
    const result = await g.page.evaluate(
      (values) => window.axe.run('[data-mha-explorer-view]', { runOnly: { type: 'tag', values } }),
      TAGS,
    );
    assert.deepEqual(
      result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')),
      [],
    );
    clean(g, 'nbconvert HTML');
    await g.page.close();
  },
);

test('(b) the notebook in a Sphinx site built by nbsphinx', { timeout: 60000 }, async () => {
  const site = join(DIR, 'site', '_build');
  const g = await open(
    pathToFileURL(join(site, 'views.html')).href,
    (u) => u.startsWith(pathToFileURL(site).href + '/') || u.startsWith('file:///usr/share/javascript/mathjax/'),
  );
  await settle(g.page, VIEWS);
  assert.equal(await g.page.evaluate(() => typeof window.define), 'function', "the site's require.js is on the page");
  checkViews(await views(g.page), expected(join(DIR, 'nbconvert')), 'nbsphinx');
  clean(g, 'nbsphinx');
  await g.page.close();
});

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

test('(c) the classic Jupyter Notebook server: the cells run through its menu', { timeout: 180000 }, async () => {
  const dir = join(DIR, 'server'),
    port = await freePort(),
    origin = 'http://127.0.0.1:' + port;
  // Debian's python3-notebook (6.4) has no jupyter-notebook command without the jupyter-notebook package
  const server = spawn(
    '/usr/bin/python3',
    [
      '-m',
      'notebook',
      '--no-browser',
      '--ip=127.0.0.1',
      '--port=' + port,
      '--NotebookApp.token=',
      '--NotebookApp.password=',
      '--NotebookApp.open_browser=False',
      '--allow-root',
      '--notebook-dir=' + dir,
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr.on('data', (d) => {
    log += d;
  });
  server.on('error', (e) => {
    log += 'could not start: ' + e.message;
  });
  try {
    const deadline = Date.now() + 60000;
    while (!/is running at|Serving notebooks/.test(log) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    assert.match(log, /is running at|Serving notebooks/, 'the Notebook server did not start:\n' + log);
    // The Notebook's own hard-coded attempt at ipywidgets' extension (not installed here) fails with a 404 and a
    // MIME-type refusal: those two messages are the front end's, and only those are set aside (its 404 may come
    // before the page has loaded: the listener is on before the page opens).
    const missing = [];
    const g = await guardedPage(
      browser.context,
      (u) => u.startsWith(origin + '/') || u.startsWith('ws://127.0.0.1:' + port + '/'),
    );
    g.page.on('response', (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await g.page.goto(origin + '/notebooks/views.ipynb');
    await g.page.waitForFunction(
      () => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected(),
      null,
      { timeout: 60000 },
    );
    await g.page.click('#celllink'); // Cell → Run All, as a student does
    await g.page.click('#run_all_cells');
    await g.page.waitForFunction(
      () => [...document.querySelectorAll('.output_subarea pre')].some((p) => /outputs expected/.test(p.textContent)),
      null,
      { timeout: 120000 },
    );
    await settle(g.page, VIEWS);
    checkViews(await views(g.page), expected(dir), 'classic Notebook');
    await g.page
      .locator('[data-mha-explorer-view]')
      .first()
      .screenshot({ path: join(ARTIFACTS, 'notebook-classic.png') });
    // Re-running a cell replaces its view; the other outputs are untouched.
    const before = await views(g.page);
    await g.page.evaluate(() => {
      Jupyter.notebook.select(2);
      Jupyter.notebook.execute_selected_cells();
    });
    await g.page.waitForFunction(
      () =>
        Jupyter.notebook.get_cell(2).get_text() &&
        !Jupyter.notebook.kernel_busy &&
        document.querySelectorAll('[data-mha-explorer-view]').length === 7 &&
        !document.querySelector('.mhax-fallback'),
      null,
      { timeout: 60000 },
    );
    assert.deepEqual(
      (await views(g.page)).map((v) => v.data),
      before.map((v) => v.data),
    );
    const WIDGETS = /\/nbextensions\/widgets\/notebook\/js\/extension\.js/;
    assert.ok(
      missing.every((u) => WIDGETS.test(u)),
      'missing files: ' + missing.join(', '),
    );
    g.errors = g.errors.filter((e) => !(WIDGETS.test(e) || (missing.length && /status of 404 \(Not Found\)/.test(e))));
    clean(g, 'classic Notebook');
    await g.page.close();
  } finally {
    server.kill('SIGTERM');
  }
});

test('(d) a saved view from file://', { timeout: 60000 }, async () => {
  const dir = join(DIR, 'nbconvert');
  const g = await open(pathToFileURL(join(dir, 'saved.html')).href, () => false);
  await settle(g.page, 1);
  checkViews(await views(g.page), expected(dir).slice(-1), 'saved view');
  const size = readFileSync(join(dir, 'saved.html')).length;
  assert.ok(size < 150000 + (3 * 2 * 6 * 6 * 4 * 4) / 3 + 1000, 'saved view of ' + size + ' bytes');
  // Where scripts are stripped (a repository's notebook preview): the picture of the heads and the text remain.
  await g.page.setContent(readFileSync(join(dir, 'saved.html'), 'utf8').replace(/<script>[\s\S]*?<\/script>/g, ''));
  const still = await g.page.evaluate(() => {
    const img = document.querySelector('.mhax-fallback img');
    return {
      width: img && img.naturalWidth,
      alt: img && img.alt,
      text: document.querySelector('.mhax-fallback pre').textContent,
    };
  });
  assert.ok(still.width > 100, 'the fallback picture decodes');
  assert.match(still.alt, /Heatmaps of Three layers: 2 heads of layer 0, batch item 0/);
  assert.match(still.text, /Three layers: 2 heads, 6 queries × 6 keys \(3 layers\)/);
  await g.page.locator('.mhax-fallback').screenshot({ path: join(ARTIFACTS, 'notebook-fallback.png') });
  clean(g, 'saved view');
  await g.page.close();
});
