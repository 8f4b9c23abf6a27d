// The Python package in the front ends students use, PyPI's, opened in Chromium with the cells run through each one's
// own interface: JupyterLab 4 and Notebook 7 (one jupyter server, started once on localhost with a token), Voilà (the
// notebook as a page) and marimo (its own server, its anywidget support). The package is the wheel scripts/python-env builds and installs into a venv
// with the pinned front ends (scripts/python/requirements-frontends.txt). The notebook (python/tests/
// make_frontends_notebook.py): three layers' attentions (HTML output), the real all-MiniLM-L6-v2 in one line
// (mx.show(model, tokenizer, text)), nn.MultiheadAttention with its shape trace, mx.Heads set from Python and out of
// range; its last cell writes what transformers and PyTorch computed (expected.json). mx.explore_model in JupyterLab: the
// model page of the real all-MiniLM-L6-v2 folder and of a transformers model object (the oracle's tiny GPT-2), every
// head within the float32 bound of transformers' float64 attentions, the text set from Python, the theme followed live,
// reopened, the saved .ipynb without the weights.
// In each: every view at its content's height, values equal PyTorch's (≤ 1e-6), no console error, no request beyond
// the front end's own server, axe-core 0 violations in the views, light and dark theme (JupyterLab: switched live
// through its Settings menu, the trace's code readable), and the view again after the notebook is reopened.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  launch,
  guardedPage,
  repo,
  ARTIFACTS,
  pythonEnv,
  installOutputFinder,
  contrast,
  scrollBoxAround,
  freePort,
} from './helpers.mjs';
import { assertTop5, python } from './models-oracle.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const DIR = mkdtempSync(join(tmpdir(), 'mha-frontends-'));
const TOKEN = 'mha-' + Math.random().toString(36).slice(2);
const HTML_VIEWS = 3; // the notebook's HTML outputs; then the widget
let venv, env, browser, jupyter;

// A server process, its log, and a promise resolved once the log matches `ready`.
async function startProcess(cmd, args, ready, opts) {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let log = '';
  proc.stdout.on('data', (d) => {
    log += d;
  });
  proc.stderr.on('data', (d) => {
    log += d;
  });
  proc.on('error', (e) => {
    log += 'could not start: ' + e.message;
  });
  const deadline = Date.now() + 90000;
  while (!ready.test(log) && Date.now() < deadline && proc.exitCode === null)
    await new Promise((r) => setTimeout(r, 200));
  assert.match(log, ready, cmd + ' did not start:\n' + log);
  return { proc, log: () => log };
}

before(async () => {
  ({ venv, env } = pythonEnv(DIR));
  env = {
    ...env,
    JUPYTERLAB_SETTINGS_DIR: join(DIR, '.settings'),
    JUPYTERLAB_WORKSPACES_DIR: join(DIR, '.workspaces'),
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
  };
  // no "get notified about Jupyter news?" toast over the screenshots (and no request for the news)
  const news = join(DIR, '.settings', '@jupyterlab', 'apputils-extension');
  mkdirSync(news, { recursive: true });
  writeFileSync(join(news, 'notification.jupyterlab-settings'), '{"fetchNews": "false"}');
  // the model notebook's folder: the real MiniLM in JupyterLab, the oracle's tiny GPT-2 in Notebook 7
  for (const [d, folder] of [
    ['lab', 'minilm'],
    ['nb7', 'gpt2'],
  ])
    execFileSync(join(venv, 'bin', 'python'), [
      join(repo, 'python', 'tests', 'make_frontends_notebook.py'),
      join(DIR, d),
      folder,
    ]);
  const port = await freePort();
  jupyter = await startProcess(
    join(venv, 'bin', 'jupyter-lab'),
    [
      '--no-browser',
      '--ip=127.0.0.1',
      '--port=' + port,
      '--IdentityProvider.token=' + TOKEN,
      '--allow-root',
      '--ServerApp.root_dir=' + DIR,
    ],
    /is running at/,
    { env, cwd: DIR },
  );
  jupyter.origin = 'http://127.0.0.1:' + port;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  jupyter?.proc.kill('SIGTERM');
  rmSync(DIR, { recursive: true, force: true });
});

const own = (origin) => (u) =>
  u.startsWith(origin + '/') ||
  u.startsWith(origin.replace('http', 'ws') + '/') ||
  u.startsWith('data:') ||
  u.startsWith('blob:');
function clean(g, where) {
  assert.deepEqual(g.foreign, [], where + ": requests beyond the front end's server");
  assert.deepEqual(g.errors, [], where + ': console errors');
}

// Every view in the document: its values, selection, theme, and whether it shows all its content (no scroll box of
// its own cell around it: the notebook's or the page's scrolling container, which holds every view, is not the view's).
const views = (page) => page.evaluate(`(${readViews})(${scrollBoxAround})`);
// (in the page)
function readViews(scrollBox) {
  return [...document.querySelectorAll('[data-mha-explorer-view]')].map((root, _, all) => {
    // up to the notebook's or the page's own scrolling container (the first ancestor holding every view)
    const clipped = scrollBox(
      root,
      all,
      '.jp-WindowedPanel-outer, .jp-Notebook, body',
      '.jp-Cell, .jp-OutputArea, .marimo-cell, .output-area',
    );
    const w = root.mhaExplorer.getWeights(),
      code = root.querySelector('table.trace code');
    return {
      data: Array.from(w.data),
      shape: w.shape,
      notes: root.mhaExplorer.getNotes(),
      selection: root.mhaExplorer.getSelection(),
      theme: root.getAttribute('data-mhav-theme'),
      height: root.getBoundingClientRect().height,
      content: root.scrollHeight,
      inner: root.clientHeight,
      clipped,
      tokens: root.mhaExplorer.getLabels().tokens,
      code: code && { color: getComputedStyle(code).color, background: getComputedStyle(code).backgroundColor },
    };
  });
}

