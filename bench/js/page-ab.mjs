// The headline of page-speed.js (page ÷ core, paired rounds of the causal toggle, alternating; docs/page-speed.md) for
// two builds in alternation, one browser, from file://: node bench/js/page-ab.mjs BASE_DIST [DIST] [--loads N]
// (DIST: this worktree's dist/). Per shape, the builds' loads alternate (base, this, base, …), 16 paired rounds each;
// medians of the rounds' ratios, and each load's own. For a before/after of a change on a machine whose speed drifts.
import path from 'path';
import { pathToFileURL } from 'url';
import { createRequire } from 'module';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const require = createRequire(root + '/package.json');
const { chromium } = require('playwright-core');
const { CHROMIUM } = await import(root + '/scripts/chromium.mjs');
const { headline, SHAPES, TEXT_512 } = require(path.join(root, 'bench', 'js', 'page-speed.js'));
const args = process.argv.slice(2),
  at = args.indexOf('--loads'),
  loads = at >= 0 ? Number(args.splice(at, 2)[1]) : 3;
if (!args[0]) {
  console.error('usage: node bench/js/page-ab.mjs BASE_DIST [DIST] [--loads N]');
  process.exit(2);
}
const dists = { before: path.resolve(args[0]), after: path.resolve(args[1] || path.join(root, 'dist')) };
const { median: med } = require(path.join(root, 'bench', 'js', 'lib', 'timing.js'));
const browser = await chromium.launch({
  ...CHROMIUM,
  args: [...CHROMIUM.args, '--disable-frame-rate-limit', '--disable-gpu-vsync'],
});
try {
  for (const s of SHAPES) {
    const res = { before: [], after: [] };
    for (let r = 0; r < loads; r++) {
      for (const [name, dist] of Object.entries(dists)) {
        const url = pathToFileURL(path.join(dist, 'index.html')).href + `?dmodel=${s.D}&heads=${s.H}&text=${TEXT_512}`;
        res[name].push((await headline(browser, url, s, 1, 16)).row);
      }
    }
    for (const [name, rows] of Object.entries(res)) {
      const rounds = rows.flatMap((x) => x.samples.rounds);
      console.log(
        `${s.D}/${s.H} ${name}: page ÷ core ${med(rounds.map((x) => x.page / x.core)).toFixed(2)}× (per load ${rows.map((x) => x.ratio.toFixed(2)).join(' ')}), ` +
          `page ${med(rounds.map((x) => x.page)).toFixed(1)} ms, core ${med(rounds.map((x) => x.core)).toFixed(1)} ms, where: ${[...new Set(rows.map((x) => x.where))].join('; ')}`,
      );
    }
  }
} finally {
  await browser.close();
}
