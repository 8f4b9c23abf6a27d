// MHA Explorer — the forward pool: a large forward split by heads across Web Workers, each with its own instance
// of the core. The page's compiled WebAssembly.Module is posted to every worker (no second compile, no
// SharedArrayBuffer: it runs from file://, on static hosts and inside cross-origin iframes). Each worker projects
// and attends for its heads and returns their weights and their term of W_o's sum (MultiHeadAttention.forward's
// `heads` option); the pool joins the parts: output = the terms summed (within float32 rounding of one worker's
// output), weights [B, H, Sq, Skv] the parts' heads in order. A forward with dropout in train() runs in one part
// (dropout draws its masks for all heads in order).
// Latest wins: a job still waiting for the running one is dropped (rejected, err.superseded) when a newer one
// comes, and a job's parts are joined only from that job's answers, so a view never mixes two configurations.

// Workers: one per core the browser reports, at most this many (and at most one per head).
export const MAX_WORKERS = 8;
export function poolSize(hardwareConcurrency) {
  return Math.max(1, Math.min(MAX_WORKERS, hardwareConcurrency || 1));
}

// n contiguous head ranges [start, end), as equal as possible (the first ones get the extra heads).
export function headParts(H, n) {
  n = Math.max(1, Math.min(n, H));
  const out = [];
  for (let i = 0, start = 0; i < n; i++) {
    const size = Math.floor(H / n) + (i < H % n ? 1 : 0);
    out.push([start, start + size]);
    start += size;
  }
  return out;
}

// The parts' results (model.runModule's, in head order) as one: outputs summed in part order (the bias is in the
// first part's term), weights joined along the head dimension, the input from the first part.
export function joinParts(parts) {
  const first = parts[0];
  if (parts.length === 1) return first;
  const out = first.output.data;
  for (let p = 1; p < parts.length; p++) {
    const d = parts[p].output.data;
    for (let i = 0; i < out.length; i++) out[i] += d[i]; // a double sum rounded to float32 once per part
  }
  const joined = Object.assign({}, first, { ms: Math.max(...parts.map((p) => p.ms)), weights: null });
  if (first.fullyMaskedRows !== undefined) joined.fullyMaskedRows = parts.reduce((n, p) => n + p.fullyMaskedRows, 0);
  if (!first.weights) return joined; // needWeights: false
  joined.weights = partedWeights(parts.map((p) => p.weights));
  return joined;
}

// Weights [B, H, Sq, Skv] kept as the parts' blocks ([B, h, Sq, Skv] each, heads in order): the views read a head's
// matrix from its part (model.headMatrix, explorer/read.js's colourMax), so no 8 MiB copy happens on the way to a
// paint; `data` (the whole tensor, for getWeights and printing) is joined on first use.
export function partedWeights(ws) {
  const [B, , Sq, Skv] = ws[0].shape,
    plane = Sq * Skv;
  const H = ws.reduce((n, w) => n + w.shape[1], 0);
  let h0 = 0,
    data = null;
  const parts = ws.map((w) => {
    const part = { h0, h1: h0 + w.shape[1], data: w.data };
    h0 = part.h1;
    return part;
  });
  return {
    shape: [B, H, Sq, Skv],
    parts,
    get data() {
      if (data) return data;
      data = new Float32Array(B * H * plane);
      for (let b = 0, at = 0; b < B; b++) {
        for (const p of parts) {
          const n = (p.h1 - p.h0) * plane;
          data.set(p.data.subarray(b * n, (b + 1) * n), at);
          at += n;
        }
      }
      return data;
    },
  };
}

function superseded() {
  const e = new Error('superseded by a newer forward');
  e.superseded = true;
  return e;
}
function poolFailure(message) {
  const e = new Error(message);
  e.poolFailed = true;
  return e;
}

export class ForwardPool {
  // startWorker: () => a new forward Worker (compute/forward-worker.js; compute/source.js's forwardWorkers); init: its first
  // message ({init: the page's compiled WebAssembly.Module, core}). Throws when workers cannot start.
  constructor(startWorker, init, size) {
    this.workers = [];
    this.running = null;
    this.waiting = null;
    this.seq = 0;
    this.failed = null;
    try {
      for (let i = 0; i < size; i++) {
        const w = startWorker();
        w.onmessage = (e) => this.answer(i, e.data);
        w.onerror = (e) => {
          if (e && e.preventDefault) e.preventDefault();
          this.fail('a forward worker stopped: ' + ((e && e.message) || 'error'));
        };
        w.postMessage(init);
        this.workers.push(w);
      }
    } catch (err) {
      this.terminate();
      throw err;
    }
  }
  get size() {
    return this.workers.length;
  }
  // The forward of spec (model.runModule's) split into at most `parts` parts (default: one per worker): a promise of
  // the joined result, with `where` (how many workers ran it) and `ms` (wall time from the parts' posting to the join).
  run(spec, parts = this.size) {
    return new Promise((resolve, reject) => {
      if (this.failed) {
        reject(poolFailure(this.failed));
        return;
      }
      if (this.waiting) this.waiting.reject(superseded());
      this.waiting = { spec, count: parts, resolve, reject };
      this.pump();
    });
  }
  pump() {
    if (this.running || !this.waiting) return;
    const job = (this.running = this.waiting);
    this.waiting = null;
    const spec = job.spec,
      stochastic = spec.train && spec.dropout > 0;
    const ranges = stochastic || job.count <= 1 ? [null] : headParts(spec.numHeads, Math.min(job.count, this.size));
    job.id = ++this.seq;
    job.parts = new Array(ranges.length);
    job.left = ranges.length;
    job.t0 = performance.now();
    ranges.forEach((heads, i) =>
      this.workers[i].postMessage({ id: job.id, spec, heads: ranges.length > 1 ? heads : null }),
    );
  }
  answer(i, msg) {
    if (msg.failed) {
      this.fail('the core did not start in a forward worker: ' + msg.failed);
      return;
    }
    const job = this.running;
    if (!job || msg.id !== job.id) return;
    if (msg.error) job.error = job.error || msg.error;
    else job.parts[i] = msg.result;
    if (--job.left > 0) return;
    this.running = null;
    if (job.error) job.reject(new Error(job.error));
    else {
      const r = joinParts(job.parts);
      r.partMs = job.parts.map((p) => p.ms); // each part's own forward
      r.partTotalMs = job.parts.map((p) => p.totalMs); // each part's run in its worker (embedding included)
      r.ms = performance.now() - job.t0;
      r.where = job.parts.length > 1 ? job.parts.length + ' Web Workers' : 'Web Worker';
      job.resolve(r);
    }
    this.pump();
  }
  // A worker failed: every job gets a poolFailed rejection (the page runs it on the main thread), later ones too.
  fail(message) {
    if (this.failed) return;
    this.failed = message;
    [this.running, this.waiting].forEach((job) => {
      if (job) job.reject(poolFailure(message));
    });
    this.running = this.waiting = null;
    this.terminate();
  }
  terminate() {
    this.workers.forEach((w) => w.terminate());
    this.workers = [];
  }
}
