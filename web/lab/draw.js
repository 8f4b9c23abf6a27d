// @ts-check
// MHA Explorer — the lab drawn from its state: the stats line, the chart (chart.js), the head cards (cards.js), the
// predictions (predictions.js), the closer look (closer.js), the settings' controls, and the messages.
import { OPTIMIZER_NAMES, taskOf, paceLabel, labQueryString } from '../state/lab.js';
import { showMessages as showMessagesIn } from '../chrome/messages.js';
import { postHeight } from '../chrome/frame.js';
import { replaceQuery } from '../chrome/share.js';
import { applyTheme } from '../chrome/theme.js';
import { controlsOf, fillSelect, showValues } from '../chrome/controls.js';
import { drawChart as chart } from './chart.js';
import { drawHeadCards } from './cards.js';
import { predictionsText } from './predictions.js';
import { drawCloser as closerLook } from './closer.js';

/** @typedef {import('./state.js').LabState} LabState */

/** @param {LabState} lab */
export function showMessages(lab) {
  showMessagesIn(lab.$('messages'), lab.messages);
}
/** @param {LabState} lab @param {string} m */
export function say(lab, m) {
  lab.messages = [m];
  showMessages(lab);
}
/** @param {LabState} lab @param {string} text */
export function status(lab, text) {
  lab.$('status').textContent = text;
}
// What the PyTorch section's buttons (copy, download, load) did, said next to them; error: a refusal.
/** @param {LabState} lab @param {string} text @param {boolean} [error] */
export function tell(lab, text, error) {
  const box = lab.$('pytorch-msg');
  box.textContent = text;
  box.classList.toggle('error', !!error);
  box.hidden = !text;
  if (text && box.scrollIntoView) box.scrollIntoView({ block: 'nearest' });
}
/** @param {LabState} lab */
export function writeURL(lab) {
  if (lab.options.ownsPage) replaceQuery(labQueryString(lab.values, lab.explicit));
}
// The theme on the root (and on the page's <html>, whose background is the page's).
/** @param {LabState} lab */
export function showTheme(lab) {
  applyTheme(lab.values.theme, lab.root);
  if (lab.options.ownsPage) applyTheme(lab.values.theme);
}

/** @param {LabState} lab */
const stepOf = (lab) => (lab.curve.length ? lab.curve[lab.curve.length - 1].step : 0);
/** @param {LabState} lab */
const shownView = (lab) => (lab.replay === null ? lab.inspected : lab.snapshots[lab.replay]);

/** @param {LabState} lab */
function drawStats(lab) {
  const last = lab.curve[lab.curve.length - 1],
    rate = lab.rate;
  let text = 'step ' + (last ? last.step : 0);
  if (last) text += ' · loss ' + last.loss.toFixed(4) + ' · accuracy ' + last.accuracy.toFixed(4);
  if (lab.player.playing && rate.log.length)
    text += ' · ' + (rate.value < 10 ? rate.value.toFixed(1) : Math.round(rate.value)) + ' steps/s';
  lab.$('stats').textContent = text;
  lab.$('legend-twin').hidden = !lab.twinCurve.length;
}
/** @param {LabState} lab */
export function drawChart(lab) {
  chart(lab.$('chart'), lab.curve, lab.twinCurve);
}

// What the cards show, in words: untrained, loaded, replayed, ablated.
/** @param {LabState} lab */
function headsNote(lab) {
  const task = lab.modelConfig && taskOf(lab.tasks, lab.modelConfig.task),
    sorted = !!(lab.values.sort && task && task.byContent);
  const step = stepOf(lab),
    how =
      (sorted
        ? 'Rows are queries, columns the keys they attend to, both sorted by token.'
        : 'Rows are query positions t, columns the keys they attend to.') +
      ' Click a head to switch it off (ablate it) and see what it contributed.';
  const H = lab.modelConfig ? lab.modelConfig.numHeads * lab.modelConfig.layers : 0;
  if (lab.replay !== null)
    return 'Replaying step ' + lab.snapshots[lab.replay].step + ' of ' + step + '. Press Play to go on training.';
  if (lab.held)
    return (
      'Accuracy on 256 held-out sequences: ' +
      lab.held.full.toFixed(3) +
      ' with every head on, ' +
      lab.held.now.toFixed(3) +
      ' as shown. ' +
      how
    );
  if (lab.loadedName)
    return (
      'These heads use the weights loaded from ' +
      lab.loadedName +
      (step > lab.loadedAt ? ', trained ' + (step - lab.loadedAt) + ' more steps here' : '') +
      '. ' +
      how
    );
  if (lab.curve.length) return how;
  return H > 1
    ? 'These heads are untrained (random initial weights), so they look alike. Press Play and watch them specialize as the loss falls.'
    : 'This head is untrained (random initial weights): it spreads its attention almost evenly. Press Play and watch it find its role as the loss falls.';
}

