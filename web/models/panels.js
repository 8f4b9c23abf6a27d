// MHA Explorer, the model page — its panels drawn from the state (ctx.S, context.js): the tokens, the grid of every head
// (grid.js), the predictions with and without heads, where a token looks, the selected layer in the attention view
// (views/attention.js, with its shape trace) and the side panel (the role's sentence, the heads off, the snippet).
import { el, themeColors } from '../widgets/dom.js';
import { legend } from '../widgets/colors.js';
import { DEFAULT_SCALE } from '../state/scales.js';
import { mountAttention } from '../views/attention.js';
import { download } from '../chrome/download.js';
import { ROLES } from './roles.js';
import { lookFrom, headsToward } from './lookup.js';
import { describeHeads } from './ablate.js';
import { drawPredictions } from './predictions.js';

export { drawPredictions };
import { pythonSnippet } from './snippet.js';
import { gridLayout, headRange } from './grid.js';
import { headMatrix, dimsOf } from './attentions.js';
import { layerTrace } from './trace.js';
import { drawEmbedding } from './embedding.js';

const LOOK_ROWS = 12; // rows of "where a token looks" before "Show every head"

export function drawAll(ctx) {
  drawTokens(ctx);
  drawGrid(ctx);
  drawPredictions(ctx);
  drawLook(ctx);
  drawView(ctx);
  drawEmbedding(ctx);
  drawSide(ctx);
}

// The tokens as chips: a click picks the token whose looks the "where a token looks" panel ranks.
export function drawTokens(ctx) {
  const { S, $ } = ctx,
    box = $('tokens');
  box.textContent = '';
  S.enc.texts.forEach((t, i) => {
    const raw = S.enc.tokens[i],
      title = 'id ' + S.enc.ids[i] + (raw !== t ? ', “' + raw + '” in the vocabulary' : '');
    const b = box.appendChild(
      el('button', { type: 'button', class: 'chip', 'aria-pressed': String(i === S.query), title }, t),
    );
    b.appendChild(el('sub', null, i));
    b.addEventListener('click', () => {
      S.query = i;
      S.key = -1;
      drawTokens(ctx);
      drawLook(ctx);
    });
  });
}

export function drawGrid(ctx) {
  const { S, $ } = ctx;
  if (!S.out) return;
  const { L, H } = dimsOf(S.out.attentions),
    role = ROLES.find((r) => r.name === S.role),
    grid = $('grid');
  // the layer label's width is the stylesheet's (--mg-label: narrower on a phone)
  const label = parseFloat(getComputedStyle(grid).getPropertyValue('--mg-label')) || 34;
  const src = shownGrid(ctx),
    range = src.legend ? 'one' : rangeShown(ctx); // the difference keeps its diverging scale
  ctx.grid.draw({
    L,
    H,
    mat: src.mat,
    vmax: rangeOf(ctx, range, L, H, src.mat),
    labels: src.labels || S.enc.texts,
    scale: src.scale,
    colors: themeColors(ctx.root),
    ...gridLayout(H, grid.clientWidth || 800, label),
    scores: role && S.scores ? S.scores[role.name] || null : null,
    minScore: S.minScore,
    ranked: S.order === 'ranked' && !!role,
    off: new Set(S.headsOff.map((x) => x[0] + ':' + x[1])),
    selected: S.sel,
    roleLabel: role ? role.label : '',
  });
  if (src.legend) src.legend($('legend'));
  else rangeLegend($('legend'), range);
  $('grid-note').textContent =
    L +
    ' layers × ' +
    H +
    ' heads, ' +
    (src.labels ? src.labels.length : S.enc.ids.length) +
    (src.legend
      ? ' tokens, each weight’s change with the heads off (ablated − full) on one diverging scale'
      : ' tokens, ' + (normView(ctx) ? 'each weight times ‖v·W_O‖ of its key, ' : '') + RANGE_WORDS[range]) +
    ' (rows: the token that looks; columns: the tokens it looks at). ' +
    'Click a head (or use the arrow keys on the grid) to enlarge it below; press O to switch the focused head off or on.' +
    (role
      ? ' Scores: ' +
        role.label.toLowerCase() +
        (role.on === 'repeat' && S.repeat ? ', on ' + S.repeat.layout.length + ' random tokens repeated twice' : '') +
        '.'
      : '');
}

