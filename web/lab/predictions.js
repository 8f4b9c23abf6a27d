// @ts-check
// MHA Explorer — the training lab's predictions: the argmax of each readout at each position of the probe sequence.

// The argmax of each readout at each position, as a small table of text (· where the task has no target:
// view.targets, the core's targets for the probe, -100 there).
// task: the core's task table's entry.
/** @param {any} view @param {{vocab: number}} cfg @param {number[]} probe @param {{readouts: string[]}} task */
export function predictionsText(view, cfg, probe, task) {
  let names = task.readouts,
    V = cfg.vocab,
    T = probe.length;
  let pad = function (s, n) {
    s = String(s);
    while (s.length < n) s = ' ' + s;
    return s;
  };
  let width = Math.max(3, String(V - 1).length + 1);
  let label = Math.max.apply(
    null,
    names
      .map(function (n) {
        return n.length + 2;
      })
      .concat([10]),
  ); // '→ ' + name
  let lines = [
    pad('position t', label) +
      ' ' +
      probe
        .map(function (_, t) {
          return pad(t, width);
        })
        .join(''),
    pad('token x[t]', label) +
      ' ' +
      probe
        .map(function (v) {
          return pad(v, width);
        })
        .join(''),
  ];
  view.logits.forEach(function (l, r) {
    let row = [],
      targets = view.targets[r];
    for (let t = 0; t < T; t++) {
      if (targets[t] === -100) {
        row.push(pad('·', width));
        continue;
      }
      let best = 0;
      for (let v = 1; v < V; v++) if (l.data[t * V + v] > l.data[t * V + best]) best = v;
      row.push(pad(best, width));
    }
    lines.push(pad('→ ' + names[r], label) + ' ' + row.join(''));
  });
  return (
    "The model's predictions for this sequence (argmax of each readout; · where there is nothing to predict):\n" +
    lines.join('\n')
  );
}
