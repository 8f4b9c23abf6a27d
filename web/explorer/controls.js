// @ts-check
// MHA Explorer — the controls: every control named after a page property (template.js's name=) bound through the
// property engine, its effect (state/props.js: rebuild → recompute, redraw → redraw) deciding what follows; the few
// with more to do (a new example, d_model and num_heads) say so in AFTER; then the buttons (exports, copies, files).
import { PAGE_PROPS, pageProp, setValue } from '../state/page.js';
import { effectOf } from '../state/props.js';
import { SCALES } from '../state/scales.js';
import { LESSONS } from '../lessons/index.js';
import { applyTheme, otherTheme } from '../chrome/theme.js';
import { wireFileDrop } from '../chrome/files.js';
import { copyWithButton } from '../chrome/clipboard.js';
import { download } from '../chrome/download.js';
import { followLinksTo } from '../chrome/frame.js';
import { fillEmbedHosts } from '../chrome/share.js';
import { bindControls, controlsOf, typedControl } from '../chrome/controls.js';
import { range } from '../chrome/scope.js';
import { FILES } from '../compute/source.js';
import { exportSVG, exportPNG } from '../widgets/export.js';
import { pipeline } from '../widgets/trace.js';
import { MODEL_PROPS, applyFitText, effective, nearestDivisor, presetOf } from './settings.js';
import { posted, recompute, redraw, syncURL } from './draw.js';
import { dropWeights, loadFile, useWeights } from './files.js';
import { selB, headMat, headName } from './read.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */

// What a control's new value brings with it, before its effect runs.
/** @type {Record<string, (ex: ExplorerState, value: any) => void>} */
const AFTER = {
  preset(ex, v) {
    // a new example starts from its own values
    MODEL_PROPS.concat(['view', 'head', 'batch', 'avg']).forEach((k) => {
      delete ex.st.explicit[k];
      ex.st.values[k] = pageProp(k).def;
    });
    setValue(ex.st, 'preset', v);
    ex.messages = [];
    if (v) dropWeights(ex);
    else ex.weightsError = '';
  },
  view(ex) {
    setValue(ex.st, 'head', 0);
    setValue(ex.st, 'batch', 0);
  },
  dmodel(ex, D) {
    const H = effective(ex).heads;
    if (D % H) setValue(ex.st, 'heads', nearestDivisor(D, H));
  },
  heads(ex) {
    setValue(ex.st, 'head', 0);
  },
  theme(ex) {
    applyTheme(ex.st.values.theme, ex.root);
  },
};

// A control changed: a refused typed value keeps the one in use and says so (the control shows it again).
/** @param {ExplorerState} ex */
function onControl(ex) {
  return (name, r, control) => {
    if (!r.ok) {
      ex.messages = [r.message];
      recompute(ex);
      return;
    }
    if (typedControl(control)) ex.messages = [];
    setValue(ex.st, name, r.value);
    if (AFTER[name]) AFTER[name](ex, r.value);
    if (effectOf(pageProp(name)) === 'redraw') redraw(ex);
    else recompute(ex);
  };
}

// The sentence applies as the student types (after a short pause), cut to what the page draws.
/** @param {ExplorerState} ex */
function bindText(ex) {
  const text = ex.$('c-text');
  let pause = null;
  text.addEventListener('input', () => {
    ex.cancel(pause);
    pause = ex.later(() => {
      setValue(ex.st, 'text', text.value);
      ex.messages = [];
      if (applyFitText(ex).message) text.value = ex.st.values.text;
      recompute(ex);
    }, 120);
  });
}

// The choices that come from a list: the lessons, the colour scales.
/** @param {ExplorerState} ex */
function fillChoices(ex) {
  const ps = ex.$('c-preset');
  ps.appendChild(new Option('Your sentence', ''));
  LESSONS.forEach((l) => ps.appendChild(new Option(l.menu, l.id)));
  SCALES.forEach((s) => ex.$('c-scale').appendChild(new Option(s.label, s.name)));
  fillEmbedHosts(ex.$('embed-host'));
  pipeline(ex.$('pipeline'));
}

// What an exported image says about itself: the configuration, the batch item and the colour range.
/** @param {ExplorerState} ex */
function exportInfo(ex) {
  const cur = /** @type {import('./state.js').Current} */ (ex.current),
    eff = cur.eff,
    r = cur.res,
    pr = presetOf(eff),
    f = cur.forward;
  const what = pr
    ? pr.title(eff) + (r.note ? ' — ' + r.note : '')
    : 'MultiHeadAttention(d_model=' +
      eff.dmodel +
      ', num_heads=' +
      eff.heads +
      '), ' +
      (f.file
        ? 'weights from ' + f.file.file + (f.file.kind === 'model' ? ' layer ' + f.file.layer : '')
        : 'torch.manual_seed(' + eff.seed + ')') +
      (f.mask ? ', causal' : '') +
      (f.train && f.dropout ? ', train() dropout ' + f.dropout : '');
  return {
    caption: 'MHA Explorer · ' + what + (r.B > 1 ? ' · batch item ' + selB(cur) : '') + ' · ' + r.S + ' tokens',
    scale: eff.scale,
    norm: eff.norm,
    vmax: r.vmax,
    colors: ex.colors(),
  };
}

