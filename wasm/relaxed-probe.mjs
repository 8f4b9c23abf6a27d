// The relaxed-SIMD feature probe, one copy for Node-side code (the page keeps its own, being a
// classic script): a module whose one function is (f32x4.relaxed_madd 0 0 0). It validates where
// dist/mha-relaxed.js can run.
//
// As a script it answers how this node runs relaxed SIMD, for CMake and the shell scripts:
//   node wasm/relaxed-probe.mjs   prints "" (natively), "--experimental-wasm-relaxed-simd" (Node 20),
//                                 or exits 1 (no relaxed SIMD: the relaxed build is not run)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ZERO_V128 = [253, 12, ...new Array(16).fill(0)];
export const RELAXED_PROBE = new Uint8Array([
  0,
  97,
  115,
  109,
  1,
  0,
  0,
  0,
  1,
  5,
  1,
  96,
  0,
  1,
  123,
  3,
  2,
  1,
  0,
  10,
  61,
  1,
  59,
  0,
  ...ZERO_V128,
  ...ZERO_V128,
  ...ZERO_V128,
  253,
  133,
  2,
  11,
]);
export const RELAXED_FLAG = '--experimental-wasm-relaxed-simd';

export function relaxedSupported() {
  try {
    return WebAssembly.validate(RELAXED_PROBE);
  } catch {
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--check') process.exit(relaxedSupported() ? 0 : 1);
  if (relaxedSupported()) {
    console.log('');
  } else {
    try {
      execFileSync(process.execPath, [RELAXED_FLAG, fileURLToPath(import.meta.url), '--check'], { stdio: 'ignore' });
      console.log(RELAXED_FLAG);
    } catch {
      process.exit(1);
    }
  }
}
