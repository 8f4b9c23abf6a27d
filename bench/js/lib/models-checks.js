'use strict';
// What bench/js/models.js's contenders share: the token ids every one of them runs, and the checks against
// transformers' float64 outputs that failed (lib/models-page.js's compare), said in words.

// The same token ids for every contender: a fixed pseudo-random sequence per length.
function idsFor(T, vocab) {
  let s = 12345 + T;
  return Array.from({ length: T }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) % vocab;
  });
}

function failedChecks(check) {
  return Object.entries(check)
    .filter(([, c]) => !c.ok)
    .map(
      ([n, c]) =>
        `${n}: max|diff| ${c.maxAbsDiff.toExponential(2)} > ${c.bound.toExponential(2)} (${c.count}/${c.expected} values)`,
    );
}

module.exports = { idsFor, failedChecks };
