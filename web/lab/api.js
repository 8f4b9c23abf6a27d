// @ts-check
// MHA Explorer — the lab's scripting API (the lab page's window.mhaExplorer, a mounted lab's root.mhaExplorer) and
// update(): every method that needs the model waits for the lab to start (its `ready`), so a script may call it the
// moment the API appears; a lab that could not start rejects with why. Values go through the lab's property list
// (state/props.js's applyValues), as a link's do.
import { FILES } from '../compute/source.js';
import { labQueryString } from '../state/lab.js';
import { applyValues, effectOfAll } from '../state/props.js';
import { shareLink } from '../chrome/share.js';
import { draw, showControls, showMessages, showTheme, writeURL } from './draw.js';
import { inspect, pause, play, reset, trainFor } from './training.js';
import { embedCode, loadBytes } from './files.js';

/** @typedef {import('./state.js').LabState} LabState */

// changes: {property: value}, each checked as the URL's would be: a refusal throws, and nothing is set; with say (a
// host's attributes) a refusal is said in the messages instead, as the same value in the query at mount is, and the
// others are set. → the names set.
/** @param {LabState} lab @param {Record<string, any>} changes @param {boolean} [say] */
function setValues(lab, changes, say) {
  const r = applyValues(lab.props, changes, undefined, lab.values);
  if (r.messages.length && !say) throw new Error(r.messages[0]);
  if (say) lab.messages = r.messages;
  for (const k of Object.keys(r.values)) {
    lab.values[k] = r.values[k];
    lab.explicit[k] = true;
  }
  return Object.keys(r.values);
}

// New settings once the lab has started: those whose effect is rebuild build a new model (as the controls do), the
// others apply at once → a promise of whether the model was built (true when none was needed; a refused value rejects,
// or with say is said in the lab's messages).
/** @param {LabState} lab @param {Promise<boolean>} ready @param {Record<string, any>} changes @param {boolean} [say] */
export function update(lab, ready, changes, say) {
  return ready.then((started) => {
    if (!started) return false;
    const set = setValues(lab, changes, say);
    if (say) showMessages(lab);
    if (set.includes('theme')) showTheme(lab);
    writeURL(lab);
    showControls(lab);
    if (set.length && effectOfAll(lab.props, set) === 'rebuild') return reset(lab);
    draw(lab);
    return true;
  });
}

// The API of a lab; ready: its promise of whether it started.
/** @param {LabState} lab @param {Promise<boolean>} ready */
export function labApi(lab, ready) {
  // fn once the lab has started (its model built), or a rejection saying it could not start
  const started = (fn) =>
    ready.then((ok) => {
      if (!ok)
        throw new Error(lab.disposed ? 'the lab was closed' : 'the lab could not start: ' + lab.messages.join(' '));
      return fn();
    });
  const api = {
    ready,
    train: (o) => started(() => trainFor(lab, (o && o.steps) || 1).then(() => api.getTraining())),
    getTraining() {
      const last = lab.curve[lab.curve.length - 1] || { step: 0, loss: NaN, accuracy: NaN },
        one = lab.twinCurve[lab.twinCurve.length - 1];
      return {
        step: last.step,
        loss: last.loss,
        accuracy: last.accuracy,
        curve: lab.curve.slice(),
        roles: lab.inspected ? lab.inspected.roles.slice() : [],
        oneHead: one
          ? {
              step: one.step,
              loss: one.loss,
              accuracy: one.accuracy,
              roles: lab.twinInspected ? lab.twinInspected.roles.slice() : [],
            }
          : null,
      };
    },
    getWeights: () => (lab.inspected ? lab.inspected.attention : null),
    getProbe: () => lab.probe.slice(),
    evaluate: () => started(() => lab.trainer.evaluate({ batchSize: 256, seed: 1 })),
    ablate: (layer, head, on) =>
      started(() => {
        lab.ablated[layer + ':' + head] = on;
        return lab.trainer
          .ablate({ layer, head, on })
          .then(() => inspect(lab))
          .then(() => draw(lab));
      }),
    stateDict: () => started(() => lab.trainer.stateDict()),
    save: () => started(() => lab.trainer.save()),
    load: (bytes, name) =>
      started(() =>
        loadBytes(lab, bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes, name || 'weights.safetensors'),
      ),
    script: (o) => started(() => lab.trainer.script(o || {})),
    reset: () => started(() => reset(lab)),
    set: (changes) =>
      started(() => {
        setValues(lab, changes);
        return reset(lab);
      }),
    play: () => started(() => play(lab)),
    pause: () => pause(lab),
    embedCode: (host) => embedCode(lab, host),
    shareURL: () => shareLink(labQueryString(lab.values, lab.explicit), FILES.lab),
  };
  return api;
}
