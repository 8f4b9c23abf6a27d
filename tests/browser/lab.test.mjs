// The training lab (lab.html) in headless Chromium, over http and from file://: from the URL preset it
// trains two offsets to 99 % with two heads that take different offsets; one head does not get
// there; ablating a specialized head lowers held-out accuracy; reset returns the initial weights bit
// for bit; pausing and resuming gives the same curve; downloaded weights load back (and into real
// PyTorch through the specification's reader); a damaged file gives a message; no console errors. The hosted
// lab (lab.html and its files) and the one-file lab (mha-explorer-lab.html, which requests nothing else).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ARTIFACTS, VARIANTS, allowedFor, fileURL, guardedPage, launch, repo, startServer } from './helpers.mjs';

const SPEC_DIR = join(repo, 'tests', 'torch');

async function open(context, url, shot, allowed = () => true) {
  const g = await guardedPage(context, allowed);
  await g.page.goto(url);
  await g.page.evaluate(() => window.mhaExplorer.ready);
  if (shot) await g.page.screenshot({ path: join(ARTIFACTS, shot), fullPage: true });
  return g;
}

// The lab's task list (its select, filled from the core's task table).
async function labTasks(context) {
  const lab = await open(context, fileURL('lab.html'));
  const names = await lab.page.$$eval('#c-task option', (os) => os.map((o) => o.value));
  await lab.page.close();
  return names;
}

const server = await startServer();
const { context, close } = await launch();
after(async () => {
  await close();
  await server.close();
});

