// MHA Explorer, the model page — an instructor's menu of models: menu=<a JSON file> (the URL parameter, or the
// element's menu attribute) names a JSON file on the page's own host that lists the models a course offers, folders
// next to it (as model= takes them) and Hub ids (hf:owner/name@rev):
//   {"models": [{"name": "MiniLM", "model": "all-MiniLM-L6-v2/", "about": "…"}, {"model": "hf:openai-community/gpt2"}]}
// (or a list of such strings). Each entry is previewed when it is chosen (a Hub id by the core's preview, hub.js; a
// folder by its config.json and the size of its weights), Open loads it. A file that is missing, not JSON, too large
// or of another shape is said in words, an entry that leads to another site is left out and said; the page stays
// usable. Nothing from the file is written as HTML.
import { el } from '../widgets/dom.js';

export const MAX_BYTES = 1 << 20; // an index larger than this is refused unread
export const MAX_ENTRIES = 200;
const TIMEOUT = 20000;
const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
const mb = (n) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0) + ' MB';

// The index's address: relative to the page, on its own host. → URL, or throws with the words.
export function menuURL(value, pageURL) {
  const page = new URL(pageURL);
  if (page.protocol === 'file:')
    throw new Error('menu=' + value + ' cannot be read from a page opened as a file: serve the page over http(s).');
  let url;
  try {
    url = new URL(String(value).trim(), page);
  } catch {
    throw new Error('menu=' + value + ' is not an address of a file such as models/index.json.');
  }
  if (url.origin !== page.origin)
    throw new Error('menu=' + value + ' leads to another site: the page reads its menu from its own host only.');
  return url;
}

// One entry → {name, about, hub (an id) | path (a folder's path on this host)}, or a string saying why not.
function entryOf(e, i, base) {
  const item = typeof e === 'string' ? { model: e } : e;
  if (!item || typeof item !== 'object' || Array.isArray(item) || typeof item.model !== 'string' || !item.model.trim())
    return 'entry ' + (i + 1) + ' has no "model" (a folder such as "gpt2/", or "hf:owner/name")';
  const model = item.model.trim();
  const name = clip(typeof item.name === 'string' && item.name.trim() ? item.name.trim() : model, 80);
  const about = typeof item.about === 'string' ? clip(item.about.trim(), 300) : '';
  if (/^hf:/i.test(model)) {
    const id = model.replace(/^hf:/i, '');
    if (!/^[\w.-]+\/[\w.-]+(@[\w./-]+)?$/.test(id) || id.length > 200)
      return 'entry ' + (i + 1) + ' (' + clip(model, 60) + ') is not a Hub id such as hf:openai-community/gpt2';
    return { name, about, hub: id };
  }
  let url;
  try {
    url = new URL(model.endsWith('/') ? model : model + '/', base);
  } catch {
    return 'entry ' + (i + 1) + ' (' + clip(model, 60) + ') is not a folder';
  }
  if (url.origin !== base.origin || /^[a-z][a-z0-9+.-]*:|^\/\//i.test(model))
    return 'entry ' + (i + 1) + ' (' + clip(model, 60) + ') leads to another site: left out';
  return { name, about, path: url.pathname };
}

// The index's text → {entries, problems: [words]}; throws when it is not a menu at all.
export function parseMenu(text, url) {
  let json;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const why = url.pathname + ' is not JSON (' + err.message + '): the menu needs {"models": [...]}.';
    throw new Error(why, { cause: err });
  }
  const list = Array.isArray(json) ? json : json && typeof json === 'object' ? json.models : undefined;
  if (!Array.isArray(list))
    throw new Error(url.pathname + ' has no "models" list: the menu needs {"models": [{"model": "gpt2/"}, ...]}.');
  const problems = [];
  if (list.length > MAX_ENTRIES) problems.push(list.length + ' entries: the menu shows the first ' + MAX_ENTRIES);
  const entries = [];
  list.slice(0, MAX_ENTRIES).forEach((e, i) => {
    const got = entryOf(e, i, url);
    if (typeof got === 'string') problems.push(got);
    else entries.push(got);
  });
  if (!entries.length)
    throw new Error(url.pathname + ' lists no model the page can open: ' + problems.join('; ') + '.');
  return { entries, problems };
}

