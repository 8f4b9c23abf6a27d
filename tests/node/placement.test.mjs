// Where the page runs a large forward (web/compute/placement.js): every place measured SAMPLES times per size class,
// the place used last first, then the fastest by its best time; a new size class is measured again; the status
// line's note names the others' times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Placement, PLACES, SAMPLES, sizeClass, placeName } from '../../web/compute/placement.js';

// Runs forwards of one size class with the given times per place until decided; returns the places in the order run.
function measure(p, key, times) {
  const ran = [];
  for (let i = 0; i < 20 && !p.decided(key); i++) {
    const place = p.next(key);
    ran.push(place);
    p.record(key, place, times[place][ran.filter((x) => x === place).length - 1]);
  }
  return ran;
}

test('each place runs SAMPLES times before the fastest (its best time) is chosen', () => {
  const p = new Placement(PLACES),
    key = sizeClass(512, 8, 8e8);
  const ran = measure(p, key, { main: [60, 40], worker: [50, 45], split: [70, 52] });
  assert.equal(ran.length, PLACES.length * SAMPLES);
  for (const place of PLACES) assert.equal(ran.filter((x) => x === place).length, SAMPLES);
  assert.equal(p.fastest(key), 'main', "the main thread's best, 40 ms, beats 45 and 52");
  assert.deepEqual(p.best(key), { main: 40, worker: 45, split: 52 });
  for (let i = 0; i < 5; i++) assert.equal(p.next(key), 'main');
  assert.equal(p.note(key, 2), ' (fastest here: 40 ms; 1 worker 45 ms, 2 workers 52 ms)');
});

test('where splitting pays it is chosen, and the cold first forward of a place does not decide', () => {
  const p = new Placement(PLACES),
    key = sizeClass(512, 8, 8e8);
  measure(p, key, { main: [41, 40], worker: [90, 42], split: [95, 24] });
  assert.equal(p.next(key), 'split');
  assert.match(p.note(key, 4), /^ \(fastest here: 24 ms; main thread 40 ms, 1 worker 42 ms\)$/);
});

test('a new size class is measured again, starting where the last forward ran', () => {
  const p = new Placement(PLACES),
    big = sizeClass(512, 8, 8e8),
    other = sizeClass(256, 8, 3e8);
  measure(p, big, { main: [40, 40], worker: [50, 50], split: [30, 30] });
  assert.equal(p.next(big), 'split');
  assert.equal(p.decided(other), false);
  assert.equal(p.note(other, 2), ' (measuring where this size runs fastest)');
  const ran = measure(p, other, { main: [10, 10], worker: [20, 20], split: [15, 15] });
  assert.equal(ran[0], 'split', 'the first forward of the new size runs where the last one did');
  assert.equal(p.next(other), 'main');
  assert.equal(p.next(big), 'split', 'the first size keeps its choice');
});

test('size classes: a few more tokens stay in the class, double the work or another d_model / heads is a new one', () => {
  const cost = (S, D) => 4 * S * D * D + 2 * S * S * D;
  assert.equal(sizeClass(512, 8, cost(500, 512)), sizeClass(512, 8, cost(512, 512)));
  assert.notEqual(sizeClass(512, 8, cost(256, 512)), sizeClass(512, 8, cost(512, 512)));
  assert.notEqual(sizeClass(512, 4, cost(512, 512)), sizeClass(512, 8, cost(512, 512)));
});

test('one place (no workers) is always the main thread and says nothing; names', () => {
  const p = new Placement(['main']),
    key = sizeClass(512, 8, 8e8);
  assert.equal(p.next(key), 'main');
  p.record(key, 'main', 30);
  assert.equal(p.decided(key), true);
  assert.equal(p.note(key, 1), '');
  p.record(key, 'split', 1); // a place it does not have is ignored
  assert.equal(p.next(key), 'main');
  assert.deepEqual(
    [placeName('main', 2), placeName('worker', 2), placeName('split', 2), placeName('split', 1)],
    ['main thread', 'Web Worker', '2 Web Workers', 'Web Worker'],
  );
});
