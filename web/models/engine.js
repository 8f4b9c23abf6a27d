// MHA Explorer, the model page — its core: the fastest core build this browser runs (compute/features.js, falling back to
// the next when a file is missing), loaded as the page's classic script (or from the one-file page's own text), and
// checked for the model API (core.loadModel: the real-checkpoint loader of wasm/api.js).
import { CORE_BUILDS, INLINE, loadCoreScript, explain } from '../compute/source.js';

let core = null;
// base: the folder of the core files ('': the page's own; an element's folder). → promise of the WebAssembly API
// (createMhaModule()'s module), once per document.
export function loadCore(base = '') {
  if (core) return core;
  const missing = [];
  const tryBuild = (i) =>
    loadCoreScript(CORE_BUILDS[i], base).catch((err) => {
      missing.push(CORE_BUILDS[i] + '.js');
      if (INLINE) throw new Error('MHA Explorer could not start its WebAssembly core: ' + explain(err));
      if (i + 1 < CORE_BUILDS.length) return tryBuild(i + 1);
      throw new Error(
        'MHA Explorer could not load its WebAssembly core: ' +
          missing.join(', ') +
          (missing.length > 1 ? ' are' : ' is') +
          (base ? ' missing in ' + base + '.' : ' missing next to this page.') +
          ' Upload the whole dist/ folder (every file in it) to the same place; or use the one-file page ' +
          'mha-explorer-models.html.',
      );
    });
  core = (typeof window.createMhaModule === 'function' ? Promise.resolve() : tryBuild(0))
    .then(() => window.createMhaModule())
    .then(
      (M) => {
        if (typeof M.loadModel !== 'function')
          throw new Error(
            'this build of the core has no loadModel (it predates real checkpoints): rebuild dist/ with scripts/build.',
          );
        return M;
      },
      (err) => {
        throw new Error(explain(err));
      },
    );
  core.catch(() => {
    core = null;
  }); // a later call tries again
  return core;
}
