// MHA Explorer JS API: the public names course pages and tests use (types/index.d.ts declares them).
//
// wasm/bundle-api.mjs bundles this module and the ones it imports (esbuild) into one script appended to the
// Emscripten output (createMhaCore) by wasm/CMakeLists.txt: createMhaModule as a browser global and Node's
// module.exports in dist/mha*.js, the default export of dist/mha-web.mjs.
// This layer validates arguments (types, integrality, ranges, lengths) before they cross into wasm, turns the
// core's {error} results into thrown Errors, and owns object lifetimes. One module per concern, each a function of
// the core's context (memory.js) returning its names: tensors.js, training.js, models.js (with files.js and
// tokenizer.js); protocol.js and checks.js are shared by all.
/* global createMhaCore */
import {
  readProtocol,
  TASKS,
  OPTIMIZER_CLASSES,
  PATCH_KINDS,
  ABLATIONS,
  POOLS,
  LIMITS,
  BUILD_SUFFIX,
} from './protocol.js';
import { coreContext } from './memory.js';
import { tensorsApi } from './tensors.js';
import { trainingApi } from './training.js';
import { modelsApi } from './models.js';
import { installAnalysis } from './analysis.js';

// The module's names, in the order they have always been listed.
function wrap(core, pool) {
  return addThreads(names(core), core, pool);
}
function names(core) {
  const ctx = coreContext(core);
  const tensors = tensorsApi(ctx);
  const training = trainingApi(ctx, tensors);
  const models = modelsApi(ctx);
  installAnalysis(ctx, models.Model);
  const { readSafetensors } = tensors;
  return {
    Generator: tensors.Generator,
    MultiHeadAttention: tensors.MultiHeadAttention,
    TinyAttentionModel: training.TinyAttentionModel,
    SGD: training.SGD,
    Adam: training.Adam,
    AdamW: training.AdamW,
    readSafetensors,
    loadModel: models.loadModel,
    previewHubModel: models.previewHubModel,
    downloadHubModel: models.downloadHubModel,
    storedHubModels: models.storedHubModels,
    deleteStoredHubModel: models.deleteStoredHubModel,
    loadSafetensors: (bytes) => readSafetensors(bytes).tensors,
    tasks: training.TASK_NAMES,
    taskTable: TASKS,
    optimizers: OPTIMIZER_CLASSES,
    patchKinds: PATCH_KINDS,
    ablations: ABLATIONS,
    pools: POOLS,
    limits: LIMITS,
    modelDefaults: training.taskDefaults,
    implementation: core.implementation() + BUILD_SUFFIX,
    ...tensors.functions,
    viewError: () => core.viewError(),
    // The compiled WebAssembly.Module: createMhaModule({wasmModule}) in a worker instantiates it without compiling.
    wasmModule: core.wasmModule,
    memoryStats: () => core.memoryStats(),
  };
}

// The threads of the kernels' pool (dist/mha-threads.js; every other build runs 1): `threads` reads the size,
// setThreads(n) sets it within the pthread workers started with the module (createMhaModule({threads})).
function addThreads(M, core, pool) {
  Object.defineProperty(M, 'threads', { enumerable: true, get: () => core.threads() });
  M.setThreads = (n) => {
    if (!Number.isInteger(n) || n < 1) throw new Error(`setThreads(n): n must be a whole number >= 1, got ${n}`);
    const size = core.setThreads(Math.min(n, pool));
    if (core.mhaUnrefWorkers) core.mhaUnrefWorkers();
    return size;
  };
  return M;
}

// The threads a module asks for: createMhaModule({threads: n}), else the cores the host reports, at most 8.
const MAX_DEFAULT_THREADS = 8;
function threadsWanted(overrides) {
  if (overrides.threads !== undefined) {
    if (!Number.isInteger(overrides.threads) || overrides.threads < 1 || overrides.threads > 64)
      throw new Error(`createMhaModule({threads}): a whole number from 1 to 64, got ${overrides.threads}`);
    return overrides.threads;
  }
  return Math.max(1, Math.min(hostCores(), MAX_DEFAULT_THREADS));
}
function hostCores() {
  if (typeof navigator === 'object' && navigator && navigator.hardwareConcurrency) return navigator.hardwareConcurrency;
  const load = typeof require === 'function' ? require : null; // Node 20 has no navigator (not a bundler's import)
  const os = load ? load('os') : null;
  return os ? (os.availableParallelism ? os.availableParallelism() : os.cpus().length) : 1;
}

export default async function createMhaModule(moduleOverrides) {
  const overrides = moduleOverrides || {}; // Emscripten's module object itself (tests read its bindings)
  const wanted = threadsWanted(overrides);
  // dist/mha-threads.js starts these pthread workers before the core runs (its PTHREAD_POOL_SIZE; with none its
  // start would wait for ever); the other builds ignore it
  overrides.mhaPthreads = Math.max(1, wanted - 1);
  const core = await createMhaCore(overrides);
  readProtocol(core);
  core.setThreads(wanted);
  if (core.mhaUnrefWorkers) core.mhaUnrefWorkers(); // Node: the pthread workers do not hold the process
  if (overrides.splitThreshold !== undefined) core.setSplitThreshold(overrides.splitThreshold); // tests: split every call
  const pool = overrides.mhaPthreads + 1;
  return wrap(core, pool);
}
