// MHA Explorer, the model page — a real checkpoint's heads: the student drops a model folder (or the page's model=
// parameter names one next to it), the core loads it (loading.js: core.loadModel, with progress and Cancel), and for the
// text in the box (retokenized as the student types: forward.js) the page shows every head of every layer (grid.js),
// the role scores (roles.js), where a picked token looks (lookup.js), the top 5 predictions with heads switched off
// (ablate.js), the selected layer in the attention view (views/attention.js: the one view of the lessons, the notebook
// and this page) with its shape trace (trace.js), and the same in Python (snippet.js); panels.js draws them.
// createModelPage(root, {query, base, dropTarget}) → {api, update, dispose}: window.mhaExplorer (api.js), or the
// <mha-explorer model="…"> element's (web/entries/element.js).
import MARKUP from './markup.html';
import { el } from '../widgets/dom.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';
import { applyTheme, otherTheme } from '../chrome/theme.js';
import { copyWithButton } from '../chrome/clipboard.js';
import { FILES } from '../compute/source.js';
import { asRegion, withoutLandmarks } from '../chrome/landmarks.js';
import { createContext, readIndex } from './context.js';
import { createLoading } from './loading.js';
import { mountHub } from './hub.js';
import { createApi } from './api.js';
import { filesFromDrop, folderOf } from './files.js';
import { ROLES } from './roles.js';
import { toggleHead, wholeLayer, allBut } from './ablate.js';
import { render, setHeadsOff, drawAttention } from './forward.js';
import { createAblatedView } from './ablated-view.js';
import { createAblationMode } from './ablation-mode.js';
import { createWritesView } from './writes-view.js';
import { createRoleData } from './role-data.js';
import {
  drawAll,
  drawGrid,
  drawLook,
  drawPredictions,
  drawSide,
  drawTokens,
  drawView,
  select,
  snippet,
} from './panels.js';
import { HeadGrid } from './grid.js';
import { computeEmbeddings, drawEmbedding } from './embedding.js';
import { createHeadsPanels } from './heads-panels.js';
import { createBusy } from './busy.js';

export { DEFAULT_TEXT } from './context.js';
// A keystroke renders in the next task: the keystrokes that come while a forward runs (it blocks the page) are all
// in the box when the next render reads it, so they make one forward (a fixed delay would only add to each change).
const TYPING_MS = 0;

// query: the page's parameters (model, text, layer, head, theme); base: the folder of the core files and the other
// pages ('': the page's own; an element's links open in a new tab); dropTarget: where a dropped folder loads (the
// document; an element, itself).
export function createModelPage(root, { query = '', base = '', dropTarget = null } = {}) {
  root.classList.add('mhx', 'mhx-models');
  // in an element (a drop target of its own), one region of the host's page: no header or main landmark of its own
  root.insertAdjacentHTML('beforeend', dropTarget ? withoutLandmarks(MARKUP) : MARKUP);
  const unRegion = dropTarget ? asRegion(root, 'MHA Explorer: real models') : null;
  const params = new URLSearchParams(query);
  const ctx = createContext(root, params),
    { S, $ } = ctx;
  const life = new AbortController();
  ctx.signal = life.signal; // the listeners outside root, removed by dispose
  applyTheme(S.theme, root);
  $('text').value = S.text;
  $('other').value = S.other;
  linkPages(root, base);
  $('role').appendChild(el('option', { value: '' }, 'no score (layer by layer)'));
  for (const r of ROLES) $('role').appendChild(el('option', { value: r.name }, r.label));
  ctx.grid = new HeadGrid($('grid'), $('tip'), describeCell(ctx), {
    select: (l, h) => select(ctx, l, h),
    toggle: (l, h) => ctx.track(setHeadsOff(ctx, toggleHead(S.headsOff, l, h))),
  });
  const loading = createLoading(ctx, base);
  ctx.busy = createBusy(ctx, () => cancelWork(ctx)); // the busy sign with Cancel, the stale mark
  ctx.hub = mountHub(ctx, loading, params); // hf: ids (hub.js): the id box, model=hf:…
  // ready: a promise of whether a model and its text are shown, once the latest load or change has settled
  ctx.ready = loading.core
    .then(() => (params.get('model') && !life.signal.aborted ? loading.loadFromURL(params.get('model')) : null))
    .then(
      () => !!S.out,
      () => false,
    );
  ctx.track = (p) => {
    ctx.ready = p.then(
      () => !!S.out,
      () => false,
    );
    return p;
  };
  if (dropTarget) root.querySelector('.mp-anywhere').remove(); // a drop loads on the element only
  wireModelInputs(ctx, loading, dropTarget || root.ownerDocument);
  wireControls(ctx);
  wireReading(ctx);
  drawSide(ctx);
  ctx.analysis = createHeadsPanels(ctx); // generation, the lens, attribution, patching
  ctx.ablatedView = createAblatedView(ctx); // the grid's attention with heads off: ablated, full or their difference
  // how heads are switched off (zero, mean, resample): the heads off computed again on a change
  ctx.ablationMode = createAblationMode(ctx, () => (S.model ? ctx.track(setHeadsOff(ctx, S.headsOff)) : null));
  ctx.writesView = createWritesView(ctx, () => drawAttention(ctx)); // α·‖v·W_O‖ instead of α
  ctx.roleData = createRoleData(ctx); // a role's data: the repeated sequence's heatmaps, whether a head does it
  ctx.redrawAttention = () => drawAttention(ctx);
  const api = Object.assign(createApi(ctx, loading), ctx.analysis.api);
  return {
    api,
    update: (o) => updatePage(ctx, api, o),
    dispose: () => {
      disposePage(ctx, life, loading);
      if (unRegion) unRegion();
    },
  };
}