function maxDiff(a, b) {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

// The views against what PyTorch and transformers computed in the same kernel.
function checkViews(got, expected, where, theme) {
  assert.equal(got.length, HTML_VIEWS + 1, where + ': three HTML views and the widget');
  got.forEach((v, i) => {
    const at = where + ', view ' + i;
    assert.equal(v.clipped, null, at + ': in a scroll box');
    assert.ok(
      v.height > 200 && v.content <= v.inner + 1,
      at + ": at its content's height (" + v.content + ' px in ' + v.inner + ')',
    );
    assert.deepEqual(v.notes, [], at);
    assert.equal(v.theme, theme, at + ': theme');
    const want = i < HTML_VIEWS ? expected.views[i] : expected.widget;
    assert.ok(maxDiff(v.data, want) <= 1e-6, at + ": values differ from PyTorch's");
    if (v.code)
      assert.ok(
        contrast(v.code.color, v.code.background) >= 4.5,
        at + ': trace code ' + v.code.color + ' on ' + v.code.background,
      );
  });
  assert.deepEqual(got[1].tokens, expected.tokens, where + ": the tokenizer's tokens");
  assert.deepEqual(
    got[HTML_VIEWS].selection,
    { layer: 0, batch: 0, head: 1, query: 3 },
    where + ": the widget's head and query set from Python",
  );
}

async function axe(page, where, context = '[data-mha-explorer-view]') {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(
    ([ctx, values]) => window.axe.run(ctx, { runOnly: { type: 'tag', values } }),
    [context, TAGS],
  );
  assert.deepEqual(
    result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')),
    [],
    where + ': axe-core',
  );
}

// Until the notebook's last cell printed its marker (each notebook its own: JupyterLab reopens the notebooks of the
// tests before beside it).
const outputsDone = (page, marker) =>
  page.waitForFunction((m) => window.cellOutputs('pre').some((o) => o.textContent.includes(m)), marker, {
    timeout: 180000,
  });
const viewsShown = (page, n) =>
  page.waitForFunction(
    (k) =>
      document.querySelectorAll('[data-mha-explorer-view]').length >= k && !document.querySelector('.mhax-fallback'),
    n,
    { timeout: 60000 },
  );
// JupyterLab's menus (Notebook 7 has the same): a menu of the menu bar, then an item by its command.
async function menu(page, name, command) {
  await page.getByRole('menuitem', { name, exact: true }).click();
  await page.locator(`li[data-command="${command}"]`).first().click();
}
// Settings → Theme → name, through the menus.
async function theme(page, name) {
  await page.getByRole('menuitem', { name: 'Settings', exact: true }).click();
  await page.locator('.lm-Menu li.lm-Menu-item[data-type="submenu"]', { hasText: /^Theme$/ }).hover();
  await page.locator('.lm-Menu li.lm-Menu-item', { hasText: new RegExp('^' + name + '$') }).click();
}
// Views below the fold of JupyterLab's windowed notebook are only in the document once scrolled to: each cell is
// brought into view in turn.
async function scrollThrough(page) {
  await page.evaluate(async () => {
    for (const cell of document.querySelectorAll('.jp-Notebook .jp-Cell')) {
      cell.scrollIntoView();
      await new Promise((r) => setTimeout(r, 150));
    }
  });
}

// A notebook opened in JupyterLab or Notebook 7 (path: its URL path), its kernel selected, Run → Run All Cells as a
// student does, until its last cell prints "outputs expected", every cell scrolled into view. → the guarded page.
async function openAndRunAll(path, shot) {
  const g = await guardedPage(browser.context, own(jupyter.origin));
  const { page } = g;
  await installOutputFinder(page);
  g.sources = []; // where each console error came from
  page.on('console', (m) => {
    if (m.type() === 'error') g.sources.push({ text: m.text(), url: m.location().url });
  });
  page.on('pageerror', (e) =>
    g.sources.push({ text: String(e), url: ((e.stack || '').match(/https?:\/\/[^\s)]+/) || [''])[0] }),
  );
  await page.goto(jupyter.origin + path + '?token=' + TOKEN);
  await page.waitForSelector('.jp-Notebook .jp-Cell', { timeout: 90000 });
  // The notebook names the venv's kernel ("mha-explorer", not the server's default): JupyterLab asks once, the student
  // clicks Select
  const select = page.locator('.jp-Dialog').getByRole('button', { name: 'Select', exact: true });
  await select.waitFor({ timeout: 20000 }).then(
    () => select.click(),
    () => {},
  );
  await page
    .waitForFunction(
      () =>
        /Idle/.test(
          document.querySelector('.jp-Toolbar-kernelStatus, .jp-Notebook-ExecutionIndicator, #jp-main-statusbar')
            ?.textContent || '',
        ) || document.querySelector('.jp-Notebook-ExecutionIndicator[data-status="idle"]'),
      null,
      { timeout: 90000 },
    )
    .catch(() => {});
  await menu(page, 'Run', 'runmenu:run-all'); // Run → Run All Cells, as a student does
  await outputsDone(page, shot.marker || 'outputs expected').catch(async (e) => {
    await page.screenshot({ path: join(ARTIFACTS, shot.name + '-stuck.png') });
    throw e;
  });
  await scrollThrough(page);
  return g;
}

// File → Save, then the page reloaded (the kernel still runs) and every cell scrolled into view again.
async function saveAndReload(page) {
  await menu(page, 'File', 'docmanager:save');
  await page.waitForTimeout(1000);
  await page.reload();
  await page.waitForSelector('.jp-Notebook .jp-Cell', { timeout: 90000 });
  await scrollThrough(page);
}

