'use strict';
// bench/js/models.js's markdown: the speed table (ours in Chromium and Node, ORT-web, PyTorch eager, against the
// targets), the loading table (loadModel against reading the File, the renderer's peak memory, the model= path),
// and the notes on what ran and what it was checked against. run: {TOKENS, TARGETS, WARM, runsFor(T)}.
const { median } = require('./timing.js');

function summarize(result, run) {
  const { chromium, node, torch, ck } = result;
  const f = (v, d) =>
    v === undefined || v === null || !Number.isFinite(v)
      ? 'n/a'
      : v.toFixed(d !== undefined ? d : v >= 100 ? 0 : v >= 10 ? 1 : 2);
  const mib = (b) => `${f(b / 2 ** 20, b < 2 ** 24 ? 1 : 0)} MiB`;
  // (a tiny checkpoint says nothing about the targets)
  const yes = (ok) => (ck.tiny ? '—' : ok === undefined || ok === null ? 'n/a' : ok ? 'met' : '**missed**');
  const atMost = (v, limit) => (Number.isFinite(v) ? v <= limit : undefined);
  const sp = chromium.available ? chromium.speed : null;
  const lines = [];
  lines.push(
    `GPT-2${ck.tiny ? ' (tiny: 2 layers, 2 heads, 32 wide — CI smoke test, not a measurement)' : ' small (12 layers, 12 heads, 768 wide, 50257 tokens)'}: ` +
      'every head of every layer, the last hidden state and the next-token logits, one thread; median ms per forward.',
    '',
  );
  lines.push(
    '| tokens | ours, Chromium | ours, Node | ORT-web, Chromium | PyTorch eager | ORT ÷ ours (paired) | target | met |',
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  const speedTargets = {};
  for (const T of run.TOKENS) {
    const c = sp && sp.tokens[T];
    const ours = c ? c.medianMs.ours : undefined,
      ort = c ? c.medianMs.ort : undefined,
      ratio = c ? c.ratios.ort : undefined;
    const target = run.TARGETS[T];
    const okTime = target && ours !== undefined ? ours <= target : undefined;
    const okOrt = ratio !== undefined ? ratio >= run.TARGETS.ortSpeedup : undefined;
    speedTargets[T] = { ms: okTime, ort: okOrt };
    lines.push(
      `| ${T} | ${f(ours)} | ${node && node.tokens ? f(node.tokens[T].ms) : 'n/a'} | ${f(ort)} | ${torch && torch.tokens ? f(torch.tokens[T].ms) : 'n/a'} | ` +
        `${ratio !== undefined ? `${f(ratio, 2)}×` : 'n/a'} | ${target ? `≤ ${target} ms, ` : ''}≥ ${run.TARGETS.ortSpeedup}× | ` +
        `${target ? yes(okTime) + ', ' : ''}${yes(okOrt)} |`,
    );
  }
  const loads = chromium.available ? chromium.loads : [];
  const ours = loads.filter((l) => l.what === 'load'),
    read = loads.filter((l) => l.what === 'read');
  const stream = loads.filter((l) => l.what === 'stream');
  const byUrl = loads.filter((l) => l.what === 'url'),
    fetched = loads.filter((l) => l.what === 'fetch');
  const med = (a) => (a.length ? median(a) : undefined);
  const load = {};
  if (ours.length && read.length) {
    load.loadMs = med(ours.map((l) => l.ms));
    load.readMs = med(read.map((l) => l.ms));
    load.ratio = load.loadMs / load.readMs;
    load.weightBytes = ours[0].weightBytes;
    load.peakLoad = med(ours.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.peakRead = med(read.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.streamMs = med(stream.map((l) => l.ms));
    load.peakStream = med(stream.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.wasmHeapGrowth = med(ours.map((l) => l.firstForward.wasmHeapGrowth));
    load.activations = med(ours.map((l) => l.firstForward.activationBytes));
    load.peakForward = med(ours.filter((l) => l.firstForward.hwm).map((l) => l.firstForward.hwm - l.rssBefore));
    load.memoryRatio = load.peakLoad / load.weightBytes;
    load.forwardRatio = load.peakForward / (load.weightBytes + load.activations);
    load.urlMs = med(byUrl.map((l) => l.ms));
    load.fetchMs = med(fetched.map((l) => l.ms));
    load.peakUrl = med(byUrl.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.peakFetch = med(fetched.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    lines.push(
      '',
      `Loading model.safetensors (${mib(ck.bytes.safetensors)}; ${mib(load.weightBytes)} of weights kept) in Chromium, ` +
        `from a File of an <input> (setInputFiles), medians of ${ours.length}:`,
      '',
    );
    lines.push('| measure | value | target | met |', '|---|---|---|---|');
    lines.push(`| read the File into an ArrayBuffer | ${f(load.readMs)} ms | | |`);
    lines.push(
      `| loadModel until the first forward can start | ${f(load.loadMs)} ms (${f(load.ratio, 2)}× the read) | ≤ ${run.TARGETS.loadRatio}× | ${yes(atMost(load.ratio, run.TARGETS.loadRatio))} |`,
    );
    lines.push(
      `| (diagnostic) read the File with a BYOB stream reader refilling one 4 MiB buffer, into one buffer of its size | ${f(load.streamMs)} ms | | |`,
    );
    lines.push(`| renderer peak RSS over its RSS before, whole-file read | ${mib(load.peakRead)} | | |`);
    lines.push(`| (diagnostic) the same, BYOB stream read | ${mib(load.peakStream)} | | |`);
    lines.push(
      `| renderer peak RSS over its RSS before, loadModel | ${mib(load.peakLoad)} (${f(load.memoryRatio, 2)}× the weights) | ≤ ${run.TARGETS.memoryRatio}× | ${yes(atMost(load.memoryRatio, run.TARGETS.memoryRatio))} |`,
    );
    lines.push(
      `| … through the first forward (${run.TOKENS[0]} tokens; activations ${mib(load.activations)}, wasm heap grown by ${mib(load.wasmHeapGrowth)}) | ${mib(load.peakForward)} ` +
        `(${f(load.forwardRatio, 2)}× weights + activations) | ≤ ${run.TARGETS.memoryRatio}× | ${yes(atMost(load.forwardRatio, run.TARGETS.memoryRatio))} |`,
    );
    if (byUrl.length && fetched.length) {
      lines.push(
        `| (model= path) fetch the file from the page's server into an ArrayBuffer | ${f(load.fetchMs)} ms | | |`,
      );
      lines.push(
        `| (model= path) loadModel given the files' urls, the body streamed into wasm memory | ${f(load.urlMs)} ms ` +
          `(${f(load.urlMs / load.fetchMs, 2)}× the fetch) | | |`,
      );
      lines.push(`| (model= path) renderer peak RSS, fetch into an ArrayBuffer | ${mib(load.peakFetch)} | | |`);
      lines.push(
        `| (model= path) renderer peak RSS, loadModel from urls | ${mib(load.peakUrl)} (${f(load.peakUrl / load.weightBytes, 2)}× the weights) | | |`,
      );
    }
  }
  const notes = [];
  if (sp) {
    notes.push(
      `Ours in Chromium: dist/${sp.build} (${sp.implementation}; relaxed SIMD validates there), headless Chromium ${sp.browser}, ` +
        'a page served by scripts/serve.mjs.',
    );
  }
  if (node && node.tokens)
    notes.push(
      `Ours in Node ${node.node}: dist/${node.build} (${node.implementation}), the same JS API, the files as Blobs (fs.openAsBlob).`,
    );
  if (sp && sp.ort && !sp.ort.error) {
    notes.push(
      `ORT-web: onnxruntime-web ${sp.ort.version} (wasm execution provider from ort.wasm.min.js — its SIMD build — numThreads 1, ` +
        `graphOptimizationLevel all), model.onnx (${mib(ck.bytes.onnx)}: the export stores wte twice, once transposed for the LM head) from ` +
        `torch.onnx.export (torch ${ck.meta.torch}, opset 14, attentions as outputs, the LM head at the last position only, as ours). ` +
        `Ours and ORT run in the same page, alternating (paired rounds after ${run.WARM} warm-up rounds; ${run.TOKENS.map((T) => `${run.runsFor(T)} at ${T}`).join(', ')}); ` +
        "ORT ÷ ours is the median over rounds of ORT's time ÷ ours in the same round (> 1: ours is faster); both return every output to JS.",
    );
  }
  if (torch && torch.tokens) {
    notes.push(
      `PyTorch eager: transformers ${ck.meta.transformers} (attn_implementation="eager", output_attentions=True) through the ` +
        `exported wrapper (LM head at the last position), torch ${torch.torch}, torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1; ` +
        'run after the others, not paired.',
    );
  }
  const checks = [
    ['ours (Chromium)', sp && sp.check],
    ['ORT-web', sp && sp.ort && sp.ort.check],
    ['ours (Node)', node && node.check],
  ]
    .filter(([, c]) => c)
    .map(
      ([n, c]) =>
        `${n} ${Object.entries(c)
          .map(([k, v]) => `${k} ${v.maxAbsDiff.toExponential(1)}`)
          .join(', ')}`,
    );
  notes.push(
    `Checked before timing against transformers in float64 at ${ck.meta.referenceTokens} tokens (max |diff|; accepted within 16 × transformers' float32 error: ` +
      `${Object.entries(ck.ref.tensors)
        .map(([k, v]) => `${k} ${(16 * v.torchFloat32Error).toExponential(1)}`)
        .join(', ')}): ${checks.join('; ') || 'nothing ran'}.`,
  );
  if (loads.length) {
    notes.push(
      "Load and read each run in a fresh browser context (its own renderer process), alternating. Peak memory: the renderer's VmHWM " +
        '(/proc/PID/status; PID from CDP SystemInfo.getProcessInfo) after resetting it to the current RSS (/proc/PID/clear_refs) just before the ' +
        'load, minus the RSS then (performance.measureUserAgentSpecificMemory is unavailable headless). Activations: the least a forward that ' +
        "returns every attention needs: its outputs (attentions, hidden, logits) twice, in wasm and copied to JS, plus one layer's " +
        'intermediates, float32. The file is in the OS page cache for every read.',
    );
  }
  return { markdown: [...lines, '', ...notes].join('\n'), load, speedTargets };
}

module.exports = { summarize };
