// The core's memory and the wrappers' lifetimes: one context per core (createMhaModule), passed to every module
// that calls the core: own/release/live (an object's handle), stage/withStaged/runRaw/runAttention (tensors in and
// out of wasm memory), withBytes (a file's bytes).
import { BLOCK_HEADER, HEADERS, MASKED_ROWS } from './protocol.js';
import { fail } from './checks.js';

export function coreContext(core) {
  const OUT_OF_MEMORY =
    'out of memory: the browser could not give this tab enough memory; close other tabs or try a smaller model';

  // Safety net for objects never .delete()d: free the wasm side when the wrapper is collected.
  const registry =
    typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry((handle) => {
          if (!handle.isDeleted()) handle.delete();
        })
      : null;

  function own(wrapper, handle) {
    wrapper._handle = handle;
    if (registry) registry.register(wrapper, handle, wrapper);
  }

  function release(wrapper, kind) {
    const handle = live(wrapper, kind);
    if (registry) registry.unregister(wrapper);
    handle.delete();
    wrapper._handle = null;
  }

  function live(wrapper, kind) {
    if (!wrapper._handle) fail(`this ${kind} was deleted; create a new one`);
    return wrapper._handle;
  }

  // Writes a validated tensor into wasm memory as a block; the caller frees it.
  function stage(t) {
    const addr = core._malloc(4 * (BLOCK_HEADER + t.data.length)) >>> 0; // unsigned: memory may pass 2 GB
    if (!addr)
      fail('out of memory: the browser could not give this tab enough memory for that size; try a smaller one');
    const at = addr >>> 2;
    const header = core.HEAPU32; // re-read after malloc: memory growth replaces the views
    header[at] = t.shape.length;
    for (let i = 0; i < t.shape.length; i++) header[at + 1 + i] = t.shape[i];
    core.HEAPF32.set(t.data, at + BLOCK_HEADER);
    return addr;
  }

  // The result slot's summary (bindings.cpp): data addresses [0, 1], fully masked rows [2],
  // then the output's and the weights' headers. The slot is static, so its address is fixed.
  const summary = core.resultSummaryAddress() >>> 2;

  // A copy of result tensor `which` (0 output, 1 weights) of the last raw call, or null.
  function readResult(which) {
    const heap = core.HEAPU32;
    const addr = heap[summary + which] >>> 2;
    if (!addr) return null;
    const h = summary + HEADERS + which * BLOCK_HEADER;
    const shape = Array.from(heap.subarray(h + 1, h + 1 + heap[h]));
    let n = 1;
    for (let i = 0; i < shape.length; i++) n *= shape[i];
    return { shape, data: core.HEAPF32.slice(addr, addr + n) };
  }

  // Stages the tensors (null stays 0; the same tensor is staged once), makes one core call,
  // and frees everything whatever happens. `call` gets the block addresses.
  function withStaged(tensors, call) {
    const staged = new Map(); // tensor → its block
    try {
      const addrs = tensors.map((t) => {
        if (!t) return 0;
        if (!staged.has(t)) staged.set(t, stage(t));
        return staged.get(t);
      });
      return call(...addrs);
    } finally {
      for (const addr of staged.values()) core._free(addr);
    }
  }

  // For core calls that leave tensors in the result slot: copies them out, or throws its message.
  function runRaw(tensors, call) {
    try {
      if (!withStaged(tensors, call)) fail(core.resultError());
      return { output: readResult(0), weights: readResult(1), fullyMaskedRows: core.HEAPU32[summary + MASKED_ROWS] };
    } finally {
      core.releaseResult();
    }
  }

  // An attention call of the core: q, k, v and the options' masks staged, then the core's argument order.
  function runAttention(qkv, o, call) {
    return runRaw([...qkv, o.mask, o.keyPaddingMask], (qa, ka, va, ma, pa) =>
      call(qa, ka, va, o.needWeights, o.causal, o.fill, o.mode, ma, pa),
    );
  }

  // Runs call(address) with `bytes` copied into wasm memory, freed after.
  function withBytes(bytes, call) {
    const addr = core._malloc(Math.max(1, bytes.length)) >>> 0;
    if (!addr) fail(OUT_OF_MEMORY);
    try {
      core.HEAPU8.set(bytes, addr);
      return call(addr);
    } finally {
      core._free(addr);
    }
  }

  return { core, own, release, live, stage, readResult, withStaged, runRaw, runAttention, withBytes };
}
