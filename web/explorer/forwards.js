// MHA Explorer — an explorer's forwards: the fastest core build this browser runs (compute/features.js; a
// host that lacks one falls back to the next), loaded once per document and shared by every explorer in it; each
// explorer has its own module cache (explorer-run.js's ModuleCache: the core objects it allocated, freed by dispose())
// and its own forward pool (compute/forward-pool.js: large forwards split by heads across Web Workers, each
// instantiating the shared compiled module), started and warmed up right after the core loads. Its workers start
// the way compute/source.js's forwardWorkers says (worker.js over http(s), blob: URLs of the page's core text from
// file:// and in the one-file page). A large forward runs where this machine ran its size fastest: the main thread, one
// worker or split across the pool (compute/placement.js). Where workers cannot start, forwards run on the main thread.
import { runModule, cost, now, ModuleCache } from '../compute/explorer-run.js';
import { FILES, loadPageCore, forwardWorkers } from '../compute/source.js';
import { ForwardPool, poolSize } from '../compute/forward-pool.js';
import { Placement, PLACES, SAMPLES, sizeClass } from '../compute/placement.js';

// Multiply-adds above which a forward may go to the pool (about 20 ms on one core of a laptop): it runs where this
// machine ran its size fastest (compute/placement.js); smaller ones always run on the main thread.
const POOL_COST = 1.2e8;
// Forwards at most before the first render while the places of its size are measured.
const WARM_MAX = 2 * PLACES.length * SAMPLES;

// A forward through every part of the kernels the page's large forwards use (heads split, weights formed), on the
// main thread once (the workers share its compiled code, and so V8's optimized tier of it) and twice in each worker.
const WARM_UP = {
  dModel: 256,
  numHeads: 8,
  seed: 0,
  bias: true,
  dropout: 0,
  train: false,
  mask: null,
  input: { type: 'randn', batch: 1, seqLen: 192 },
  order: 'module-first',
};

// The document's core: a promise of {M (the WebAssembly API), build}, made by the first explorer that asks.
const documentCores = new WeakMap(); // window → promise
function sharedCore(win, base) {
  if (documentCores.has(win)) return documentCores.get(win);
  const core = loadPageCore(base, FILES.page, 'mha-explorer.html').then((loaded) => {
    // the first forward a student sees runs at full speed: the main thread's kernels warmed once
    try {
      runModule(loaded.M, WARM_UP);
    } catch (err) {
      /* the first real forward reports it */
    }
    return loaded;
  });
  core.catch(() => documentCores.delete(win)); // a later explorer tries again
  documentCores.set(win, core);
  return core;
}

