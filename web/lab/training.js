// @ts-check
// MHA Explorer — the lab's model and its training: a fresh model from the settings (reset), training steps in the worker
// (and in the one-head twin's), the probe sequence inspected after each, the kept snapshots for the replay, the pace of
// Play (a few steps per second, or up to n steps per frame) and the pause at the task's goal.
import { taskOf, paceOf } from '../state/lab.js';
import { start as startTrainer } from '../compute/trainer.js';
import { implementationName } from '../compute/features.js';
import { roleName } from './cards.js';
import { draw, say, showMessages, status, tell, showControls, writeURL } from './draw.js';

/** @typedef {import('./state.js').LabState} LabState */

// The replay keeps at most this many views of the heads.
const MAX_SNAPSHOTS = 150;
// Steps per request: at most the pace, fewer when a step is slow, so the counter moves at least every
// FRAME_BUDGET ms (at large sizes one step per request).
const FRAME_BUDGET = 250;

/** @param {LabState} lab */
export const currentStep = (lab) => (lab.curve.length ? lab.curve[lab.curve.length - 1].step : 0);

// The model settings: the task's defaults (from the core), overridden by what the URL or the controls set.
/** @param {LabState} lab */
function modelSettings(lab) {
  const cfg = Object.assign({}, lab.defaults);
  lab.props.forEach((p) => {
    if (typeof p.model === 'string' && lab.explicit[p.name]) cfg[p.model] = lab.values[p.name];
  });
  lab.props.forEach((p) => {
    if (typeof p.model === 'string') lab.values[p.name] = cfg[p.model];
  });
  return cfg;
}

/** @param {any} cfg @param {number[]} heads */
function headsError(cfg, heads) {
  const fits = heads.filter((h) => cfg.dModel % h === 0);
  return new Error(
    'd_model ' +
      cfg.dModel +
      ' does not split into ' +
      cfg.numHeads +
      ' heads of equal size (d_model must be a ' +
      'multiple of num_heads); with d_model ' +
      cfg.dModel +
      ' the heads can be ' +
      fits.join(', ') +
      ', or pick a d_model that is a ' +
      'multiple of ' +
      cfg.numHeads +
      '. The model shown is still the last one built.',
  );
}

// What a new model starts from: no curve, no snapshots, the probe kept when it fits the new model.
/** @param {LabState} lab @param {any} info */
function startOver(lab, info) {
  lab.modelConfig = info.config;
  lab.curve = [];
  lab.held = null;
  lab.ablated = {};
  lab.snapshots = [];
  lab.replay = null;
  lab.scriptUntil = null;
  lab.loadedName = null;
  lab.twinCurve = [];
  lab.twinInspected = null;
  lab.closer.query = Infinity;
  lab.closer.key = null;
  const c = lab.modelConfig;
  if (
    lab.probeTask !== c.task ||
    lab.probe.length === 0 ||
    lab.probe.length > c.seqLen ||
    lab.probe.some((t) => t >= c.vocab)
  )
    lab.probe = info.example;
  lab.probeTask = c.task;
  lab.goal = taskOf(lab.tasks, c.task).goalSteps;
  lab.$('c-probe').value = lab.probe.join(' ');
  status(lab, info.parameters.toLocaleString('en-US') + ' parameters · ' + implementationName(info.implementation));
  lab.messages = lab.messages.filter((m) => !/^(Could not|This model)/.test(m));
  showMessages(lab);
}

// A fresh model from the settings; resolves true when it was built (false: the old model stays, and the messages say why).
/** @param {LabState} lab @returns {Promise<boolean>} */
export function reset(lab) {
  pause(lab);
  if (!lab.trainer) return Promise.resolve(false);
  let built = false;
  const v = lab.values,
    optimizer = { kind: v.optimizer, options: { lr: v.lr } };
  return lab.trainer
    .defaults({ task: v.task })
    .then((d) => {
      lab.defaults = d;
      const cfg = modelSettings(lab);
      if (cfg.dModel % cfg.numHeads !== 0) throw headsError(cfg, lab.props.find((p) => p.name === 'heads').values);
      return lab.trainer.reset({ model: cfg, optimizer, seed: v.seed }).then((info) => {
        startOver(lab, info);
        built = true;
        tell(lab, '');
        return resetTwin(lab, cfg)
          .then(() => inspect(lab))
          .then(() => keepSnapshot(lab)); // step 0 is the replay's first frame
      });
    })
    .catch((err) => say(lab, 'This model cannot be built: ' + err.message))
    .then(() => {
      showControls(lab);
      writeURL(lab);
      draw(lab);
      return built;
    });
}

// The probe sequence through the model (and the twin): attention, roles, logits, targets, trace.
/** @param {LabState} lab */
export function inspect(lab) {
  return Promise.all([
    lab.trainer.inspect({ tokens: lab.probe }),
    lab.twin ? lab.twin.inspect({ tokens: lab.probe }) : null,
  ]).then((r) => {
    lab.inspected = r[0];
    lab.twinInspected = r[1];
  });
}

