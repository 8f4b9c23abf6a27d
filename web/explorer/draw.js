// @ts-check
// MHA Explorer — recompute and redraw: recompute(ex) runs the forward of the settings and redraws every panel from its
// result (the latest wins: a newer recompute supersedes one under way); redraw(ex) draws the same result again (a new
// colour scale, theme, batch item or head). What a panel draws lives in its own module (heads, detail, trace, lesson).
import { setValue } from '../state/page.js';
import { now } from '../compute/explorer-run.js';
import { implementationName } from '../compute/features.js';
import { showMessages as showMessagesIn } from '../chrome/messages.js';
import { applyTheme } from '../chrome/theme.js';
import { postHeight } from '../chrome/frame.js';
import { setProp, setOptions, range } from '../chrome/scope.js';
import { el } from '../widgets/dom.js';
import { legend } from '../widgets/colors.js';
import { chips } from '../widgets/chips.js';
import { rangeNote } from '../state/scales.js';
import { effective, modified, presetOf, validate } from './settings.js';
import { compute } from './forward.js';
import { applyLayout, showControls } from './layout.js';
import { updateURL } from './share.js';
import { selB, colourMax, fmtMax } from './read.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */

export const RESULT_BUTTONS = ['export-png', 'export-svg', 'show-table', 'copy-py']; // need a result to act on

/** @param {ExplorerState} ex */
export const posted = (ex) => {
  if (ex.ownsDocument) postHeight();
};
/** @param {ExplorerState} ex */
export const syncURL = (ex) => {
  if (ex.ownsDocument) updateURL(ex.st);
};
/** @param {ExplorerState} ex @param {string} text */
export const setStatus = (ex, text) => ex.scope.setText('status', text);
/** @param {ExplorerState} ex @param {string[]} msgs */
export const showMessages = (ex, msgs) => showMessagesIn(ex.$('messages'), msgs);

// The forward of the settings, then every panel (a promise; what failed is said in the messages).
/** @param {ExplorerState} ex @returns {Promise<void>} */
export function recompute(ex) {
  if (!ex.M || ex.disposed) return Promise.resolve();
  const t0 = now(),
    myId = ++ex.renderId,
    eff = effective(ex),
    msgs = ex.messages.slice();
  applyTheme(eff.theme, ex.root);
  applyLayout(ex, eff);
  validate(eff, msgs);
  showControls(ex, eff);
  syncURL(ex);
  const run = compute(ex, eff, msgs);
  if (run === null) {
    // no tokens: the page says so
    msgs.push('Type a sentence above: there are no tokens to attend over yet.');
    showMessages(ex, msgs);
    renderEmpty(ex);
    return (ex.pending = Promise.resolve());
  }
  const tF0 = run.t0;
  let tF1 = run.t1;
  if (!tF1) setStatus(ex, 'Computing…'); // only when the forward is asynchronous (Web Worker)
  ex.pending = run.promise
    .then((out) => {
      if (myId !== ex.renderId) return; // a newer recompute superseded this one
      const tD0 = now();
      RESULT_BUTTONS.forEach((id) => setProp(ex.$(id), 'disabled', false));
      if (!tF1) tF1 = tD0;
      ex.current = {
        res: out.res,
        labels: out.labels,
        forward: out.forward,
        cells: out.cells,
        copyAll: out.copyAll,
        eff,
      };
      if (eff.batch >= out.res.B)
        msgs.push('batch=' + eff.batch + ' is out of range for B=' + out.res.B + '; showing 0.');
      if (eff.head >= out.res.H)
        msgs.push('head=' + eff.head + ' is out of range for ' + out.res.H + ' heads; showing 0.');
      showMessages(ex, msgs);
      draw(ex);
      setStatus(
        ex,
        implementationName(ex.M.implementation) +
          ' · ' +
          ex.forwards.lastCompute.ms.toFixed(1) +
          ' ms · ' +
          ex.forwards.lastCompute.where +
          ex.forwards.lastCompute.note,
      );
      posted(ex);
      const tD1 = now();
      ex.lastTiming = { forwardMs: tF1 - tF0, redrawMs: tD1 - tD0, totalMs: tD1 - t0, setupMs: tF0 - t0 };
    })
    .catch((err) => {
      if (myId !== ex.renderId) return; // superseded: the newer recompute says what happened
      msgs.push(String((err && err.message) || err));
      showMessages(ex, msgs);
      setStatus(ex, 'Ready (last run failed)');
    });
  return ex.pending;
}

// The same result drawn again with the settings as they are now (scale, norm, theme, batch item, head).
/** @param {ExplorerState} ex */
export function redraw(ex) {
  if (ex.disposed) return;
  applyTheme(effective(ex).theme, ex.root);
  if (ex.current) {
    ex.current.eff = effective(ex);
    draw(ex);
    posted(ex);
  }
  syncURL(ex);
}

