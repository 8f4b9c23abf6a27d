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
import { readProtocol, TASKS, OPTIMIZER_CLASSES, PATCH_KINDS, POOLS, LIMITS, BUILD_SUFFIX } from './protocol.js';
import { coreContext } from './memory.js';
import { tensorsApi } from './tensors.js';
import { trainingApi } from './training.js';
import { modelsApi } from './models.js';
import { installAnalysis } from './analysis.js';

// The module's names, in the order they have always been listed.
function wrap(core) {
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

export default async function createMhaModule(moduleOverrides) {
  const core = await createMhaCore(moduleOverrides || {});
  readProtocol(core);
  return wrap(core);
}
