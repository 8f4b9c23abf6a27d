// MHA Explorer, the model page — a model by its Hugging Face id: the box beside the folder input, model=hf:owner/name@rev,
// <mha-explorer model="hf:…">. The core's previewHubModel says what it is before anything large downloads (the
// preview panel, with Download), downloadHubModel brings its files (progress, Cancel; kept in the browser's store for
// the next visit), and loading.js's loadFiles loads them as a dropped folder's. The Hub's address: hub= (HF_ENDPOINT's
// role). mountHub(ctx, loading) wraps loading.loadFromURL so that an hf: value comes here.
import { el } from '../widgets/dom.js';
import { mountMenu } from './menu.js';

export const ASK_ABOVE = 200e6; // a download above this many bytes waits for the Download button
const mb = (n) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0) + ' MB';
export const isHubValue = (v) => /^hf:/i.test(String(v || '').trim());

// The preview's facts in words: [label, value] rows.
export function previewRows(p) {
  const dtypes = Object.entries(p.dtypes)
    .map(([d, n]) => d + ' ' + (n / 1e6).toFixed(1) + 'M')
    .join(', ');
  return [
    ['Model', p.repo + ' @ ' + (p.commit ? p.commit.slice(0, 12) : p.revision) + (p.stored ? ' (stored)' : '')],
    ['Family', (p.modelType || '?') + (p.layers ? ', ' + p.layers + ' layers × ' + p.heads + ' heads' : '')],
    ['Parameters', (p.params / 1e6).toFixed(1) + 'M (' + dtypes + ')'],
    ['Download', p.stored ? 'none: stored in this browser' : mb(p.downloadBytes) + ' in ' + p.files.length + ' files'],
    [
      'Memory',
      'about ' +
        mb(p.memory.needed) +
        ' of the ' +
        mb(p.memory.limit) +
        ' this browser can give' +
        (p.memory.fits ? '' : ': too much'),
    ],
  ];
}

// What stops the download, in words (null: nothing).
export function refusal(p) {
  if (p.unsupported) return p.repo + ': ' + p.unsupported;
  if (!p.memory.fits) return p.repo + ' needs more memory than this browser can give the page: nothing was downloaded.';
  return null;
}

function markup(ctx) {
  const box = el('form', { class: 'mp-hub', 'data-part': 'hub' });
  const input = el('input', {
    type: 'text',
    name: 'hub-id',
    placeholder: 'openai-community/gpt2',
    'aria-label': 'Hugging Face model id',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const go = el('button', { type: 'submit', class: 'btn small' }, 'Preview');
  const label = el('label', null, 'or a Hugging Face model id: ');
  label.append(input);
  box.append(label, ' ', go);
  const panel = el('div', { class: 'mp-hub-preview', 'data-part': 'hub-preview', hidden: '' });
  const facts = el('dl', { class: 'mp-info mp-hub-facts' });
  const note = el('p', { class: 'note' });
  const download = el('button', { type: 'button', class: 'btn small' }, 'Download');
  panel.append(facts, note, download);
  const stored = el('details', { class: 'mp-hub-stored', 'data-part': 'hub-stored' });
  stored.append(el('summary', null, 'Stored models'), el('ul'), el('p', { class: 'note' }));
  const buttons = ctx.$('pick-folder').parentElement;
  buttons.after(box, panel, stored);
  return { box, input, panel, facts, note, download, stored };
}

// ctx: context.js's; loading: loading.js's; params: the page's (hub=: the Hub's address). → {preview, refreshStored}.
export function mountHub(ctx, loading, params) {
  const ui = markup(ctx);
  const endpoint = params.get('hub') || undefined;
  const hub = { ctx, loading, ui, endpoint, preview: null };
  hub.open = (value, auto) => openHub(hub, value, auto);
  const fromURL = loading.loadFromURL;
  loading.loadFromURL = (value) => (isHubValue(value) ? openHub(hub, value, true) : fromURL(value));
  ui.box.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = ui.input.value.trim();
    if (v) ctx.track(openHub(hub, 'hf:' + v.replace(/^hf:/i, ''), false)).catch(() => {});
  });
  ui.download.addEventListener('click', () => {
    if (hub.preview) ctx.track(download(hub, hub.preview)).catch(() => {});
  });
  ui.stored.addEventListener('toggle', () => ui.stored.open && listStored(hub));
  if (params.get('menu')) hub.menu = mountMenu(hub, params.get('menu')); // menu.js: an instructor's index.json
  return { preview: (v) => openHub(hub, v, false), refreshStored: () => listStored(hub) };
}

