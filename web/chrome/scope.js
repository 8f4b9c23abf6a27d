// MHA Explorer — one explorer's DOM: its markup (template.js) with every id given the instance's prefix (the hosted
// page's prefix is '', so its ids and anchors stay as they were; another mount gets a fresh one, mhx1-, mhx2-, …),
// lookups by the unprefixed name inside this instance only, and small setters that write only when the value changes,
// so a redraw invalidates no style or layout it does not have to.

// Attributes that name ids: relations (space-separated lists) and in-page links.
const ID_LISTS = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls'];

export class Scope {
  // root: the element the explorer lives in; html: its markup; prefix: the ids' prefix.
  constructor(root, html, prefix) {
    const doc = root.ownerDocument;
    const box = doc.createElement('template');
    box.innerHTML = html;
    const fragment = box.content;
    this.root = root;
    this.prefix = prefix;
    this.byName = new Map();
    for (const node of fragment.querySelectorAll('*')) {
      if (node.id) { this.byName.set(node.id, node); node.id = prefix + node.id; }
      if (!prefix) continue;
      for (const a of ID_LISTS) {
        if (node.hasAttribute(a)) node.setAttribute(a, node.getAttribute(a).split(/\s+/).map((n) => prefix + n).join(' '));
      }
      const href = node.getAttribute('href');
      if (href && href[0] === '#') node.setAttribute('href', '#' + prefix + href.slice(1));
    }
    this.nodes = Array.from(fragment.childNodes);   // what dispose() removes
    root.insertBefore(fragment, root.firstChild);
  }
  // The element of this explorer whose id (without the prefix) is name.
  $(name) { return this.byName.get(name) || null; }
  all(selector) { return Array.from(this.root.querySelectorAll(selector)); }
  setText(e, t) { if (typeof e === 'string') e = this.$(e); if (e.textContent !== t) e.textContent = t; }
  // The element that has the focus in this explorer's document or shadow root.
  activeElement() { return this.root.getRootNode().activeElement; }
  remove() { for (const n of this.nodes) n.remove(); this.byName.clear(); }
}

export function setProp(e, k, v) { if (e[k] !== v) e[k] = v; }
export function setOptions(sel, values) {
  const key = values.join(',');
  if (sel._key === key && sel.options.length === values.length) return;
  sel._key = key; sel.textContent = '';
  values.forEach((v) => sel.appendChild(new Option(String(v), String(v))));
}
export function range(n) { const a = []; for (let i = 0; i < n; i++) a.push(i); return a; }
