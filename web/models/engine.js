// MHA Explorer, the model page — its core: the fastest core build this browser runs (compute/features.js, falling back to
// the next when a file is missing: compute/source.js's loadPageCore, the page's own loader), loaded as the page's
// classic script (or from the one-file page's own text), and checked for the model API (core.loadModel: the
// real-checkpoint loader of wasm/api/models.js).
import { loadPageCore } from '../compute/source.js';
import { threadsText } from '../compute/features.js';

let core = null;
const builds = new WeakMap(); // a core's module → its build's name (mha-relaxed, mha, mha-nosimd)
// The build of a core loadCore gave (its worker imports the same).
export const buildOf = (M) => builds.get(M);
// The status line's words for the core's threads ("2 threads", "1 thread: why"), once the core started.
export let coreThreads = '';
// base: the folder of the core files ('': the page's own; an element's folder). → promise of the WebAssembly API
// (createMhaModule()'s module), once per document.
export function loadCore(base = '') {
  if (core) return core;
  core = loadPageCore(base, 'models.html', 'mha-explorer-models.html', { threads: true }).then(
    ({ M, build, threads }) => {
      builds.set(M, build);
      coreThreads = threadsText(M.threads || threads.count, threads.note);
      if (typeof M.loadModel !== 'function')
        throw new Error(
          'this build of the core has no loadModel (it predates real checkpoints): rebuild dist/ with scripts/build.',
        );
      return M;
    },
  );
  core.catch(() => {
    core = null;
  }); // a later call tries again
  return core;
}
