// MHA Explorer — exports of the heads shown: a vector SVG (one <rect> per cell, with its value as a tooltip)
// and a PNG of the drawn canvases. Both carry what a reader needs to interpret them: every heatmap shown (the
// average too), a colour legend with its numbers, and the configuration.
// info: {caption, scale, norm, vmax, rowLabels? (the queries' labels when they differ from the keys'),
// colors? ({bg, fg}: the PNG's; the page's theme when absent)}.
import { shortLabel, cssVar } from './dom.js';
import { colorOf, rangeOf, legendStops, fmtMax } from './colors.js';

const legendHi = (info) =>
  info.norm === 'max'
    ? "each heatmap's max"
    : info.norm === 'p99'
      ? "each heatmap's 99th percentile"
      : fmtMax(info.vmax);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');

// The SVG's grid: up to four panels a row, each its labels (at 32 tokens or fewer), its cells and a title.
function svgGrid(mats) {
  const S = mats[0].S,
    T = mats[0].T || S,
    N = Math.max(S, T);
  const cell = N <= 32 ? 16 : N <= 128 ? 4 : 1,
    lab = N <= 32 ? 70 : 0;
  const cols = Math.min(4, mats.length),
    rows = Math.ceil(mats.length / cols);
  const pw = lab + S * cell + 20,
    ph = lab + T * cell + 40;
  return { S, T, cell, lab, cols, rows, pw, ph, top: 56, W: Math.max(cols * pw, 420) };
}

// The document's start: its size and background, the caption and the colour legend with its numbers.
function svgHeader(grid, info) {
  const stops = legendStops(info.scale)
    .map((c, i) => `<stop offset="${i / 8}" stop-color="${c}"/>`)
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${grid.W}" height="${grid.top + grid.rows * grid.ph}" ` +
      'font-family="sans-serif" font-size="10"><rect width="100%" height="100%" fill="#fff"/>',
    `<text x="8" y="18" font-size="12">${esc(info.caption)}</text>`,
    `<defs><linearGradient id="legend">${stops}</linearGradient></defs>`,
    '<text x="8" y="42">0</text><rect x="20" y="32" width="140" height="12" fill="url(#legend)" stroke="#999"/>' +
      `<text x="166" y="42">${esc(legendHi(info))}</text>`,
  ];
}

// One matrix's cells at (ox, oy), each with its value as a tooltip.
function svgCells(out, m, ox, oy, grid, labels, info) {
  const { S, T, cell } = grid,
    rowLabels = info.rowLabels || labels;
  const vmax = info.norm === 'shared' ? info.vmax : rangeOf(m.data, info.norm);
  for (let i = 0; i < T; i++)
    for (let j = 0; j < S; j++) {
      const w = m.data[i * S + j];
      out.push(
        `<rect x="${ox + j * cell}" y="${oy + i * cell}" width="${cell}" height="${cell}" ` +
          `fill="${colorOf(info.scale, w / vmax)}"><title>${esc(rowLabels[i])} → ${esc(labels[j])}: ` +
          `${w.toFixed(4)}</title></rect>`,
      );
    }
}

// The token labels beside a panel at (ox, oy): the queries' down its left, the keys' slanted along its top.
function svgTokenLabels(out, ox, oy, grid, labels, info) {
  const { S, T, cell } = grid,
    rowLabels = info.rowLabels || labels;
  for (let i = 0; i < T; i++)
    out.push(
      `<text x="${ox - 4}" y="${oy + (i + 0.7) * cell}" text-anchor="end">${esc(shortLabel(rowLabels[i], 10))}</text>`,
    );
  for (let j = 0; j < S; j++)
    out.push(
      `<text transform="translate(${ox + (j + 0.6) * cell},${oy - 4}) rotate(-45)">` +
        `${esc(shortLabel(labels[j], 10))}</text>`,
    );
}

// mats: [{S, T?, data}] of one size; labels: the keys'; names: one title per matrix → the SVG's text.
export function exportSVG(mats, labels, names, info) {
  const grid = svgGrid(mats),
    out = svgHeader(grid, info);
  mats.forEach((m, h) => {
    const ox = (h % grid.cols) * grid.pw + grid.lab,
      oy = grid.top + Math.floor(h / grid.cols) * grid.ph + grid.lab + 20;
    out.push(`<text x="${ox}" y="${oy - grid.lab - 4}" font-size="13" font-weight="bold">${esc(names[h])}</text>`);
    svgCells(out, m, ox, oy, grid, labels, info);
    if (grid.lab) svgTokenLabels(out, ox, oy, grid, labels, info);
  });
  out.push('</svg>');
  return out.join('');
}
// canvases: the heatmaps as drawn; names: one title each → a canvas with all of them, the caption and legend.
export function exportPNG(canvases, names, info) {
  const pad = 12,
    title = 20,
    top = 58,
    cols = Math.min(4, canvases.length);
  let cw = 0,
    ch = 0;
  canvases.forEach((c) => {
    cw = Math.max(cw, c.width);
    ch = Math.max(ch, c.height);
  });
  const rows = Math.ceil(canvases.length / cols);
  const out = document.createElement('canvas');
  out.width = Math.max(cols * (cw + pad) + pad, 480);
  out.height = top + rows * (ch + title + pad) + pad;
  const ctx = out.getContext('2d');
  const bg = info.colors ? info.colors.bg : cssVar('--bg-card'),
    fg = info.colors ? info.colors.fg : cssVar('--fg');
  ctx.fillStyle = bg;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = fg;
  ctx.font = '13px system-ui, sans-serif';
  ctx.fillText(info.caption, pad, pad + 12);
  const grad = ctx.createLinearGradient(pad + 14, 0, pad + 154, 0);
  legendStops(info.scale).forEach((c, i) => grad.addColorStop(i / 8, c));
  ctx.fillText('0', pad, pad + 38);
  ctx.fillStyle = grad;
  ctx.fillRect(pad + 14, pad + 27, 140, 12);
  ctx.fillStyle = fg;
  ctx.fillText(legendHi(info), pad + 160, pad + 38);
  ctx.font = 'bold 14px system-ui, sans-serif';
  canvases.forEach((c, i) => {
    const x = pad + (i % cols) * (cw + pad),
      y = top + Math.floor(i / cols) * (ch + title + pad);
    ctx.fillText(names[i], x, y + 14);
    ctx.drawImage(c, x, y + title);
  });
  return out;
}

// Saves a file the page made through a temporary link in parent (an element of the page or view that made it): the
// browser's own download, with no word about a sandboxed frame (chrome/download.js adds that).
/** @param {string} name @param {Blob} blob @param {Element} parent */
export function saveFile(name, blob, parent) {
  const a = parent.ownerDocument.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.hidden = true;
  parent.appendChild(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}
