// MHA Explorer — where a large forward runs: on the main thread, in one Web Worker, or split by heads across the
// forward pool's workers (compute/forward-pool.js), whichever ran fastest on this machine at that size. Splitting pays
// on a machine with idle cores; on two busy cores the posting, the join and the contention can make it slower than
// one worker or the main thread, so nothing is assumed: each size class is measured over the page's first forwards of
// it (every place runs it SAMPLES times, in turn, the place used last first), then its fastest place keeps it.
// A time is what the page waits: from the call (or the posting) to the result on the main thread.

// The places, and how the status line names them (n: the pool's size).
export const PLACES = ['main', 'worker', 'split'];
export function placeName(place, n) {
  return place === 'main' ? 'main thread' : place === 'worker' || n <= 1 ? 'Web Worker' : n + ' Web Workers';
}
// The same in the note after it (the status line stays one line on a laptop).
function shortName(place, n) {
  return place === 'main' ? 'main thread' : place === 'worker' || n <= 1 ? '1 worker' : n + ' workers';
}
// Times each place takes of a size class before the fastest is chosen (the best one counts: the first forward of a new
// module in a place also draws its weights).
export const SAMPLES = 2;
const KEEP = 4; // the latest times kept per place and size

// A size class: d_model, heads and the forward's multiply-adds within a factor of √2 (a student typing a sentence
// stays in one class for a few words; a new d_model or head count is a new class).
export function sizeClass(dModel, numHeads, cost) {
  return dModel + '/' + numHeads + '/' + Math.round(2 * Math.log2(Math.max(1, cost)));
}

export class Placement {
  // places: the places this page can use (PLACES' order; the pool's places only when it started).
  constructor(places, samples = SAMPLES) {
    this.places = places.slice();
    this.samples = samples;
    this.times = new Map(); // size class → {place: [ms…]}
    this.last = places[0];
  }
  timesOf(key) {
    if (!this.times.has(key)) this.times.set(key, Object.fromEntries(this.places.map((p) => [p, []])));
    return this.times.get(key);
  }
  // The place the next forward of this size class runs in: one still being measured (the place used last first),
  // else the fastest.
  next(key) {
    const t = this.timesOf(key),
      order = [this.last].concat(this.places.filter((p) => p !== this.last));
    const todo = order.find((p) => t[p].length < this.samples);
    return (this.last = todo || this.fastest(key));
  }
  record(key, place, ms) {
    const v = this.timesOf(key)[place];
    if (!v || !Number.isFinite(ms)) return;
    v.push(ms);
    if (v.length > KEEP) v.shift();
  }
  // Whether every place has its samples at this size (one place: nothing to decide).
  decided(key) {
    const t = this.timesOf(key);
    return this.places.length < 2 || this.places.every((p) => t[p].length >= this.samples);
  }
  // {place: its best time} of the places measured at this size.
  best(key) {
    const t = this.timesOf(key),
      out = {};
    for (const p of this.places) if (t[p].length) out[p] = Math.min(...t[p]);
    return out;
  }
  fastest(key) {
    const b = this.best(key);
    return this.places.reduce((a, p) => (b[p] < b[a] ? p : a), this.places[0]);
  }
  // What the status line adds after where the forward ran (n: the pool's size): once decided, the best times of the
  // chosen place and of the others (the status's own number is this forward's).
  note(key, n) {
    if (this.places.length < 2) return '';
    if (!this.decided(key)) return ' (measuring where this size runs fastest)';
    const b = this.best(key),
      chosen = this.fastest(key);
    return (
      ' (fastest here: ' +
      b[chosen].toFixed(0) +
      ' ms; ' +
      this.places
        .filter((p) => p !== chosen)
        .map((p) => shortName(p, n) + ' ' + b[p].toFixed(0) + ' ms')
        .join(', ') +
      ')'
    );
  }
}
