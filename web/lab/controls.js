// @ts-check
// MHA Explorer — the lab's controls: the settings bound by their name= attributes through the lab's property list
// (a change's effect, state/props.js, says whether it builds a new model, redraws or only waits for the next step),
// the buttons (play, step, reset, new seed), the probe sequence, the replay slider, the closer look's cursor, the head
// cards' ablation, and the window's events the lab follows.
import { FILES } from '../compute/source.js';
import { effectOf } from '../state/props.js';
import { wireFileDrop } from '../chrome/files.js';
import { copyWithButton } from '../chrome/clipboard.js';
import { followLinksTo } from '../chrome/frame.js';
import { fillEmbedHosts, shareLink } from '../chrome/share.js';
import { otherTheme } from '../chrome/theme.js';
import { bindControls, controlsOf } from '../chrome/controls.js';
import { labQueryString } from '../state/lab.js';
import { cellAt } from '../widgets/heatmap.js';
import { arrowStep } from '../widgets/dom.js';
import {
  draw,
  drawChart,
  drawCloser,
  drawHeads,
  drawPredictions,
  say,
  showControls,
  showMessages,
  showTheme,
  writeURL,
} from './draw.js';
import { inspect, keepSnapshot, pause, play, reset, trainSteps } from './training.js';
import { copyScript, embedCode, loadFile, saveWeights } from './files.js';

/** @typedef {import('./state.js').LabState} LabState */

// A settings control changed (name= of a lab property): a refused typed value keeps the one in use, and says so.
/** @param {LabState} lab */
function onControl(lab) {
  return (name, r) => {
    if (!r.ok) {
      say(lab, r.message);
      showControls(lab);
      return;
    }
    if (name === 'task')
      lab.props.forEach((q) => {
        if (q.model) delete lab.explicit[q.name];
      });
    lab.values[name] = r.value;
    lab.explicit[name] = true;
    lab.messages = [];
    showMessages(lab);
    if (name === 'speed') lab.pace = { started: performance.now(), steps: 0 }; // the new pace counts from now
    const effect = effectOf(lab.props.find((p) => p.name === name));
    if (effect === 'rebuild') {
      reset(lab);
      return;
    }
    writeURL(lab);
    if (effect === 'redraw') draw(lab);
  };
}

// A head card clicked: its head switched off (or on), and the held-out accuracy with and without it.
/** @param {LabState} lab */
function onAblate(lab) {
  return (e) => {
    const card = e.currentTarget,
      l = Number(card.dataset.layer),
      h = Number(card.dataset.head),
      key = l + ':' + h;
    const on = !lab.ablated[key],
      t = lab.trainer;
    lab.replay = null; // a head is switched off in the model as it is now, not in a replayed snapshot
    let full = null;
    const allOn = Object.keys(lab.ablated).every((k) => !lab.ablated[k]);
    (allOn ? t.evaluate({ batchSize: 256, seed: 1 }) : Promise.resolve(lab.held ? { accuracy: lab.held.full } : null))
      .then((r) => {
        full = r ? r.accuracy : null;
        return t.ablate({ layer: l, head: h, on });
      })
      .then(() => {
        lab.ablated[key] = on;
        return t.evaluate({ batchSize: 256, seed: 1 });
      })
      .then((r) => {
        lab.held = full === null ? null : { full, now: r.accuracy };
        return inspect(lab);
      })
      .then(
        () => draw(lab),
        (err) => say(lab, err.message),
      );
  };
}

// The probe sequence typed: checked against the model's vocabulary and length, then inspected (the replay restarts).
/** @param {LabState} lab */
function onProbe(lab) {
  const text = lab.$('c-probe').value.trim(),
    toks = text ? text.split(/[\s,]+/).map(Number) : [];
  const V = lab.modelConfig.vocab,
    T = lab.modelConfig.seqLen;
  if (!toks.length || toks.length > T || toks.some((t) => !Number.isInteger(t) || t < 0 || t >= V)) {
    say(lab, 'The sequence must be 1 to ' + T + ' whole numbers from 0 to ' + (V - 1) + ', separated by spaces.');
    return;
  }
  lab.messages = [];
  showMessages(lab);
  lab.probe = toks;
  const had = lab.snapshots.length > 1;
  lab.snapshots = [];
  lab.replay = null; // kept views were of the old sequence
  inspect(lab).then(
    () => {
      keepSnapshot(lab);
      draw(lab);
      if (had)
        lab.$('ablation-note').textContent =
          'The replay starts again from here: the kept snapshots showed the old sequence.';
    },
    (err) => say(lab, err.message),
  );
}

