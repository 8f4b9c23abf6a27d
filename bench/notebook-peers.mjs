// The notebook side by side with its peers, on the same attention tensors (12 layers × 12 heads of seeded softmax
// weights, 20 and 200 tokens): mx.show, BertViz's head_view and model_view, CircuitsVis's attention_heads (PyPI's,
// --no-deps: scripts/python/requirements-nodeps.txt). A benchmark, not a test: it prints a markdown table and writes
// bench/results/notebook-peers-<time>.json. Per tool and size:
//   bytes   the cell's outputs in the executed .ipynb (nbconvert --execute in the package's venv kernel)
//   export  shown in nbconvert's exported HTML, opened offline in Chromium (every non-file request refused), and the
//           time from navigation until it shows; dark: in the export with nbconvert's dark theme, the background
//           behind the output is dark
//   lab     in PyPI's JupyterLab (one server): after the setup cell, the tool's cell run on its own (Shift+Enter),
//           the time from the key press until its output shows; and whether it shows again after saving and reopening
// Each tool and size has a notebook of its own (the setup cell, then the tool's cell): the peers write every weight as
// text, hundreds of MB at 200 tokens, which would weigh on the times of the others in a shared notebook.
// Usage: node bench/notebook-peers.mjs [--tokens 20,200] [--tools mx.show,BertViz] [--widget-state on]
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  launch,
  repo,
  pythonEnv,
  executeNotebook,
  installOutputFinder,
  luminance,
  freePort,
} from '../tests/browser/helpers.mjs';

const option = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SIZES = option('--tokens', '20,200').split(',').map(Number);
// executed as JupyterLab saves a notebook by default (no widget state); --widget-state on stores it, as nbconvert
// --execute does by default: the export then renders widgets (mx.show above its HTML cap) with the widget manager from
// unpkg, which an offline page cannot load
const WIDGET_STATE = option('--widget-state', 'off') === 'on';
const LAB_LIMIT = 100e6; // bytes of a cell's outputs above which JupyterLab is not driven (see below)
const ALL_TOOLS = [
  {
    name: 'mha-explorer mx.show',
    code: 'mx.show(att, tokens, title="mx.show")',
    shown: '[data-mha-explorer-view] canvas',
  },
  { name: 'BertViz head_view', code: 'head_view(att, tokens)', shown: '#bertviz svg rect, #bertviz svg line' },
  { name: 'BertViz model_view', code: 'model_view(att, tokens)', shown: '#bertviz svg rect, #bertviz svg line' },
  {
    name: 'CircuitsVis attention_heads',
    code: 'attention_heads(torch.cat(att).reshape(-1, T, T), tokens)',
    shown: 'canvas, svg',
  },
];
// --tools a,b: only the tools whose names contain one of these
const TOOLS = ALL_TOOLS.filter((t) =>
  option('--tools', '')
    .split(',')
    .some((w) => t.name.includes(w)),
);
const SETUP = (T) => `import torch
import mha_explorer as mx
from bertviz import head_view, model_view
from circuitsvis.attention import attention_heads
T = ${T}
g = torch.Generator().manual_seed(0)
att = tuple(torch.softmax(torch.randn(1, 12, T, T, generator=g), -1) for _ in range(12))
tokens = ["tok%d" % i for i in range(T)]`;

function notebook(T, tools) {
  const cell = (source) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    cells: [cell(SETUP(T)), ...tools.map((t) => cell(t.code))],
    metadata: { kernelspec: { name: 'mha-explorer', display_name: 'Python (mha-explorer)', language: 'python' } },
  };
}

