// @ts-check
// MHA Explorer — the lab's files and what it hands to PyTorch: the training script (copied), the weights saved as a
// .safetensors file, a weights file loaded (a file the lab saved carries its settings, which the lab takes first), and
// the embed snippet of the share panel.
import { FILES } from '../compute/source.js';
import { labQueryString } from '../state/lab.js';
import { readFile, tooLarge } from '../chrome/files.js';
import { copyText } from '../chrome/clipboard.js';
import { download } from '../chrome/download.js';
import { embedSnippet } from '../chrome/share.js';
import { settingsOf, disagreement } from './saved-settings.js';
import { draw, showMessages, tell } from './draw.js';
import { currentStep, inspect, keepSnapshot, pause, reset } from './training.js';

/** @typedef {import('./state.js').LabState} LabState */

// The share panel's snippets (chrome/share.js's, as the page's): this lab's view, focused for an iframe.
/** @param {LabState} lab @param {string} host */
export function embedCode(lab, host) {
  return embedSnippet(host, {
    query: labQueryString(lab.values, lab.explicit),
    file: FILES.lab,
    title: 'MHA Explorer training lab',
    height: 760,
  });
}

/** @param {LabState} lab */
export function copyScript(lab) {
  const until = lab.scriptUntil,
    step = until || currentStep(lab) || 200;
  const caveat =
    until === 0
      ? "It trains from this run's initial weights but reproduces none of its steps: you switched a head off or loaded weights before the first step, which the script does not do."
      : until !== null
        ? 'The script reproduces steps 1 to ' +
          until +
          ' of this run: after that you switched a head off or loaded weights, which the script does not do.'
        : '';
  lab.trainer.script({ steps: Math.max(step, 1), batchSize: lab.values.batch }).then(
    (text) => {
      const out = lab.$('script-out');
      out.hidden = false;
      return copyText(text, out).then((copied) => {
        out.select();
        tell(lab, (copied ? 'Copied: paste it into a notebook. ' : 'Select the script below and copy it. ') + caveat);
      });
    },
    (err) => tell(lab, err.message, true),
  );
}

// The way out of a frame that forbids downloads: Python that writes the same file.
/** @param {string} name @param {Uint8Array} bytes */
function weightsInPython(name, bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + 0x8000)));
  return {
    say:
      'Here is Python that writes ' +
      name +
      ' (run it in a notebook cell; torch loads it with safetensors.torch.load_file):',
    text: 'import base64\nopen("' + name + '", "wb").write(base64.b64decode(\n    "' + btoa(binary) + '"))\n',
    rows: 4,
  };
}

/** @param {LabState} lab */
export function saveWeights(lab) {
  lab.trainer.save().then(
    (bytes) => {
      const name =
        'mha-lab-' + lab.values.task + '-seed' + lab.values.seed + '-step' + currentStep(lab) + '.safetensors';
      const saved = download(
        name,
        new Blob([bytes], { type: 'application/octet-stream' }),
        lab.$('download'),
        weightsInPython(name, bytes),
      );
      // else a note at the button says why not
      tell(lab, saved ? 'Saved ' + name + ' (the state_dict, with the task and sizes in its metadata).' : '');
    },
    (err) => tell(lab, err.message, true),
  );
}

// The settings a file's metadata records taken first (a fresh model of that shape): → [the settings it changed].
/** @param {LabState} lab @param {any} info */
function takeSettings(lab, info) {
  const want = settingsOf(info.metadata, lab.props),
    why = disagreement(want, info.shapes, lab.tasks);
  if (why) throw new Error(why);
  const changed = Object.keys(want).filter((k) => want[k] !== lab.values[k]);
  if (!changed.length) return changed;
  if (want.task && want.task !== lab.values.task)
    lab.props.forEach((q) => {
      if (q.model) delete lab.explicit[q.name];
    });
  Object.keys(want).forEach((k) => {
    lab.values[k] = want[k];
    lab.explicit[k] = true;
  });
  return changed;
}

// Loads a .safetensors file (bytes) into the model. Only the latest file counts. → whether it was loaded
/** @param {LabState} lab @param {Uint8Array} bytes @param {string} name @returns {Promise<boolean>} */
export function loadBytes(lab, bytes, name) {
  if (!lab.trainer) return Promise.resolve(false);
  const mine = ++lab.fileSeq,
    t = lab.trainer;
  let changed = [];
  const stillLatest = () => {
    if (mine !== lab.fileSeq) throw new Error('another file was chosen');
  };
  const said = () => changed.map((k) => k + ' ' + lab.values[k]).join(', ');
  pause(lab);
  const big = tooLarge(bytes.length, 'the lab');
  if (big) {
    tell(lab, 'Could not load ' + name + ': ' + big, true);
    return Promise.resolve(false);
  }
  return t
    .peek(bytes)
    .then((info) => {
      stillLatest();
      changed = takeSettings(lab, info);
      return changed.length ? reset(lab) : true;
    })
    .then((built) => {
      stillLatest();
      if (!built) throw new Error('the lab cannot build the model its metadata describes (' + said() + ').');
      return t.load(bytes);
    })
    .then(() => {
      stillLatest();
      if (lab.scriptUntil === null) lab.scriptUntil = currentStep(lab);
      lab.loadedName = name;
      lab.loadedAt = currentStep(lab);
      lab.held = null;
      lab.messages = [];
      showMessages(lab);
      tell(
        lab,
        'Loaded ' +
          name +
          (changed.length ? " (the lab's settings now match the file: " + said() + ')' : '') +
          ': the heads and predictions above use its weights.',
      );
      return inspect(lab);
    })
    .then(() => {
      lab.snapshots = [];
      lab.replay = null;
      keepSnapshot(lab);
      draw(lab);
      return true;
    })
    .catch((err) => {
      if (mine === lab.fileSeq) tell(lab, 'Could not load ' + name + ': ' + err.message, true);
      return false;
    });
}

// A file chosen or dropped.
/** @param {LabState} lab @param {File} file */
export function loadFile(lab, file) {
  if (!file) return;
  readFile(file, 'the lab', '', lab.readSeq).then(
    (bytes) => {
      if (bytes) loadBytes(lab, bytes, file.name);
    },
    (err) => tell(lab, 'Could not load ' + file.name + ': ' + err.message, true),
  );
}
