'use strict';
// What the benchmark scripts time with, written once: the median, the largest difference of two outputs, and
// bench/js/run.js's timed runs (measure) and paired rounds (paired) under a run policy (lib/forward-options.js).
// (lib/models-page.js keeps a median of its own: it also runs in a page, as a classic script.)

function median(a) {
  const s = [...a].sort((x, y) => x - y),
    n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = d; // NaN propagates as NaN > everything
  }
  return m;
}

// How many timed runs (or rounds) and how long: `bigMax` caps the runs of the slow (S > 512) shapes.
function budget(big, bigMax, policy) {
  return big
    ? { minRuns: policy.bigMinRuns, maxRuns: Math.max(policy.bigMinRuns, bigMax), target: policy.bigTargetMs }
    : { minRuns: policy.minRuns, maxRuns: policy.maxRuns, target: policy.targetMs };
}

// Times fn (sync or async). Returns {median, min, runs, samples, cpuShare}.
async function measure(fn, big, policy) {
  let t = performance.now(),
    n = 0;
  while (n < policy.warmRuns || (performance.now() - t < policy.warmMs && performance.now() - t < 10000)) {
    await fn();
    n++;
    if (big && n >= policy.warmRuns) break;
  }
  const samples = [];
  const { minRuns, maxRuns, target } = budget(big, 20, policy);
  let total = 0;
  const cpu0 = process.cpuUsage(),
    wall0 = performance.now();
  while (samples.length < minRuns || (samples.length < maxRuns && total < target)) {
    const t0 = performance.now();
    await fn();
    const dt = performance.now() - t0;
    samples.push(dt);
    total += dt;
  }
  const cpu = process.cpuUsage(cpu0),
    wall = performance.now() - wall0;
  // Share of one core this process got while timing: well below 1 means another process competed
  // for the CPU and the times are inflated.
  // (process-wide, so V8's background threads can push it above 1; not reported for short windows)
  const cpuShare = wall >= 100 ? (cpu.user + cpu.system) / 1000 / wall : undefined;
  return { median: median(samples), min: Math.min(...samples), runs: samples.length, samples, cpuShare };
}

// Paired rounds: each round runs every contender once, in an order that rotates between rounds, so
// a drift of the machine's speed (this VM's varies by up to 2x over minutes) hits all of them alike.
// Returns, for each named baseline (our builds), every other contender's median over rounds of its
// time ÷ the baseline's in the same round: ratios[baseline][name], which stay put when absolute
// times do not.
async function paired(contenders, baselines, big, policy) {
  const { minRuns: minRounds, maxRuns: maxRounds, target } = budget(big, 15, policy);
  for (const c of contenders) await c.run();
  const times = contenders.map(() => []);
  let total = 0,
    r = 0;
  for (; r < minRounds || (r < maxRounds && total < target); r++) {
    for (let i = 0; i < contenders.length; i++) {
      const k = (i + r) % contenders.length;
      const t0 = performance.now();
      await contenders[k].run();
      const dt = performance.now() - t0;
      times[k].push(dt);
      total += dt;
    }
  }
  const ratios = {};
  contenders.forEach((base, b) => {
    if (!baselines.includes(base.name)) return;
    ratios[base.name] = {};
    contenders.forEach((c, k) => {
      if (k !== b) ratios[base.name][c.name] = median(times[k].map((t, i) => t / times[b][i]));
    });
  });
  return { rounds: r, ratios, medianMs: Object.fromEntries(contenders.map((c, k) => [c.name, median(times[k])])) };
}

module.exports = { median, maxAbsDiff, measure, paired };