// In the page (after installOutputFinder): when each cell's output first matched its tool's selector (ms from
// navigation, or from `start`).
const WATCH = (selectors) => {
  window.__shown = {};
  const t0 = performance.now();
  const tick = () => {
    const cells = document.querySelectorAll('.jp-Cell');
    selectors.forEach((sel, i) => {
      const c = cells[i + 1];
      const hit = c && window.cellOutputs(sel, c).length > 0;
      if (window.__shown[i] == null && hit) window.__shown[i] = performance.now() - (window.__starts?.[i] ?? t0);
    });
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
};

async function exported(browser, html, dark, tools) {
  const page = await browser.context.newPage();
  await page.route(/^(https?|wss?):/, (route) => route.abort()); // offline
  await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
  await installOutputFinder(page);
  await page.addInitScript(
    WATCH,
    tools.map((t) => t.shown),
  );
  // the peers write every weight as text: at 200 tokens the export is tens of MB, which takes Chromium more than
  // Playwright's default 30 s to load on a busy machine; 20 s more after the load for what renders late
  await page.goto(pathToFileURL(html).href, { waitUntil: 'commit' });
  await page.waitForLoadState('load', { timeout: 600000 });
  await page.waitForTimeout(20000);
  const got = await page.evaluate(() => window.__shown);
  // the background behind each tool's view: its first non-transparent ancestor or own element
  const backgrounds = await page.evaluate(() =>
    [...document.querySelectorAll('.jp-Cell')].slice(1).map((c) => {
      const views = '[data-mha-explorer-view], #bertviz, div[id^="circuits-vis"]',
        [out] = window.cellOutputs(views, c);
      const deep = out ? out.querySelector(views) || out : c.querySelector('.jp-OutputArea-output') || c;
      for (let e = deep; e; e = e.parentElement) {
        const bg = getComputedStyle(e).backgroundColor;
        if (bg && !/rgba\(0, 0, 0, 0\)|transparent/.test(bg)) return bg;
      }
      return 'rgb(255, 255, 255)';
    }),
  );
  await page.close();
  return tools.map((_, i) => ({ ms: got[i] ?? null, background: backgrounds[i] }));
}

async function inJupyterLab(browser, origin, token, path, tools) {
  const page = await browser.context.newPage();
  await page.route(
    (u) =>
      !u.href.startsWith(origin) && !u.href.startsWith(origin.replace('http', 'ws')) && /^(https?|wss?):/.test(u.href),
    (r) => r.abort(),
  );
  await installOutputFinder(page);
  await page.addInitScript(
    WATCH,
    tools.map((t) => t.shown),
  );
  await page.goto(origin + '/lab/tree/' + path + '?token=' + token);
  await page.waitForSelector('.jp-Notebook .jp-Cell', { timeout: 90000 });
  const select = page.locator('.jp-Dialog').getByRole('button', { name: 'Select', exact: true });
  await select.waitFor({ timeout: 20000 }).then(
    () => select.click(),
    () => {},
  );
  await page.waitForTimeout(3000);
  // the setup cell (imports, tensors) first, then each tool's cell on its own with Shift+Enter, timed from its key press
  const cells = page.locator('.jp-Notebook .jp-Cell');
  const runCell = async (i) => {
    await cells.nth(i).scrollIntoViewIfNeeded();
    await cells.nth(i).locator('.jp-InputPrompt').click();
    await page.evaluate((k) => {
      window.__starts = window.__starts || {};
      window.__starts[k - 1] = performance.now();
    }, i);
    await page.keyboard.press('Shift+Enter');
  };
  await runCell(0);
  await page.waitForFunction(
    () => /\[1\]/.test(document.querySelector('.jp-Notebook .jp-Cell .jp-InputPrompt')?.textContent || ''),
    null,
    { timeout: 120000 },
  );
  for (let i = 0; i < tools.length; i++) {
    await runCell(i + 1);
    await page
      .waitForFunction(
        (k) =>
          window.__shown[k] != null ||
          (/\[\d+\]/.test(
            document.querySelectorAll('.jp-Notebook .jp-Cell')[k + 1]?.querySelector('.jp-InputPrompt')?.textContent ||
              '',
          ) &&
            performance.now() - window.__starts[k] > 30000),
        i,
        { timeout: 120000 },
      )
      .catch(() => {});
  }
  const run = await page.evaluate(() => window.__shown);
  await page.getByRole('menuitem', { name: 'File', exact: true }).click();
  await page.locator('li[data-command="docmanager:save"]').first().click();
  // saved once the tab is no longer marked dirty (the peers' outputs at 200 tokens are tens of MB)
  await page.waitForFunction(() => !document.querySelector('.jp-mod-dirty'), null, { timeout: 300000 });
  await page.waitForTimeout(2000);
  await page.evaluate(() => {
    window.__shown = {};
  });
  await page.reload({ timeout: 300000 });
  await page.waitForSelector('.jp-Notebook .jp-Cell', { timeout: 300000 });
  await page.evaluate(async () => {
    for (const c of document.querySelectorAll('.jp-Notebook .jp-Cell')) {
      c.scrollIntoView();
      await new Promise((r) => setTimeout(r, 300));
    }
  });
  // every tool's output shown again, or 60 s (mx.show at 512 tokens unpacks 37.7 M values after the notebook loads)
  await page
    .waitForFunction((n) => Object.keys(window.__shown).length >= n, tools.length, { timeout: 60000 })
    .catch(() => {});
  const reopened = await page.evaluate(() => window.__shown);
  await page.close();
  return tools.map((_, i) => ({ ms: run[i] ?? null, reopened: reopened[i] != null }));
}

// Each cell's outputs: their size as JSON and their errors. Read by Python: the peers' notebook at 200 tokens is
// larger than the longest string Node can hold (BertViz and CircuitsVis write every weight as text).
const OUTPUT_SIZES = `import json, sys
cells = json.load(open(sys.argv[1], encoding="utf-8"))["cells"][1:]
print(json.dumps({"bytes": [len(json.dumps(c["outputs"], separators=(",", ":"), ensure_ascii=False)) for c in cells],
  "errors": ["; ".join(o["ename"] + ": " + o["evalue"] for o in c["outputs"] if o["output_type"] == "error") for c in cells]}))`;
function outputSizes(file, venv) {
  return JSON.parse(
    execFileSync(join(venv, 'bin', 'python'), ['-c', OUTPUT_SIZES, file], { encoding: 'utf8', maxBuffer: 1 << 20 }),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'mha-peers-'));
const { venv, env } = pythonEnv(dir);
const browser = await launch();
const token = 'bench-' + Math.random().toString(36).slice(2);
const port = await freePort(),
  origin = 'http://127.0.0.1:' + port;
const lab = spawn(
  join(venv, 'bin', 'jupyter-lab'),
  [
    '--no-browser',
    '--ip=127.0.0.1',
    '--port=' + port,
    '--IdentityProvider.token=' + token,
    '--allow-root',
    '--ServerApp.root_dir=' + dir,
  ],
  {
    env: { ...env, JUPYTERLAB_SETTINGS_DIR: join(dir, '.settings'), JUPYTERLAB_WORKSPACES_DIR: join(dir, '.ws') },
    stdio: 'ignore',
  },
);
const rows = [];
try {
  await new Promise((r) => setTimeout(r, 15000));
  // one notebook per tool and size: at 200 tokens the peers' outputs are hundreds of MB each (every weight as text),
  // which would otherwise weigh on the others' export and JupyterLab times
  for (const T of SIZES) {
    for (const [i, tool] of TOOLS.entries()) {
      const name = 'T' + T + '-' + i,
        sub = join(dir, name);
      mkdirSync(sub);
      writeFileSync(join(sub, 'peers.ipynb'), JSON.stringify(notebook(T, [tool])));
      await executeNotebook(sub, 'peers.ipynb', env, [
        '--ExecutePreprocessor.store_widget_state=' + (WIDGET_STATE ? 'True' : 'False'),
      ]);
      const { bytes, errors } = outputSizes(join(sub, 'executed.ipynb'), venv);
      const [light] = await exported(browser, join(sub, 'executed.html'), false, [tool]);
      // the same notebook exported with nbconvert's dark theme, opened with a dark colour scheme
      execFileSync(
        'jupyter-nbconvert',
        ['--to', 'html', '--HTMLExporter.theme=dark', '--output', 'executed-dark.html', 'executed.ipynb'],
        { cwd: sub, env, stdio: 'ignore' },
      );
      const [dark] = await exported(browser, join(sub, 'executed-dark.html'), true, [tool]);
      rmSync(join(sub, 'executed.html'));
      rmSync(join(sub, 'executed-dark.html'));
      writeFileSync(join(sub, 'lab.ipynb'), JSON.stringify(notebook(T, [tool])));
      // An output of hundreds of MB reaches Playwright as one DevTools message (a websocket frame, a request's body)
      // longer than the longest string Node holds (512 MB): it crashes the driver, not the page. Not measured there.
      const [inLab] =
        bytes[0] > LAB_LIMIT
          ? [{ ms: null, reopened: null }]
          : await inJupyterLab(browser, origin, token, name + '/lab.ipynb', [tool]);
      rows.push({
        tool: tool.name,
        tokens: T,
        ipynbBytes: bytes[0],
        error: errors[0] || null,
        exportMs: light.ms,
        exportDark: dark.ms != null && luminance(dark.background) < 0.2,
        labMs: inLab.ms,
        labReopened: inLab.reopened,
      });
      console.error('# ' + JSON.stringify(rows[rows.length - 1]));
      rmSync(sub, { recursive: true, force: true });
    }
  }
} finally {
  lab.kill('SIGTERM');
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
const fmt = (ms) => (ms == null ? 'not shown' : (ms / 1000).toFixed(2) + ' s');
const labFmt = (r) => (r.labReopened == null ? 'not measured' : fmt(r.labMs));
console.log('| tool | tokens | .ipynb bytes | exported HTML offline | dark | JupyterLab run | reopened |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.tool} | ${r.tokens} | ${r.ipynbBytes.toLocaleString('en')} | ${fmt(r.exportMs)} | ${r.exportDark ? 'yes' : 'no'} | ${labFmt(r)} | ${r.labReopened == null ? 'not measured' : r.labReopened ? 'yes' : 'no'} |` +
      (r.error ? ' ' + r.error : ''),
  );
}
mkdirSync(join(repo, 'bench', 'results'), { recursive: true });
writeFileSync(join(repo, 'bench', 'results', 'notebook-peers-' + Date.now() + '.json'), JSON.stringify(rows, null, 1));
