// MHA Explorer — the line view (BertViz's head view: a line from each query to each key, thicker for more
// weight) and a head's matrix as a table. A matrix is {S, T?, data} as in heatmap.js.
import { el, svgEl, setAttr, shortLabel, themeColors } from './dom.js';
import { topKeys } from './heatmap.js';

// Up to LINE_ROWS tokens every query is drawn with its keys; above that the view shows one query (opts.query:
// the selected or hovered row) and its LINE_TOP strongest keys, labelled, so it stays readable and small at any S.
export const LINE_ROWS = 48,
  LINE_TOP = 8;

// The caption of a line view of N tokens: all of them, or one query and its strongest keys.
export function lineViewNote(N) {
  return N > LINE_ROWS
    ? 'Line view of one query (' +
        N +
        ' tokens are too many to draw at once): its strongest keys, up to ' +
        LINE_TOP +
        ' (fewer when fewer keys have any weight), as its header counts them. ' +
        'Click a cell of the heatmap, or use the arrow keys on it, to pick the query.'
    : "Line view (as BertViz's head view): a line from each query to each key, thicker for more weight. Hover a query token to isolate it.";
}

// What a line view draws: sizes, the query and keys shown when compact, and the key of its frame.
function lineLayout(mat, labels, opts) {
  const S = mat.S,
    T = mat.T || S,
    rowLabels = opts.rowLabels || labels,
    N = Math.max(S, T);
  const width = opts.width || 360,
    accent = (opts.colors || themeColors()).line;
  const compact = N > LINE_ROWS;
  const q = compact ? Math.max(0, Math.min(T - 1, opts.focus != null ? opts.focus : opts.query || 0)) : null;
  const keys = compact ? topKeys(mat, q, LINE_TOP).filter((j) => mat.data[q * S + j] > 0) : null;
  const rowH = compact ? 22 : N <= 24 ? 22 : 14,
    rows = compact ? LINE_TOP : N;
  const focus = compact ? null : opts.focus;
  const key = [
    S,
    T,
    width,
    focus,
    accent,
    compact
      ? q + ':' + keys.join(',')
      : labels.slice(0, S).join('\u0001') + '\u0003' + rowLabels.slice(0, T).join('\u0001'),
  ].join('\u0002');
  const colL = 110,
    colR = width - 110;
  return { S, T, labels, rowLabels, width, accent, colL, colR, compact, q, keys, rowH, rows, focus, key };
}

// The baseline of row r's token label.
function labelY(v, r) {
  return 26 + (r + 0.5) * v.rowH + 4;
}

// The compact frame's labels: the one query, its keys with their weights.
function compactLabels(svg, mat, v) {
  svg.appendChild(
    svgEl(
      'text',
      { x: v.colL - 8, y: labelY(v, (v.rows - 1) / 2), 'text-anchor': 'end', class: 'lv-tok on', 'data-q': v.q },
      shortLabel(v.rowLabels[v.q], 14) + ' (' + v.q + ')',
    ),
  );
  v.keys.forEach((j, r) => {
    svg.appendChild(
      svgEl(
        'text',
        { x: v.colR + 8, y: labelY(v, r), class: 'lv-tok' },
        shortLabel(v.labels[j], 10) + ' (' + j + ') ' + mat.data[v.q * v.S + j].toFixed(3),
      ),
    );
  });
}

// The full frame's labels: every query (focusable, the focused one lit), every key.
function allLabels(svg, v) {
  for (let r = 0; r < v.T; r++) {
    svg.appendChild(
      svgEl(
        'text',
        {
          x: v.colL - 8,
          y: labelY(v, r),
          'text-anchor': 'end',
          class: 'lv-tok' + (v.focus === r ? ' on' : ''),
          'data-q': r,
          tabindex: '-1',
        },
        shortLabel(v.rowLabels[r], 14),
      ),
    );
  }
  for (let r = 0; r < v.S; r++)
    svg.appendChild(svgEl('text', { x: v.colR + 8, y: labelY(v, r), class: 'lv-tok' }, shortLabel(v.labels[r], 14)));
}

// The compact view's header: its n keys of S (all of LINE_TOP, or the only ones with any weight).
function compactHeader(n, S) {
  if (n >= LINE_TOP) return 'its ' + n + ' strongest keys (of ' + S + ')';
  return 'the ' + (n === 1 ? 'one key' : n + ' keys') + ' it weighs (of ' + S + ')';
}