// The index file's text, or throws with the words (missing, an HTML page, too large, no answer).
export async function fetchMenu(url) {
  let res;
  try {
    res = await fetch(url.href, { signal: AbortSignal.timeout(TIMEOUT), credentials: 'same-origin' });
  } catch (err) {
    throw new Error('The menu ' + url.pathname + ' could not be read (' + err.message + ').', { cause: err });
  }
  if (!res.ok) throw new Error('The menu ' + url.pathname + ' was not found (the server answered ' + res.status + ').');
  if (/^text\/html\b/i.test(res.headers.get('content-type') || ''))
    throw new Error(url.pathname + ' answered an HTML page, not the menu JSON: is the path right?');
  if (Number(res.headers.get('content-length')) > MAX_BYTES)
    throw new Error(url.pathname + ' is larger than ' + mb(MAX_BYTES) + ': not a menu of models.');
  const text = await res.text();
  if (text.length > MAX_BYTES)
    throw new Error(url.pathname + ' is larger than ' + mb(MAX_BYTES) + ': not a menu of models.');
  return text;
}

// A folder entry's preview rows: its config.json (family, layers × heads) and the size of its weights.
export async function folderRows(entry) {
  const base = new URL(entry.path, location.href);
  const res = await fetch(new URL('config.json', base), { signal: AbortSignal.timeout(TIMEOUT) });
  if (!res.ok) throw new Error(entry.name + ': ' + entry.path + 'config.json was not found (' + res.status + ').');
  let c;
  try {
    c = JSON.parse(await res.text());
  } catch (err) {
    throw new Error(entry.name + ': its config.json is not JSON (' + err.message + ').', { cause: err });
  }
  const n = (keys) => keys.map((k) => c[k]).find((v) => Number.isInteger(v));
  const layers = n(['num_hidden_layers', 'n_layer', 'n_layers']),
    heads = n(['num_attention_heads', 'n_head', 'n_heads']);
  const head = await fetch(new URL('model.safetensors', base), { method: 'HEAD' }).catch(() => null);
  const size = head && head.ok ? Number(head.headers.get('content-length')) : NaN;
  return [
    ['Model', entry.name + ' (' + entry.path + ')'],
    [
      'Family',
      (typeof c.model_type === 'string' ? c.model_type : '?') +
        (layers ? ', ' + layers + ' layers × ' + heads + ' heads' : ''),
    ],
    ['Weights', Number.isFinite(size) ? mb(size) : 'sharded, or not model.safetensors'],
  ];
}

function markup(hub) {
  const box = el('div', { class: 'mp-hub-menu', 'data-part': 'hub-menu' });
  const select = el('select', { 'aria-label': 'Models of this course' });
  const open = el('button', { type: 'button', class: 'btn small' }, 'Open');
  const label = el('label', null, 'Models of this course: ');
  label.append(select);
  const facts = el('dl', { class: 'mp-info mp-hub-facts' }),
    note = el('p', { class: 'note' });
  box.append(label, ' ', open, facts, note);
  hub.ui.box.before(box);
  return { box, select, open, facts, note };
}

// menu=: the index read, the menu shown above the id box. hub: hub.js's state (ctx, loading, open(value, auto)).
export async function mountMenu(hub, value) {
  const ui = markup(hub);
  let menu;
  try {
    const url = menuURL(value, document.baseURI);
    menu = parseMenu(await fetchMenu(url), url);
  } catch (err) {
    ui.select.hidden = ui.open.hidden = true;
    ui.note.textContent = err.message;
    hub.ctx.say('menu', err.message);
    return null;
  }
  menu.entries.forEach((e, i) => ui.select.append(el('option', { value: String(i) }, e.name)));
  ui.note.textContent = menu.problems.length ? 'Left out of the menu: ' + menu.problems.join('; ') + '.' : '';
  const chosen = () => menu.entries[Number(ui.select.value)];
  ui.select.addEventListener('change', () => previewEntry(hub, ui, chosen(), menu).catch(() => {}));
  ui.open.addEventListener('click', () => {
    const e = chosen();
    const v = e.hub ? 'hf:' + e.hub : e.path;
    hub.ctx.track(e.hub ? hub.open(v, true) : hub.loading.loadFromURL(v)).catch(() => {});
  });
  await previewEntry(hub, ui, chosen(), menu).catch(() => {});
  return menu;
}

// The chosen entry's facts: a Hub id's preview (hub.js's panel, with Download), a folder's config.json.
async function previewEntry(hub, ui, entry, menu) {
  ui.facts.textContent = '';
  const left = menu.problems.length ? ' Left out of the menu: ' + menu.problems.join('; ') + '.' : '';
  ui.note.textContent = (entry.about ? entry.about : '') + left;
  if (entry.hub) return hub.open('hf:' + entry.hub, false);
  try {
    for (const [k, v] of await folderRows(entry)) ui.facts.append(el('dt', null, k), el('dd', null, v));
  } catch (err) {
    ui.note.textContent = err.message + left;
    throw err;
  }
  return null;
}
