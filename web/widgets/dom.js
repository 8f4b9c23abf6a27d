// MHA Explorer — DOM helpers the widgets share: element and SVG builders (text always through textContent,
// never innerHTML), attribute writes only on change, short labels, and a scope's theme colours for canvases.
export const SVGNS = 'http://www.w3.org/2000/svg';

export function el(tag, attrs, text) {
  const e = document.createElement(tag);
  if (attrs)
    for (const k of Object.keys(attrs)) {
      if (k === 'class') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
export function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k of Object.keys(attrs || {})) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = String(text);
  return e;
}
// Writes attribute k only when v differs from what this function last wrote there (no DOM read).
export function setAttr(e, k, v) {
  if (e['_' + k] !== v) {
    e['_' + k] = v;
    e.setAttribute(k, v);
  }
}
export function shortLabel(s, n) {
  s = String(s);
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

// A CSS custom property as computed on scope (the document's root by default).
export function cssVar(name, scope) {
  return (
    getComputedStyle(scope || document.documentElement)
      .getPropertyValue(name)
      .trim() || '#444'
  );
}
// The colours the canvases use, read once per theme of a scope (getComputedStyle forces a style recalc).
// scope: the element whose custom properties apply (the page: <html>; a view: its root); key: its theme.
export function themeColors(scope, key) {
  scope = scope || document.documentElement;
  if (key === undefined) key = scope.getAttribute('data-theme') || '';
  const c = scope._mhaColors;
  if (c && c.key === key) return c.colors;
  const colors = {
    border: cssVar('--border', scope),
    fgMuted: cssVar('--fg-muted', scope),
    accent: cssVar('--accent', scope),
    line: cssVar('--line', scope),
    ok: cssVar('--ok', scope),
    bg: cssVar('--bg-card', scope),
    fg: cssVar('--fg', scope),
  };
  scope._mhaColors = { key, colors };
  return colors;
}
// The cell step an arrow key asks for in a heatmap: [rows, columns], or null for another key.
export function arrowStep(key) {
  return { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key] || null;
}