// The frame anew (size, column heads, token labels): → its state {key, g: the lines' group, pool: []}.
function drawFrame(svg, mat, v) {
  const H = v.rows * v.rowH + 30;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.setAttribute('viewBox', '0 0 ' + v.width + ' ' + H);
  svg.setAttribute('width', v.width);
  svg.setAttribute('height', H);
  svg.appendChild(svgEl('text', { x: v.colL - 8, y: 14, 'text-anchor': 'end', class: 'lv-head' }, 'query'));
  // the compact header is longer than the key column is wide: it ends at the right edge instead
  svg.appendChild(
    svgEl(
      'text',
      v.compact
        ? { x: v.width - 4, y: 14, 'text-anchor': 'end', class: 'lv-head' }
        : { x: v.colR + 8, y: 14, class: 'lv-head' },
      v.compact ? compactHeader(v.keys.length, v.S) : 'key',
    ),
  );
  const g = svgEl('g', {});
  svg.appendChild(g);
  if (v.compact) compactLabels(svg, mat, v);
  else allLabels(svg, v);
  return { key: v.key, g: g, pool: [] };
}

// The lines from the frame's pool: one per drawn query→key weight, attributes written only when they change.
function drawLines(st, data, v) {
  const g = st.g,
    pool = st.pool,
    S = v.S,
    rowH = v.rowH;
  let n = 0;
  const line = (yq, yk, w) => {
    let ln = pool[n];
    if (!ln) {
      ln = pool[n] = svgEl('line', { x1: v.colL, x2: v.colR, stroke: v.accent });
      g.appendChild(ln);
    }
    setAttr(ln, 'y1', yq);
    setAttr(ln, 'y2', yk);
    setAttr(ln, 'stroke-width', Math.max(0.5, Math.min(4, w * 5)));
    setAttr(ln, 'stroke-opacity', Math.min(1, 0.2 + w * 1.2));
    n++;
  };
  if (v.compact) {
    v.keys.forEach((j, r) => line(26 + (v.rows / 2) * rowH, 26 + (r + 0.5) * rowH, data[v.q * S + j]));
  } else {
    for (let i = 0; i < v.T; i++) {
      if (v.focus != null && v.focus !== i) continue;
      for (let j = 0; j < S; j++) {
        const w = data[i * S + j];
        if (w >= 0.01) line(26 + (i + 0.5) * rowH, 26 + (j + 0.5) * rowH, w);
      }
    }
  }
  for (let k = pool.length - 1; k >= n; k--) g.removeChild(pool[k]);
  pool.length = n;
}

// labels: the keys' (and the queries' unless opts.rowLabels); opts: {width, focus (a hovered query), query,
// rowLabels, colors}. Incremental: the frame (size, column heads, token labels) is rebuilt only when its key
// changes; the lines are a pool of <line> elements whose attributes are written only when their value changes.
export function lineView(svg, mat, labels, opts) {
  const v = lineLayout(mat, labels, opts);
  if (!svg._lv || svg._lv.key !== v.key) svg._lv = drawFrame(svg, mat, v);
  drawLines(svg._lv, mat.data, v);
}
// The query under a line view's pointer (hovering a query token isolates its lines): onHover(q or null).
export function wireLineHover(svg, onHover) {
  let hover = null;
  svg.addEventListener('mouseover', (e) => {
    const q = e.target.getAttribute && e.target.getAttribute('data-q');
    if (q != null && +q !== hover) {
      hover = +q;
      onHover(hover);
    }
  });
  svg.addEventListener('mouseleave', () => {
    if (hover != null) {
      hover = null;
      onHover(null);
    }
  });
}

// A head's weights as a table (rows: queries, columns: keys), for screen readers and copying.
export function matrixTable(mat, labels, caption, rowLabels) {
  const S = mat.S,
    T = mat.T || S,
    t = el('table', { class: 'matrix' });
  rowLabels = rowLabels || labels;
  t.appendChild(el('caption', null, caption));
  const head = el('tr');
  head.appendChild(el('th', { scope: 'col' }, 'query \\ key'));
  for (let j = 0; j < S; j++) head.appendChild(el('th', { scope: 'col' }, labels[j]));
  const thead = el('thead');
  thead.appendChild(head);
  t.appendChild(thead);
  const tb = el('tbody');
  for (let i = 0; i < T; i++) {
    const tr = el('tr');
    tr.appendChild(el('th', { scope: 'row' }, rowLabels[i]));
    for (let j = 0; j < S; j++) tr.appendChild(el('td', null, mat.data[i * S + j].toFixed(4)));
    tb.appendChild(tr);
  }
  t.appendChild(tb);
  return t;
}
// The top-left n×n corner of a matrix (tables stop at 64 tokens).
export function corner(mat, n) {
  const S = mat.S,
    T = mat.T || S,
    c = Math.min(S, n),
    r = Math.min(T, n),
    out = { S: c, T: r, data: new Float32Array(r * c) };
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out.data[i * c + j] = mat.data[i * S + j];
  return out;
}