async function runNotebook(where, path, shot) {
  const g = await openAndRunAll(path, shot);
  const { page } = g;
  await viewsShown(page, HTML_VIEWS + 1);
  const expected = JSON.parse(readFileSync(join(DIR, shot.dir, 'expected.json'), 'utf8'));
  checkViews(await views(page), expected, where, 'light');
  const out = await page.evaluate(() =>
    window
      .cellOutputs('pre')
      .map((o) => o.textContent)
      .join('\n'),
  );
  assert.match(
    out,
    /TraitError: head=7 is out of range: there are 2 heads \(0 to 1\)/,
    where + ": the widget's bad trait, in words",
  );
  await page
    .locator('[data-mha-explorer-view]')
    .nth(1)
    .screenshot({ path: join(ARTIFACTS, shot.name + '-light.png') });
  await axe(page, where + ' (light)');
  return { g, page, expected };
}

// Saved and reopened: the HTML views are trusted outputs of this server and show again (the widget comes back from the
// running kernel). → the views.
async function reopened(page, expected) {
  await saveAndReload(page);
  await viewsShown(page, HTML_VIEWS);
  const again = await views(page);
  again
    .slice(0, HTML_VIEWS)
    .forEach((v, i) => assert.ok(maxDiff(v.data, expected.views[i]) <= 1e-6, 'reopened view ' + i));
  return again;
}

test(
  'JupyterLab 4: Run All Cells, light then Dark live, the widget both ways, reopened',
  { timeout: 420000 },
  async () => {
    const { g, page, expected } = await runNotebook('JupyterLab', '/lab/tree/lab/views.ipynb', {
      dir: 'lab',
      name: 'jupyterlab',
    });
    // The widget's layer picker: Python sends that layer as a binary buffer (layers[1])
    const widget = page.locator('[data-mha-explorer-view]').nth(HTML_VIEWS);
    await widget.locator('.mhav-tools select').first().selectOption('1');
    await page.waitForFunction(
      ([n, want]) => {
        const r = document.querySelectorAll('[data-mha-explorer-view]')[n],
          d = r && r.mhaExplorer.getWeights().data;
        return d && d.length === want.length && d.every((v, i) => Math.abs(v - want[i]) <= 1e-6);
      },
      [HTML_VIEWS, expected.views[0].slice(72, 144)],
      { timeout: 30000 },
    );
    const picked = (await views(page))[HTML_VIEWS];
    assert.ok(maxDiff(picked.data, expected.views[0].slice(72, 144)) <= 1e-6, 'the picked layer 1 came from Python');
    await widget.screenshot({ path: join(ARTIFACTS, 'jupyterlab-widget.png') });
    // Settings → Theme → JupyterLab Dark, while the views are shown: each follows, the trace's code stays readable
    await theme(page, 'JupyterLab Dark');
    await page.waitForFunction(
      () =>
        document.body.getAttribute('data-jp-theme-light') === 'false' &&
        [...document.querySelectorAll('[data-mha-explorer-view]')].every(
          (r) => r.getAttribute('data-mhav-theme') === 'dark',
        ),
      null,
      { timeout: 30000 },
    );
    const dark = await views(page);
    assert.ok(dark.every((v) => v.theme === 'dark'));
    const trace = dark.find((v) => v.code);
    assert.ok(
      trace && contrast(trace.code.color, trace.code.background) >= 4.5,
      "the trace's code after the switch: " + JSON.stringify(trace && trace.code),
    );
    const traced = page.locator('[data-mha-explorer-view]').nth(2).locator('.mhav-trace');
    await traced.scrollIntoViewIfNeeded();
    await traced.screenshot({ path: join(ARTIFACTS, 'jupyterlab-dark-trace.png') });
    await axe(page, 'JupyterLab (dark)');
    // Saved (File → Save), then the page reloaded: the HTML views are trusted outputs of this server and show again, the
    // widget comes back from the running kernel
    const again = await reopened(page, expected);
    assert.ok(
      again.every((v) => v.theme === 'dark'),
      'reopened in the Dark theme',
    );
    // back to the light theme for the next front end (the setting is the server's)
    await theme(page, 'JupyterLab Light');
    await page.waitForFunction(() => document.body.getAttribute('data-jp-theme-light') === 'true');
    const saved = JSON.parse(readFileSync(join(DIR, 'lab', 'views.ipynb'), 'utf8'));
    const bytes = saved.cells.map((c) => JSON.stringify(c.outputs || []).length);
    console.log('# JupyterLab: bytes each cell adds to the .ipynb: ' + bytes.join(', '));
    clean(g, 'JupyterLab');
    await page.close();
    // The saved notebook exported by nbconvert (Debian's, offline): the HTML views, and for the widget its saved HTML of
    // the layer it first showed, saying what it left out (nbconvert skips a widget whose state the notebook lacks)
    await promisify(execFile)('jupyter-nbconvert', ['--to', 'html', 'views.ipynb'], { cwd: join(DIR, 'lab'), env });
    const x = await guardedPage(
      browser.context,
      (u) =>
        u.startsWith('file:///usr/share/javascript/') ||
        u === pathToFileURL(join(DIR, 'lab', 'views.html')).href ||
        u.startsWith('data:') ||
        u.startsWith('blob:'),
    );
    await x.page.goto(pathToFileURL(join(DIR, 'lab', 'views.html')).href);
    await viewsShown(x.page, HTML_VIEWS + 1);
    const exported = await views(x.page);
    assert.equal(exported.length, HTML_VIEWS + 1, "exported: the HTML views and the widget's saved view");
    exported
      .slice(0, HTML_VIEWS)
      .forEach((v, i) => assert.ok(maxDiff(v.data, expected.views[i]) <= 1e-6, 'exported view ' + i));
    assert.ok(maxDiff(exported[HTML_VIEWS].data, expected.views[0].slice(0, 72)) <= 1e-6, "the widget's saved layer 0");
    assert.match(
      await x.page.locator('[data-mha-explorer-view]').nth(HTML_VIEWS).textContent(),
      /Saved from the widget \(mx\.Heads\): layer 0 of 3 only; run the cell to pick the others\./,
    );
    clean(x, 'exported HTML');
    await x.page.close();
  },
);

