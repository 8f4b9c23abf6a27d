// @ts-check
// MHA Explorer — one component's DOM, for the explorer and the lab alike: its markup (explorer/template.js,
// lab/markup.html) with every id given the instance's prefix (a page's own component has the prefix '', so its ids and
// anchors stay as they were; another mount gets a fresh one: mhx1-, mhxlab1-, …), lookups by the unprefixed name
// inside this instance only, and small setters that write only when the value changes, so a redraw invalidates no
// style or layout it does not have to.

// Attributes that name ids: relations (space-separated lists) and in-page links.
const ID_LISTS = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls'];

// Instances numbered, for their ids' prefixes: <kind>1-, <kind>2-, … (one not in use in root's document or shadow root,
// should another bundle have mounted some there too).
let mounted = 0;
/** @param {Element} root @param {string} kind 'mhx' (an explorer), 'mhxlab' (a lab) */
export function freshPrefix(root, kind) {
  const ids = /** @type {Document | ShadowRoot} */ (root.getRootNode());
  let prefix;
  do prefix = kind + ++mounted + '-';
  while (ids.getElementById && ids.getElementById(prefix + 'status'));
  return prefix;
}

export class Scope {
  // root: the element the component lives in (its markup goes first in it); html: its markup; prefix: the ids' prefix
  // (letters, digits, - and _).
  /** @param {Element} root @param {string} html @param {string} prefix */
  constructor(root, html, prefix) {
    if (!/^[A-Za-z0-9_-]*$/.test(prefix))
      throw new Error('idPrefix may hold letters, digits, - and _ only, not "' + prefix + '"');
    const doc = root.ownerDocument;
    const box = doc.createElement('template');
    box.innerHTML = html;
    const fragment = box.content;
    this.root = root;
    this.prefix = prefix;
    /** @type {Map<string, any>} */
    this.byName = new Map();
    for (const node of fragment.querySelectorAll('*')) {
      if (node.id) {
        this.byName.set(node.id, node);
        node.id = prefix + node.id;
      }
      if (!prefix) continue;
      for (const a of ID_LISTS) {
        if (node.hasAttribute(a))
          node.setAttribute(
            a,
            node
              .getAttribute(a)
              .split(/\s+/)
              .map((n) => prefix + n)
              .join(' '),
          );
      }
      const href = node.getAttribute('href');
      if (href && href[0] === '#') node.setAttribute('href', '#' + prefix + href.slice(1));
    }
    this.nodes = Array.from(fragment.childNodes); // what dispose() removes
    root.insertBefore(fragment, root.firstChild);
  }
  // The element of this component whose id (without the prefix) is name.
  /** @param {string} name @returns {any} */
  $(name) {
    return this.byName.get(name) || null;
  }
  /** @param {string} selector @returns {any[]} */
  all(selector) {
    return Array.from(this.root.querySelectorAll(selector));
  }
  /** @param {any} e an element or its name @param {string} t */
  setText(e, t) {
    if (typeof e === 'string') e = this.$(e);
    if (e.textContent !== t) e.textContent = t;
  }
  // The element that has the focus in this explorer's document or shadow root.
  activeElement() {
    return /** @type {Document | ShadowRoot} */ (this.root.getRootNode()).activeElement;
  }
  remove() {
    for (const n of this.nodes) n.remove();
    this.byName.clear();
  }
}

/** @param {any} e @param {string} k @param {any} v */
export function setProp(e, k, v) {
  if (e[k] !== v) e[k] = v;
}
/** @param {any} sel a select @param {any[]} values */
export function setOptions(sel, values) {
  const key = values.join(',');
  if (sel._key === key && sel.options.length === values.length) return;
  sel._key = key;
  sel.textContent = '';
  values.forEach((v) => sel.appendChild(new Option(String(v), String(v))));
}
/** @param {number} n @returns {number[]} */
export function range(n) {
  const a = [];
  for (let i = 0; i < n; i++) a.push(i);
  return a;
}
