// The page's "Load weights" with files the Python package writes (mx.save_weights) and with other modules'
// own state_dicts: nn.MultiheadAttention (in_proj_weight / in_proj_bias / out_proj.*, and bias=False) and
// q_proj / k_proj / v_proj / o_proj linears without biases. Each file shows exactly the heads of its reference
// file (the same function in the lessons' names, checked against the original module's forward in PyTorch by
// python/tests/make_layout_files.py), num_heads comes from mx.save_weights' metadata, and the page's "Copy as
// PyTorch" loads the file as it is and prints what the page prints.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, repo, printedMismatches } from './helpers.mjs';

const DIR = mkdtempSync(join(tmpdir(), 'mha-layouts-'));
before(() => {
  const venv = execFileSync('bash', [join(repo, 'scripts', 'python-env')], { encoding: 'utf8' }).trim();
  execFileSync(join(venv, 'bin', 'python'), [join(repo, 'python', 'tests', 'make_layout_files.py'), DIR]);
});
const env = suite();
after(() => {
  rmSync(DIR, { recursive: true, force: true });
});

const load = (page, name) =>
  page.evaluate(
    ([b, n]) => window.mhaExplorer.loadWeights(new Uint8Array(b), n),
    [Array.from(readFileSync(join(DIR, name))), name],
  );
const shown = (page) =>
  page.evaluate(() => ({
    state: window.mhaExplorer.getState(),
    note: document.getElementById('weights-note').textContent,
    messages: document.getElementById('weights-msg').textContent,
    snippet: window.mhaExplorer.getSnippets().find((s) => s.id === 'copy-as-pytorch'),
    weights: Array.from(window.mhaExplorer.getWeights().data),
  }));

test(
  "other modules' layouts load as the lessons' module with the same weights; the snippet loads them in PyTorch",
  { timeout: 300000 },
  async () => {
    await env.ready;
    const page = (await env.open(env.srv.origin + '/index.html?dmodel=32&heads=4')).page;
    const CASES = [
      ['mx_lessons', /d_model 32, 4 heads, as the file says\)/],
      ['mx_mha', /d_model 32, 4 heads, as the file says\)/],
      ['mha_raw', /in_proj_weight and in_proj_bias and out_proj\)/],
      ['mha_nobias', /in_proj_weight and out_proj, without biases \(zeros\)/],
      ['qproj_nobias', /q_proj, k_proj, v_proj and o_proj, without biases \(zeros\)/],
    ];
    const runs = [];
    for (const [name, note] of CASES) {
      assert.equal(await load(page, 'ref_' + name + '.safetensors'), true, 'ref_' + name);
      await page.selectOption('#c-heads', '4');
      await page.waitForFunction(() => window.mhaExplorer.getState().heads === 4);
      const ref = await shown(page);
      assert.equal(await load(page, name + '.safetensors'), true, name + ': ' + (await shown(page)).messages);
      await page.selectOption('#c-heads', '4');
      await page.waitForFunction(() => window.mhaExplorer.getState().heads === 4);
      const got = await shown(page);
      assert.match(got.note, note, name);
      assert.equal(got.state.dmodel, 32);
      assert.deepEqual(got.weights, ref.weights, name + ': the heads of the same function');
      runs.push({ id: name, code: got.snippet.code, printed: got.snippet.printed, cwd: DIR });
    }
    assert.deepEqual(printedMismatches(runs), []);
    await page.close();
  },
);
