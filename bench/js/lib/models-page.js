// The in-page half of bench/js/models.js, a classic script that the host page loads from the repository's
// root (scripts/serve.mjs): window.ModelsBench drives our JS API (dist/mha*.js, the page's way: a script tag
// and createMhaModule) and ONNX Runtime Web (ort.wasm.min.js, the wasm execution provider) in the same page,
// with performance.now() in the page. It also runs in Node (module.exports) for the Node line.
(function (root) {
  'use strict';
  const now = () => performance.now();
  const median = (a) => {
    const s = [...a].sort((x, y) => x - y),
      n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  };

  function loadScript(src) {
    return new Promise((ok, fail) => {
      const s = document.createElement('script');
      s.src = src;
      s.onload = ok;
      s.onerror = () => fail(new Error(`${src} did not load`));
      document.head.appendChild(s);
    });
  }

  // Contenders by name: {run(ids) → outputs as {logits, hidden, attentions: [Float32Array per layer or one]}}.
  const state = { core: null, model: null, session: null, ort: null };

  // max |ours − reference| per tensor, the reference's float64 values from gpt2.py's reference-<T>.bin, and
  // whether each is within 16 × transformers' own float32 error (docs/models-oracle.md's empirical bound).
  function compare(outputs, ref, bin) {
    const f64 = new Float64Array(bin);
    const result = {};
    for (const [name, t] of Object.entries(ref.tensors)) {
      const got = outputs[name];
      const want = f64.subarray(t.offset / 8, t.offset / 8 + t.count);
      let max = 0,
        n = 0;
      for (const part of got) {
        for (let i = 0; i < part.length; i++, n++) {
          const d = Math.abs(part[i] - want[n]);
          if (!(d <= max)) max = d; // NaN wins
        }
      }
      const bound = 16 * t.torchFloat32Error;
      result[name] = {
        maxAbsDiff: n === t.count ? max : Infinity,
        torchFloat32Error: t.torchFloat32Error,
        bound,
        ok: n === t.count && max <= bound,
        count: n,
        expected: t.count,
      };
    }
    return result;
  }

  const ours = {
    async init(createMhaModule) {
      state.core = await createMhaModule();
      return { implementation: state.core.implementation };
    },
    // files: File objects (an <input>) or {name, bytes | Blob}; resolves when the first forward can start.
    async load(files) {
      const t0 = now();
      state.model = await state.core.loadModel(files);
      const ms = now() - t0;
      return { ms, info: state.model.info, memory: state.core.memoryStats() };
    },
    run(ids) {
      const r = state.model.forward(ids, { logitsAt: [ids.length - 1] });
      return { logits: [r.logits.data], hidden: [r.hidden.data], attentions: [r.attentions.data] };
    },
    memory() {
      return state.core.memoryStats();
    },
    dispose() {
      if (state.model) state.model.dispose();
      state.model = null;
    },
  };

  // ONNX Runtime Web as the benchmarks run it (lib/ort.js too): the wasm execution provider, one thread, on the
  // calling thread (no proxy worker), errors only.
  function ortOneThread(o) {
    o.env.wasm.numThreads = 1;
    o.env.wasm.proxy = false;
    o.env.logLevel = 'error';
    return o;
  }
  const ORT_SESSION = {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,
  };

  const ort = {
    async init(ortModule, modelBytes, layers) {
      const o = (state.ort = ortOneThread(ortModule));
      const t0 = now();
      state.session = await o.InferenceSession.create(modelBytes, { ...ORT_SESSION });
      state.layers = layers;
      return {
        ms: now() - t0,
        version: o.env.versions && o.env.versions.web,
        threads: o.env.wasm.numThreads,
        outputs: state.session.outputNames,
      };
    },
    async run(ids) {
      const o = state.ort;
      const input = new o.Tensor(
        'int64',
        BigInt64Array.from(ids, (i) => BigInt(i)),
        [1, ids.length],
      );
      const r = await state.session.run({ input_ids: input });
      const attentions = [];
      for (let l = 0; l < state.layers; l++) attentions.push(r[`attentions.${l}`].data);
      return { logits: [r.logits.data], hidden: [r.hidden.data], attentions };
    },
    async dispose() {
      if (state.session) await state.session.release();
      state.session = null;
    },
  };

  const contenders = { ours, ort };

  // Paired rounds: each round runs every named contender once, in an order that rotates between rounds,
  // after `warm` rounds; returns each one's samples (ms) and, per round, the others' time ÷ the first's.
  async function paired(names, ids, rounds, warm) {
    const samples = Object.fromEntries(names.map((n) => [n, []]));
    for (let r = 0; r < warm + rounds; r++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + r) % names.length];
        const t0 = now();
        await contenders[name].run(ids);
        const dt = now() - t0;
        if (r >= warm) samples[name].push(dt);
      }
    }
    const base = names[0];
    const ratios = {};
    for (const n of names.slice(1)) ratios[n] = median(samples[n].map((t, i) => t / samples[base][i]));
    return { samples, medianMs: Object.fromEntries(names.map((n) => [n, median(samples[n])])), ratios, rounds };
  }

  async function check(name, ref, bin) {
    const out = await contenders[name].run(ref.ids);
    return compare(out, ref, bin);
  }

  // The baseline of the load: the same File read whole into an ArrayBuffer.
  async function readWhole(file) {
    const t0 = now();
    const buffer = await file.arrayBuffer();
    return { ms: now() - t0, bytes: buffer.byteLength };
  }

  // The model= path's baseline: the file fetched from the page's server into an ArrayBuffer.
  async function readFetch(url) {
    const t0 = now();
    const buffer = await (await fetch(url)).arrayBuffer();
    return { ms: now() - t0, bytes: buffer.byteLength };
  }

  // What reading the File costs without garbage: a BYOB reader that refills one buffer (chunk bytes), each chunk
  // copied into one destination of the file's size (as a loader would copy into wasm memory).
  async function readStream(file, chunk) {
    const t0 = now();
    const dst = new Uint8Array(file.size);
    const reader = file.stream().getReader({ mode: 'byob' });
    let buffer = new ArrayBuffer(chunk),
      at = 0;
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (done) break;
      dst.set(value, at);
      at += value.length;
      buffer = value.buffer;
    }
    return { ms: now() - t0, bytes: at };
  }

  const api = {
    loadScript,
    ortOneThread,
    ORT_SESSION,
    ours,
    ort,
    paired,
    check,
    compare,
    readWhole,
    readFetch,
    readStream,
    median,
  };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.ModelsBench = api;
})(typeof window !== 'undefined' ? window : globalThis);
