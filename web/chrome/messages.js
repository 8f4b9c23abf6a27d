// The messages above a page (the page's and the lab's #messages): one paragraph each, announced as alerts.
import { el } from '../widgets/dom.js';

// Rewrites box only when the messages changed (no DOM churn, and the live region stays quiet).
export function showMessages(box, messages) {
  const key = messages.join('\u0001');
  if (box._key === key) return;
  box._key = key;
  box.textContent = '';
  for (const m of messages) box.appendChild(el('p', { class: 'msg', role: 'alert' }, m));
}
