// scripts/test's closing table: the wall time of each step (STEPS: "name<TAB>seconds" lines) and, from each CTest
// preset's JUnit file (ctest --output-junit), the time of each group of tests, slowest first: a Catch2 area's cases
// together (native.<area>), each wasm suite, each node and browser test file, each other test. A group's time is the
// sum of its tests' times (two run at once under `ctest -j2`, so a preset's groups add up to more than its wall time).
// usage: node scripts/test-summary.mjs STEPS [JUNIT...]
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [steps, ...junits] = process.argv.slice(2);
const pad = (s, n) => String(s).padEnd(n);
const secs = (t) => t.toFixed(1).padStart(8);

// native.<area>.<case> → native.<area>; every other test is its own group.
const groupOf = (name) => (/^native\./.test(name) ? name.split('.').slice(0, 2).join('.') : name);

function groups(file) {
  const xml = readFileSync(file, 'utf8'),
    out = new Map();
  for (const m of xml.matchAll(/<testcase\s([^>]*)>/g)) {
    const attr = (k) => (m[1].match(new RegExp('\\b' + k + '="([^"]*)"')) || [])[1];
    const g = groupOf(attr('name') || '?'),
      e = out.get(g) || { tests: 0, time: 0, failed: 0 };
    e.tests++;
    e.time += Number(attr('time')) || 0;
    if (attr('status') === 'fail') e.failed++;
    out.set(g, e);
  }
  return out;
}

// a step's line: its wall time, and (when scripts/test measured it) the CPU time of its processes and the cores that
// kept busy on average: how much a step leaves of the machine's cores unused.
function stepLine(line) {
  const [name, t, cpu] = line.split('\t');
  const busy =
    cpu === undefined || !(Number(t) > 0) ? '' : `${secs(Number(cpu))} s CPU  ${(cpu / t).toFixed(2)} cores  `;
  return secs(Number(t)) + ' s  ' + busy + name;
}
console.log('\n==== summary: the time of each step (wall clock; CPU time of its processes, cores busy on average)');
if (existsSync(steps))
  for (const line of readFileSync(steps, 'utf8').trim().split('\n').filter(Boolean)) console.log(stepLine(line));
for (const file of junits.filter((f) => existsSync(f))) {
  const g = [...groups(file)].sort((a, b) => b[1].time - a[1].time),
    total = g.reduce((s, [, e]) => s + e.time, 0);
  console.log(
    '\n==== ' +
      basename(file, '.xml').replace(/^junit-/, 'ctest --preset ') +
      ': each CTest group, slowest first (sum ' +
      total.toFixed(0) +
      ' s)',
  );
  for (const [name, e] of g)
    console.log(
      secs(e.time) +
        ' s  ' +
        pad(name, 40) +
        pad(e.tests + (e.tests === 1 ? ' test' : ' tests'), 10) +
        (e.failed ? e.failed + ' FAILED' : ''),
    );
}
