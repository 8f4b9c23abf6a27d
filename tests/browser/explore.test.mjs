// mx.explore and mx.lab in a real notebook (python/tests/make_explore_notebook.py): a student's lesson-000
// MultiHeadAttention trained a few steps, explored on the student's own x and tokens, and the training lab, executed by
// jupyter nbconvert in the installed package's kernel and exported to HTML, opened from file:// in Chromium. The page
// inside the explore output shows the module's heads equal to PyTorch's attention for that x, its "Copy as PyTorch"
// snippet prints in PyTorch what the page prints, the lab trains in its cell; each frame is as tall as its page, no
// request beyond the document (and blob:/data:), no console errors. The same notebook in a Sphinx site built by nbsphinx.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  launch,
  guardedPage,
  repo,
  ARTIFACTS,
  pythonEnv,
  executeNotebook,
  buildSphinxSite,
  runInPyTorch,
  comparePrinted,
} from './helpers.mjs';

const DIR = mkdtempSync(join(tmpdir(), 'mha-explore-'));
const SITE = join(DIR, 'site');
let browser, g, frames;

before(async () => {
  // the shared venv: scripts/python-env takes a lock, and reinstalls the package only when its files changed
  const { venv, env } = pythonEnv(DIR);
  execFileSync(join(venv, 'bin', 'python'), [join(repo, 'python', 'tests', 'make_explore_notebook.py'), DIR]);
  await executeNotebook(DIR, 'explore.ipynb', env);
  await buildSphinxSite(SITE, join(DIR, 'executed.ipynb'), 'explore', env);
  browser = await launch();
  ({ g, frames } = await openNotebook(pathToFileURL(join(DIR, 'executed.html')).href, () => false));
});
after(async () => {
  await browser?.close();
  rmSync(DIR, { recursive: true, force: true });
});

// The notebook's page at url (own: its other files) and its explore and lab frames, once their pages are ready.
async function openNotebook(url, own) {
  const opened = await guardedPage(
    browser.context,
    (u) =>
      u === url ||
      u.startsWith('data:') ||
      u.startsWith('blob:') ||
      own(u) ||
      u.startsWith('file:///usr/share/javascript/'),
  ); // require.js and MathJax (Debian's copies)
  await opened.page.goto(url);
  await opened.page.waitForFunction(() => document.querySelectorAll('iframe[data-mha-explorer]').length === 2, null, {
    timeout: 30000,
  });
  const found = {};
  for (const kind of ['page', 'lab']) {
    const handle = await opened.page.$('[data-mha-explorer-frame="' + kind + '"] iframe');
    const frame = await handle.contentFrame();
    await frame.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 30000 });
    assert.equal(await frame.evaluate(() => window.mhaExplorer.ready), true, kind + ': the core started');
    found[kind] = { handle, frame, page: opened.page };
  }
  return { g: opened, frames: found };
}
const expected = () => JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8'));
// How far the page's heads are from PyTorch's attention for the student's x.
async function headsDiffer(frame) {
  const e = expected();
  const w = await frame.evaluate(() => {
    const w = window.mhaExplorer.getWeights();
    return { shape: w.shape, data: Array.from(w.data) };
  });
  assert.deepEqual(w.shape, e.shape);
  return Math.max(...w.data.map((v, i) => Math.abs(v - e.weights[i])));
}

// The frame is as tall as the page inside it (no inner scroll box), once the page has posted its height.
async function fitsItsPage({ handle, frame, page }, what) {
  await page
    .waitForFunction(
      ([f, h]) => Math.abs(f.getBoundingClientRect().height - h) <= 2,
      [handle, await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height))],
      { timeout: 10000 },
    )
    .catch(() => {});
  const sizes = await frame.evaluate(() => ({
    page: Math.ceil(document.body.getBoundingClientRect().height),
    scroll: document.documentElement.scrollHeight,
    inner: window.innerHeight,
  }));
  const outer = await handle.evaluate((f) => f.getBoundingClientRect().height);
  assert.ok(
    sizes.page > 400 && Math.abs(outer - sizes.page) <= 2 && sizes.scroll <= sizes.inner + 1,
    what + ': frame of ' + outer + ' px for a page of ' + JSON.stringify(sizes),
  );
}