// The one-head twin: the same settings and seed with num_heads = 1, restarted with this model.
/** @param {LabState} lab @param {any} cfg */
function resetTwin(lab, cfg) {
  if (!lab.values.compare) {
    if (lab.twin) {
      lab.twin.terminate();
      lab.twin = null;
    }
    return Promise.resolve();
  }
  const ready = lab.twin
    ? Promise.resolve(lab.twin)
    : startTrainer({ base: lab.base }).then((t) => {
        if (lab.disposed) {
          t.terminate();
          throw new Error('the lab was closed');
        }
        lab.twin = t;
        return t;
      });
  const v = lab.values;
  return ready.then((t) =>
    t.reset({
      model: Object.assign({}, cfg, { numHeads: 1 }),
      optimizer: { kind: v.optimizer, options: { lr: v.lr } },
      seed: v.seed,
    }),
  );
}

/** @param {LabState} lab */
export function keepSnapshot(lab) {
  const i = lab.inspected;
  lab.snapshots.push({
    step: currentStep(lab),
    attention: i.attention,
    roles: i.roles,
    logits: i.logits,
    targets: i.targets,
  });
  if (lab.snapshots.length > MAX_SNAPSHOTS)
    lab.snapshots = lab.snapshots.filter((_, k) => k % 2 === 0 || k === lab.snapshots.length - 1);
}

// The training rate: the steps and wall time of the requests since Play (the last few seconds of them), so that it
// is true from the first step even when one step takes seconds.
/** @param {LabState} lab @param {number} started @param {number} ended @param {number} steps */
function countRate(lab, started, ended, steps) {
  const rate = lab.rate;
  rate.log.push({ started, ended, steps });
  while (rate.log.length > 1 && ended - rate.log[0].started > 3000) rate.log.shift();
  rate.value = (rate.log.reduce((sum, e) => sum + e.steps, 0) * 1000) / Math.max(1, ended - rate.log[0].started);
}

// n training steps (in the twin too), then the probe inspected and the views drawn.
/** @param {LabState} lab @param {number} n */
export function trainSteps(lab, n) {
  lab.busy = true;
  if (Object.keys(lab.ablated).some((k) => lab.ablated[k]) && lab.scriptUntil === null)
    lab.scriptUntil = currentStep(lab);
  const args = { steps: n, batchSize: lab.values.batch },
    started = performance.now();
  return Promise.all([lab.trainer.train(args), lab.twin ? lab.twin.train(args) : []])
    .then((r) => {
      const ended = performance.now();
      lab.msPerStep = (ended - started) / Math.max(1, r[0].length);
      if (lab.player.playing) countRate(lab, started, ended, r[0].length);
      lab.curve.push(...r[0]); // (the API hands out copies: curve.slice())
      lab.twinCurve.push(...r[1]);
      lab.held = null;
      return inspect(lab);
    })
    .then(
      () => {
        keepSnapshot(lab);
        lab.replay = null;
        lab.busy = false;
        if (lab.player.playing && lab.goal !== null && currentStep(lab) >= lab.goal) reachGoal(lab);
        draw(lab);
      },
      (err) => {
        lab.busy = false;
        pause(lab);
        say(lab, 'Training stopped: ' + err.message);
      },
    );
}

// The run pauses once at the task's goal: its roles have formed by then on most seeds (the core's task table).
/** @param {LabState} lab */
function reachGoal(lab) {
  pause(lab);
  lab.goal = null;
  const roles = lab.inspected.roles.map((r) => 'layer ' + r.layer + ' head ' + r.head + ': ' + roleName(r));
  say(
    lab,
    'Paused at step ' +
      currentStep(lab) +
      ", where this task's heads have usually found their roles (" +
      roles.join('; ') +
      '). Press Play to train on, or Step for one update at a time.',
  );
}

/** @param {LabState} lab */
export function play(lab) {
  if (!lab.modelConfig || lab.disposed) return;
  lab.replay = null;
  lab.rate.log = [];
  lab.rate.value = 0;
  lab.pace = { started: performance.now(), steps: 0 };
  if (lab.goal !== null && currentStep(lab) >= lab.goal) lab.goal = null; // already past it (trained by script or Step): no pause
  lab.player.play();
}
/** @param {LabState} lab */
export function pause(lab) {
  if (lab.player) lab.player.pause();
}

// Each animation frame while playing: the next request, once the last one has answered. A pace in steps per second
// trains the steps due since Play; a pace per frame up to that many (fewer when a step is slow).
/** @param {LabState} lab */
export function onFrame(lab) {
  if (lab.busy) return;
  const pace = paceOf(lab.values.speed),
    fit = lab.msPerStep ? Math.floor(FRAME_BUDGET / lab.msPerStep) : 1;
  let n;
  if (pace.perSecond) {
    const due = Math.floor(((performance.now() - lab.pace.started) * pace.perSecond) / 1000) + 1 - lab.pace.steps;
    n = Math.min(due, Math.max(1, fit));
    if (n < 1) return;
  } else {
    n = Math.max(1, Math.min(pace.perFrame, fit));
  }
  lab.pace.steps += n;
  trainSteps(lab, n);
}

// steps trained now (the API's train): in requests of at most 50 steps.
/** @param {LabState} lab @param {number} steps */
export function trainFor(lab, steps) {
  pause(lab);
  let left = steps;
  const go = () => {
    if (left <= 0) return Promise.resolve();
    const n = Math.min(left, 50);
    left -= n;
    return trainSteps(lab, n).then(go);
  };
  return go();
}