// An hf: value: its preview shown, then (auto: a link's model=, under ASK_ABOVE or stored) its download and load.
async function openHub(hub, value, auto) {
  const { ctx, ui } = hub;
  const M = await hub.loading.core;
  const id = String(value).trim().replace(/^hf:/i, '');
  ui.input.value = id;
  ctx.say('load', '');
  ctx.status('Asking the Hub about ' + id + '…');
  let p;
  try {
    p = await M.previewHubModel({ hub: id, endpoint: hub.endpoint });
  } catch (err) {
    ctx.say('load', err.message);
    ctx.status(ctx.S.model ? ctx.shown() : 'No model loaded.');
    throw err;
  }
  showPreview(hub, p);
  const refused = refusal(p);
  if (refused) {
    ctx.say('load', refused);
    throw new Error(refused);
  }
  if (auto && (p.stored || p.downloadBytes <= ASK_ABOVE)) return download(hub, p);
  ctx.status('Preview of ' + id + ': Download loads it.');
  return null;
}

function showPreview(hub, p) {
  const { ui } = hub;
  hub.preview = p;
  ui.facts.textContent = '';
  for (const [k, v] of previewRows(p)) ui.facts.append(el('dt', null, k), el('dd', null, v));
  const refused = refusal(p);
  ui.note.textContent =
    refused ||
    (p.stored
      ? 'Stored in this browser: it loads with nothing downloaded.'
      : p.downloadBytes > ASK_ABOVE
        ? 'Large: ' + mb(p.downloadBytes) + ' to download (kept in this browser for the next visit).'
        : 'Kept in this browser for the next visit once downloaded.');
  ui.download.hidden = !!refused;
  ui.download.textContent = p.stored ? 'Load' : 'Download ' + mb(p.downloadBytes);
  ui.panel.hidden = false;
}

// The files (progress in MB and MB/s, Cancel), then loaded as a folder's; a failure keeps the model shown.
async function download(hub, p) {
  const { ctx, loading } = hub;
  const M = await loading.core;
  if (ctx.S.loading) ctx.S.loading.abort();
  const abort = (ctx.S.loading = new AbortController());
  const t0 = Date.now();
  const progress = ({ loaded, total }) => {
    const s = Math.max(0.001, (Date.now() - t0) / 1000);
    ctx.progress(
      'Downloading ' + p.repo + ': ' + mb(loaded) + ' of ' + mb(total) + ', ' + mb(loaded / s) + '/s',
      loaded / total,
    );
  };
  ctx.progress(p.stored ? 'Reading ' + p.repo + ' from this browser…' : 'Downloading ' + p.repo + '…', 0);
  ctx.status('Downloading the model…');
  let got;
  try {
    got = await M.downloadHubModel({
      hub: p.repo + '@' + (p.commit || p.revision),
      endpoint: hub.endpoint,
      preview: p,
      signal: abort.signal,
      onProgress: progress,
    });
  } catch (err) {
    if (ctx.S.loading === abort) {
      ctx.S.loading = null;
      ctx.progress(null);
      ctx.say(
        'load',
        abort.signal.aborted
          ? 'Loading was cancelled' + (ctx.S.model ? ': the previous model stays.' : '.')
          : err.message,
      );
      ctx.status(ctx.S.model ? ctx.shown() : 'No model loaded.');
    }
    throw err;
  }
  if (ctx.S.loading !== abort) return null;
  ctx.S.loading = null;
  const files = got.files.map((f) => {
    const file = new File([f.bytes], f.name.split('/').pop());
    file.relativePath = f.name;
    return file;
  });
  const folder = 'hf:' + p.repo + '@' + (p.commit || p.revision);
  await loading.loadFiles(files, { folder, dropped: false, hub: p });
  if (got.storeError) ctx.say('load', 'Not stored for the next visit: ' + got.storeError + '.');
  if (hub.ui.stored.open) listStored(hub);
  return got;
}

// The "Stored models" list: each with its size and Delete, the total against navigator.storage.estimate().
async function listStored(hub) {
  const M = await hub.loading.core;
  const list = hub.ui.stored.querySelector('ul'),
    note = hub.ui.stored.querySelector('p');
  const models = await M.storedHubModels().catch(() => []);
  list.textContent = '';
  for (const m of models) {
    const del = el('button', { type: 'button', class: 'btn small' }, 'Delete');
    del.addEventListener('click', () =>
      M.deleteStoredHubModel(m.id, { endpoint: m.endpoint }).then(() => listStored(hub)),
    );
    const from = m.endpoint === 'https://huggingface.co' ? '' : ' (from ' + m.endpoint + ')';
    const item = el('li', null, m.repo + ' @ ' + String(m.commit).slice(0, 12) + from + ', ' + mb(m.bytes) + ' ');
    item.append(del);
    list.append(item);
  }
  const total = models.reduce((s, m) => s + m.bytes, 0);
  const storage = typeof navigator === 'object' && navigator.storage;
  const est = storage && storage.estimate ? await storage.estimate().catch(() => null) : null;
  note.textContent = models.length
    ? mb(total) + ' stored' + (est && est.quota ? ' (this site may use ' + mb(est.quota) + ')' : '') + '.'
    : 'No model is stored in this browser.';
}