test(
  "mx.explore: the student's module on their own x, equal to PyTorch, its snippet true",
  { timeout: 60000 },
  async () => {
    const { frame } = frames.page;
    const diff = await headsDiffer(frame);
    assert.ok(diff <= 1e-6, "the page's heads differ from PyTorch's attention by " + diff);
    const got = await frame.evaluate(() => {
      return {
        labels: window.mhaExplorer.getLabels(),
        state: window.mhaExplorer.getState(),
        input: document.getElementById('input-desc').textContent,
        note: document.getElementById('weights-note').textContent,
        messages: document.getElementById('messages').textContent,
        printed: window.mhaExplorer.getPrinted().page,
        snippet: window.mhaExplorer.getSnippets().find((s) => s.id === 'copy-as-pytorch'),
      };
    });
    assert.deepEqual(got.labels, expected().tokens);
    assert.equal(got.state.dmodel, 32);
    assert.equal(got.state.heads, 4, "num_heads from the file's metadata");
    assert.match(got.input, /your input from the notebook, shape \[1, 8, 32\]/);
    assert.match(got.note, /Loaded from MultiHeadAttention000\.safetensors \(d_model 32, 4 heads, as the file says\)/);
    assert.equal(got.messages, '');
    await fitsItsPage(frames.page, 'explore');
    await frames.page.handle.screenshot({ path: join(ARTIFACTS, 'notebook-explore.png') });

    // "Copy as PyTorch" loads the same x (base64 float32) and the module's weights (the file the notebook saved) and
    // prints what the page prints.
    assert.match(got.snippet.code, /torch\.frombuffer\(bytearray\(base64\.b64decode\(/);
    assert.match(
      got.snippet.code,
      /load_file\("MultiHeadAttention000\.safetensors"\)\)  # your module's weights: mx\.save_weights/,
    );
    assert.equal(got.snippet.printed, got.printed);
    const [r] = runInPyTorch([{ id: 'explore', code: got.snippet.code, cwd: DIR }]);
    assert.equal(r.error, null, r.error);
    const cmp = comparePrinted(r.stdout.replace(/\n$/, ''), got.printed);
    assert.equal(cmp.text, '', cmp.text);

    // Every control stays live: another head count recomputes in the cell.
    await frame.selectOption('#c-heads', '2');
    await frame.waitForFunction(() => window.mhaExplorer.getWeights().shape[1] === 2);
    await frame.selectOption('#c-heads', '4');
    await frame.waitForFunction(() => window.mhaExplorer.getWeights().shape[1] === 4);
    // The output carries this page only: its link to the lab says how to get the lab, and the page stays.
    await frame.click('#open-lab');
    await frame.waitForFunction(() =>
      /mx\.lab\(\) in a cell opens the training lab/.test(document.querySelector('.alone-hint')?.textContent || ''),
    );
    assert.equal(await frame.evaluate(() => window.mhaExplorer.getWeights().shape[1]), 4, 'still the page');
  },
);

test('mx.lab: the training lab trains in the cell', { timeout: 60000 }, async () => {
  const { frame } = frames.lab;
  const before = await frame.evaluate(() => window.mhaExplorer.getTraining());
  assert.equal(before.step, 0);
  await frame.click('#step'); // as a student does
  await frame.waitForFunction(() => window.mhaExplorer.getTraining().step >= 1, null, { timeout: 20000 });
  const after = await frame.evaluate(() => window.mhaExplorer.train({ steps: 4 }));
  assert.ok(
    after.step >= 5 && Number.isFinite(after.loss),
    'trained: ' + JSON.stringify({ step: after.step, loss: after.loss }),
  );
  await fitsItsPage(frames.lab, 'lab');
  await frames.lab.handle.screenshot({ path: join(ARTIFACTS, 'notebook-lab.png') });
});

test('the same notebook in a Sphinx site built by nbsphinx', { timeout: 60000 }, async () => {
  const build = join(SITE, '_build');
  const site = await openNotebook(pathToFileURL(join(build, 'explore.html')).href, (u) =>
    u.startsWith(pathToFileURL(build).href + '/'),
  );
  const diff = await headsDiffer(site.frames.page.frame);
  assert.ok(diff <= 1e-6, "nbsphinx: the page's heads differ from PyTorch's attention by " + diff);
  await fitsItsPage(site.frames.page, 'nbsphinx explore');
  const trained = await site.frames.lab.frame.evaluate(() => window.mhaExplorer.train({ steps: 2 }));
  assert.equal(trained.step, 2);
  assert.deepEqual(site.g.foreign, [], 'nbsphinx: requests beyond the site');
  assert.deepEqual(site.g.errors, [], 'nbsphinx: console errors');
  await site.g.page.close();
});

test("the notebook's page: no request beyond the document, no console errors, outputs ≤ 1.5 MB", () => {
  assert.deepEqual(g.foreign, [], 'requests beyond the document');
  assert.deepEqual(g.errors, [], 'console errors');
  const nb = JSON.parse(readFileSync(join(DIR, 'executed.ipynb'), 'utf8'));
  const sizes = nb.cells.map((c) =>
    c.outputs
      .map((o) => Buffer.byteLength([].concat((o.data && o.data['text/html']) || '').join('')))
      .reduce((a, b) => a + b, 0),
  );
  assert.ok(
    sizes.every((s) => s > 600000 && s <= 1.5e6),
    'output sizes ' + sizes.join(', '),
  );
});