// The links to the page and the lab: their files next to this one, or their one-file pages from this one-file page;
// from an element (base given), the files in its folder, in a new tab.
function linkPages(root, base) {
  const page = root.querySelector('a[href="index.html"]'),
    lab = root.querySelector('a[href^="lab.html"]');
  page.setAttribute('href', base + FILES.page);
  lab.setAttribute('href', base + FILES.lab + '?preset=train-two-offsets');
  // a link that opens a new tab says so (↗ and its words); one that does not has no ↗
  for (const a of [page, lab]) {
    a.textContent = a.textContent.replace(/\s*↗$/, '');
    if (!base) continue;
    Object.assign(a, { target: '_blank', rel: 'noopener' });
    a.append(' ↗', el('span', { class: 'sr-only' }, ' (opens in a new tab)'));
  }
}

// Cancel of a computation: the model's worker stops and starts again from the model's files (model-host.js); the
// views shown stay, marked as the previous text's (forward.js says so when the forward's promise is refused).
function cancelWork(ctx) {
  if (!ctx.host) return;
  if (ctx.host.local) {
    ctx.say('text', 'The model runs on the page’s thread here: what it computes cannot be stopped.');
    return;
  }
  ctx.host.cancel().catch((err) => ctx.say('worker', 'The model could not start again after Cancel: ' + err.message));
}

// An element's attributes changed: {text, model, theme, layer, head} (each when given; a removed layer or head: 0).
function updatePage(ctx, api, o) {
  const S = ctx.S;
  for (const name of ['layer', 'head']) if (o[name] !== undefined) selectFromHost(ctx, api, name, o[name]);
  if (o.theme != null && o.theme !== S.theme) {
    S.theme = o.theme;
    applyTheme(S.theme, ctx.root);
    if (S.out) drawAll(ctx);
  }
  if (o.model && o.model !== (S.source && S.source.folder)) api.loadURL(o.model).catch(() => {});
  if (o.text != null && o.text !== S.text) api.set({ text: o.text });
}

// A layer or head attribute: that head selected, or (a value the page or the model loaded refuses) said, the selection
// kept; before a model is loaded, kept for it (loading.js's show fits it to the model).
function selectFromHost(ctx, api, name, raw) {
  const S = ctx.S,
    r = readIndex(name, raw === null ? '0' : String(raw));
  try {
    if (r.message) throw new Error(r.message.replace(/; using .*/, ''));
    if (S.info) api.select({ [name]: raw === null ? 0 : String(raw) });
    else S.sel[name] = r.value;
    ctx.say('select', '');
  } catch (err) {
    ctx.say('select', err.message + '; keeping ' + name + ' ' + S.sel[name] + '.');
  }
}

// Everything the page holds: its listeners outside root, the load under way, the model, the view, the markup.
function disposePage(ctx, life, loading) {
  if (life.signal.aborted) return;
  life.abort();
  loading.cancel();
  clearTimeout(ctx.typing);
  ctx.analysis.dispose();
  ctx.ablatedView.dispose();
  ctx.ablationMode.dispose();
  ctx.writesView.dispose();
  ctx.roleData.dispose();
  ctx.busy.dispose();
  if (ctx.host) ctx.host.dispose();
  if (ctx.resize) ctx.resize.disconnect();
  if (ctx.view) ctx.view.dispose();
  if (ctx.S.model) ctx.S.model.dispose();
  Object.assign(ctx.S, { model: null, out: null, loading: null });
  ctx.view = null;
  ctx.root.textContent = '';
  ctx.root.classList.remove('mhx', 'mhx-models', 'dropping');
}

// The words of a grid cell under the pointer.
function describeCell(ctx) {
  return (cell, mat, l, h) => {
    const [q, k] = cell,
      t = mat.labels || ctx.S.enc.texts;
    if (mat.raw) {
      // the difference view (ablated-view.js): the change of the weight, its largest rises
      const d = mat.raw[q * mat.S + k];
      return {
        main: 'Layer ' + l + ' head ' + h + ': “' + t[q] + '” (' + q + ') → “' + t[k] + '” (' + k + ')',
        value: 'change with the heads off ' + (d < 0 ? '−' : '+') + formatWeight(Math.abs(d)),
        top: 'largest rises for “' + t[q] + '”: ' + topKeysWords(Object.assign({}, mat, { data: mat.raw }), q, t),
      };
    }
    return {
      main: 'Layer ' + l + ' head ' + h + ': “' + t[q] + '” (' + q + ') → “' + t[k] + '” (' + k + ')',
      value: 'weight ' + formatWeight(mat.data[q * mat.S + k]),
      top: 'top keys for “' + t[q] + '”: ' + topKeysWords(mat, q, t),
    };
  };
}

