// @ts-check
// MHA Explorer — the state shown outside the panels: the controls' values and choices (bound by name=, controls.js),
// the notes beside them (loaded weights, d_k), and the layout (sections hidden, embed, folded controls).
import { PAGE_PROPS, SECTIONS, pageQueryString } from '../state/page.js';
import { divisors } from '../compute/explorer-run.js';
import { FILES } from '../compute/source.js';
import { setProp, setOptions } from '../chrome/scope.js';
import { controlsOf, showValues } from '../chrome/controls.js';
import { setAttr } from '../widgets/dom.js';
import { modified, presetOf } from './settings.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */

const DMODELS = [4, 8, 16, 32, 48, 64, 96, 128, 256, 384, 512, 768, 1024];
const EMBED_HIDE = ['controls', 'input', 'detail', 'trace', 'lesson'];
// Shown by their own code: the text while the student types in it, the choices that depend on the state.
const SHOWN_APART = ['text', 'dmodel', 'heads', 'batch', 'view'];

// The controls show eff (a fixed example, lesson 002, shows the values it uses, or no model for hand-built heads).
/** @param {ExplorerState} ex @param {Record<string, any>} eff */
export function showControls(ex, eff) {
  const $ = ex.$,
    pr = presetOf(eff),
    fixed = pr && pr.fixed;
  const shown = pr && pr.shown && ex.M ? pr.shown(ex.M, eff) : null;
  setProp($('model-fields'), 'hidden', !!fixed && !shown);
  if (shown) eff = Object.assign({}, eff, shown);
  showValues(controlsOf(ex.root, PAGE_PROPS), PAGE_PROPS, eff, SHOWN_APART);
  setProp($('f-view'), 'hidden', !(pr && pr.views));
  if (pr && pr.views) {
    const vs = $('c-view'),
      vkey = pr.views.join('|');
    if (vs._key !== vkey) {
      vs._key = vkey;
      vs.textContent = '';
      pr.views.forEach((v) => vs.appendChild(new Option(v[1], v[0])));
    }
    setProp(vs, 'value', eff.view || pr.views[0][0]);
  }
  setProp($('f-text'), 'hidden', !!pr || !!ex.given);
  setProp($('f-pos'), 'hidden', !!pr || !!(ex.given && ex.given.x));
  if ($('c-text').value !== eff.text && ex.scope.activeElement() !== $('c-text')) $('c-text').value = eff.text;
  showModelSize(ex, eff);
  showWeightsNote(ex, eff);
  setProp($('model-fields'), 'disabled', !!fixed);
  setProp(
    $('model-fields'),
    'title',
    fixed ? 'These examples are fixed by lesson 002; pick another example to change the model.' : '',
  );
  setProp($('reset-preset'), 'hidden', !(pr && pr.defaults && modified(eff).length));
}

// d_model's and num_heads' choices (the divisors of d_model) and the d_k note.
/** @param {ExplorerState} ex @param {Record<string, any>} eff */
function showModelSize(ex, eff) {
  const $ = ex.$,
    dm = $('c-dmodel'),
    list = DMODELS.slice(),
    fromX = !!(ex.given && ex.given.x && !presetOf(eff));
  if (list.indexOf(eff.dmodel) < 0) {
    list.push(eff.dmodel);
    list.sort((a, b) => a - b);
  }
  setOptions(dm, list);
  setProp(dm, 'value', String(eff.dmodel));
  setProp(dm, 'disabled', !!ex.loaded || fromX);
  setProp(dm, 'title', fromX ? 'd_model comes from your x' : ex.loaded ? 'd_model comes from the loaded weights' : '');
  setOptions($('c-heads'), divisors(eff.dmodel));
  setProp($('c-heads'), 'value', String(eff.heads));
  const dk = eff.dmodel / eff.heads;
  ex.scope.setText(
    'dk-note',
    'd_k = ' +
      eff.dmodel +
      ' / ' +
      eff.heads +
      ' = ' +
      dk +
      ' per head. ' +
      (eff.heads === 1
        ? 'One head: a single attention pattern over all ' + eff.dmodel + ' dims.'
        : 'Each head compares queries and keys in its own ' +
          dk +
          ' dims; the parameter count is the same for any ' +
          'number of heads.' +
          (ex.loaded ? '' : ' Untrained heads look alike whatever their number: training is what makes them differ.')),
  );
}

