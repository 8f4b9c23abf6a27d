// The protocol: the core's numbers and tables, read once when a module starts (wasm/api/index.js).
// The protocol's numbers come from the core (bindings.cpp, protocol()) when the first module starts:
// mask modes by index, size limits, the tensor block header (uint32 rank, uint32 dims[maxDims], then the
// floats), the result summary's slots, what activation patching puts in (PATCH_KINDS), the ways to switch a head off (ABLATIONS), how thumbnails pool (POOLS), the largest model sizes (LIMITS) and the training tasks (the core's task table: name, title, brief,
// readouts, roles, defaults).
let MASK_MODES,
  MASK_MODE_WORDS,
  OPTIMIZER_CLASSES,
  PATCH_KINDS,
  ABLATIONS,
  POOLS,
  MAX_DIMS,
  BLOCK_HEADER,
  MAX_DIM,
  MAX_ELEMENTS,
  MASKED_ROWS,
  HEADERS,
  TASKS,
  LIMITS;
function readProtocol(core) {
  const p = core.protocol();
  MASK_MODES = p.maskModes;
  MASK_MODE_WORDS = MASK_MODES.map((m, i) => `'${m}' (${p.maskModeMeanings[i]})`).join(', ');
  OPTIMIZER_CLASSES = Object.freeze(p.optimizers.slice());
  PATCH_KINDS = Object.freeze(p.patchKinds.slice());
  ABLATIONS = Object.freeze(p.ablations.slice());
  POOLS = Object.freeze(p.pools.slice());
  MAX_DIMS = p.maxDims;
  BLOCK_HEADER = p.blockHeader;
  MAX_DIM = p.maxDim;
  MAX_ELEMENTS = p.maxElements;
  MASKED_ROWS = p.summaryMaskedRows;
  HEADERS = p.summaryHeaders;
  TASKS = deepFreeze(p.tasks);
  LIMITS = Object.freeze(p.limits);
}
function deepFreeze(x) {
  if (x !== null && typeof x === 'object') Object.values(x).forEach(deepFreeze);
  return Object.freeze(x);
}
// dist/mha-relaxed.js reports 'wasmsimd-relaxed': wasm/relax.mjs rewrites this line.
const BUILD_SUFFIX = '';

export {
  MASK_MODES,
  PATCH_KINDS,
  ABLATIONS,
  POOLS,
  MASK_MODE_WORDS,
  OPTIMIZER_CLASSES,
  MAX_DIMS,
  BLOCK_HEADER,
  MAX_DIM,
  MAX_ELEMENTS,
  MASKED_ROWS,
  HEADERS,
  TASKS,
  LIMITS,
  readProtocol,
  BUILD_SUFFIX,
};
