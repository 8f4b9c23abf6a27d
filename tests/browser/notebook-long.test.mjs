// The notebook at 512 tokens, every layer (issue 43, item 3): 12 layers × 12 heads × 512 tokens (37.7 M values) in one
// mx.show HTML output, the notebook executed and saved (python/tests/make_long_notebook.py: nbconvert, signed as
// JupyterLab signs what it saves), then opened in JupyterLab 4 in Chromium with no request beyond its own server and
// no cell run: the view shows from the saved output alone. Read back in the page: the shape, every layer's sum, a
// strided sample and one whole head, each within float16's rounding of PyTorch's float32 (the stored precision); the
// .ipynb at most 2 bytes a value. Every layer is picked in turn (each draws its 13 cards of 512 × 512). And mx.Heads of
// the same weights from a notebook holding its widget state (nbconvert stores it; JupyterLab loads it with Save Widget
// State Automatically on): every layer from the state's packed buffers, picked in the widget's layer picker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, guardedPage, repo, ARTIFACTS, pythonEnv, freePort } from './helpers.mjs';

const DIR = mkdtempSync(join(tmpdir(), 'mha-long-'));
const TOKEN = 'mha-' + Math.random().toString(36).slice(2);
let venv, env, browser, server, origin;

before(async () => {
  ({ venv, env } = pythonEnv(DIR));
  env = { ...env, JUPYTER_DATA_DIR: join(DIR, '.data'), JUPYTERLAB_SETTINGS_DIR: join(DIR, '.settings') };
  // no "get notified about Jupyter news?" toast over the screenshot (and no request for the news)
  const news = join(DIR, '.settings', '@jupyterlab', 'apputils-extension');
  mkdirSync(news, { recursive: true });
  writeFileSync(join(news, 'notification.jupyterlab-settings'), '{"fetchNews": "false"}');
  // Settings → Save Widget State Automatically: JupyterLab then also shows the widgets the notebook saved
  const widgets = join(DIR, '.settings', '@jupyter-widgets', 'jupyterlab-manager');
  mkdirSync(widgets, { recursive: true });
  writeFileSync(join(widgets, 'plugin.jupyterlab-settings'), '{"saveState": true}');
  execFileSync(join(venv, 'bin', 'python'), [join(repo, 'python', 'tests', 'make_long_notebook.py'), DIR], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const port = await freePort();
  origin = 'http://127.0.0.1:' + port;
  server = spawn(
    join(venv, 'bin', 'jupyter-lab'),
    ['--no-browser', '--ip=127.0.0.1', '--port=' + port, '--IdentityProvider.token=' + TOKEN, '--allow-root'],
    { env, cwd: DIR, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  server.stderr.on('data', (d) => (log += d));
  server.stdout.on('data', (d) => (log += d));
  const deadline = Date.now() + 90000;
  while (!/is running at/.test(log) && Date.now() < deadline && server.exitCode === null)
    await new Promise((r) => setTimeout(r, 200));
  assert.match(log, /is running at/, 'jupyter-lab did not start:\n' + log);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
  rmSync(DIR, { recursive: true, force: true });
});

// (in the page) data, the weights from flat index `at` on, checked against expected within the stored precision:
// the sampled values and the last head that fall in it, the sums of the layers it holds whole.
function compare(expected, data, at) {
  const within = (got, want) => Math.abs(got - want) <= expected.relative * Math.abs(want) + expected.absolute;
  const bad = [],
    end = at + data.length;
  expected.sample.forEach((v, i) => {
    const k = i * expected.stride;
    if (k >= at && k < end && !within(data[k - at], v)) bad.push(k);
  });
  const head = expected.values - expected.lastHead.length;
  if (head >= at && expected.values <= end)
    expected.lastHead.forEach((v, i) => within(data[head - at + i], v) || bad.push(head + i));
  const per = expected.values / expected.layerSums.length,
    sums = {};
  for (let l = Math.ceil(at / per); (l + 1) * per <= end; l++) {
    let s = 0;
    for (let i = l * per - at; i < (l + 1) * per - at; i++) s += data[i];
    sums[l] = s;
  }
  return { bad: bad.slice(0, 5), nBad: bad.length, sums };
}

// (in the page) the HTML output's view: every layer at once; each layer picked in turn (its 13 cards drawn).
async function readHtmlView([expected, compareCode]) {
  const compare = eval('(' + compareCode + ')'),
    api = document.querySelector('[data-mha-explorer-view]').mhaExplorer,
    w = api.getWeights();
  const times = [];
  for (let l = 0; l < expected.layerSums.length; l++) {
    const t = performance.now();
    api.select({ layer: l, head: 0 });
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
    times.push(performance.now() - t);
  }
  return { shape: w.shape, n: w.data.length, times, ...compare(expected, w.data, 0) };
}

// (in the page) the widget's view: one layer at a time, each picked in its layer picker (read from the saved state).
async function readWidget([expected, compareCode]) {
  const compare = eval('(' + compareCode + ')'),
    root = document.querySelector('[data-mha-explorer-view]'),
    picker = root.querySelector('.mhav-tools select'),
    per = expected.values / expected.layerSums.length,
    out = { nBad: 0, bad: [], sums: {}, shapes: [], times: [] };
  for (let l = 0; l < expected.layerSums.length; l++) {
    const t = performance.now();
    picker.value = String(l);
    picker.dispatchEvent(new Event('change'));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
    out.times.push(performance.now() - t);
    const w = root.mhaExplorer.getWeights(),
      c = compare(expected, w.data, l * per);
    out.shapes.push(w.shape);
    out.nBad += c.nBad;
    out.bad.push(...c.bad);
    Object.assign(out.sums, c.sums);
  }
  return out;
}

// The notebook opened in JupyterLab from the saved file (its kernel, if one starts, never runs a cell): → {page, g,
// seconds until the view shows}.
async function open(name) {
  const own = (u) =>
    u.startsWith(origin + '/') || u.startsWith(origin.replace('http', 'ws') + '/') || /^(data|blob):/.test(u);
  const g = await guardedPage(browser.context, own);
  const start = Date.now();
  await g.page.goto(origin + '/lab/workspaces/' + name.replace('.', '-') + '/tree/' + name + '?reset&token=' + TOKEN);
  const select = g.page.locator('.jp-Dialog').getByRole('button', { name: 'Select', exact: true });
  select.waitFor({ timeout: 30000 }).then(
    () => select.click(),
    () => {},
  );
  await g.page
    .waitForFunction(
      () => {
        const root = document.querySelector('[data-mha-explorer-view]'),
          w = root && root.mhaExplorer.getWeights();
        return w && w.data.length > 0 && !document.querySelector('.mhax-fallback');
      },
      null,
      { timeout: 240000 },
    )
    .catch(async (e) => {
      await g.page.screenshot({ path: join(ARTIFACTS, 'notebook-long-stuck.png') });
      const out = await g.page.evaluate(() => document.querySelector('.jp-Notebook')?.innerText.slice(0, 2000));
      throw new Error(name + ': no view (' + e.message + '); the notebook shows:\n' + out + '\n' + g.errors.join('\n'));
    });
  return { g, page: g.page, seconds: (Date.now() - start) / 1000 };
}

function checkRead(got, expected, where) {
  assert.equal(got.nBad, 0, where + ': values beyond float16 rounding at ' + got.bad.join(', '));
  assert.equal(Object.keys(got.sums).length, expected.layerSums.length, where + ': every layer read');
  expected.layerSums.forEach((want, l) => {
    // each value within its bound, so the sum within the bounds' sum (relative·sum + absolute·values)
    const bound = expected.relative * want + (expected.absolute * expected.values) / expected.layerSums.length;
    assert.ok(Math.abs(got.sums[l] - want) <= bound + 1e-9 * want, where + ': layer ' + l + "'s sum");
  });
}

function clean(g, where) {
  assert.deepEqual(g.foreign, [], where + ": requests beyond JupyterLab's server");
  assert.deepEqual(g.errors, [], where + ': console errors');
}

const expectedOf = () => JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8'));

test('JupyterLab 4: mx.show of 12 × 12 × 512 from the saved notebook, offline', { timeout: 600000 }, async () => {
  const expected = expectedOf();
  const bytes = statSync(join(DIR, 'long.ipynb')).size;
  assert.equal(expected.values, 12 * 12 * 512 * 512);
  assert.ok(bytes <= 2 * expected.values, `the .ipynb has ${bytes} bytes, more than 2 a value`);
  const { g, page, seconds } = await open('long.ipynb');
  const got = await page.evaluate(readHtmlView, [expected, String(compare)]);
  await page.locator('[data-mha-explorer-view]').screenshot({ path: join(ARTIFACTS, 'notebook-long.png') });
  console.log(
    `# mx.show: ${bytes} bytes (${(bytes / expected.values).toFixed(3)} a value), shown ${seconds.toFixed(1)} s ` +
      `after opening, each layer drawn in ${got.times.map((t) => t.toFixed(0)).join(', ')} ms`,
  );
  assert.deepEqual(got.shape, expected.shape);
  assert.equal(got.n, expected.values);
  checkRead(got, expected, 'mx.show');
  clean(g, 'mx.show');
  await page.close();
});

test('JupyterLab 4: mx.Heads of 12 × 12 × 512 from its saved widget state, offline', { timeout: 600000 }, async () => {
  const expected = expectedOf();
  const bytes = statSync(join(DIR, 'widget.ipynb')).size;
  assert.ok(bytes <= 2 * expected.values, `the .ipynb has ${bytes} bytes, more than 2 a value`);
  const { g, page, seconds } = await open('widget.ipynb');
  const got = await page.evaluate(readWidget, [expected, String(compare)]);
  await page.locator('[data-mha-explorer-view]').screenshot({ path: join(ARTIFACTS, 'notebook-long-widget.png') });
  console.log(
    `# mx.Heads: ${bytes} bytes (${(bytes / expected.values).toFixed(3)} a value), shown ${seconds.toFixed(1)} s ` +
      `after opening, each layer drawn in ${got.times.map((t) => t.toFixed(0)).join(', ')} ms`,
  );
  got.shapes.forEach((s) => assert.deepEqual(s, [1, 1, 12, 512, 512]));
  checkRead(got, expected, 'mx.Heads');
  clean(g, 'mx.Heads');
});
