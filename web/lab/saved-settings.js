// @ts-check
// A .safetensors file saved by the lab: the settings its metadata records, and whether they agree with its tensors.
// No DOM, no state.
import { taskOf } from '../state/lab.js';
import { parse } from '../state/props.js';

// A file's settings (its metadata: the lab writes task, num_heads and the sizes) as lab values, the ones that
// pass the lab's own validation (list: the lab's property list, state/lab.js's labProps); {} for a file without them.
/** @param {Record<string, string>} metadata @param {import('../state/props.js').Prop[]} list @returns {Record<string, any>} */
export function settingsOf(metadata, list) {
  /** @type {Record<string, any>} */
  const out = {};
  list.forEach(function (p) {
    if (!p.meta || typeof metadata[p.meta] !== 'string') return;
    const r = parse(p, metadata[p.meta]);
    if (r.ok) out[p.name] = r.value;
  });
  return out;
}
// Where a file's metadata disagrees with its own tensors (then the lab keeps its settings): a message, or ''.
// tasks: the core's task table.
/** @param {Record<string, any>} want @param {any} shapes @param {import('../state/lab.js').TaskInfo[]} tasks */
export function disagreement(want, shapes, tasks) {
  if (!shapes) return '';
  const said = { dmodel: shapes.dModel, vocab: shapes.vocab, seqlen: shapes.seqLen, layers: shapes.layers };
  const off = Object.keys(said).filter(function (k) {
    return want[k] !== undefined && want[k] !== said[k];
  });
  const readouts = want.task ? taskOf(tasks, want.task).readouts.length : 0;
  if (want.task && readouts !== shapes.readouts) off.push('task');
  return off.length
    ? 'its metadata and its tensors disagree (' +
        off
          .map(function (k) {
            return k === 'task'
              ? 'task ' + want.task + ' has ' + readouts + ' readout(s), the tensors ' + shapes.readouts
              : k + ' ' + want[k] + ' in the metadata, ' + said[k] + ' in the tensors';
          })
          .join('; ') +
        '): the lab keeps its settings.'
    : '';
}
