// The model page's notebook view (python/mha_explorer/model_page.js, as the kernel sends it: the package's own _esm) in
// Chromium with a fake widget model and kernel, fast and without Jupyter: what it reports to Python (page.tokens and
// page.status, for the text it names) is the page's own tokenization of that text, whatever order texts, the files
// and a reloaded frame come in; a file whose size changes while it is sent is said, not shown. The real front ends:
// notebook-frontends.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, guardedPage, startServer, pythonEnv, repo } from './helpers.mjs';

const FOLDER = join(repo, 'build', 'models', 'gpt2');
const NAMES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors'];
const FIRST = 'The cat sat on the mat';
let srv, browser, esm;

// The host page: the view rendered with a fake anywidget model whose kernel answers from FILES ({name: base64});
// `sizes` ({name: size}) are the sizes the kernel announces (window.FILES, sizes and ESM: set before it runs). Every save_changes is a report in window.reports.
const HOST = `<!doctype html><html><body><div id="host"></div><script type="module">
const files = window.FILES;
const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const state = { text: window.TEXT ?? ${JSON.stringify(FIRST)}, query: '', folder: 'gpt2', description: 'the tiny GPT-2',
  files: Object.keys(files).map((name) => ({ name, size: window.sizes?.[name] ?? bytes(files[name]).length })),
  _shown_tokens: [], _shown_status: '', _shown_text: '' };
const handlers = {};
window.reports = [];
const answer = (m, b) => (handlers['msg:custom'] || []).forEach((cb) => cb(m, b));
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; },
  on: (ev, cb) => { (handlers[ev] = handlers[ev] || []).push(cb); },
  off: () => {},
  save_changes: () => window.reports.push({ text: state._shown_text, status: state._shown_status, tokens: state._shown_tokens.slice() }),
  send: async (msg) => {
    await new Promise((r) => setTimeout(r, 20));
    if (msg.what === 'page') return answer({ type: 'page', id: msg.id }, [await (await fetch('/mha-explorer-models.html')).arrayBuffer()]);
    for (const f of state.files) {
      const b = bytes(files[f.name]);
      answer({ type: 'file', id: msg.id, name: f.name, offset: 0, size: f.size }, [new DataView(b.buffer)]);
      await new Promise((r) => setTimeout(r, 0));
    }
    answer({ type: 'done', id: msg.id });
  },
};
window.setText = (t) => { state.text = t; (handlers['change:text'] || []).forEach((cb) => cb()); };
const view = await import(URL.createObjectURL(new Blob([window.ESM], { type: 'text/javascript' })));
view.default.render({ model, el: document.getElementById('host') });
</script></body></html>`;