// The norm view (writes-view.js) draws α·‖v·W_O‖, not probabilities: no 0-to-1 scale (per layer instead).
const normView = (ctx) => !!ctx.writesView && ctx.writesView.on();
const rangeShown = (ctx) => (normView(ctx) && ctx.S.range === 'one' ? 'layer' : ctx.S.range);

const RANGE_WORDS = {
  one: 'every weight on one scale from 0 to 1',
  layer:
    'each layer’s heads from 0 to the layer’s 99th percentile weight, the top 1% in the darkest colour (a colour means the same within a layer only)',
  head: 'each head from 0 to its own 99th percentile weight, the top 1% in the darkest colour (a colour means the same within a head only)',
};
// The grid's legend for the Colours control: 0 … 1, or 0 … each layer's or head's largest, said beside it.
function rangeLegend(box, range) {
  legend(box, DEFAULT_SCALE, range === 'one' ? '1' : 'p99');
  const what = { one: '', layer: 'per layer', head: 'per head' }[range];
  let note = box.querySelector('.legend-what');
  if (!note && what) note = box.appendChild(el('span', { class: 'legend-what' }));
  if (note) note.textContent = what;
}
// The cards' colour ranges (grid.js's headRange), kept while the matrices and the choice stay.
function rangeOf(ctx, range, L, H, mat) {
  const first = mat(0, 0).data,
    key = range + '|' + L + 'x' + H + '|' + first.length;
  const c = ctx.rangeCache;
  if (c && c.key === key && c.buffer === first.buffer && c.offset === first.byteOffset) return c.vmax;
  ctx.rangeCache = { key, buffer: first.buffer, offset: first.byteOffset, vmax: headRange(range, L, H, mat) };
  return ctx.rangeCache.vmax;
}

// The grid's matrices, scale and legend: the full model's attention, or with heads off the ablated-view.js choice.
function shownGrid(ctx) {
  if (ctx.roleData) {
    ctx.roleData.update();
    const seq = ctx.roleData.grid(); // a role scored on the repeated sequence: its heatmaps
    if (seq) return seq;
  }
  if (ctx.ablatedView) {
    ctx.ablatedView.update();
    return ctx.ablatedView.grid();
  }
  return { mat: (l, h) => headMatrix(ctx.S.out.attentions, l, h), scale: DEFAULT_SCALE, legend: null };
}
// The attentions "where a token looks" and the enlarged head read (the ablated model's with heads off).
const shownWeights = (ctx) => (ctx.ablatedView ? ctx.ablatedView.weights() : ctx.S.out.attentions);

// A token picker: every token of the text (and `first`, value -1, when given).
function tokenOptions(sel, tokens, first, value) {
  sel.textContent = '';
  if (first) sel.appendChild(el('option', { value: '-1' }, first));
  tokens.forEach((tok, k) => sel.appendChild(el('option', { value: String(k) }, k + ': ' + tok)));
  sel.value = String(value);
}
export function drawLook(ctx) {
  const { S, $ } = ctx,
    t = S.enc.texts,
    q = S.query,
    H = S.info.heads;
  tokenOptions($('look-from'), t, null, q);
  tokenOptions($('look-to'), t, 'its strongest key', S.key);
  const A = shownWeights(ctx),
    looks = lookFrom(A, q, 3); // layer by layer: index layer·H + head
  const rows =
    S.key >= 0
      ? headsToward(A, q, S.key)
      : looks.slice().sort((a, b) => b.keys[0].weight - a.keys[0].weight || a.layer - b.layer || a.head - b.head);
  $('look-note').textContent =
    S.key >= 0
      ? 'Every head ranked by the weight “' + t[q] + '” (' + q + ') puts on “' + t[S.key] + '” (' + S.key + ').'
      : 'Every head ranked by how strongly “' +
        t[q] +
        '” (' +
        q +
        ') looks at its strongest key. Pick a key above to find the heads that link the two.';
  const tb = $('look').querySelector('tbody');
  tb.textContent = '';
  for (const r of S.lookAll ? rows : rows.slice(0, LOOK_ROWS)) {
    const tr = tb.appendChild(el('tr', { class: r.layer === S.sel.layer && r.head === S.sel.head ? 'selected' : '' }));
    tr.appendChild(el('td', { 'data-label': 'Head' }, 'L' + r.layer + ' H' + r.head));
    tr.appendChild(
      el(
        'td',
        { 'data-label': 'Weight' },
        (S.key >= 0 ? r.weight : r.keys[0].weight).toFixed(3) + (S.key >= 0 ? ' (#' + (r.rank + 1) + ')' : ''),
      ),
    );
    const cell = tr.appendChild(el('td', { 'data-label': 'Looks at' }));
    for (const k of looks[r.layer * H + r.head].keys) {
      cell.appendChild(
        el(
          'span',
          { class: 'mp-key' + (k.key === S.key ? ' target' : '') },
          '“' + t[k.key] + '” ' + k.weight.toFixed(3),
        ),
      );
    }
    tr.addEventListener('click', () => select(ctx, r.layer, r.head));
  }
  $('look-more').hidden = rows.length <= LOOK_ROWS;
  $('look-more').textContent = S.lookAll ? 'Show the first ' + LOOK_ROWS : 'Show every head (' + rows.length + ')';
}

