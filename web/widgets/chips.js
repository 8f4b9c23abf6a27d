// MHA Explorer — the page's token chips: each token with its position, at most `max` of them (80 when absent),
// then "+N more". Rebuilt only when the tokens shown change.
import { el } from './dom.js';

export function chips(container, tokens, max) {
  const n = Math.min(tokens.length, max || 80);
  const key = tokens.length + '|' + n + '|' + tokens.slice(0, n).join('\u0001');
  if (container._key === key && container.firstChild) return; // unchanged: keep the DOM
  container._key = key;
  container.textContent = '';
  for (let i = 0; i < n; i++) {
    const c = el('span', { class: 'chip', title: 'token ' + i }, tokens[i]);
    c.appendChild(el('sub', null, i));
    container.appendChild(c);
  }
  if (tokens.length > n) container.appendChild(el('span', { class: 'chip more' }, '+' + (tokens.length - n) + ' more'));
}
