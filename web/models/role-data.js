// MHA Explorer, the model page — the data a role's score came from, above the grid: for a role scored on the repeated
// random sequence (duplicate, induction) the grid's cards show that sequence's heatmaps (its tokens named, and back
// to the text's with a button), for one scored on the text the words say so; and whether any head does the role
// (a score of at least ROLE_MIN, with its reason). ctx: context.js's.
import { el } from '../widgets/dom.js';
import { DEFAULT_SCALE } from '../state/scales.js';
import { ROLES, ROLE_MIN, rankHeads } from './roles.js';
import { headMatrix } from './attentions.js';

// The words on a role's best heads: how many reach ROLE_MIN, or that none does (the best head and its score).
export function roleVerdict(scores, H, label) {
  const ranked = rankHeads(scores, H).filter((r) => Number.isFinite(r.score));
  const why =
    ' (at ' +
    ROLE_MIN +
    ' a head puts more weight on the role’s keys than on all the others together; one spreading its weight evenly scores 1/T).';
  if (!ranked.length) return 'No score: the text is too short for this role.';
  const best = ranked[0],
    n = ranked.filter((r) => r.score >= ROLE_MIN).length;
  const where = 'L' + best.layer + ' H' + best.head + ', ' + best.score.toFixed(3);
  return n
    ? n + ' head' + (n > 1 ? 's' : '') + ' score at least ' + ROLE_MIN + ' (the best: ' + where + ')' + why
    : 'No head of this model does ' + label.toLowerCase() + ': the best, ' + where + ', is below ' + ROLE_MIN + why;
}

export function createRoleData(ctx) {
  const { S } = ctx;
  const box = el('div', { class: 'mp-role-data', hidden: '' });
  const what = box.appendChild(el('p', { class: 'note' }));
  const seq = box.appendChild(el('p', { class: 'mp-role-seq' }));
  const toggle = box.appendChild(el('button', { type: 'button', class: 'btn small' }));
  const verdict = box.appendChild(el('p', { class: 'note mp-role-verdict', 'aria-live': 'polite' }));
  ctx.$('grid').before(box);
  S.roleText = false; // true: a repeat role's cards show the text's heatmaps instead of the sequence's
  toggle.addEventListener('click', () => {
    S.roleText = !S.roleText;
    ctx.redrawAttention();
  });
  const role = () => ROLES.find((r) => r.name === S.role);
  // the repeated sequence is drawn: a role scored on it, its forward there, and not asked back to the text
  const onRepeat = () => {
    const r = role();
    return !!r && r.on === 'repeat' && !!S.repeat && !!S.repeat.attentions && !S.roleText;
  };
  return {
    // the grid's drawing of the sequence ({mat, scale, legend, labels}), or null: the text's
    grid: () => {
      if (!onRepeat()) return null;
      const labels = S.repeat.layout.ids.map((id) => ctx.tokenText(id));
      return {
        mat: (l, h) => Object.assign(headMatrix(S.repeat.attentions, l, h), { labels }),
        scale: DEFAULT_SCALE,
        legend: null,
        labels,
      };
    },
    update: () => update(ctx, { box, what, seq, toggle, verdict }, role(), onRepeat()),
    dispose: () => box.remove(),
  };
}

function update(ctx, e, role, onRepeat) {
  const S = ctx.S;
  e.box.hidden = !role || !S.out;
  if (e.box.hidden) return;
  const scores = S.scores && S.scores[role.name];
  e.verdict.textContent = scores ? roleVerdict(scores, S.info.heads, role.label) : '';
  const repeat = role.on === 'repeat' && S.repeat;
  e.toggle.hidden = !repeat;
  e.seq.hidden = !repeat;
  if (!repeat) {
    e.what.textContent = 'Scored on the text above: the cards show its heatmaps.';
    return;
  }
  const { ids, start, length } = S.repeat.layout;
  e.what.textContent =
    'Scored on ' +
    length +
    ' random tokens repeated twice, not on the text' +
    (onRepeat ? ': the cards show that sequence’s heatmaps.' : '; the cards show the text’s heatmaps.');
  e.seq.textContent =
    'The sequence: ' +
    ids
      .slice(start, start + length)
      .map((id) => '“' + ctx.tokenText(id) + '”')
      .join(' ') +
    ', then the same again' +
    (start || ids.length > start + 2 * length ? ', inside the tokenizer’s special tokens.' : '.');
  e.toggle.textContent = onRepeat ? 'Show the text’s heatmaps' : 'Show the scored sequence';
}