// The closer look's cursor: a click picks the cell, the arrow keys move the query (↑↓) and the key (←→).
/** @param {LabState} lab */
function bindCloser(lab) {
  const map = lab.$('closer-map'),
    closer = lab.closer;
  lab.$('c-closer').addEventListener('change', (e) => {
    const lh = e.target.value.split(':').map(Number);
    closer.layer = lh[0];
    closer.head = lh[1];
    drawCloser(lab);
  });
  map.addEventListener('click', (e) => {
    const cell = cellAt(map, e);
    if (cell) {
      closer.query = cell[0];
      closer.key = cell[1];
      drawCloser(lab);
    }
  });
  map.addEventListener('keydown', (e) => {
    const d = arrowStep(e.key);
    if (!d) return;
    e.preventDefault();
    const T = lab.probe.length,
      q = Math.min(closer.query, T - 1);
    closer.query = Math.max(0, Math.min(T - 1, q + d[0]));
    closer.key = d[1]
      ? Math.max(0, Math.min(T - 1, (closer.key === null ? closer.shown : closer.key) + d[1]))
      : closer.key;
    drawCloser(lab);
  });
}

// A control that needs the model: ignored until the worker has built one (it may still be starting, or have failed).
/** @param {LabState} lab @param {(e: any) => void} fn */
const whenReady = (lab, fn) => (e) => {
  if (lab.trainer && lab.modelConfig) fn(e);
};

/** @param {LabState} lab */
function bindButtons(lab) {
  const on = (id, ev, fn) => lab.$(id).addEventListener(ev, fn),
    out = lab.$('share-out');
  on('copy-link', 'click', () =>
    copyWithButton(shareLink(labQueryString(lab.values, lab.explicit), FILES.lab), out, lab.$('copy-link')),
  );
  on('copy-embed', 'click', () => copyWithButton(embedCode(lab, lab.$('embed-host').value), out, lab.$('copy-embed')));
  on('play', 'click', () => {
    if (lab.player.playing) pause(lab);
    else play(lab);
  });
  on(
    'step',
    'click',
    whenReady(lab, () => {
      pause(lab);
      if (!lab.busy) trainSteps(lab, 1);
    }),
  );
  on(
    'reset',
    'click',
    whenReady(lab, () => reset(lab)),
  );
  on(
    'new-seed',
    'click',
    whenReady(lab, () => {
      lab.values.seed = Math.floor(Math.random() * 1e6);
      lab.explicit.seed = true;
      reset(lab);
    }),
  );
  on(
    'c-probe',
    'change',
    whenReady(lab, () => onProbe(lab)),
  );
  on('c-replay', 'input', (e) => {
    pause(lab);
    const i = Number(e.target.value);
    lab.replay = i >= lab.snapshots.length - 1 ? null : i;
    drawHeads(lab);
    drawPredictions(lab);
    drawCloser(lab);
  });
  on(
    'copy-script',
    'click',
    whenReady(lab, () => copyScript(lab)),
  );
  on(
    'download',
    'click',
    whenReady(lab, () => saveWeights(lab)),
  );
  on('load-file', 'change', (e) => {
    loadFile(lab, e.target.files[0]);
    e.target.value = '';
  });
  on('theme-toggle', 'click', () => {
    lab.values.theme = otherTheme(lab.root);
    lab.explicit.theme = true;
    showTheme(lab);
    writeURL(lab);
    draw(lab);
  });
}

// Everything a student acts on in the lab, and the window's events it follows.
/** @param {LabState} lab */
export function bindAll(lab) {
  const { root, signal } = lab;
  lab.onAblate = onAblate(lab);
  lab.$('controls').addEventListener('submit', (e) => e.preventDefault()); // Enter in a field: its change event applies it
  // read through lab.props (the task table's names once known); a change before the model is built waits for it
  bindControls(
    controlsOf(root, lab.props),
    () => lab.props,
    (name, r) => {
      if (lab.trainer) onControl(lab)(name, r);
    },
    (name) => lab.values[name],
  );
  fillEmbedHosts(lab.$('embed-host'));
  bindButtons(lab);
  bindCloser(lab);
  // the page takes a file dropped anywhere on it; a lab mounted in another page, one dropped on the lab
  wireFileDrop((f) => loadFile(lab, f), lab.options.ownsPage ? { signal } : { target: root, flag: root, signal });
  if (lab.options.onPage) followLinksTo(root, lab.base + FILES.page, lab.options.onPage, signal);
  document.addEventListener(
    'visibilitychange',
    () => {
      if (document.hidden) pause(lab);
    },
    { signal },
  );
  window.addEventListener('resize', () => drawChart(lab), { signal });
  if (window.matchMedia) {
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener(
      'change',
      () => {
        if (lab.values.theme === 'auto') {
          showTheme(lab);
          draw(lab);
        }
      },
      { signal },
    );
  }
}
