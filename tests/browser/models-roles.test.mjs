// The roles you can see, on the real all-MiniLM-L6-v2 (build/models/minilm): ranked by a role scored on the repeated
// random sequence (induction), the cards show that sequence's heatmaps (the page's own forward of it), its tokens
// named, and back to the text's with a button; the page says that no head of MiniLM does induction (its best score
// below ROLE_MIN, with the threshold's reason), and for a role scored on the text (next token) that the cards show the
// text. A screenshot at 1280 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ARTIFACTS, axeViolations, guardedPage } from './helpers.mjs';
import { modelSite } from './models-oracle.mjs';
import { ROLE_MIN } from '../../web/models/roles.js';

let site, models, srv, browser;
before(async () => {
  site = await modelSite('mha-roles-');
  ({ models, srv, browser } = site);
});
after(() => site?.close());

// the first card's heatmap: its matrix's side and whether it equals the given forward's layer 0 head 0
const firstCard = (page, ids) =>
  page.evaluate(async (ids) => {
    const mat = document.querySelector('#grid .mg-card[data-layer="0"][data-head="0"] canvas')._mat,
      a = (await window.mhaExplorer.getModel().forward(ids, { logitsAt: [] })).attentions,
      T = ids.length;
    return { side: mat.S, same: mat.data.every((v, i) => v === a.data[i]) && mat.data.length === T * T };
  }, ids);

test('MiniLM: ranked by induction, the cards show the repeated sequence; no head does it, and the page says so', async () => {
  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  const { page } = g;
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(srv.origin + '/models.html');
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  const c = JSON.parse(readFileSync(join(models, 'index.json'), 'utf8')).find((x) => x.case === 'minilm');
  await page.setInputFiles(
    '#pick-files',
    c.files.filter((f) => !c.oracles.includes(f)).map((f) => join(models, 'minilm', f)),
  );
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true);
  assert.equal(await page.isVisible('.mp-role-data'), false, 'no role: nothing said');
  const rep = await page.evaluate(() => window.mhaExplorer.getRepeat());
  const ids = await page.evaluate(() => window.mhaExplorer.getIds());

  await page.selectOption('#role', 'induction');
  await page.selectOption('#order', 'ranked');
  assert.match(
    await page.textContent('.mp-role-data .note'),
    /^Scored on 25 random tokens repeated twice, not on the text: the cards show that sequence’s heatmaps\.$/,
  );
  const seq = await page.textContent('.mp-role-seq');
  assert.equal((seq.match(/“/g) || []).length, rep.length, 'every token of the sequence named');
  assert.match(seq, /, then the same again, inside the tokenizer’s special tokens\.$/);
  assert.deepEqual(await firstCard(page, rep.ids), { side: rep.ids.length, same: true }, 'the cards: the sequence');

  const scores = (await page.evaluate(() => window.mhaExplorer.getRoles())).induction;
  const best = Math.max(...scores),
    at = scores.indexOf(best);
  assert.ok(best < ROLE_MIN, 'MiniLM has no induction head: best ' + best);
  const H = 12;
  const verdict = await page.textContent('.mp-role-verdict');
  assert.equal(
    verdict,
    'No head of this model does induction: the best, L' +
      Math.floor(at / H) +
      ' H' +
      (at % H) +
      ', ' +
      best.toFixed(3) +
      ', is below ' +
      ROLE_MIN +
      ' (at ' +
      ROLE_MIN +
      ' a head puts more weight on the role’s keys than on all the others together; one spreading its weight evenly scores 1/T).',
  );
  mkdirSync(ARTIFACTS, { recursive: true });
  await page
    .locator('#grid-title')
    .locator('xpath=ancestor::section')
    .screenshot({ path: join(ARTIFACTS, 'models-roles-induction.png') });

  assert.deepEqual(await axeViolations(page), [], 'axe-core: the role’s data above the grid');
  // back to the text's heatmaps, and again the sequence's
  await page.click('.mp-role-data button');
  assert.match(await page.textContent('.mp-role-data .note'), /the cards show the text’s heatmaps\.$/);
  assert.deepEqual(await firstCard(page, ids), { side: ids.length, same: true }, 'the cards: the text');
  assert.equal(await page.textContent('.mp-role-data button'), 'Show the scored sequence');
  await page.click('.mp-role-data button');
  assert.equal((await firstCard(page, rep.ids)).side, rep.ids.length);

  // a role on the text: the cards show it, and the verdict counts the heads at or above the threshold
  await page.selectOption('#role', 'next');
  assert.equal(await page.textContent('.mp-role-data .note'), 'Scored on the text above: the cards show its heatmaps.');
  assert.equal(await page.isVisible('.mp-role-data button'), false);
  assert.deepEqual(await firstCard(page, ids), { side: ids.length, same: true });
  const next = (await page.evaluate(() => window.mhaExplorer.getRoles())).next,
    n = next.filter((v) => v >= ROLE_MIN).length;
  const said = await page.textContent('.mp-role-verdict');
  if (n) assert.match(said, new RegExp('^' + n + ' heads? score at least ' + ROLE_MIN + ' \\(the best: L\\d+ H\\d+, '));
  else assert.match(said, /^No head of this model does next token/);
  assert.deepEqual(g.errors, []);
  assert.deepEqual(g.foreign, []);
  await page.close();
});