// The input's description: a lesson's x, the given x or tokens, or the sentence's tokens.
/** @param {ExplorerState} ex */
function inputWords(ex) {
  const cur = /** @type {import('./state.js').Current} */ (ex.current),
    eff = cur.eff,
    pr = presetOf(eff),
    given = ex.given;
  const embeddings =
    'embeddings: randn(d_model) per token, seeded by fnv1a32("' +
    eff.seed +
    ':<token>")' +
    (eff.pos ? ' + sinusoidal positions' : '') +
    '.';
  if (pr) {
    return pr.input
      ? 'x = torch.' +
          pr.input.type +
          '(' +
          [pr.input.batch, pr.input.seqLen, eff.dmodel].join(', ') +
          ')' +
          ' — positions are labelled t0…t' +
          (pr.input.seqLen - 1) +
          '.'
      : cur.res.note || '';
  }
  if (given && given.x) {
    return (
      'x: your input from ' +
      given.source +
      ', shape [' +
      given.x.shape.join(', ') +
      ']' +
      (given.tokens ? '' : ' — positions are labelled t0…t' + (given.x.shape[1] - 1)) +
      '.'
    );
  }
  return cur.labels.length + ' tokens' + (given ? ' from ' + given.source : '') + ' · ' + embeddings;
}

// Every panel from ex.current. Layout is read (measure) before anything is written.
/** @param {ExplorerState} ex */
export function draw(ex) {
  const cur = /** @type {import('./state.js').Current} */ (ex.current),
    $ = ex.$,
    eff = cur.eff,
    r = cur.res,
    b = selB(cur);
  r.vmax = colourMax(cur, b, eff.avg || ex.panels.heads.averageShown()); // the average's pass finds the max too
  const wd = {
    heads: $('heads').clientWidth,
    detail: $('detail-canvas').parentNode.parentNode.clientWidth,
    lines: $('lines').parentNode.clientWidth,
  };
  ex.scope.setText('input-desc', inputWords(ex));
  chips($('chips'), cur.labels, 120);
  setProp($('f-batch'), 'hidden', r.B <= 1);
  setOptions($('c-batch'), range(r.B));
  setProp($('c-batch'), 'value', String(b));
  ex.panels.heads.draw(cur, wd, ex.colors());
  ex.panels.detail.draw(cur, wd);
  ex.panels.trace.draw(cur);
  drawLessonPanel(ex);
  legend($('legend'), eff.scale, eff.norm === 'max' ? "each head's max" : fmtMax(r.vmax));
  ex.scope.setText('legend-note', rangeNote(cur.forward, eff.norm, r.vmax));
  ex.panels.heads.note(cur);
  const ms = ex.M.memoryStats ? ex.M.memoryStats() : null;
  ex.scope.setText(
    'mem',
    ms
      ? 'WebAssembly heap: ' +
          (ms.heapUsed / 1048576).toFixed(1) +
          ' MiB used of ' +
          (ms.heapSize / 1048576).toFixed(1) +
          ' MiB.'
      : '',
  );
}

// A head card was clicked: it becomes the enlarged head (h: a head index or 'avg').
/** @param {ExplorerState} ex @param {number | 'avg'} h */
export function pickHead(ex, h) {
  if (h === 'avg') setValue(ex.st, 'avg', true);
  else {
    setValue(ex.st, 'avg', false);
    setValue(ex.st, 'head', h);
  }
  syncURL(ex);
  const cur = /** @type {import('./state.js').Current} */ (ex.current);
  cur.eff = effective(ex);
  ex.panels.heads.select(cur);
  ex.panels.detail.draw(cur);
  drawLessonPanel(ex);
}

// The lesson panel: the preset's title and introduction (or the page's own) over the result's code cells.
/** @param {ExplorerState} ex */
function drawLessonPanel(ex) {
  const cur = /** @type {import('./state.js').Current} */ (ex.current),
    eff = cur.eff,
    pr = presetOf(eff);
  if (pr) {
    const mods = modified(eff);
    ex.panels.lesson.draw(
      cur,
      pr.title(eff),
      pr.blurb(eff) +
        (mods.length ? ' You changed: ' + mods.join(', ') + ' — the numbers below follow your values.' : '') +
        ' Source: ' +
        pr.file +
        '.',
    );
  } else {
    ex.panels.lesson.draw(
      cur,
      ex.given ? 'Your input in PyTorch' : 'Your sentence in PyTorch',
      'The same computation as a PyTorch snippet: run it in a notebook and it prints the numbers below.',
    );
  }
}

// No tokens: every panel says so or is empty (the widgets' caches notice their emptied containers and rebuild on the
// next draw).
/** @param {ExplorerState} ex */
function renderEmpty(ex) {
  const $ = ex.$,
    p = ex.panels;
  ex.current = null;
  p.lesson.clear();
  p.detail.clear();
  p.trace.clear();
  $('heads').textContent = '';
  $('heads').appendChild(el('p', { class: 'empty' }, 'No tokens yet — type a sentence in the controls.'));
  ['chips', 'trace-body', 'heads-note', 'legend', 'legend-note', 'lesson-title', 'lesson-blurb'].forEach((id) => {
    $(id).textContent = '';
    $(id)._key = null;
  });
  ex.scope.setText('trace-note', 'No tokens, so no forward pass to trace.');
  $('input-desc').textContent = '0 tokens.';
  RESULT_BUTTONS.forEach((id) => {
    $(id).disabled = true;
  });
  $('table-box').hidden = true;
  setStatus(ex, 'Ready · no tokens to compute');
  posted(ex);
}
