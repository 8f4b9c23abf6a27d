// MHA Explorer, the model page — "What the model predicts": the top 5 of the full model and with the heads off, each
// with its probability (4 significant digits), log-probability and logit, and with the heads off its change (Δ
// log-prob, the places it moved); a row for a token the student follows ("road") whatever the top 5 is.
// ctx: context.js's.
import { el } from '../widgets/dom.js';
import { logSumExp, tokenStats, compareToken, describeHeads } from './ablate.js';
import { ablationWords } from './ablation-mode.js';

// A probability in percent with 4 significant digits (an exponent below 0.0001 %).
export const percent = (p) => (p >= 1e-6 ? (100 * p).toPrecision(4) : (100 * p).toExponential(3)) + '%';
// n decimals, or 4 significant digits for a value below 1 (a log-probability near 0, a small change) and an
// exponent below 0.0001, so a change the heads make never reads as 0
const digits = (a, n) => (a === 0 || a >= 1 ? a.toFixed(n) : a >= 1e-4 ? a.toPrecision(4) : a.toExponential(2));
const fixed = (x, n) => (x < 0 ? '−' : '') + digits(Math.abs(x), n);
const signed = (x, n) => (x >= 0 ? '+' : '−') + digits(Math.abs(x), n);

// The rows the panel and getTop show: {full: [stats], ablated: [compared], follow: {id, full, ablated} | null}
// (ablate.js's tokenStats and compareToken).
export function predictionRows(S) {
  if (!S.fullLogits) return { full: [], ablated: [], follow: null };
  const off = S.headsOff.length && S.ablated.length ? S.ablatedLogits : null;
  const lse = { full: logSumExp(S.fullLogits), off: off ? logSumExp(off) : 0 };
  const full = S.full.map((t) => tokenStats(S.fullLogits, t.id, lse.full));
  const ablated = off ? S.ablated.map((t) => compareToken(S.fullLogits, off, t.id, lse)) : [];
  const f = S.follow && S.follow.id >= 0 ? S.follow.id : -1;
  const follow =
    f < 0
      ? null
      : {
          id: f,
          full: tokenStats(S.fullLogits, f, lse.full),
          ablated: off ? compareToken(S.fullLogits, off, f, lse) : null,
        };
  return { full, ablated, follow };
}

// One table: a header, the rows, and the followed token's row (marked) when it is not among them.
function fillTable(ctx, table, rows, follow, compare) {
  const tb = table.querySelector('tbody'),
    head = table.querySelector('thead');
  tb.textContent = '';
  head.textContent = '';
  const cols = ['Token', 'Probability', 'log p', 'logit'].concat(compare ? ['Δ log p', 'Rank'] : []);
  const hr = head.appendChild(el('tr'));
  for (const c of cols) hr.appendChild(el('th', { scope: 'col' }, c));
  const all = follow && !rows.some((r) => r.id === follow.id) ? rows.concat([follow]) : rows;
  for (const r of all) {
    const marked = follow && r.id === follow.id;
    const tr = tb.appendChild(el('tr', marked ? { class: 'mp-follow' } : null));
    tr.appendChild(el('td', { title: 'id ' + r.id }, ctx.tokenText(r.id) + (marked ? ' ★' : '')));
    const p = tr.appendChild(el('td', { class: 'p' }, percent(r.prob)));
    p.appendChild(el('span', { class: 'mp-bar', 'aria-hidden': 'true' })).style.width =
      Math.max(1, Math.round(60 * r.prob)) + 'px';
    tr.appendChild(el('td', { class: 'p' }, fixed(r.logProb, 4)));
    tr.appendChild(el('td', { class: 'p' }, fixed(r.logit, 3)));
    if (!compare) continue;
    tr.appendChild(el('td', { class: 'p ' + (r.dLogProb >= 0 ? 'mp-up' : 'mp-down') }, signed(r.dLogProb, 4)));
    const moved = r.ranksUp > 0 ? ' (↑' + r.ranksUp + ')' : r.ranksUp < 0 ? ' (↓' + -r.ranksUp + ')' : ' (=)';
    tr.appendChild(el('td', { class: 'p' }, '#' + r.was.rank + ' → #' + r.rank + moved));
  }
}

export function drawPredictions(ctx) {
  const { S, $ } = ctx,
    i = S.info,
    note = $('predict-note');
  $('top-off').parentElement.hidden = !S.ablated.length;
  $('follow-box').hidden = !S.fullLogits;
  $('predict-tables').style.display = S.fullLogits ? '' : 'none';
  if (!S.fullLogits) {
    note.textContent = !i.hasLmHead
      ? 'This checkpoint has no prediction head: nothing to predict. Switching heads off changes the attention of ' +
        'the layers above them (the grid shows it) and the embeddings' +
        (S.sentence ? ' (the sentence embedding below)' : '') +
        ', but no prediction.'
      : 'Write ' + (S.vocab.maskToken || 'the mask token') + ' in the text to see what the model puts there.';
    fillTable(ctx, $('top-full'), [], null, false);
    return;
  }
  const rows = predictionRows(S);
  note.textContent =
    (i.causal
      ? 'The top 5 next tokens after “' + ctx.tokenText(S.enc.ids[S.pos]) + '”'
      : 'The top 5 tokens for ' + S.vocab.maskToken + ' (position ' + S.pos + ')') +
    ': probability, its natural log (log p) and the logit; with the heads off, the change of log p and of rank. ' +
    'Heads off: ' +
    describeHeads(S.headsOff, i.layers, i.heads) +
    (S.headsOff.length && !S.ablationRefused ? ', ' + ablationWords(S) : '') +
    '.';
  fillTable(ctx, $('top-full'), rows.full, rows.follow && rows.follow.full, false);
  if (rows.ablated.length) fillTable(ctx, $('top-off'), rows.ablated, rows.follow && rows.follow.ablated, true);
  const f = S.follow;
  $('follow-note').textContent =
    !f || !f.text
      ? 'Type a token to follow its probability (★), in the top 5 or not.'
      : f.id < 0
        ? '“' + f.text + '” is not one token of this vocabulary.'
        : '★ “' + ctx.tokenText(f.id) + '” (id ' + f.id + '): rank ' + rows.follow.full.rank + ' in the full model.';
}