// mx.explore_model's pages in the document (each an iframe of the one-file model page): whether it shows a model, its
// weights and tokens (window.mhaExplorer, web/models/api.js), its theme, and the frame's height against its page's.
const MODEL_FRAME = 'iframe[title^="MHA Explorer: every head"]';
const modelPages = (page) =>
  page.evaluate(async (sel) => {
    const out = [];
    for (const f of document.querySelectorAll(sel)) {
      const api = f.contentWindow && f.contentWindow.mhaExplorer,
        w = api && (await api.ready) ? api.getWeights() : null,
        body = f.contentDocument.body;
      // a frame out of view is not laid out (JupyterLab's cells: content-visibility): in view, it takes its height
      for (let i = 0; i < 40; i++) {
        f.scrollIntoView();
        await new Promise((r) => setTimeout(r, 100));
        if (Math.abs(f.getBoundingClientRect().height - body.getBoundingClientRect().height - 4) <= 2) break;
      }
      out.push({
        shape: w && w.shape,
        data: w ? Array.from(w.data) : [],
        tokens: api ? api.getTokens() : [],
        messages: api ? api.getMessages() : [],
        theme: body.getAttribute('data-theme'),
        height: f.getBoundingClientRect().height,
        content: body.getBoundingClientRect().height,
      });
    }
    return out;
  }, MODEL_FRAME);
// Each model page's frame in a scroll box of the notebook's (its output folded into one)? → where, or null.
const modelClipped = (page) =>
  page.evaluate(
    (sel) =>
      [...document.querySelectorAll(sel)].map((f) => {
        for (let e = f.parentElement; e && !e.matches('.jp-Notebook, .jp-WindowedPanel-outer'); e = e.parentElement) {
          const s = getComputedStyle(e);
          if (/auto|scroll|hidden/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1)
            return (e.className || e.tagName) + ': ' + e.clientHeight + ' of ' + e.scrollHeight + ' px';
        }
        return null;
      }),
    MODEL_FRAME,
  );
// Until n model pages show the given tokens (each a list, or null for any model shown).
const modelPagesShown = (page, tokens) =>
  page.waitForFunction(
    ([sel, want]) => {
      const frames = [...document.querySelectorAll(sel)];
      const shown = (f, t) => {
        const api = f && f.contentWindow && f.contentWindow.mhaExplorer;
        return !!api && !!api.getWeights() && (!t || JSON.stringify(api.getTokens()) === JSON.stringify(t));
      };
      // JupyterLab lays out (and loads) only the outputs in view: bring the first missing or unfinished one there (a
      // frame has its API before the kernel's files arrive)
      const waiting = frames.find((f, i) => !shown(f, want[i]));
      if (waiting) waiting.scrollIntoView();
      else if (frames.length < want.length) document.querySelector('.jp-Notebook .jp-Cell')?.scrollIntoView();
      return frames.length >= want.length && want.every((t, i) => shown(frames[i], t));
    },
    [MODEL_FRAME, tokens],
    { timeout: 180000 },
  );
// The model pages did not show in time: a screenshot, then what each view says (its status line) and whether its frame
// and the page's API are there, in the error.
async function modelPagesStuck(page, name, error) {
  await page.screenshot({ path: join(ARTIFACTS, name + '-stuck.png') });
  const views = await page.evaluate(() =>
    [...document.querySelectorAll('.mhax-model')].map((m) => {
      const f = m.querySelector('iframe');
      return {
        status: m.querySelector('[role="status"]')?.textContent,
        frame: f ? { height: f.getBoundingClientRect().height, api: !!f.contentWindow?.mhaExplorer } : null,
      };
    }),
  );
  throw new Error(error.message + '\nthe model views: ' + JSON.stringify(views)); // (the stack keeps the old message)
}
// |page − transformers' float64| ≤ the oracle's float32 bound, element by element (tests/models/make_checkpoints.py).
function withinBounds(got, want, where) {
  assert.deepEqual(got.shape, want.shape, where + ': shape');
  assert.deepEqual(got.tokens, want.tokens, where + ": the tokenizer's tokens");
  const i = got.data.findIndex((v, k) => !(Math.abs(v - want.attentions[k]) <= want.bound[k]));
  assert.equal(
    i,
    -1,
    where + ': element ' + i + ' is ' + got.data[i] + ', transformers ' + want.attentions[i] + ' ± ' + want.bound[i],
  );
}
// What the student sees: JupyterLab with the top of model page n (a page taller than the window).
async function modelShot(page, n, name) {
  await page.evaluate(
    ([sel, k]) => document.querySelectorAll(sel)[k].scrollIntoView({ block: 'start' }),
    [MODEL_FRAME, n],
  );
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(ARTIFACTS, name) });
}
// The front end's theme switched to JupyterLab Dark: every model page follows (shot: model page 1 then), and back.
async function modelPagesFollowDark(page, shot) {
  await theme(page, 'JupyterLab Dark');
  await page.waitForFunction(
    (sel) =>
      [...document.querySelectorAll(sel)].every((f) => f.contentDocument.body.getAttribute('data-theme') === 'dark'),
    MODEL_FRAME,
    { timeout: 30000 },
  );
  await modelShot(page, 1, shot);
  await theme(page, 'JupyterLab Light');
}
// From Python: gpt2.text set on the widget, the page shows it (within transformers' bounds), and what it shows read
// back in Python (status, tokens).
async function textFromPython(page, want, where) {
  await runNewCell(page, 'gpt2.text = ' + JSON.stringify(want.text));
  await modelPagesShown(page, [null, want.tokens]);
  const [, gpt2] = await modelPages(page);
  withinBounds(gpt2, want, where + ', the GPT-2 page after gpt2.text = …');
  // Until the view's report reaches the kernel, Python says "computing" (never the old text's tokens as shown): read
  // again, as a student would, a few times
  for (let n = 1; ; n++) {
    const tokens = 'gpt2.tokens == ' + JSON.stringify(want.tokens);
    await runNewCell(page, `print("status ${n}:", folder.status, gpt2.status, ${tokens})`);
    const said = await lastOutput(page, new RegExp(`^status ${n}: `));
    if (said === `status ${n}: shown shown True`) break;
    assert.equal(said, `status ${n}: shown computing False`, where + ': what Python read while the page computed');
    assert.ok(n < 5, where + ': the page never reported its text to Python');
    await page.waitForTimeout(2000);
  }
}

