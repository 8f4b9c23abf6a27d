// MHA Explorer — small DOM setters for the page's views: each writes only when the value changes, so a
// redraw invalidates no style or layout it does not have to.
export const $ = function (id) { return document.getElementById(id); };
export function setText(e, t) { if (typeof e === 'string') e = $(e); if (e.textContent !== t) e.textContent = t; }
export function setProp(e, k, v) { if (e[k] !== v) e[k] = v; }
export function setOptions(sel, values) {
  var key = values.join(',');
  if (sel._key === key && sel.options.length === values.length) return;
  sel._key = key; sel.textContent = '';
  values.forEach(function (v) { sel.appendChild(new Option(String(v), String(v))); });
}
export function range(n) { var a = []; for (var i = 0; i < n; i++) a.push(i); return a; }