for (const variant of VARIANTS)
  test(`training lab over http and from file:// (${variant.name})`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mha-lab-'));
    const one = variant.oneFile ? '-one-file' : '';
    const origin = server.origin,
      lab = variant.lab;
    try {
      for (const [where, base] of [
        ['http', origin],
        ['file', fileURL('').replace(/\/$/, '')],
      ]) {
        const { page, errors, foreign } = await open(
          context,
          `${base}/${lab}?preset=train-two-offsets`,
          `lab-two-offsets-${where}${one}-before.png`,
          allowedFor(variant, base),
        );
        const initial = await page.evaluate(() => window.mhaExplorer.stateDict());
        assert.match(await page.textContent('#heads'), /no clear role \(closest: /, 'untrained heads have no role yet');
        const r = await page.evaluate(() => window.mhaExplorer.train({ steps: 150 }));
        await page.screenshot({ path: join(ARTIFACTS, `lab-two-offsets-${where}${one}-after.png`), fullPage: true });
        assert.equal(r.step, 150);
        assert.ok(r.accuracy >= 0.99, `${where}: accuracy ${r.accuracy}`);
        assert.deepEqual(r.roles.map((x) => x.role).sort(), ['1 token back', '2 tokens back']);
        r.roles.forEach((x) => assert.ok(x.score >= 0.85, `${x.role} ${x.score}`));
        assert.match(await page.textContent('#heads'), /1 token back · 0\.9\d/);

        // The closer look: a trained head enlarged (its role in words, its top key) and the model's shape trace.
        const roleOf = (h) => r.roles.find((x) => x.head === h).role;
        await page.selectOption('#c-closer', '0:1');
        const closer = await page.evaluate(() => ({
          readout: document.getElementById('closer-readout').textContent,
          rows: Array.from(document.querySelectorAll('#closer-trace tr')).map((tr) => [
            tr.cells[1].firstChild.textContent,
            tr.cells[3].textContent,
          ]),
        }));
        assert.match(closer.readout, new RegExp('^Layer 0 · head 1 \\(' + roleOf(1)));
        const back = roleOf(1) === '1 token back' ? 1 : 2; // the last query (t=7) attends most to t=7-back
        assert.match(
          closer.readout,
          new RegExp('query t=7 \\(token 0\\) → key t=' + (7 - back) + ' .*It attends most to t=' + (7 - back) + ' '),
        );
        assert.deepEqual(
          closer.rows.map((x) => x[1]),
          [
            '[1, 8]',
            '[1, 8, 16]',
            '[1, 8, 16]',
            '[1, 8, 2, 8]',
            '[1, 2, 8, 8]',
            '[1, 2, 8, 8]',
            '[1, 8, 2, 8]',
            '[1, 8, 16]',
            '[1, 8, 16]',
            '[1, 8, 16]',
            '[1, 8, 8]',
            '[1, 8, 8]',
          ],
        );
        assert.equal(closer.rows[5][0], 'Layer 0: Attention computation');
        assert.equal(closer.rows[10][0], 'Readout 0');
        await page.focus('#closer-map');
        await page.keyboard.press('ArrowUp');
        assert.match(await page.textContent('#closer-readout'), /query t=6 \(token 7\) → key t=/);
        await page.keyboard.press('ArrowLeft');
        assert.match(
          await page.textContent('#closer-readout'),
          new RegExp('query t=6 \\(token 7\\) → key t=' + (5 - back) + ' '),
          'left of the top key',
        );

        // Ablation: held-out accuracy with and without head 0.
        const full = await page.evaluate(() => window.mhaExplorer.evaluate());
        await page.click('.lab-head[data-head="0"]');
        await page.waitForFunction(() =>
          /Accuracy on 256 held-out sequences/.test(document.getElementById('ablation-note').textContent),
        );
        const without = await page.evaluate(() => window.mhaExplorer.evaluate());
        assert.ok(without.accuracy < full.accuracy - 0.2, `ablating head 0: ${full.accuracy} → ${without.accuracy}`);
        await page.click('.lab-head[data-head="0"]');

        // Download, then load into PyTorch's model from the lab's own script, and back into the lab.
        const bytes = Buffer.from(await page.evaluate(async () => Array.from(await window.mhaExplorer.save())));
        const file = join(dir, `${where}.safetensors`);
        writeFileSync(file, bytes);
        const script = await page.evaluate(() => window.mhaExplorer.script({ steps: 1 }));
        const py = spawnSync(
          '/usr/bin/python3',
          [
            '-c',
            `
import sys, torch
sys.path.insert(0, ${JSON.stringify(SPEC_DIR)})
from safetensors_spec import load_file
exec(compile(${JSON.stringify(script.slice(0, script.indexOf('\nfor step in range')))}, 'script', 'exec'))
model.load_state_dict(load_file(${JSON.stringify(file)}))
print(model.layers[0].W_q.weight[0, :3].tolist())`,
          ],
          { encoding: 'utf8' },
        );
        assert.equal(py.status, 0, py.stderr);
        const trained = await page.evaluate(() => window.mhaExplorer.stateDict());
        JSON.parse(py.stdout).forEach((v, j) => assert.equal(Math.fround(v), trained['layers.0.W_q.weight'].data[j]));

        // Reset: the initial weights, bit for bit; then 40 + 110 steps give the uninterrupted curve.
        await page.click('#reset');
        await page.waitForFunction(() => window.mhaExplorer.getTraining().step === 0);
        const again = await page.evaluate(() => window.mhaExplorer.stateDict());
        for (const k of Object.keys(initial)) assert.deepEqual(again[k].data, initial[k].data, `reset: ${k}`);
        await page.evaluate(() => window.mhaExplorer.train({ steps: 40 }));
        const resumed = await page.evaluate(() => window.mhaExplorer.train({ steps: 110 }));
        assert.deepEqual(
          resumed.curve.map((p) => p.loss),
          r.curve.map((p) => p.loss),
          'pause and resume',
        );

        // Loading the downloaded file back; a damaged file gets a message and changes nothing.
        await page.setInputFiles('#load-file', {
          name: 'trained.safetensors',
          mimeType: 'application/octet-stream',
          buffer: bytes,
        });
        await page.waitForFunction(() =>
          /Loaded trained\.safetensors/.test(document.getElementById('pytorch-msg').textContent),
        );
        const loaded = await page.evaluate(() => window.mhaExplorer.stateDict());
        assert.deepEqual(loaded['layers.0.W_q.weight'].data, trained['layers.0.W_q.weight'].data);
        const damaged = Buffer.from(bytes);
        damaged.writeUInt32LE(0xffffff, 0);
        await page.setInputFiles('#load-file', {
          name: 'broken.safetensors',
          mimeType: 'application/octet-stream',
          buffer: damaged,
        });
        await page.waitForFunction(() =>
          /Could not load broken\.safetensors: this is not a valid \.safetensors file/.test(
            document.getElementById('pytorch-msg').textContent,
          ),
        );
        const after = await page.evaluate(() => window.mhaExplorer.stateDict());
        assert.deepEqual(after['layers.0.W_q.weight'].data, trained['layers.0.W_q.weight'].data);
        // After loading weights the script no longer reproduces the page's run, and the page says how far it does.
        await page.click('#copy-script');
        await page.waitForFunction(() =>
          /The script reproduces steps 1 to 150 of this run/.test(document.getElementById('pytorch-msg').textContent),
        );
        assert.match(await page.inputValue('#script-out'), /^# MHA Explorer: the two-offsets task/);
        assert.match(await page.inputValue('#script-out'), /BATCH, STEPS = 32, 150/);
        // A file the lab saved carries its settings: loaded into a 4-head model, the lab goes back to 2 heads first.
        await page.evaluate(() => window.mhaExplorer.set({ heads: 4 }));
        await page.setInputFiles('#load-file', {
          name: 'trained.safetensors',
          mimeType: 'application/octet-stream',
          buffer: bytes,
        });
        await page.waitForFunction(() =>
          /settings now match the file: heads 2/.test(document.getElementById('pytorch-msg').textContent),
        );
        const back2 = await page.evaluate(() => window.mhaExplorer.stateDict());
        assert.deepEqual(back2['layers.0.W_q.weight'].data, trained['layers.0.W_q.weight'].data);
        assert.match(await page.textContent('#ablation-note'), /weights loaded from trained\.safetensors/);

        // Play: frames keep coming while the worker trains (the main thread is not blocked; the frame
        // rate itself is measured by scripts/bench, not here).
        const fps = await page.evaluate(
          () =>
            new Promise((resolve) => {
              window.mhaExplorer.play();
              let frames = 0;
              const t0 = performance.now();
              const count = () => {
                frames++;
                if (performance.now() - t0 < 1000) requestAnimationFrame(count);
                else {
                  window.mhaExplorer.pause();
                  resolve((frames * 1000) / (performance.now() - t0));
                }
              };
              requestAnimationFrame(count);
            }),
        );
        t.diagnostic(`${where}: ${fps.toFixed(0)} frames/s while training`);
        assert.ok(fps >= 5, `${where}: ${fps} frames per second while training`);
        assert.deepEqual(errors, [], `${where}: console errors`);
        assert.deepEqual(foreign, [], `${where}: requests beyond the lab's own files`);
        await page.close();
      }

      // One head cannot do both offsets: trained beside the two-head model, and alone from the URL.
      const both = await open(context, `${origin}/${lab}?preset=train-two-offsets&compare=1`);
      const rb = await both.page.evaluate(() => window.mhaExplorer.train({ steps: 150 }));
      await both.page.screenshot({ path: join(ARTIFACTS, `lab-two-offsets-compare${one}-after.png`), fullPage: true });
      assert.ok(
        rb.accuracy >= 0.99 && rb.oneHead.accuracy < 0.9,
        `two heads ${rb.accuracy}, one head ${rb.oneHead.accuracy}`,
      );
      assert.equal(rb.oneHead.step, 150);
      assert.equal(await both.page.isVisible('#compare-heads .lab-head'), true);
      // The replay slider shows kept snapshots: from the untrained model at step 0, then every slice of training.
      await both.page.fill('#c-replay', '0');
      await both.page.dispatchEvent('#c-replay', 'input');
      assert.match(await both.page.textContent('#ablation-note'), /Replaying step 0 of 150/);
      await both.page.fill('#c-replay', '1');
      await both.page.dispatchEvent('#c-replay', 'input');
      assert.match(await both.page.textContent('#ablation-note'), /Replaying step 50 of 150/);
      // Switching a head off while replaying leaves the replay: the cards and predictions are the model's as it is.
      await both.page.click('#heads .lab-head[data-head="0"]');
      await both.page.waitForFunction(() =>
        /Accuracy on 256 held-out sequences/.test(document.getElementById('ablation-note').textContent),
      );
      await both.page.close();
      const single = await open(context, `${origin}/${lab}?preset=train-two-offsets&heads=1`);
      const r1 = await single.page.evaluate(() => window.mhaExplorer.train({ steps: 150 }));
      assert.ok(r1.accuracy < 0.9, `one head: accuracy ${r1.accuracy}`);
      await single.page.close();

      // Play at the default speed: the counter and rate move from the first steps, and the run pauses by itself at
      // the task's goal (150 steps for two offsets); Step trains one update.
      const watch = await open(context, `${origin}/${lab}?preset=train-two-offsets`, null, allowedFor(variant, origin));
      const started = Date.now();
      await watch.page.click('#play');
      await watch.page.waitForFunction(() =>
        /step [1-9]\d* · .* steps\/s/.test(document.getElementById('stats').textContent),
      );
      await watch.page.waitForFunction(
        () => /Paused at step 150/.test(document.getElementById('messages').textContent),
        null,
        { timeout: 60000 },
      );
      t.diagnostic(
        `two offsets at the default speed: paused at its goal (step 150) after ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      assert.equal((await watch.page.textContent('#play')).trim(), 'Play', 'the label is text, the icon an SVG');
      assert.match(await watch.page.textContent('#messages'), /1 token back/);
      await watch.page.click('#step');
      await watch.page.waitForFunction(() => /^step 151 /.test(document.getElementById('stats').textContent));
      await watch.page.close();

      // Every task of the core's table opens from its preset and trains; the main page forwards train-… presets here
      // (the one-file page shows its own lab, in the same file).
      const tasks = await labTasks(context);
      assert.deepEqual(tasks, ['two-offsets', 'first-and-previous', 'reverse', 'induction', 'next-larger']);
      for (const task of tasks.slice(1)) {
        const g = await open(
          context,
          `${origin}/${variant.page}?preset=train-${task}`,
          `lab-${task}${one}-before.png`,
          allowedFor(variant, origin),
        );
        assert.match(
          g.page.url(),
          new RegExp(`/${(variant.oneFile ? variant.page : lab).replace('.', '\\.')}\\?preset=train-${task}$`),
        );
        const rt = await g.page.evaluate(
          (steps) => window.mhaExplorer.train({ steps }),
          task === 'induction' ? 200 : 150,
        );
        await g.page.screenshot({ path: join(ARTIFACTS, `lab-${task}${one}-after.png`), fullPage: true });
        assert.ok(rt.accuracy > 0.9, `${task}: accuracy ${rt.accuracy}`);
        if (task === 'next-larger') {
          assert.equal(rt.roles[0].role, 'next larger token');
          assert.match(await g.page.textContent('#predictions'), /→ next larger/);
          assert.match(await g.page.textContent('#task-brief'), /^Next larger \(sorting\): /);
        }
        assert.deepEqual(g.errors, [], `${task}: console errors`);
        assert.deepEqual(g.foreign, [], `${task}: requests beyond the lab's own files`);
        await g.page.close();
      }

      // A bad URL value gets a message and the default.
      const bad = await open(context, `${origin}/${lab}?preset=train-nope&heads=3&lr=abc`);
      const text = await bad.page.textContent('#messages');
      assert.match(text, /Unknown preset "train-nope"/);
      assert.match(text, /heads must be one of 1, 2, 4, 8; using the default/);
      assert.match(text, /lr must be a number/);
      await bad.page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