// The model notebook of dir ('lab': JupyterLab, 'nb7': Notebook 7; path: its URL path) opened and run: both model
// pages shown within transformers' bounds (where: their names), no message, the light theme, each frame at its page's
// height; the first one's screenshot. → {g, page, expected (the notebook's expected-model.json)}.
async function openModelNotebook(path, dir, where) {
  const name = dir === 'lab' ? 'jupyterlab-model' : 'notebook7-model';
  const g = await openAndRunAll(path, { name, marker: 'model pages expected' });
  const { page } = g;
  const expected = JSON.parse(readFileSync(join(DIR, dir, 'expected-model.json'), 'utf8'));
  await modelPagesShown(page, [null, null]).catch((e) => modelPagesStuck(page, name, e));
  const pages = await modelPages(page);
  withinBounds(pages[0], expected.folder, where[0]);
  withinBounds(pages[1], expected.gpt2, where[1]);
  for (const p of pages) {
    assert.deepEqual(p.messages, []);
    assert.equal(p.theme, 'light');
    assert.ok(
      Math.abs(p.height - p.content - 4) <= 2,
      'the frame at its page height: ' + p.height + ' for ' + p.content,
    );
  }
  await modelShot(page, 0, name + '-page.png');
  return { g, page, expected };
}

// A new cell below the last one (command mode, B), the code typed and run with Shift+Enter, as a student does.
async function runNewCell(page, code) {
  await page.locator('.jp-Notebook .jp-Cell').last().locator('.jp-InputPrompt').click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('b');
  await page.locator('.jp-Notebook .jp-Cell.jp-mod-selected .cm-content').click();
  await page.keyboard.insertText(code);
  await page.keyboard.press('Shift+Enter');
}
// Until an output line matches `re` → that line; on timeout the error names what the outputs said.
async function lastOutput(page, re) {
  const got = await page
    .waitForFunction(
      (src) =>
        window
          .cellOutputs('pre')
          .flatMap((o) => o.textContent.trim().split('\n'))
          .find((l) => new RegExp(src).test(l)) || false,
      re.source,
      { timeout: 60000 },
    )
    .catch(async (e) => {
      const said = await page.evaluate(() => window.cellOutputs('pre').map((o) => o.textContent.trim()));
      throw new Error(e.message + '\nthe outputs: ' + JSON.stringify(said));
    });
  return got.jsonValue();
}

test(
  'JupyterLab 4: mx.explore_model, a folder and a model object, every head equal to transformers, no weights saved',
  { timeout: 480000 },
  async () => {
    // a workspace of its own: the model notebook alone in the page (JupyterLab reopens the last test's notebook)
    const { g, page, expected } = await openModelNotebook('/lab/workspaces/model/tree/lab/model.ipynb', 'lab', [
      'the MiniLM folder',
      'the GPT-2 model object',
    ]);
    await textFromPython(page, expected['gpt2-1'], 'JupyterLab');
    assert.deepEqual(await modelClipped(page), [null, null], 'JupyterLab: a model page in a scroll box');
    // JupyterLab's theme switched live: the pages follow
    await modelPagesFollowDark(page, 'jupyterlab-model-dark.png');
    // Saved, then reloaded: the kernel sends the files again; the .ipynb holds the widgets' note, not the weights
    await saveAndReload(page);
    await modelPagesShown(page, [expected.folder.tokens, expected['gpt2-1'].tokens]);
    const [minilm] = await modelPages(page);
    withinBounds(minilm, expected.folder, 'the MiniLM page after reopening');
    const saved = readFileSync(join(DIR, 'lab', 'model.ipynb'), 'utf8');
    assert.ok(saved.length < 100000, 'the saved notebook holds ' + saved.length + ' bytes (MiniLM weighs 90.9 MB)');
    assert.match(saved, /the notebook does not keep them/);
    console.log('# JupyterLab: the notebook with two model pages saved in ' + saved.length + ' bytes');
    clean(g, 'JupyterLab, mx.explore_model');
    await page.close();
    // Exported by nbconvert: the note says what the cell shows and how to see it
    await promisify(execFile)('jupyter-nbconvert', ['--to', 'html', 'model.ipynb'], { cwd: join(DIR, 'lab'), env });
    const exported = readFileSync(join(DIR, 'lab', 'model.html'), 'utf8');
    assert.equal((exported.match(/the notebook does not keep them: run this cell/g) || []).length, 2);
  },
);