// Where a model comes from: the file dialogs, a drop anywhere on the page, Cancel.
function wireModelInputs(ctx, loading, target) {
  const { root, $, signal } = ctx;
  const load = (files) =>
    ctx.track(loading.loadFiles(files, { folder: folderOf(files), dropped: true })).catch(() => {});
  for (const input of [$('pick-folder'), $('pick-files')]) {
    input.addEventListener('change', () => {
      const files = Array.from(input.files || []);
      input.value = '';
      if (files.length) load(files);
    });
  }
  $('cancel').addEventListener('click', loading.cancel);
  const hasFiles = (e) => !!e.dataTransfer && Array.prototype.includes.call(e.dataTransfer.types || [], 'Files');
  const on = (type, f) => target.addEventListener(type, f, { signal });
  on('dragover', (e) => {
    if (hasFiles(e)) {
      e.preventDefault();
      root.classList.add('dropping');
    }
  });
  on('dragleave', (e) => {
    if (!e.relatedTarget || !root.contains(e.relatedTarget)) root.classList.remove('dropping');
  });
  on('drop', (e) => {
    root.classList.remove('dropping');
    if (!hasFiles(e)) return;
    e.preventDefault();
    ctx
      .track(
        filesFromDrop(e.dataTransfer).then((files) =>
          loading.loadFiles(files, { folder: folderOf(files), dropped: true }),
        ),
      )
      .catch(() => {});
  });
}

// The sentence embedding's second text and the token the predictions follow.
function wireReading(ctx) {
  const { S, $ } = ctx;
  $('other').addEventListener('input', () => {
    S.other = $('other').value;
    ctx.track(computeEmbeddings(ctx).then(() => drawEmbedding(ctx)));
  });
  $('follow').addEventListener('input', () => {
    const text = $('follow').value;
    S.follow = { text, id: text && S.vocab ? S.vocab.findToken(text) : -1 };
    if (S.out) drawPredictions(ctx);
  });
}

// The text box, the role and head controls, the look pickers, Copy as Python, the theme and the grid's width.
function wireControls(ctx) {
  const { S, $, root } = ctx;
  $('text').addEventListener('input', () => {
    S.text = $('text').value;
    if (ctx.typing) return; // a render is due: it reads the latest text
    let rendered;
    ctx.track(new Promise((r) => (rendered = r)));
    ctx.typing = setTimeout(() => {
      ctx.typing = 0;
      rendered(render(ctx).then((ok) => ok && ctx.ablation));
    }, TYPING_MS);
  });
  $('role').addEventListener('change', () => {
    S.role = $('role').value;
    S.roleText = false;
    drawGrid(ctx);
    drawSide(ctx);
  });
  $('min-score').addEventListener('input', () => {
    S.minScore = +$('min-score').value;
    $('min-score-out').textContent = S.minScore.toFixed(2);
    drawGrid(ctx);
  });
  $('range').addEventListener('change', () => {
    S.range = $('range').value;
    drawGrid(ctx);
    if (S.out) drawView(ctx);
  });
  $('order').addEventListener('change', () => {
    S.order = $('order').value;
    drawGrid(ctx);
  });
  const off = (heads) => S.model && ctx.track(setHeadsOff(ctx, heads()));
  $('off-one').addEventListener('click', () => off(() => toggleHead(S.headsOff, S.sel.layer, S.sel.head)));
  $('off-layer').addEventListener('click', () => off(() => S.headsOff.concat(wholeLayer(S.sel.layer, S.info.heads))));
  $('off-others').addEventListener('click', () =>
    off(() => allBut(S.sel.layer, S.sel.head, S.info.layers, S.info.heads)),
  );
  $('off-none').addEventListener('click', () => off(() => []));
  $('look-from').addEventListener('change', () => {
    S.query = +$('look-from').value;
    S.key = -1;
    drawTokens(ctx);
    drawLook(ctx);
  });
  $('look-to').addEventListener('change', () => {
    S.key = +$('look-to').value;
    drawLook(ctx);
  });
  $('look-more').addEventListener('click', () => {
    S.lookAll = !S.lookAll;
    drawLook(ctx);
  });
  $('copy-python').addEventListener('click', () => {
    if (S.model) copyWithButton(snippet(ctx), $('copy-out'), $('copy-python'));
  });
  $('theme-toggle').addEventListener('click', () => {
    S.theme = otherTheme(root);
    applyTheme(S.theme, root);
    if (S.out) drawAll(ctx);
  });
  if (typeof ResizeObserver === 'function') {
    let width = 0,
      frame = 0;
    ctx.resize = new ResizeObserver(() => {
      const w = $('grid').clientWidth;
      if (Math.abs(w - width) < 1 || frame) return;
      width = w;
      frame = requestAnimationFrame(() => {
        frame = 0;
        drawGrid(ctx);
      });
    });
    ctx.resize.observe($('grid'));
  }
}