before(async () => {
  const { venv } = pythonEnv(join(repo, 'build'));
  const code = 'from mha_explorer._model_page import model_page_class; print(model_page_class()._esm)';
  esm = execFileSync(join(venv, 'bin', 'python'), ['-c', code], { encoding: 'utf8' });
  srv = await startServer({ '/view.html': HOST });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

// The view in a new page (files as the kernel sends them, sizes as it announces them), before its first report.
async function open(sizes = {}, text = FIRST) {
  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  const files = Object.fromEntries(NAMES.map((n) => [n, readFileSync(join(FOLDER, n)).toString('base64')]));
  await g.page.addInitScript(
    ([files, sizes, esm, text]) => Object.assign(window, { FILES: files, sizes, ESM: esm, TEXT: text }),
    [files, sizes, esm, text],
  );
  await g.page.goto(srv.origin + '/view.html');
  return g;
}
const reports = (page) => page.evaluate(() => window.reports);
const frameAPI = (page) =>
  page.evaluate(() => !!document.querySelector('#host iframe')?.contentWindow?.mhaExplorer?.getInfo());
// Until a report names `text` (the last text set) → the reports.
const reportFor = (page, text) =>
  page
    .waitForFunction((t) => window.reports.some((r) => r.text === t), text, { timeout: 30000 })
    .then(() => reports(page));

// Every "shown" report holds the page's own tokens of the text it names; the last one is `text`'s, shown.
async function checkReports(page, text, where) {
  const all = await reports(page);
  const tokenize = (t) =>
    page.evaluate(
      (t) => document.querySelector('#host iframe').contentWindow.mhaExplorer.getModel().tokenize(t).tokens,
      t,
    );
  for (const r of all) if (r.status === 'shown') assert.deepEqual(r.tokens, await tokenize(r.text), where);
  const last = all.at(-1);
  assert.deepEqual(last, { text, status: 'shown', tokens: await tokenize(text) }, where + ': the last report');
}

test('the view reports the page tokens of the text it names: first load, texts in a row, a text before the page', async () => {
  const g = await open();
  await reportFor(g.page, FIRST);
  await checkReports(g.page, FIRST, 'the first load');
  // three texts in a row (w.text = B; w.text = C; w.text = B): a report never carries one text's tokens for another
  await g.page.evaluate(() => {
    window.setText('Bird flies');
    window.setText('Cow moos loudly today');
  });
  await g.page.waitForTimeout(5);
  await g.page.evaluate(() => window.setText('Bird flies'));
  await g.page.waitForFunction(() => window.reports.filter((r) => r.text === 'Bird flies').length, null, {
    timeout: 30000,
  });
  await g.page.waitForTimeout(500);
  await checkReports(g.page, 'Bird flies', 'texts in a row');
  await g.page.close();
  // a text set before the page has its model (the files still coming): shown once it has, never "not shown"
  const early = await open();
  await early.page.waitForFunction(() => document.querySelector('#host iframe'), null, { polling: 1, timeout: 30000 });
  assert.equal(await frameAPI(early.page), false);
  await early.page.evaluate(() => window.setText('Another sentence here'));
  await reportFor(early.page, 'Another sentence here');
  await checkReports(early.page, 'Another sentence here', 'a text before the page had its model');
  assert.deepEqual(
    (await reports(early.page)).filter((r) => r.status !== 'shown'),
    [],
    'a report that is not "shown"',
  );
  assert.deepEqual(early.errors, []);
});

test("no text (mx.explore_model(folder)): the page's own sentence, shown and reported", async () => {
  const g = await open({}, '');
  await reportFor(g.page, "The chicken didn't cross the road because it was too wide.");
  const [r] = await reports(g.page);
  assert.equal(r.status, 'shown');
  assert.ok(r.tokens.length > 10, r.tokens.join(' '));
  assert.deepEqual(g.errors, []);
});

test('a reloaded frame (its output moved) shows the current text, not its first', async () => {
  const g = await open();
  await reportFor(g.page, FIRST);
  await g.page.evaluate(() => window.setText('Another sentence here'));
  await reportFor(g.page, 'Another sentence here');
  const n = (await reports(g.page)).length;
  await g.page.evaluate(() => document.body.appendChild(document.getElementById('host'))); // the iframe reloads
  await g.page.waitForFunction((n) => window.reports.length > n, n, { timeout: 30000 });
  await checkReports(g.page, 'Another sentence here', 'after the frame reloaded');
  assert.equal(
    await g.page.evaluate(() => document.querySelector('#host iframe').contentDocument.getElementById('text').value),
    'Another sentence here',
  );
  assert.deepEqual(g.errors, []);
});

test('a file that changes size while the kernel sends it is said, not shown', async () => {
  const size = readFileSync(join(FOLDER, 'model.safetensors')).length;
  for (const announced of [size + 4096, size - 4096]) {
    const g = await open({ 'model.safetensors': announced });
    await g.page.waitForFunction(() => window.reports.length, null, { timeout: 30000 });
    assert.deepEqual(await reports(g.page), [
      {
        text: FIRST,
        status: 'model.safetensors changed while the kernel sent it: run the cell again.',
        tokens: [],
      },
    ]);
    assert.equal(await frameAPI(g.page), false, 'no model shown');
    await g.page.close();
  }
});