// Notebook 7.6.5's own console errors, set aside, only these: a page error while it loads its settings
// (notebook_core.js; the same on a notebook with no output at all), and, once JupyterLab has used the same server, an
// error thrown in its own bundle asking for JupyterLab's file browser command.
function setAsideNotebook7(g) {
  const own7 = (e) =>
    e === "TypeError: Cannot read properties of undefined (reading 'schema')" ||
    (e === "Error: Command 'filebrowser:open-path' not registered." &&
      g.sources.some((s) => s.text === e && s.url.startsWith(jupyter.origin + '/static/notebook/')));
  g.errors = g.errors.filter((e) => !own7(e));
  if (g.errors.length) console.log('# Notebook 7 console errors and their sources: ' + JSON.stringify(g.sources));
}

test('Notebook 7: Run All Cells through its menu, reopened', { timeout: 300000 }, async () => {
  const { g, page, expected } = await runNotebook('Notebook 7', '/notebooks/nb7/views.ipynb', {
    dir: 'nb7',
    name: 'notebook7',
  });
  setAsideNotebook7(g);
  await reopened(page, expected);
  clean(g, 'Notebook 7');
  await page.close();
});

// A head switched off, as transformers computes it: the tiny GPT-2's float64 logits at the text's last token with every
// head and with the head's slice zeroed before the output projection, each with its float32 bound (the oracle's own
// functions, tests/models/make_checkpoints.py and reference.py). The text is lesson 004's question, the head one that
// changes the top 5 beyond the bounds (a token leaves, another comes in).
const HEAD_OFF = { text: "The chicken didn't cross the road because it", heads: [[1, 2]] };
const HEAD_OFF_ORACLE = `import json, sys
sys.path.insert(0, sys.argv[1])
import torch, transformers
import make_checkpoints as mc, reference
path, text, heads = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
tok = transformers.AutoTokenizer.from_pretrained(path)
model = transformers.AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32, attn_implementation="eager")
model = model.eval().double()
ids = tok(text)["input_ids"]
at = [len(ids) - 1]
with mc.true_float64():
    result = mc.run_and_ablated(model, ids, at, heads)
bounds = reference.bounds(model, ids, at, heads, result)
out = {"tokens": tok.convert_ids_to_tokens(ids), "position": at[0], "heads_off": heads}
for name in ("logits", "ablated.logits"):
    out[name], out[name + ".bound"] = result[name][0].tolist(), bounds[name][0].tolist()
print(json.dumps(out))`;
const headOffOracle = () =>
  promisify(execFile)(python(), [
    '-c',
    HEAD_OFF_ORACLE,
    join(repo, 'tests', 'models'),
    join(MODELS, 'gpt2'),
    HEAD_OFF.text,
    JSON.stringify(HEAD_OFF.heads),
  ]).then(({ stdout }) => JSON.parse(stdout));

// In model page n, as a student does: the text typed in the page's text box (until it shows these tokens), then each
// head's card clicked and "This head off". → the page's top 5 with and without them (window.mhaExplorer.getTop()).
async function headsOffByHand(page, n, { text, tokens, heads }) {
  const frame = page.frameLocator(MODEL_FRAME).nth(n);
  await frame.locator('#text').fill(text);
  await page.waitForFunction(
    ([sel, k, t]) => JSON.stringify(document.querySelectorAll(sel)[k].contentWindow.mhaExplorer.getTokens()) === t,
    [MODEL_FRAME, n, JSON.stringify(tokens)],
  );
  for (const [l, h] of heads) {
    await frame.locator(`.mg-card[aria-label^="Layer ${l} head ${h}"]`).first().click();
    await frame.locator('#off-one').click();
  }
  // the worker answers the ablated forward after the click: its top 5 once it is there (ci11 read it before: 0 of 5)
  await page.waitForFunction(
    ([sel, k, n]) => {
      const top = document.querySelectorAll(sel)[k].contentWindow.mhaExplorer.getTop();
      return top.headsOff.length === n && top.ablated.length > 0;
    },
    [MODEL_FRAME, n, heads.length],
  );
  return page.evaluate(
    ([sel, k]) => document.querySelectorAll(sel)[k].contentWindow.mhaExplorer.getTop(),
    [MODEL_FRAME, n],
  );
}
// The page's top 5, with every head and with the heads off, against transformers' (headOffOracle).
function topWithin(top, want, where) {
  assert.equal(top.position, want.position, where + ': the position predicted from');
  assert.deepEqual(top.headsOff, want.heads_off, where + ': the heads switched off');
  const ids = (list) => list.map((t) => t.id);
  assertTop5(ids(top.full), want.logits, want['logits.bound'], where + ', every head on');
  assertTop5(ids(top.ablated), want['ablated.logits'], want['ablated.logits.bound'], where + ', heads off');
  assert.notDeepEqual(ids(top.ablated), ids(top.full), where + ': the heads off left the top 5 as it was');
}

