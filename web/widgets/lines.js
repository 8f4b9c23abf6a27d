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
        ' tokens are too many to draw at once): its ' +
        LINE_TOP +
        ' strongest keys. ' +
        'Click a cell of the heatmap, or use the arrow keys on it, to pick the query.'
    : "Line view (as BertViz's head view): a line from each query to each key, thicker for more weight. Hover a query token to isolate it.";
}

// labels: the keys' (and the queries' unless opts.rowLabels); opts: {width, focus (a hovered query), query,
// rowLabels, colors}. Incremental: the frame (size, column heads, token labels) is rebuilt only when its key
// changes; the lines are a pool of <line> elements whose attributes are written only when their value changes.
export function lineView(svg, mat, labels, opts) {
  const S = mat.S,
    T = mat.T || S,
    rowLabels = opts.rowLabels || labels,
    N = Math.max(S, T);
  const width = opts.width || 360,
    accent = (opts.colors || themeColors()).line,
    colL = 110,
    colR = width - 110;
  const compact = N > LINE_ROWS;
  const q = compact ? Math.max(0, Math.min(T - 1, opts.focus != null ? opts.focus : opts.query || 0)) : null;
  const keys = compact ? topKeys(mat, q, LINE_TOP).filter((j) => mat.data[q * S + j] > 0) : null;
  const rowH = compact ? 22 : N <= 24 ? 22 : 14,
    rows = compact ? LINE_TOP : N,
    H = rows * rowH + 30;
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
  let st = svg._lv;
  if (!st || st.key !== key) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + H);
    svg.setAttribute('width', width);
    svg.setAttribute('height', H);
    svg.appendChild(svgEl('text', { x: colL - 8, y: 14, 'text-anchor': 'end', class: 'lv-head' }, 'query'));
    // the compact header is longer than the key column is wide: it ends at the right edge instead
    svg.appendChild(
      svgEl(
        'text',
        compact
          ? { x: width - 4, y: 14, 'text-anchor': 'end', class: 'lv-head' }
          : { x: colR + 8, y: 14, class: 'lv-head' },
        compact ? 'its ' + keys.length + ' strongest keys (of ' + S + ')' : 'key',
      ),
    );
    const g0 = svgEl('g', {});
    svg.appendChild(g0);
    const y = (r) => 26 + (r + 0.5) * rowH + 4;
    if (compact) {
      svg.appendChild(
        svgEl(
          'text',
          { x: colL - 8, y: y((rows - 1) / 2), 'text-anchor': 'end', class: 'lv-tok on', 'data-q': q },
          shortLabel(rowLabels[q], 14) + ' (' + q + ')',
        ),
      );
      keys.forEach((j, r) => {
        svg.appendChild(
          svgEl(
            'text',
            { x: colR + 8, y: y(r), class: 'lv-tok' },
            shortLabel(labels[j], 10) + ' (' + j + ') ' + mat.data[q * S + j].toFixed(3),
          ),
        );
      });
    } else {
      for (let r = 0; r < T; r++) {
        svg.appendChild(
          svgEl(
            'text',
            {
              x: colL - 8,
              y: y(r),
              'text-anchor': 'end',
              class: 'lv-tok' + (focus === r ? ' on' : ''),
              'data-q': r,
              tabindex: '-1',
            },
            shortLabel(rowLabels[r], 14),
          ),
        );
      }
      for (let r = 0; r < S; r++)
        svg.appendChild(svgEl('text', { x: colR + 8, y: y(r), class: 'lv-tok' }, shortLabel(labels[r], 14)));
    }
    st = svg._lv = { key, g: g0, pool: [] };
  }
  const g = st.g,
    pool = st.pool,
    data = mat.data;
  let n = 0;
  const line = (yq, yk, w) => {
    let ln = pool[n];
    if (!ln) {
      ln = pool[n] = svgEl('line', { x1: colL, x2: colR, stroke: accent });
      g.appendChild(ln);
    }
    setAttr(ln, 'y1', yq);
    setAttr(ln, 'y2', yk);
    setAttr(ln, 'stroke-width', Math.max(0.5, Math.min(4, w * 5)));
    setAttr(ln, 'stroke-opacity', Math.min(1, 0.2 + w * 1.2));
    n++;
  };
  if (compact) {
    keys.forEach((j, r) => line(26 + (rows / 2) * rowH, 26 + (r + 0.5) * rowH, data[q * S + j]));
  } else {
    for (let i = 0; i < T; i++) {
      if (focus != null && focus !== i) continue;
      for (let j = 0; j < S; j++) {
        const w = data[i * S + j];
        if (w >= 0.01) line(26 + (i + 0.5) * rowH, 26 + (j + 0.5) * rowH, w);
      }
    }
  }
  for (let k = pool.length - 1; k >= n; k--) g.removeChild(pool[k]);
  pool.length = n;
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