// Where the weights come from (random, or a file and what it says), the file's layers and its refusal.
/** @param {ExplorerState} ex @param {Record<string, any>} eff */
function showWeightsNote(ex, eff) {
  const $ = ex.$,
    loaded = ex.loaded;
  ex.scope.setText(
    'weights-note',
    loaded
      ? 'Loaded from ' +
          loaded.file +
          (loaded.kind === 'model' ? ', layer ' + loaded.layer + " of the lab's model" : '') +
          ' (d_model ' +
          loaded.dModel +
          (loaded.heads ? ', ' + loaded.heads + ' heads, as the file says' : '') +
          (loaded.from ? '; W_q, W_k, W_v, W_o read from ' + loaded.from : '') +
          '). ' +
          (loaded.heads
            ? eff.heads !== loaded.heads
              ? 'The page now splits it into ' + eff.heads + ' heads, as you chose. '
              : ''
            : loaded.saidHeads !== null
              ? 'The file says num_heads "' +
                loaded.saidHeads.slice(0, 20) +
                '", which does not split d_model ' +
                loaded.dModel +
                ': choose num_heads above. '
              : 'A state_dict does not say how many heads the module had: choose its num_heads above. ') +
          'Share links do not carry files: a link opens random weights.'
      : "Random: nn.Linear's init after torch.manual_seed(" +
          eff.seed +
          "). Load a .safetensors state_dict of the lessons' " +
          "MultiHeadAttention or of the training lab's model to see its heads (or drop the file on the page).",
  );
  setProp($('random-weights'), 'hidden', !loaded);
  ex.scope.setText('weights-msg', ex.weightsError);
  setProp($('weights-msg'), 'hidden', !ex.weightsError);
  setProp($('f-layer'), 'hidden', !(loaded && loaded.layers.length > 1));
  if (loaded && loaded.layers.length > 1) {
    setOptions($('c-layer'), loaded.layers);
    setProp($('c-layer'), 'value', String(loaded.layer));
  }
}

// An embed is focused: the heatmaps of every head (and the header's "Open full page") unless hide= says otherwise; the
// share panel and heap statistics never show inside an embed.
/** @param {ExplorerState} ex @param {Record<string, any>} eff */
export function applyLayout(ex, eff) {
  const $ = ex.$,
    root = ex.root;
  let hide = eff.hide.slice();
  if (eff.embed)
    hide = (ex.st.explicit.hide ? hide : EMBED_HIDE.slice()).concat(hide.indexOf('share') < 0 ? ['share'] : []);
  if (eff.embed) {
    const full = new URLSearchParams(pageQueryString(ex.st));
    full.delete('embed');
    full.delete('hide');
    setProp($('open-full'), 'hidden', window.location.protocol === 'about:'); // a srcdoc page (pageQuery) has no full page to open
    setAttr($('open-full'), 'href', ex.base + FILES.page + (full.toString() ? '?' + full.toString() : ''));
  }
  const key = !!eff.embed + '|' + hide.join(',');
  if (key === ex.layoutKey) return; // sections and classes as they are
  ex.layoutKey = key;
  root.classList.toggle('embed', !!eff.embed);
  SECTIONS.forEach((s) =>
    ex.scope.all('[data-section="' + s + '"]').forEach((n) => {
      n.hidden = hide.indexOf(s) >= 0;
    }),
  );
  root.classList.toggle('no-controls', hide.indexOf('controls') >= 0);
  // no enlarged head to click through to when its section is hidden (an embed)
  ex.scope.setText(
    'heads-hint',
    'Hover a cell for the exact weight' + (hide.indexOf('detail') >= 0 ? '.' : '; click a head to enlarge it.'),
  );
  // an embed, and a phone (or a root as narrow), start with the controls folded: the heatmaps come first on a narrow screen
  if (eff.embed || root.clientWidth <= 720) $('controls-box').open = false;
}