test(
  'Notebook 7: mx.explore_model, a folder and a model object, heads off as transformers, no weights saved',
  { timeout: 300000 },
  async () => {
    const started = Date.now(),
      headOff = headOffOracle(); // meanwhile (awaited below)
    headOff.catch(() => {});
    const { g, page, expected } = await openModelNotebook('/notebooks/nb7/model.ipynb', 'nb7', [
      'Notebook 7, the GPT-2 folder',
      'Notebook 7, the GPT-2 model object',
    ]);
    // A head switched off by hand in the folder's page, on lesson 004's question: its top 5 moves as transformers'
    const want = await headOff;
    const top = await headsOffByHand(page, 0, { text: HEAD_OFF.text, tokens: want.tokens, heads: want.heads_off });
    topWithin(top, want, 'Notebook 7, the GPT-2 folder, heads ' + JSON.stringify(want.heads_off) + ' off');
    await page
      .frameLocator(MODEL_FRAME)
      .first()
      .locator('section[aria-labelledby="predict-title"]')
      .screenshot({ path: join(ARTIFACTS, 'notebook7-model-heads-off.png') });
    await textFromPython(page, expected['gpt2-1'], 'Notebook 7');
    // Notebook 7 folds outputs taller than 1,820 px into a scroll box when a cell is added or run: not the pages
    assert.deepEqual(await modelClipped(page), [null, null], 'Notebook 7: a model page in a scroll box');
    await modelShot(page, 1, 'notebook7-model-object.png');
    // a right-click in the page's cell's code (to copy) is no fold: the next cell run leaves the page whole still
    const cell = page.locator('.jp-CodeCell', { has: page.locator(MODEL_FRAME) }).first();
    await cell.locator('.cm-content').click({ button: 'right' });
    await page.keyboard.press('Escape');
    await runNewCell(page, 'print("after a right-click")');
    await lastOutput(page, /after a right-click/);
    assert.deepEqual(
      await modelClipped(page),
      [null, null],
      'Notebook 7: a model page in a scroll box after a right-click',
    );
    // ...unless the student folds it: a click on the output's prompt, and another to unfold
    await cell.locator('.jp-OutputArea-promptOverlay').click();
    await page.waitForTimeout(300);
    assert.match((await modelClipped(page))[0] || '', /jp-OutputArea/, "Notebook 7: the student's fold undone");
    await cell.locator('.jp-OutputArea-promptOverlay').click();
    // Notebook 7's Settings → Theme → JupyterLab Dark: the pages follow
    await modelPagesFollowDark(page, 'notebook7-model-dark.png');
    await page.waitForFunction(() => document.body.getAttribute('data-jp-theme-light') === 'true');
    // Saved, then reloaded: the kernel sends the files again; the .ipynb holds no weights
    await saveAndReload(page);
    await modelPagesShown(page, [expected.folder.tokens, expected['gpt2-1'].tokens]);
    const [folder] = await modelPages(page);
    withinBounds(folder, expected.folder, 'Notebook 7, the folder page after reopening');
    const saved = readFileSync(join(DIR, 'nb7', 'model.ipynb'), 'utf8'),
      weights = statSync(join(MODELS, 'gpt2', 'model.safetensors')).size;
    assert.ok(saved.length < weights, 'the saved notebook holds ' + saved.length + ' bytes, the weights ' + weights);
    assert.match(saved, /the notebook does not keep them/);
    setAsideNotebook7(g);
    clean(g, 'Notebook 7, mx.explore_model');
    await page.close();
    console.log('# Notebook 7, mx.explore_model: ' + ((Date.now() - started) / 1000).toFixed(0) + ' s');
  },
);

// Voilà: the notebook run by its server and shown as a page (outputs only), the widget through its widget manager.
test('Voilà: the notebook as a page, the HTML views and the widget', { timeout: 240000 }, async () => {
  const dir = join(DIR, 'voila'),
    port = await freePort(),
    origin = 'http://127.0.0.1:' + port;
  execFileSync(join(venv, 'bin', 'python'), [join(repo, 'python', 'tests', 'make_frontends_notebook.py'), dir]);
  const server = await startProcess(
    join(venv, 'bin', 'voila'),
    [
      'views.ipynb',
      '--no-browser',
      '--port=' + port,
      '--Voila.ip=127.0.0.1',
      '--ServerApp.allow_root=True',
      '--ServerApp.token=' + TOKEN,
    ],
    /Voilà is running at/,
    { env, cwd: dir },
  );
  try {
    // Voilà 0.5.13's own: its template asks jsDelivr for Font Awesome (two requests, two failed loads offline), and it
    // loads Notebook 7's lab extension, which fails in it (webpack's RUNTIME-012): set aside, only these
    const FONT = /^https:\/\/cdn\.jsdelivr\.net\/npm\/@fortawesome\/fontawesome-free@/;
    const g = await guardedPage(browser.context, (u) => own(origin)(u) || FONT.test(u));
    const { page } = g;
    await page.goto(origin + '/?token=' + TOKEN);
    await page.waitForFunction(
      (n) =>
        document.querySelectorAll('[data-mha-explorer-view]').length >= n && !document.querySelector('.mhax-fallback'),
      HTML_VIEWS + 1,
      { timeout: 180000 },
    );
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
    checkViews(await views(page), expected, 'Voilà', 'light');
    await page
      .locator('[data-mha-explorer-view]')
      .nth(1)
      .screenshot({ path: join(ARTIFACTS, 'voila.png') });
    await axe(page, 'Voilà');
    g.errors = g.errors.filter(
      (e) => e !== 'Failed to load resource: net::ERR_NAME_NOT_RESOLVED' && !/#RUNTIME-012/.test(e),
    );
    clean(g, 'Voilà');
    await page.close();
  } finally {
    server.proc.kill('SIGTERM');
  }
});

