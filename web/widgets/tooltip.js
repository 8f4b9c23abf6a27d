// MHA Explorer — the hover readout of a heatmap: a tooltip (a fixed-position element of the caller's, one per
// page or per view) that follows the pointer with the cell's words. describe(cell, mat) → {main, value, top}
// or null (then the tooltip hides).
import { el } from './dom.js';
import { cellAt } from './heatmap.js';

export function attachTip(canvas, tip, getMat, describe) {
  const win = canvas.ownerDocument.defaultView;
  canvas.addEventListener('mousemove', (e) => {
    const cell = cellAt(canvas, e),
      mat = getMat();
    const words = cell && mat && cell[0] < (mat.T || mat.S) && cell[1] < mat.S ? describe(cell, mat) : null;
    if (!words) {
      tip.hidden = true;
      return;
    }
    tip.textContent = '';
    tip.appendChild(el('div', { class: 'tip-main' }, words.main));
    tip.appendChild(el('div', { class: 'tip-val' }, words.value));
    tip.appendChild(el('div', { class: 'tip-top' }, words.top));
    tip.hidden = false;
    let x = e.clientX + 14,
      y = e.clientY + 14;
    const tw = tip.offsetWidth,
      th = tip.offsetHeight;
    if (x + tw > win.innerWidth - 8) x = e.clientX - tw - 14;
    if (y + th > win.innerHeight - 8) y = e.clientY - th - 14;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
  canvas.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });
}