/** @param {LabState} lab */
export function drawHeads(lab) {
  const task = lab.modelConfig && taskOf(lab.tasks, lab.modelConfig.task);
  const view = shownView(lab),
    H = lab.modelConfig && lab.modelConfig.numHeads,
    byToken = !!(lab.values.sort && task && task.byContent);
  drawHeadCards(lab.$('heads'), view, H, lab.probe, { onAblate: lab.onAblate, ablated: lab.ablated, byToken });
  const compare = lab.$('compare-heads');
  compare.hidden = !lab.twinInspected || lab.replay !== null;
  if (!compare.hidden) drawHeadCards(compare, lab.twinInspected, 1, lab.probe, { byToken });
  const slider = lab.$('c-replay'),
    n = lab.snapshots.length;
  slider.max = String(Math.max(0, n - 1));
  slider.value = String(lab.replay === null ? Math.max(0, n - 1) : lab.replay);
  lab.$('replay-step').textContent = String(lab.replay !== null ? lab.snapshots[lab.replay].step : stepOf(lab));
  lab.$('ablation-note').textContent = headsNote(lab);
  lab.$('f-sort').hidden = !(task && task.byContent);
}

/** @param {LabState} lab */
export function drawPredictions(lab) {
  const view = shownView(lab),
    c = lab.modelConfig;
  lab.$('predictions').textContent = view && c ? predictionsText(view, c, lab.probe, taskOf(lab.tasks, c.task)) : '';
}

/** @param {LabState} lab */
export function drawCloser(lab) {
  const view = shownView(lab),
    c = lab.modelConfig,
    sel = lab.closer,
    T = lab.probe.length;
  if (!view || !c) return;
  sel.layer = Math.min(sel.layer, view.attention.length - 1);
  sel.head = Math.min(sel.head, c.numHeads - 1);
  sel.query = Math.min(sel.query, T - 1);
  if (sel.key !== null) sel.key = Math.min(sel.key, T - 1);
  closerLook(
    {
      select: lab.$('c-closer'),
      canvas: lab.$('closer-map'),
      legend: lab.$('closer-legend'),
      readout: lab.$('closer-readout'),
      traceBody: lab.$('closer-trace'),
    },
    Object.assign({ trace: lab.inspected.trace }, view),
    c,
    lab.probe,
    sel,
  );
}

/** @param {LabState} lab */
export function draw(lab) {
  if (lab.disposed) return; // a request that answered after dispose()
  drawStats(lab);
  drawChart(lab);
  drawHeads(lab);
  drawPredictions(lab);
  drawCloser(lab);
  if (lab.options.ownsPage) postHeight();
}

// The settings' controls show the values (their choices filled once the task table is known).
/** @param {LabState} lab */
export function showControls(lab) {
  const $ = lab.$,
    list = lab.props,
    task = taskOf(lab.tasks, lab.values.task);
  const choices = (name) => list.find((p) => p.name === name).values;
  fillSelect($('c-task'), choices('task'), (t) => taskOf(lab.tasks, t).title);
  fillSelect($('c-heads'), choices('heads'));
  fillSelect($('c-layers'), choices('layers'));
  fillSelect($('c-optimizer'), choices('optimizer'), (o) => OPTIMIZER_NAMES[o]);
  fillSelect($('c-speed'), choices('speed'), paceLabel);
  showValues(controlsOf(lab.root, list), list, lab.values);
  if (!task) return;
  $('task-hint').textContent = task.brief;
  $('task-brief').textContent = task.title + ': ' + task.brief;
}