export class Forwards {
  // base: the folder of the core files ('': the page's own; the first explorer of a document loads the core from its base).
  constructor(base = '') {
    this.base = base;
    this.M = null;
    this.pool = null;
    this.poolStart = null;
    this.seq = 0; // forwards started
    this.placement = null; // where large forwards run (compute/placement.js), once the pool started or failed
    this.cache = new ModuleCache();
    this.disposed = false;
    // Where and how long the last forward ran (note: why there, placement.js's words); from the pool, each part's
    // forward and its whole run in its worker.
    this.lastCompute = { ms: 0, where: 'main thread', note: '', partMs: null, partTotalMs: null };
  }
  // → promise of M, once the core is loaded and this explorer's pool is warm.
  load() {
    return sharedCore(window, this.base).then((core) => {
      this.M = core.M;
      this.build = core.build;
      return this.startPool().then(() => core.M);
    });
  }
  // The pool's workers run the build the page runs, instantiated from the document's compiled module. Resolves to
  // the pool, or null where workers cannot start (then every forward runs on the main thread). Warms up: V8 starts
  // wasm in its baseline tier. The places a large forward can run in follow (compute/placement.js).
  startPool() {
    if (this.poolStart) return this.poolStart;
    const size = poolSize(window.navigator && window.navigator.hardwareConcurrency);
    this.poolStart = (
      this.M.wasmModule && typeof Worker === 'function' ? forwardWorkers(this.build, this.base) : Promise.resolve(null)
    )
      .then((workers) => {
        if (!workers || this.disposed) return null;
        this.pool = new ForwardPool(workers.start, { init: this.M.wasmModule, core: workers.core }, size);
        return this.pool
          .run(WARM_UP)
          .then(() => this.pool.run(WARM_UP))
          .then(() => this.pool);
      })
      .catch(() => {
        if (this.pool) this.pool.terminate();
        this.pool = null;
        return null;
      })
      .then((pool) => {
        this.placement = new Placement(pool ? PLACES.filter((p) => p !== 'split' || pool.size > 1) : ['main']);
        return pool;
      });
    return this.poolStart;
  }
  // Before the first render: the page's own forward run where it may run, its result dropped, until the fastest place
  // of its size is known (compute/placement.js: each place SAMPLES times). It fills the module caches (the weights
  // drawn and packed at the page's d_model, the memory grown) and runs the kernels at the page's shape, so the first
  // forward the student sees is a warm one, in the place that is fastest here.
  warmUp(spec) {
    const again = (i) =>
      this.runForward(spec).promise.then(() => {
        const key = this.sizeOf(spec);
        if (i < 2 || (key && !this.placement.decided(key) && i < WARM_MAX)) return again(i + 1);
      });
    return again(1).then(
      () => {},
      () => {},
    );
  }
  // The size class of a large forward (placement.js), or null for one that always runs here. A forward with dropout in
  // train() runs in one part wherever it goes (forward-pool.js): a class of its own.
  sizeOf(spec) {
    const c = cost(spec);
    if (!(c > POOL_COST && this.placement && this.placement.places.length > 1)) return null;
    return sizeClass(spec.dModel, spec.numHeads, c) + (spec.train && spec.dropout > 0 ? '/one part' : '');
  }
  // The forward of spec (runModule's): {promise of the result, sync: whether it already ran here}.
  // A forward that throws gives a rejected promise; one superseded by a newer forward before it started rejects
  // with err.superseded.
  runForward(spec) {
    this.seq++;
    // window.mhaPoolCost (tests): a fixed threshold instead of the measured choice, e.g. 0 to split every forward
    if (typeof window.mhaPoolCost === 'number') return this.forced(spec, window.mhaPoolCost);
    const key = this.sizeOf(spec);
    if (!key) {
      if (!this.placement && this.poolStart && cost(spec) > POOL_COST) {
        // the pool still starting: its places come
        return { promise: this.poolStart.then(() => this.runForward(spec).promise), sync: false };
      }
      return this.here(spec, null);
    }
    const place = this.placement.next(key);
    if (place === 'main') return this.here(spec, key);
    return { promise: this.pooled(spec, place === 'split' ? this.pool.size : 1, key, place), sync: false };
  }
  forced(spec, limit) {
    if (cost(spec) > limit && this.poolStart) {
      return {
        promise: this.poolStart.then((p) => (p ? this.pooled(spec, p.size, null) : this.inline(spec))),
        sync: false,
      };
    }
    return this.here(spec, null);
  }
  here(spec, key) {
    try {
      const t = now(),
        r = runModule(this.M, spec, null, this.cache);
      if (key) this.placement.record(key, 'main', this.timeOf('main', now() - t));
      this.done(r.ms, 'main thread', null, key);
      return { promise: Promise.resolve(r), sync: true };
    } catch (err) {
      return { promise: Promise.reject(err), sync: true };
    }
  }
  // In the pool, in n parts (n = 1: one worker); key, place: the size class and place measured, or null.
  // A result that comes after a newer forward started (which may have run here at once) is not the last compute.
  pooled(spec, n, key, place) {
    if (!this.pool) return Promise.resolve(this.inline(spec));
    const mine = this.seq;
    return this.pool.run(spec, n).then(
      (r) => {
        if (key) this.placement.record(key, place, this.timeOf(place, r.ms));
        if (mine === this.seq) this.done(r.ms, r.where, r, key);
        return r;
      },
      (err) => {
        if (!err || !err.poolFailed) throw err;
        this.placement = new Placement(['main']); // the workers are gone: every forward runs here from now on
        return this.inline(spec);
      },
    );
  }
  // A time of a place: the measured one, or window.mhaPlaceTimes' (tests: {main, worker, split} in ms).
  timeOf(place, ms) {
    const given = window.mhaPlaceTimes;
    return given && typeof given[place] === 'number' ? given[place] : ms;
  }
  inline(spec) {
    const r = runModule(this.M, spec, null, this.cache);
    this.done(r.ms, 'main thread');
    return r;
  }
  noForward() {
    this.done(0, 'main thread');
  }
  // key: the size class whose placement the status line explains (placement.js's note), or none.
  done(ms, where, pooled, key) {
    const c = this.lastCompute;
    c.ms = ms;
    c.where = where;
    c.note = key ? this.placement.note(key, this.pool ? this.pool.size : 1) : '';
    c.partMs = pooled ? pooled.partMs : null;
    c.partTotalMs = pooled ? pooled.partTotalMs : null;
  }
  // The pool's workers terminated and the core objects this explorer holds freed (the core itself stays for the others).
  dispose() {
    this.disposed = true;
    if (this.pool) this.pool.terminate();
    this.pool = null;
    this.cache.free();
  }
}
