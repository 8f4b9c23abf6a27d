// @ts-check
// MHA Explorer — the training lab's head cards: each head's attention on the probe sequence (the page's heatmap, in
// Blues on one shared 0…1 scale), labelled with the sequence's tokens, queries and keys in position order or sorted by
// token (a head that picks keys by their tokens then shows as the diagonal it is), with its role and score; a card is a
// toggle button that switches its head off and on.
import { el, themeColors } from '../widgets/dom.js';
import { drawHeatmap } from '../widgets/heatmap.js';

// The heatmaps' colours (labels, cursor) of the theme the lab's root carries.
/** @param {Element} node */
export function colorsAround(node) {
  const scope = node.closest('[data-theme]');
  return scope ? themeColors(scope) : themeColors();
}

// The plot's CSS size: the cards' heatmap beside its token labels (smaller on narrow screens, as lab.css's cards).
const cardPlot = () => (window.matchMedia && window.matchMedia('(max-width: 900px)').matches ? 112 : 148);

// The positions in the order a card shows them: 0 … T−1, or sorted by token (ties in position order).
/** @param {number[]} probe @param {boolean} byToken */
export function cardOrder(probe, byToken) {
  const order = probe.map((_, t) => t);
  return byToken ? order.sort((a, b) => probe[a] - probe[b] || a - b) : order;
}
// A head's T×T matrix with its rows and columns in that order.
/** @param {Float32Array} data @param {number[]} order */
function reordered(data, order) {
  const T = order.length,
    out = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) out[i * T + j] = data[order[i] * T + order[j]];
  return out;
}

/** @param {number} layer @param {number} h @param {boolean} interactive */
function newCard(layer, h, interactive) {
  const b = el('button', { type: 'button', class: 'lab-head', 'data-layer': String(layer), 'data-head': String(h) });
  b.appendChild(
    el('span', { class: 'head-title' }, (interactive ? '' : 'One-head model: ') + 'Layer ' + layer + ' · head ' + h),
  );
  b.appendChild(el('canvas'));
  b.appendChild(el('span', { class: 'role' }));
  return b;
}

// The cards of one model's heads (view: {attention: [{layer, weights [H, T, T]}], roles}; probe: the tokens shown);
// opts: {onAblate(event) (interactive cards are toggle buttons that switch a head off and on), ablated: {"l:h": true},
// byToken: queries and keys sorted by token}.
/** @param {HTMLElement} box @param {any} view @param {number} H @param {number[]} probe @param {any} opts */
export function drawHeadCards(box, view, H, probe, opts) {
  if (!view || !H) {
    box.textContent = '';
    return;
  }
  const interactive = !!opts.onAblate,
    T = probe.length,
    key = view.attention.length + '|' + H + '|' + T;
  if (box.dataset.key !== key) {
    // layers, heads or the sequence length changed: new cards
    box.textContent = '';
    box.dataset.key = key;
    for (const layer of view.attention) {
      for (let h = 0; h < H; h++) {
        const b = box.appendChild(newCard(layer.layer, h, interactive));
        if (interactive) b.addEventListener('click', opts.onAblate);
        else b.disabled = true;
      }
    }
  }
  const order = cardOrder(probe, !!opts.byToken),
    labels = order.map((t) => String(probe[t]));
  box
    .querySelectorAll('.lab-head')
    .forEach((card) => drawCard(/** @type {HTMLElement} */ (card), view, T, order, labels, interactive && opts));
}

/** @param {HTMLElement} card @param {any} view @param {number} T @param {number[]} order @param {string[]} labels @param {any} opts */
function drawCard(card, view, T, order, labels, opts) {
  const l = Number(card.dataset.layer),
    h = Number(card.dataset.head),
    canvas = card.querySelector('canvas');
  const w = view.attention[l].weights.data.subarray(h * T * T, (h + 1) * T * T);
  drawHeatmap(
    canvas,
    { S: T, data: reordered(w, order) },
    { scale: 'blues', norm: 'one', vmax: 1, size: cardPlot(), labels, showLabels: true, colors: colorsAround(card) },
  );
  const r = view.roles.find((x) => x.layer === l && x.head === h),
    off = !!opts && !!opts.ablated[l + ':' + h];
  card.classList.toggle('ablated', off);
  card.setAttribute('aria-pressed', off ? 'true' : 'false');
  const role = card.querySelector('.role');
  role.textContent = '';
  role.appendChild(el('strong', null, r ? roleName(r) : ''));
  role.appendChild(document.createTextNode(r ? ' · ' + r.score.toFixed(2) + (off ? ' · switched off' : '') : ''));
  // the accessible name is the visible text (title, role, score); the action is in aria-pressed and the tooltip
  const axes =
    labels.length && order.some((t, i) => t !== i)
      ? 'Rows: queries, columns: keys, both sorted by token (labels: tokens).'
      : 'Rows: query position t; columns: key position (labels: their tokens).';
  card.title =
    axes + (opts ? ' Click to ' + (off ? 'switch this head back on' : 'switch this head off (ablate it)') : '');
}

// A head's role as the cards name it: a score below CLEAR_ROLE is only the closest role, not one the head has.
const CLEAR_ROLE = 0.6;
/** @param {{role: string, score: number}} r */
export function roleName(r) {
  return r.score >= CLEAR_ROLE ? r.role : 'no clear role (closest: ' + r.role + ')';
}
