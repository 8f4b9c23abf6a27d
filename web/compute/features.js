// MHA Explorer — which core builds this browser runs, fastest first (shared by the page and the lab).
// A 1-function module using v128 (i32x4.splat) validates only where WebAssembly SIMD is supported;
// (f32x4.relaxed_madd 0 0 0) only where relaxed SIMD is (Chrome/Edge 114+), whose FMA the
// mha-relaxed.js build uses for every multiply-add.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);
const ZERO_V128 = [253, 12].concat(new Array(16).fill(0));
const RELAXED_PROBE = new Uint8Array(
  [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 61, 1, 59, 0].concat(
    ZERO_V128,
    ZERO_V128,
    ZERO_V128,
    [253, 133, 2, 11],
  ),
);
function supports(probe) {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(probe);
  } catch (e) {
    return false;
  }
}
export const BUILDS = (supports(RELAXED_PROBE) ? ['mha-relaxed'] : []).concat(supports(SIMD_PROBE) ? ['mha'] : [], [
  'mha-nosimd',
]);

// What the core's `implementation` means, in the page's words.
export function implementationName(impl) {
  return (
    { 'wasmsimd-relaxed': 'WebAssembly SIMD + FMA (relaxed SIMD)', wasmsimd: 'WebAssembly SIMD' }[impl] ||
    'WebAssembly (scalar, no SIMD)'
  );
}

// Why this page cannot run the threaded build (dist/mha-threads.js: SIMD128 with pthreads, one SharedArrayBuffer
// heap), or null when it can. Browsers give SharedArrayBuffer only to a cross-origin isolated page.
export function threadsBlocked() {
  const isolated = typeof crossOriginIsolated === 'boolean' && crossOriginIsolated;
  if (!isolated || typeof SharedArrayBuffer !== 'function') {
    const local = typeof location === 'object' && location.protocol === 'file:';
    return (
      'the page is not cross-origin isolated' +
      (local
        ? ' (a file:// page never is): open it from a web server'
        : ': its server did not send Cross-Origin-Opener-Policy: same-origin with Cross-Origin-Embedder-Policy: require-corp') +
      ' to compute on every core (docs/hosting.md)'
    );
  }
  if (!supports(SIMD_PROBE)) return 'this browser has no WebAssembly SIMD, which the threaded core needs';
  return null;
}

// The threads a page asks for: ?threads=N (1 to MAX_THREADS), else navigator.hardwareConcurrency, capped.
export const MAX_THREADS = 8;
export function threadsWanted(query) {
  const asked = Number(new URLSearchParams(query || '').get('threads'));
  if (Number.isInteger(asked) && asked >= 1) return Math.min(asked, MAX_THREADS);
  const cores = (typeof navigator === 'object' && navigator.hardwareConcurrency) || 1;
  return Math.max(1, Math.min(cores, MAX_THREADS));
}

// The status line's words for the threads a core runs: "4 threads", or "1 thread: why".
export function threadsText(count, note) {
  return count > 1 ? count + ' threads' : '1 thread' + (note ? ': ' + note : '');
}
