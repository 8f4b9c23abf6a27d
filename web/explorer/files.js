// @ts-check
// MHA Explorer — weights from a .safetensors file: its attention weights become the module's state_dict (compute/weights.js
// picks them; the core checks every shape on a trial module first, so a bad file is refused with its message, never
// half-loaded), and back to the seed's random weights.
import { pageProp, setValue } from '../state/page.js';
import { attentionWeights, headsFromMetadata } from '../compute/weights.js';
import { readFile, tooLarge } from '../chrome/files.js';
import { effective, nearestDivisor } from './settings.js';
import { recompute } from './draw.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */

// Attention weights files of the largest d_model: what the size cap's message says.
const FILE_HINT = 'attention weights for d_model 1024 take about 17 MB';

// A refused file: said next to the button that loads files (and in the controls, opened if folded). → false
/** @param {ExplorerState} ex @param {string} file @param {any} err */
function refuse(ex, file, err) {
  ex.weightsError = 'Could not load ' + file + ': ' + String((err && err.message) || err);
  ex.$('controls-box').open = true;
  recompute(ex).then(() => ex.$('weights-msg').scrollIntoView({ block: 'nearest' }));
  return false;
}

// The file's weights on a trial module (the core's checks), or a thrown error that says why not.
/** @param {ExplorerState} ex @param {any} tensors @param {number} layer */
function checkedWeights(ex, tensors, layer) {
  const w = attentionWeights(tensors, layer, pageProp('dmodel').max),
    given = ex.given;
  if (given && given.x && w.dModel !== given.x.shape[2]) {
    throw new Error(
      'its d_model is ' + w.dModel + ', and the x the page was given has d_model ' + given.x.shape[2] + '.',
    );
  }
  let gen = null,
    trial = null;
  try {
    gen = new ex.M.Generator(0);
    trial = new ex.M.MultiHeadAttention({ dModel: w.dModel, numHeads: 1, generator: gen });
    trial.loadStateDict(w.state);
  } finally {
    if (trial) trial.delete();
    if (gen) gen.delete();
  }
  return w;
}

// metadata: the file's __metadata__ (the lab writes num_heads there; a state_dict has no tensor for it); how: the
// snippet's words on how the file was written (a notebook's mx.save_weights). → whether used
/** @param {ExplorerState} ex @param {string} file @param {any} tensors @param {number} layer @param {Record<string, string>} [metadata] @param {string} [how] */
export function useWeights(ex, file, tensors, layer, metadata, how) {
  let w;
  try {
    w = checkedWeights(ex, tensors, layer);
  } catch (err) {
    return refuse(ex, file, err);
  }
  ex.forwards.cache.free(); // the module cache holds the old weights: freed now
  const said = headsFromMetadata(metadata, w.dModel),
    st = ex.st;
  ex.loaded = /** @type {import('./state.js').LoadedWeights} */ (
    Object.assign(
      { id: ++ex.weightsSeq, file, tensors, metadata: metadata || {}, heads: said.heads, saidHeads: said.said },
      w,
      how ? { how } : {},
    )
  );
  if (st.values.preset) setValue(st, 'preset', ''); // the weights run on the page's sentence
  const H = said.heads || effective(ex).heads;
  setValue(st, 'heads', w.dModel % H ? nearestDivisor(w.dModel, H) : H);
  setValue(st, 'head', 0);
  ex.weightsError = '';
  recompute(ex).then(() => {
    if (ex.loaded && ex.loaded.layers.length > 1) ex.$('f-layer').scrollIntoView({ block: 'nearest' });
  });
  return true;
}

// Back to the seed's random weights (a lesson's example always uses its own).
/** @param {ExplorerState} ex */
export function dropWeights(ex) {
  if (ex.loaded) ex.forwards.cache.free();
  ex.loaded = null;
  ex.weightsError = '';
}

/** @param {ExplorerState} ex @param {Uint8Array} bytes @param {string} file @param {number} layer @param {string} [how] */
export function loadBytes(ex, bytes, file, layer, how) {
  const big = tooLarge(bytes.length, 'the page', FILE_HINT);
  if (big) return refuse(ex, file, big);
  let f;
  try {
    f = ex.M.readSafetensors(bytes);
  } catch (err) {
    return refuse(ex, file, err);
  }
  return useWeights(ex, file, f.tensors, layer, f.metadata, how);
}

// A file chosen or dropped (only the latest one read counts).
/** @param {ExplorerState} ex @param {File} f */
export function loadFile(ex, f) {
  if (!ex.M) return;
  readFile(f, 'the page', FILE_HINT, ex.fileSeq).then(
    (bytes) => {
      if (bytes) loadBytes(ex, bytes, f.name, 0);
    },
    (err) => {
      refuse(ex, f.name, err.message);
    },
  );
}