/** @param {ExplorerState} ex */
function exportImage(ex, kind) {
  const cur = ex.current;
  if (!cur) return;
  if (kind === 'png') {
    const cs = ex.panels.heads.canvases();
    const names = cs.map((c) => (c.hasAttribute('data-avg') ? 'Average' : 'Head ' + c.getAttribute('data-head')));
    exportPNG(cs, names, exportInfo(ex)).toBlob((blob) => download('mha-heads.png', blob, ex.$('export-png'), 'image'));
    return;
  }
  const b = selB(cur),
    items = /** @type {any[]} */ (range(cur.res.H)).concat(cur.res.H > 1 ? ['avg'] : []);
  const svg = exportSVG(
    items.map((h) => headMat(cur, b, h)),
    cur.labels,
    items.map((h) => headName(cur, h)),
    exportInfo(ex),
  );
  download('mha-heads.svg', new Blob([svg], { type: 'image/svg+xml' }), ex.$('export-svg'), {
    text: svg,
    say: 'Here is the SVG: copy it into a file named mha-heads.svg.',
  });
}

// "Show as table" under the enlarged head.
/** @param {ExplorerState} ex */
function toggleTable(ex) {
  if (!ex.current) return;
  const box = ex.$('table-box'),
    open = box.hidden,
    button = ex.$('show-table');
  box.hidden = !open;
  button.setAttribute('aria-expanded', String(open));
  button.textContent = open ? 'Hide table' : 'Show as table';
  if (open) ex.panels.detail.drawTable(ex.current);
  posted(ex);
}

// The buttons: theme, reset, exports, copies, weights files. api: the explorer's (share link, embed code).
/** @param {ExplorerState} ex @param {any} api */
function bindButtons(ex, api) {
  const on = (id, ev, fn) => ex.$(id).addEventListener(ev, fn),
    out = ex.$('share-out');
  on('theme-toggle', 'click', () => {
    setValue(ex.st, 'theme', otherTheme(ex.root));
    applyTheme(ex.st.values.theme, ex.root);
    syncURL(ex);
    redraw(ex);
  });
  on('reset-preset', 'click', () => {
    MODEL_PROPS.forEach((k) => {
      delete ex.st.explicit[k];
    });
    recompute(ex);
  });
  on('show-table', 'click', () => toggleTable(ex));
  on('export-png', 'click', () => exportImage(ex, 'png'));
  on('export-svg', 'click', () => exportImage(ex, 'svg'));
  on('copy-link', 'click', () => copyWithButton(api.shareURL(), out, ex.$('copy-link')));
  on('copy-embed', 'click', () => copyWithButton(api.embedCode(ex.$('embed-host').value), out, ex.$('copy-embed')));
  on('copy-py', 'click', () => copyWithButton(ex.panels.lesson.pageSnippet(ex.current).code, out, ex.$('copy-py')));
  on('load-weights', 'change', (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (f) loadFile(ex, f);
  });
  on('random-weights', 'click', () => {
    dropWeights(ex);
    recompute(ex);
  });
  on('c-layer', 'change', () => {
    const l = ex.loaded;
    if (l) useWeights(ex, l.file, l.tensors, +ex.$('c-layer').value, l.metadata, l.how);
  });
}

// Everything a student acts on, and the window's events the explorer follows (resize, the system's theme).
/** @param {ExplorerState} ex @param {any} api */
export function bindAll(ex, api) {
  const { root, signal } = ex;
  fillChoices(ex);
  ex.$('controls').addEventListener('submit', (e) => e.preventDefault()); // Enter in a field: its change event applies it
  bindControls(controlsOf(root, PAGE_PROPS), PAGE_PROPS, onControl(ex), (name) => effective(ex)[name], undefined, [
    'text',
  ]);
  bindText(ex);
  bindButtons(ex, api);
  wireFileDrop((f) => loadFile(ex, f), ex.ownsDocument ? { signal } : { target: root, flag: root, signal });
  // "Skip to the heatmaps": an in-page link on the page; in a shadow root (which a # link does not reach) it focuses
  if (!ex.ownsDocument)
    root.querySelector('.skip').addEventListener('click', (e) => {
      e.preventDefault();
      ex.$('heads-title').focus();
    });
  if (ex.options.onLab) followLinksTo(root, ex.base + FILES.lab, ex.options.onLab, signal);
  let resize = null;
  window.addEventListener(
    'resize',
    () => {
      ex.cancel(resize);
      resize = ex.later(() => redraw(ex), 150);
    },
    { signal },
  );
  // theme 'auto' follows the reader's system setting as it changes
  if (window.matchMedia) {
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener(
      'change',
      () => {
        if (effective(ex).theme === 'auto') {
          applyTheme('auto', ex.root);
          redraw(ex);
        }
      },
      { signal },
    );
  }
}
