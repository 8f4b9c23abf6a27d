// The model page read as a student reads it (issue 39, items 3 and 4), on the oracle's tiny checkpoints
// (tests/models/make_checkpoints.py): tokens as text — getTokens() the tokenizer's strings as before, getTokenTexts()
// and the chips each token decoded as transformers decodes it alone (byte-level BPE, WordPiece's ## marked), the raw
// string and id on hover — and predictions to compare: each top token's log-probability, logit and, with heads off,
// its Δ log-prob against the fixtures' float64 logits within the bounds that follow from theirs, and a followed token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { guardedPage } from './helpers.mjs';
import { modelSite, python, readOracle } from './models-oracle.mjs';

const env = { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', OMP_NUM_THREADS: '1' };
let models, srv, browser, site;
before(async () => {
  site = await modelSite('mha-reading-');
  ({ models, srv, browser } = site);
});
after(() => site?.close());

async function open(c) {
  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  await g.page.goto(srv.origin + '/models.html?model=models/' + c + '/');
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  assert.equal(await g.page.evaluate(() => window.mhaExplorer.ready), true);
  return g;
}
const api = (page, method, ...args) => page.evaluate(([m, a]) => window.mhaExplorer[m](...a), [method, args]);

// Each id alone as transformers decodes it (convert_tokens_to_string), and the id of a typed word's token.
function decoded(c, ids) {
  const code =
    'import json, sys, transformers\n' +
    't = transformers.AutoTokenizer.from_pretrained(sys.argv[1])\n' +
    'ids = json.loads(sys.argv[2])\n' +
    'print(json.dumps([t.convert_tokens_to_string([t.convert_ids_to_tokens(i)]) for i in ids]))';
  return JSON.parse(
    execFileSync(python(), ['-c', code, join(models, c), JSON.stringify(ids)], { encoding: 'utf8', env }),
  );
}
const unmark = (s) => s.replace(/␣/g, ' ').replace(/↵/g, '\n').replace(/⇥/g, '\t');

for (const [c, continuation] of [
  ['gpt2', null],
  ['bert', '##'],
]) {
  test(c + ": tokens as text, getTokens() as the tokenizer's strings, the raw string and id on hover", async () => {
    const g = await open(c),
      { page } = g;
    const meta = readOracle(join(models, c, 'oracle-0.safetensors')).metadata;
    await api(page, 'set', { text: meta.text });
    assert.deepEqual(await api(page, 'getTokens'), meta.tokens);
    const texts = await api(page, 'getTokenTexts'),
      ref = decoded(c, meta.ids);
    texts.forEach((t, i) => {
      const raw = meta.tokens[i];
      if (continuation && raw.startsWith(continuation) && raw.length > continuation.length)
        // transformers keeps a lone continuation's ## (it joins " ##" only after another token)
        assert.equal(t, '·' + ref[i].slice(continuation.length), 'a continuation marked: ' + raw);
      else if (/^\[.*\]$/.test(raw)) assert.equal(t, raw, 'a special token as itself');
      else assert.equal(unmark(t), ref[i].replace(/^ /, c === 'bert' ? '' : ' '), 'decoded ' + raw);
    });
    const chips = await page.$$eval('#tokens .chip', (bs) => bs.map((b) => [b.firstChild.textContent, b.title]));
    assert.deepEqual(
      chips.map((x) => x[0]),
      texts,
    );
    chips.forEach(([t, title], i) => {
      assert.match(title, new RegExp('^id ' + meta.ids[i] + '\\b'));
      if (t !== meta.tokens[i]) assert.ok(title.includes('“' + meta.tokens[i] + '”'), title);
    });
    assert.deepEqual(g.errors, []);
    await page.close();
  });
}

test('gpt2: each top token with its log-prob and logit, Δ log-prob with heads off, and a followed token', async () => {
  const g = await open('gpt2'),
    { page } = g;
  const ref = readOracle(join(models, 'gpt2', 'oracle-0.safetensors')),
    meta = ref.metadata;
  await api(page, 'set', { text: meta.text });
  const V = ref.tensors.logits.shape[1],
    at = meta.logits_at.indexOf(meta.ids.length - 1);
  const row = (name) => ref.tensors[name].data.subarray(at * V, (at + 1) * V);
  const [full, fullB, off, offB] = ['logits', 'logits.bound', 'ablated.logits', 'ablated.logits.bound'].map(row);
  const lse = (x) => {
    const m = Math.max(...x);
    return m + Math.log(x.reduce((s, v) => s + Math.exp(v - m), 0));
  };
  const maxB = (b) => b.reduce((a, v) => Math.max(a, v), 0);
  // log-softmax is 1-Lipschitz in the logits' largest error: |δ log p_i| ≤ |δx_i| + max_j |δx_j|
  const logpBound = (b, i) => b[i] + maxB(b) + 1e-12;
  const word = 'road';
  const id = await api(page, 'follow', word);
  assert.ok(id >= 0, 'road is one token');
  assert.equal(decoded('gpt2', [id])[0], ' ' + word);
  await api(page, 'ablate', meta.heads_off);
  const top = await api(page, 'getTop');
  for (const r of top.full.concat([top.follow.full])) {
    assert.ok(Math.abs(r.logit - full[r.id]) <= fullB[r.id], 'logit of ' + r.id);
    assert.ok(Math.abs(r.logProb - (full[r.id] - lse(full))) <= logpBound(fullB, r.id), 'log p of ' + r.id);
  }
  for (const r of top.ablated.concat([top.follow.ablated])) {
    const d = off[r.id] - lse(off) - (full[r.id] - lse(full));
    assert.ok(Math.abs(r.dLogProb - d) <= logpBound(offB, r.id) + logpBound(fullB, r.id), 'Δ log p of ' + r.id);
    assert.equal(r.ranksUp, r.was.rank - r.rank);
  }
  // the panel: the followed token's row in both tables, Δ log p and the rank moved in the one with heads off
  const rows = await page.$$eval('#top-off tbody tr', (trs) => trs.map((tr) => tr.textContent));
  assert.equal(rows.length, 6);
  assert.match(rows[5], /^␣road ★/);
  assert.match(rows[0], /[+−]\d\.\d+(e-\d+)?#\d+ → #\d+/);
  assert.deepEqual(await page.$$eval('#top-off thead th', (ths) => ths.map((th) => th.textContent)), [
    'Token',
    'Probability',
    'log p',
    'logit',
    'Δ log p',
    'Rank',
  ]);
  assert.match(await page.textContent('#follow-note'), /“␣road” \(id \d+\): rank \d+ in the full model/);
  assert.equal(await api(page, 'follow', 'zzqqxx'), -1);
  assert.match(await page.textContent('#follow-note'), /not one token/);
  assert.deepEqual(g.errors, []);
  await page.close();
});