// The selected layer in the attention view (mounted with the first model), with that layer's shape trace.
export function drawView(ctx) {
  const S = ctx.S,
    a = shownWeights(ctx),
    { H, T } = dimsOf(a),
    l = S.sel.layer,
    n = H * T * T;
  const trace = layerTrace(S.out.trace || [], l, S.info, T);
  if (!ctx.view) {
    ctx.view = mountAttention(ctx.$('view'), { weights: a.data.subarray(0, n), shape: [1, 1, H, T, T], download });
    // the view's own head cards select a head of the shown layer too
    ctx.view.root.addEventListener('click', () => {
      const h = ctx.view.root.mhaExplorer.getSelection().head;
      if (typeof h === 'number' && h !== S.sel.head) {
        S.sel.head = h;
        drawGrid(ctx);
        drawSide(ctx);
        drawLook(ctx);
      }
    });
  }
  ctx.view.update({
    weights: a.data.subarray(l * n, (l + 1) * n),
    shape: [1, 1, H, T, T],
    tokens: S.enc.texts,
    trace: trace.length ? trace : null,
    title:
      'Layer ' +
      l +
      ' of ' +
      (S.source.folder || S.info.modelType) +
      (ctx.ablatedView && ctx.ablatedView.mode() !== 'full'
        ? ', heads off: ' + describeHeads(S.headsOff, S.info.layers, S.info.heads)
        : '') +
      (normView(ctx) ? ', each weight times ‖v·W_O‖ of its key' : ''),
    theme: ctx.root.getAttribute('data-theme'),
    // the Colours control: 0 to 1, to the layer's largest weight (the view's default) or to each head's own
    range: { one: 'one', layer: 'layer-p99', head: 'head' }[rangeShown(ctx)],
  });
  ctx.view.root.mhaExplorer.select({ head: S.sel.head });
}

// The side panel: the role's sentence, the heads off, the snippet.
export function drawSide(ctx) {
  const { S, $ } = ctx,
    role = ROLES.find((r) => r.name === S.role);
  $('role-how').textContent = role
    ? role.how
    : "Pick a role to score every head: the grid shows each head's score, and can hide or rank the heads by it.";
  $('min-score').disabled = !role;
  $('order').disabled = !role;
  if (!S.model) return;
  const i = S.info,
    off = S.headsOff.some((x) => x[0] === S.sel.layer && x[1] === S.sel.head);
  $('off-desc').textContent =
    'Selected: layer ' +
    S.sel.layer +
    ' head ' +
    S.sel.head +
    '. Heads off: ' +
    describeHeads(S.headsOff, i.layers, i.heads) +
    '.';
  $('off-one').textContent = off ? 'This head on again' : 'This head off';
  $('snippet').textContent = snippet(ctx);
}
// "Copy as Python" for the model, text, head and heads off shown.
export function snippet(ctx) {
  const S = ctx.S;
  return pythonSnippet({
    folder: S.source.folder || 'path/to/the/model/folder',
    dropped: S.source.dropped,
    text: S.text,
    layer: S.sel.layer,
    head: S.sel.head,
    headsOff: S.headsOff,
    ablation: S.ablation,
    resampleText: S.resampleText,
    weighting: S.weighting,
    info: S.info,
    maskToken: S.vocab.maskToken,
  });
}
// Selects head h of layer l: the grid, the side panel, the view (its layer) and the look table follow.
export function select(ctx, l, h) {
  const S = ctx.S,
    layerChanged = l !== S.sel.layer;
  S.sel = { layer: l, head: h };
  drawGrid(ctx);
  drawSide(ctx);
  if (!S.out) return;
  if (layerChanged || !ctx.view) drawView(ctx);
  else ctx.view.root.mhaExplorer.select({ head: h });
  drawLook(ctx);
}