// marimo: its own notebook format (a Python file of cells) and its anywidget support: mx.Heads, and mx.show, whose
// _display_ gives marimo the widget (marimo puts an HTML output with scripts in a frame of fixed height, 400 px), and
// mx.explore_model on the oracle's tiny GPT-2 folder (the files through marimo's comm).
const MODELS = join(repo, 'build', 'models');
const MARIMO_APP = `import marimo
app = marimo.App()


@app.cell
def _():
    import json, torch
    import mha_explorer as mx
    torch.manual_seed(0)
    layers = tuple(torch.softmax(torch.randn(1, 2, 6, 6), -1) for _ in range(3))
    with open("expected.json", "w") as f:
        json.dump({"layers": [l.reshape(-1).tolist() for l in layers]}, f)
    return layers, mx


@app.cell
def _(layers, mx):
    w = mx.Heads(layers, list("abcdef"), title="Widget in marimo")
    w.layer, w.head, w.query = 2, 1, 3
    w
    return (w,)


@app.cell
def _(layers, mx):
    mx.show(layers, list("abcdef"), title="mx.show in marimo")
    return


@app.cell
def _(mx):
    import json as _json
    from safetensors import safe_open as _safe_open

    with _safe_open("${MODELS}/gpt2/oracle-0.safetensors", "pt") as _f:
        _meta = _f.metadata()
        _oracle = dict(text=_json.loads(_meta["text"]), tokens=_json.loads(_meta["tokens"]),
                       shape=list(_f.get_tensor("attentions").shape),
                       attentions=_f.get_tensor("attentions").reshape(-1).tolist(),
                       bound=_f.get_tensor("attentions.bound").reshape(-1).tolist())
    with open("expected-model.json", "w") as _out:
        _json.dump(_oracle, _out)
    mx.explore_model("${MODELS}/gpt2", _oracle["text"])
    return


if __name__ == "__main__":
    app.run()
`;

// marimo draws an anywidget in a shadow root and a text/html output in a same-origin iframe of its own server; the
// model page's frame holds a view of its own (its selected layer), left out here
const marimoViews = (page) =>
  page.evaluate((modelFrame) => {
    const out = [];
    let model = null;
    const walk = (root, frame) => {
      for (const e of root.querySelectorAll('*')) {
        if (e.matches('[data-mha-explorer-view]')) out.push({ root: e, frame });
        if (e.shadowRoot) walk(e.shadowRoot, frame);
        if (e.matches(modelFrame)) model = e;
        else if (e.tagName === 'IFRAME' && e.contentDocument) walk(e.contentDocument, e);
      }
    };
    walk(document, null);
    const api = model && model.contentWindow.mhaExplorer,
      w = api && api.getWeights();
    return {
      views: out.map(({ root: r, frame }) => ({
        data: Array.from(r.mhaExplorer.getWeights().data),
        selection: r.mhaExplorer.getSelection(),
        notes: r.mhaExplorer.getNotes(),
        height: r.getBoundingClientRect().height,
        content: r.scrollHeight,
        inner: r.clientHeight,
        frame: frame && {
          height: frame.getBoundingClientRect().height,
          content: frame.contentDocument.documentElement.scrollHeight,
        },
      })),
      model: w && { shape: w.shape, data: Array.from(w.data), tokens: api.getTokens() },
    };
  }, MODEL_FRAME);

test('marimo: mx.Heads, mx.show and mx.explore_model through its anywidget support', { timeout: 240000 }, async () => {
  const dir = join(DIR, 'marimo'),
    port = await freePort(),
    origin = 'http://127.0.0.1:' + port;
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'views.py'), MARIMO_APP);
  const server = await startProcess(
    join(venv, 'bin', 'marimo'),
    [
      '-y',
      'edit',
      'views.py',
      '--headless',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--token-password',
      TOKEN,
      '--skip-update-check',
    ],
    /URL: http/,
    { env: { ...env, MARIMO_SKIP_UPDATE_CHECK: '1' }, cwd: dir },
  );
  try {
    const g = await guardedPage(browser.context, own(origin));
    const { page } = g;
    await page.goto(origin + '/?access_token=' + TOKEN);
    // "Run all stale cells" (the button at the bottom right), as a student does; clicked again until the cells run (the
    // button is there before the page's session is connected)
    const runAll = page.locator('[data-testid="run-button"]').last();
    for (let tries = 0; tries < 20; tries++) {
      await runAll.click();
      const ran = await page.waitForSelector('marimo-anywidget', { timeout: 5000 }).then(
        () => true,
        () => false,
      );
      if (ran) break;
    }
    let all = { views: [] };
    for (const deadline = Date.now() + 180000; Date.now() < deadline; await page.waitForTimeout(500)) {
      all = await marimoViews(page);
      if (all.views.length >= 2 && all.model) break;
    }
    if (all.views.length < 2 || !all.model) {
      await page.screenshot({ path: join(ARTIFACTS, 'marimo-stuck.png'), fullPage: true });
      assert.fail('marimo: ' + all.views.length + ' views, model page ' + (all.model ? 'shown' : 'not shown'));
    }
    withinBounds(
      all.model,
      JSON.parse(readFileSync(join(dir, 'expected-model.json'), 'utf8')),
      'marimo, the model page',
    );
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
    const got = all.views;
    assert.equal(got.length, 2, 'two views');
    assert.ok(
      got.every((v) => !v.frame),
      'no view in a frame',
    );
    const [widget, shown] = got;
    assert.ok(maxDiff(widget.data, expected.layers[2]) <= 1e-6, 'the widget shows layer 2');
    assert.deepEqual(widget.selection, { layer: 0, batch: 0, head: 1, query: 3 });
    assert.ok(maxDiff(shown.data, expected.layers[0]) <= 1e-6, "mx.show's view shows layer 0");
    for (const v of [widget, shown])
      assert.ok(v.height > 200 && v.content <= v.inner + 1 && !v.notes.length, "at its content's height");
    await page
      .locator('[data-mha-explorer-view]')
      .first()
      .screenshot({ path: join(ARTIFACTS, 'marimo-widget.png') });
    await axe(page, 'marimo', 'marimo-anywidget'); // the views are in the widgets' shadow roots, which axe-core enters
    clean(g, 'marimo');
    await page.close();
  } finally {
    server.proc.kill('SIGTERM');
  }
});
