// MHA Explorer — controller: loads the core, owns the state, one render(). Defines window.mhaExplorer.
// The page's entry module: web/build.mjs bundles it and its imports into dist/app.js, a classic script.
import state from './state.js';
import model from './model.js';
import presets from './presets.js';
import widgets from './widgets.js';
import BUILDS from './wasm-features.js';
import { attentionWeights } from './weights.js';

(function (root) {
  // The training lab has a page of its own: ?preset=train-… opens it with the same parameters.
  if (/^train-/.test(new URLSearchParams(root.location.search).get('preset') || '')) {
    root.location.replace('lab.html' + root.location.search);
    return;
  }
  var S = state, P = presets, W = widgets;
  var $ = function (id) { return document.getElementById(id); };

  var DMODELS = [4, 8, 16, 32, 48, 64, 96, 128, 256, 384, 512, 768, 1024];
  var WORKER_COST = 3e8;           // multiply-adds above which the forward runs in a Worker (~50 ms inline)

  var M = null;                     // the WebAssembly API
  var st = S.fromQuery(root.location.search);
  var loadMessages = st.messages.slice();
  var current = null;               // {res, labels, cfg, eff}
  var renderId = 0, jobSeq = 0;
  var worker = null, workerFailed = false, workerJobs = {};
  var lastCompute = { ms: 0, where: 'main thread' };
  var hoverQuery = null, cellSel = [0, 0];
  // Weights loaded from a .safetensors file (not in share links: a link cannot carry a file):
  // {id, file, tensors (the whole file), state (the module's entries), dModel, kind: 'module' | 'model', layer, layers}.
  var loaded = null, weightsSeq = 0;

  // ---- Loading the core ------------------------------------------------------------------------
  // The builds this browser can run, fastest first (wasm-features.js); a host that lacks one falls back to the next.
  var coreScripts = BUILDS.map(function (b) { return b + '.js'; });
  var coreScript = coreScripts[0];
  function loadCore() {
    var tryScript = function (i) {
      return new Promise(function (resolve, reject) {
        var s = document.createElement('script');
        s.src = coreScripts[i];
        s.onload = function () { coreScript = coreScripts[i]; resolve(); };
        s.onerror = function () {
          s.remove();
          if (i + 1 < coreScripts.length) resolve(tryScript(i + 1));
          else reject(new Error('Could not load ' + coreScripts.join(' or ') + ' next to this page. Run scripts/build.'));
        };
        document.head.appendChild(s);
      });
    };
    return (typeof root.createMhaModule === 'function' ? Promise.resolve() : tryScript(0))
      .then(function () { return root.createMhaModule(); });
  }

  // ---- Long texts ---------------------------------------------------------------------------------
  // A text is cut after at most MAX_TOKENS tokens, at a token boundary, and so that its share link stays
  // within what web servers accept (8 KiB request lines for nginx and Apache; Node answers 431 from 16 KiB).
  var TEXT_LINK_BUDGET = 6000;      // characters of the URL-encoded text in a link
  function fitText(text) {
    var t = model.tokenEnds(text), ends = t.ends;
    var fits = function (k) { return encodeURIComponent(t.text.slice(0, ends[k - 1])).length <= TEXT_LINK_BUDGET; };
    if (ends.length <= model.MAX_TOKENS && fits(ends.length || 1)) return { text: text, message: null };
    var lo = 1, hi = Math.min(ends.length, model.MAX_TOKENS);
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (fits(mid)) lo = mid; else hi = mid - 1; }
    var cut = t.text.slice(0, ends[lo - 1]);
    return { text: cut, message: 'Your text has ' + model.commas(ends.length) + ' tokens (' + model.commas(text.length) +
      ' characters): the page keeps the first ' + model.commas(lo) + ' tokens, up to “' + model.tokenize(cut).pop() + '”' +
      (lo < Math.min(ends.length, model.MAX_TOKENS) ? ', so that a share link stays short enough for web servers.' :
        ' (it draws at most ' + model.MAX_TOKENS + ').') };
  }
  function applyFitText() {
    var f = fitText(st.values.text);
    if (f.message) { st.values.text = f.text; loadMessages.push(f.message); }
    return f;
  }
  if (st.explicit.text) applyFitText();

  // ---- Effective configuration -------------------------------------------------------------------
  function presetOf(v) { return v.preset ? P.PRESETS[v.preset] || null : null; }
  function effective() {
    var v = st.values, pr = presetOf(v), eff = {};
    S.PROPS.forEach(function (p) {
      var val = v[p.name];
      if (pr && pr.defaults && p.model && !st.explicit[p.name] && pr.defaults[p.name] !== undefined) val = pr.defaults[p.name];
      eff[p.name] = Array.isArray(val) ? val.slice() : val;
    });
    if (loaded) eff.dmodel = loaded.dModel;   // the file's d_model
    return eff;
  }
  function modified(eff) {
    var pr = presetOf(eff);
    if (!pr || !pr.defaults) return [];
    return Object.keys(pr.defaults).filter(function (k) { return String(pr.defaults[k]) !== String(eff[k]); });
  }

  // Validate cross-field rules; returns messages and fixes eff in place.
  function validate(eff, msgs) {
    if (eff.dmodel % eff.heads !== 0) {
      msgs.push(model.headsMessage(eff.dmodel, eff.heads) + '. Using ' + nearestDivisor(eff.dmodel, eff.heads) + ' heads.');
      eff.heads = nearestDivisor(eff.dmodel, eff.heads);
    }
  }
  function nearestDivisor(D, H) {
    var ds = model.divisors(D), best = ds[0];
    ds.forEach(function (d) { if (Math.abs(d - H) < Math.abs(best - H)) best = d; });
    return best;
  }

  // ---- Compute --------------------------------------------------------------------------------------
  function buildSpec(eff, msgs) {
    var pr = presetOf(eff);
    var spec = { dModel: eff.dmodel, numHeads: eff.heads, seed: eff.seed, bias: true, dropout: eff.dropout,
      train: eff.train, causal: eff.causal, fill: eff.fill, maskStyle: 'tril-keep' };
    var labels;
    if (pr && pr.input) {
      spec.input = { type: pr.input.type, batch: pr.input.batch, seqLen: pr.input.seqLen };
      spec.order = pr.order; spec.maskStyle = pr.maskStyle;
      labels = []; for (var i = 0; i < pr.input.seqLen; i++) labels.push('t' + i);
    } else {
      var tokens = model.tokenize(eff.text);
      var truncated = false;
      if (tokens.length > model.MAX_TOKENS) {
        msgs.push('The text has ' + model.commas(tokens.length) + ' tokens; the page uses the first ' + model.MAX_TOKENS + '.');
        tokens = tokens.slice(0, model.MAX_TOKENS); truncated = true;
      }
      spec.input = { type: 'text', tokens: tokens, pos: eff.pos, text: eff.text, truncated: truncated };
      labels = tokens;
    }
    if (loaded) { spec.weights = loaded.state; spec.weightsId = String(loaded.id); }
    return { spec: spec, labels: labels };
  }

  var computedSync = false;         // did the last computeModule() run synchronously on the main thread?
  function computeModule(spec) {
    var useWorker = model.cost(spec) > WORKER_COST && !workerFailed;
    computedSync = false;
    if (useWorker && ensureWorker()) {
      return new Promise(function (resolve, reject) {
        var id = ++jobSeq;
        workerJobs[id] = { resolve: resolve, reject: reject, spec: spec };
        worker.postMessage({ id: id, spec: spec });
      }).then(function (r) { lastCompute = { ms: r.ms, where: 'Web Worker' }; return r; });
    }
    var r = model.runModule(M, spec);
    lastCompute = { ms: r.ms, where: 'main thread' };
    computedSync = true;
    return Promise.resolve(r);
  }
  function ensureWorker() {
    if (worker) return true;
    try {
      worker = new Worker('worker.js');
    } catch (e) { workerFailed = true; return false; }   // file:// in Chromium: run on the main thread
    worker.postMessage({ init: coreScript });
    worker.onmessage = function (e) {
      var job = workerJobs[e.data.id]; if (!job) return;
      delete workerJobs[e.data.id];
      if (e.data.error) job.reject(new Error(e.data.error)); else job.resolve(e.data.result);
    };
    worker.onerror = function (e) {
      if (e && e.preventDefault) e.preventDefault();
      workerFailed = true; worker = null;
      Object.keys(workerJobs).forEach(function (id) {
        var job = workerJobs[id]; delete workerJobs[id];
        try { var r = model.runModule(M, job.spec); lastCompute = { ms: r.ms, where: 'main thread' }; job.resolve(r); }
        catch (err) { job.reject(err); }
      });
    };
    return true;
  }

  // ---- compute(): every preset's result in one shape ------------------------------------------------------
  // → {promise of {res, labels, cells, cfg, copyAll}, t0, t1 (0 while the forward runs elsewhere)}, or null when
  // there is nothing to compute. res: {weights [B, H, Sq, Skv], output, x, B, H, S, D, trace, causal, dropout,
  // train, headNames?, origin?, note?}; cells: the lesson panel's code cells ({id, title, code, output(), setup?});
  // copyAll: "Copy as PyTorch" is every cell (a fixed lesson) rather than the page's own cell.
  function compute(eff, pr, msgs) {
    if (pr && pr.compute) {   // a fixed lesson computes itself
      var t = model.now(), fixed;
      try { fixed = Promise.resolve(Object.assign({ cfg: null, copyAll: true }, pr.compute(M, eff))); } catch (err) { fixed = Promise.reject(err); }
      lastCompute = { ms: 0, where: 'main thread' };
      return { promise: fixed, t0: t, t1: t };
    }
    var b = buildSpec(eff, msgs);
    if (b.spec.input.type === 'text' && b.spec.input.tokens.length === 0) {
      msgs.push('Type a sentence above: there are no tokens to attend over yet.');
      showMessages(msgs);
      renderEmpty(eff);
      return null;
    }
    var t0 = model.now(), job;
    try { job = computeModule(b.spec); } catch (err) { job = Promise.reject(err); computedSync = true; }
    var t1 = computedSync ? model.now() : 0;
    return { t0: t0, t1: t1, promise: job.then(function (res) {
      var cfg = { seed: eff.seed, D: eff.dmodel, H: eff.heads, dropout: eff.dropout, train: eff.train,
        causal: eff.causal, maskStyle: b.spec.maskStyle, fill: eff.fill, input: b.spec.input, order: b.spec.order,
        b: Math.min(eff.batch, res.B - 1), h: Math.min(eff.head, res.H - 1), seedNote: pr && pr.seedNote,
        weights: loaded ? { file: loaded.file, layer: loaded.layer } : null };
      res.causal = eff.causal; res.dropout = eff.dropout; res.train = eff.train;
      var cells = pr ? [{ id: 'lesson', title: 'The lesson\'s example', code: pr.lessonCode(eff), output: function () { return pr.lessonOutput(res); } }] : [];
      cells.push({ id: 'page', title: 'Copy as PyTorch: the page\'s numbers (batch ' + cfg.b + ', head ' + cfg.h + ')',
        code: P.copySnippet(cfg), output: function () { return P.moduleOutput(res, cfg); } });
      return { res: res, labels: b.labels, cfg: cfg, cells: cells, copyAll: false };
    }) };
  }

  // ---- render() ---------------------------------------------------------------------------------------
  var pending = null;
  var lastTiming = null;            // {forwardMs, redrawMs, totalMs} of the last completed render()
  function render() {
    if (!M) return Promise.resolve();
    var t0 = model.now(), tF0 = 0, tF1 = 0;
    var myId = ++renderId;
    var eff = effective();
    var msgs = loadMessages.slice();
    applyTheme(eff.theme);
    applyLayout(eff);
    validate(eff, msgs);
    syncControls(eff);
    updateURL();
    var pr = presetOf(eff);
    var run = compute(eff, pr, msgs);
    if (run === null) return Promise.resolve();   // nothing to compute (no tokens): the page says so
    tF0 = run.t0; tF1 = run.t1;
    var job = run.promise;
    if (!tF1) setStatus('Computing…');   // only when the forward is asynchronous (Web Worker)
    pending = job.then(function (out) {
      if (myId !== renderId) return;   // a newer render superseded this one
      var tD0 = model.now();
      ['export-png', 'export-svg', 'show-table', 'copy-py'].forEach(function (id) { setProp($(id), 'disabled', false); });
      if (!tF1) tF1 = tD0;
      current = { res: out.res, labels: out.labels, cfg: out.cfg, cells: out.cells, copyAll: out.copyAll, eff: eff };
      if (eff.batch >= out.res.B) { msgs.push('batch=' + eff.batch + ' is out of range for B=' + out.res.B + '; showing 0.'); }
      if (eff.head >= out.res.H) { msgs.push('head=' + eff.head + ' is out of range for ' + out.res.H + ' heads; showing 0.'); }
      showMessages(msgs);
      draw();
      setStatus(statusText());
      postHeight();
      var tD1 = model.now();
      lastTiming = { forwardMs: tF1 - tF0, redrawMs: tD1 - tD0, totalMs: tD1 - t0, setupMs: tF0 - t0 };
    }).catch(function (err) {
      msgs.push(String(err && err.message || err));
      showMessages(msgs);
      setStatus('Ready (last run failed)');
    });
    return pending;
  }
  function range(n) { var a = []; for (var i = 0; i < n; i++) a.push(i); return a; }

  function statusText() {
    var simd = { wasmsimd: 'WebAssembly SIMD', 'wasmsimd-relaxed': 'WebAssembly SIMD + FMA (relaxed SIMD)' }[M.implementation] ||
      'WebAssembly (scalar, no SIMD)';
    return simd + ' · ' + lastCompute.ms.toFixed(1) + ' ms · ' + lastCompute.where;
  }
  function setStatus(t) { setText('status', t); }

  function showMessages(msgs) {
    var box = $('messages'), key = msgs.join('\u0001');
    if (box._key === key) return;   // unchanged: keep the DOM (and the live region quiet)
    box._key = key;
    box.textContent = '';
    msgs.forEach(function (m) { box.appendChild(W.el('p', { class: 'msg', role: 'alert' }, m)); });
  }

  // ---- Drawing -----------------------------------------------------------------------------------------
  function selB() { return Math.min(current.eff.batch, current.res.B - 1); }
  function selH() { return Math.min(current.eff.head, current.res.H - 1); }
  function headMat(b, h) {
    var r = current.res, Sq = r.weights.shape[2];
    if (h === 'avg') {
      var acc = new Float32Array(Sq * Sq);
      for (var k = 0; k < r.H; k++) {
        var m = model.headMatrix(r.weights, b, k).data;
        for (var i = 0; i < acc.length; i++) acc[i] += m[i] / r.H;
      }
      return { S: Sq, data: acc };
    }
    return { S: Sq, data: model.headMatrix(r.weights, b, h).data };
  }
  function headName(h) {
    var names = current.res.headNames;
    if (h === 'avg') return 'Average of ' + current.res.H + ' heads';
    return names && names[h] ? 'HEAD ' + (h + 1) + ' · ' + names[h] : 'Head ' + h;
  }

  // Small DOM setters that write only when the value changes (no style/layout invalidation otherwise).
  function setText(e, t) { if (typeof e === 'string') e = $(e); if (e.textContent !== t) e.textContent = t; }
  function setProp(e, k, v) { if (e[k] !== v) e[k] = v; }
  function setOptions(sel, values) {
    var key = values.join(',');
    if (sel._key === key && sel.options.length === values.length) return;
    sel._key = key; sel.textContent = '';
    values.forEach(function (v) { sel.appendChild(new Option(String(v), String(v))); });
  }

  // Layout reads, done before any write of a redraw (no forced synchronous layout in between).
  function measure() {
    return { heads: $('heads').clientWidth, detail: $('detail-canvas').parentNode.parentNode.clientWidth,
      lines: $('lines').parentNode.clientWidth };
  }

  // The colour range: one scale for every head of the batch item (default), each head's own max, or 0..1.
  function colourMax(eff, b) {
    if (eff.norm === 'one') return 1;
    if (eff.norm === 'max') return 0;   // per heatmap
    var w = current.res.weights, n = w.shape[1] * w.shape[2] * w.shape[3], d = w.data, mx = 0;
    for (var i = b * n, e = i + n; i < e; i++) if (d[i] > mx) mx = d[i];
    return mx > 0 ? mx : 1;
  }
  function fmtMax(v) { return v >= 0.1 ? v.toFixed(2) : v.toPrecision(2); }

  // What the student is looking at, in words: untrained or hand-built heads, what a row sums to, dropout, masks.
  function headsNote(eff, r) {
    var box = $('heads-note'), key = [eff.preset, eff.view, eff.seed, eff.train, eff.dropout, eff.causal, eff.norm, r.vmax,
      loaded ? loaded.id + ':' + loaded.layer : ''].join('|');
    if (box._key === key) return;
    box._key = key;
    box.textContent = '';
    var add = function (t) { box.appendChild(document.createTextNode(t)); };
    if (r.headNames) {
      add('Hand-built logits, not learned: the lesson writes them to show what trained heads can do. ');
    } else if (loaded) {
      add('These heads use the weights loaded from ' + loaded.file + (loaded.kind === 'model' ? ' (layer ' + loaded.layer +
        ' of the training lab\'s model, which learned them on token ids with its own embeddings: on your sentence\'s ' +
        'embeddings their patterns need not be the roles the lab showed)' : '') + '. ');
    } else {
      add('These heads are untrained: random initial weights (' + (r.origin || 'nn.Linear\'s init after torch.manual_seed(' + eff.seed + ')') +
        '). Untrained heads spread their attention almost evenly and look alike; training is what makes heads ' +
        'specialize — see the hand-built heads of lesson 002, or watch heads learn their roles in the ');
      box.appendChild(W.el('a', { href: 'lab.html?preset=train-two-offsets' }, 'training lab'));
      add('. ');
    }
    add('Rows are queries, columns are keys. ');
    if (r.dropout > 0 && r.train) {
      add('train() with dropout p = ' + r.dropout + ': each weight was zeroed with probability p and the rest scaled by 1/(1 − p), ' +
        'so a row no longer sums to 1 (PyTorch does the same). ');
    } else {
      add('Each row sums to 1. ');
      if (r.dropout > 0) add('Dropout p = ' + r.dropout + ' does nothing in eval() mode: choose train() to see it act. ');
    }
    if (r.causal) add('Causal mask: a query sees only itself and earlier keys; the masked cells are exactly 0. ');
    add(eff.norm === 'shared' ? 'Colours: one scale, 0 to ' + fmtMax(r.vmax) + ', for every head (legend above).'
      : eff.norm === 'max' ? 'Colours: each heatmap from 0 to its own max (printed on its card): heads cannot be compared by colour.'
        : 'Colours: 0 to 1 for every head.');
  }

  function draw() {
    var eff = current.eff, r = current.res, b = selB();
    r.vmax = colourMax(eff, b);
    var wd = measure();
    // input
    var pr = presetOf(eff);
    setText('input-desc', pr
      ? (pr.input ? 'x = torch.' + pr.input.type + '(' + [pr.input.batch, pr.input.seqLen, eff.dmodel].join(', ') + ')' +
        ' — positions are labelled t0…t' + (pr.input.seqLen - 1) + '.' : (r.note || ''))
      : current.labels.length + ' tokens · embeddings: randn(d_model) per token, seeded by fnv1a32("' + eff.seed +
        ':<token>")' + (eff.pos ? ' + sinusoidal positions' : '') + '.');
    W.chips($('chips'), current.labels, 120);
    // batch selector
    setProp($('f-batch'), 'hidden', r.B <= 1);
    var bs = $('c-batch');
    setOptions(bs, range(r.B));
    setProp(bs, 'value', String(b));
    drawHeads(wd);
    drawDetail(wd);
    drawTrace();
    drawLesson();
    W.legend($('legend'), eff.scale, eff.norm === 'max' ? 'each head\'s max' : fmtMax(r.vmax));
    headsNote(eff, r);
    var ms = M.memoryStats ? M.memoryStats() : null;
    setText('mem', ms ? 'WebAssembly heap: ' + (ms.heapUsed / 1048576).toFixed(1) + ' MiB used of ' +
      (ms.heapSize / 1048576).toFixed(1) + ' MiB.' : '');
  }

  function plotSize(Sq, H, width) {
    var w = width || 800;
    var cols = w < 500 ? 1 : H <= 2 ? H + 1 : H <= 4 ? Math.min(H + 1, w < 700 ? 2 : 3) : w < 700 ? 3 : 4;
    var size = Math.floor(w / Math.max(1, cols)) - (Sq <= 16 ? 90 : 36);
    return Math.max(96, Math.min(Sq <= 16 ? 220 : 260, size));
  }

  // The head cards are kept while the heads (count, names, S) stay the same; a redraw repaints their
  // canvases and updates the selection.
  var headCards = null;             // {key, items: [{h, card, canvas}]}
  function drawHeads(wd) {
    var eff = current.eff, r = current.res, b = selB(), grid = $('heads');
    var Sq = r.weights.shape[2], size = plotSize(Sq, r.H, wd.heads);
    var showLabels = Sq <= 16;
    var items = range(r.H).concat(r.H > 1 ? ['avg'] : []);
    var key = Sq + '|' + items.map(headName).join('\u0001');
    if (!headCards || headCards.key !== key || grid.firstChild !== headCards.items[0].card) {
      grid.textContent = '';
      headCards = { key: key, items: items.map(function (h) {
        var card = W.el('button', { type: 'button', class: 'head-card', 'aria-label': headName(h) + ': enlarge' });
        card.appendChild(W.el('span', { class: 'head-title' }, headName(h)));
        var c = W.el('canvas', h === 'avg' ? { 'data-avg': '1', role: 'img' } : { 'data-head': String(h), role: 'img' });
        c.setAttribute('aria-label', headName(h) + ' attention heatmap, ' + Sq + ' by ' + Sq + '. Use "Show as table" for the numbers.');
        card.appendChild(c);
        attachHover(c, function () { return c._mat; });
        card.addEventListener('click', function () {
          if (h === 'avg') { S.set(st, 'avg', true); }
          else { S.set(st, 'avg', false); S.set(st, 'head', h); }
          updateURL(); current.eff = effective(); drawHeadsSelection(); drawDetail(); drawLesson();
        });
        grid.appendChild(card);
        return { h: h, card: card, canvas: c };
      }) };
    }
    headCards.items.forEach(function (it) {
      var mat = headMat(b, it.h);
      it.canvas._mat = mat;
      W.drawHeatmap(it.canvas, mat, { labels: current.labels, scale: eff.scale, norm: eff.norm, vmax: r.vmax, size: size,
        showLabels: showLabels });
      if (!it.maxEl) it.maxEl = it.card.insertBefore(W.el('span', { class: 'head-max' }), it.canvas);
      var mx = 0;
      if (eff.norm === 'max') for (var i = 0; i < mat.data.length; i++) if (mat.data[i] > mx) mx = mat.data[i];
      setText(it.maxEl, eff.norm === 'max' ? 'colours 0 – ' + fmtMax(mx) : '');
    });
    drawHeadsSelection();
  }
  function drawHeadsSelection() {
    if (!headCards) return;
    var sel = current.eff.avg ? 'avg' : selH();
    headCards.items.forEach(function (it) {
      var on = it.h === sel;
      it.card.classList.toggle('selected', on);
      W.setAttr(it.card, 'aria-pressed', String(on));
    });
  }

  function attachHover(canvas, getMat) {
    var tip = $('tooltip');
    canvas.addEventListener('mousemove', function (e) {
      var cell = W.cellAt(canvas, e);
      if (!cell) { tip.hidden = true; return; }
      tip.textContent = '';
      fillTip(tip, getMat(), cell[0], cell[1]);
      tip.hidden = false;
      var x = e.clientX + 14, y = e.clientY + 14;
      var tw = tip.offsetWidth, th = tip.offsetHeight;
      if (x + tw > root.innerWidth - 8) x = e.clientX - tw - 14;
      if (y + th > root.innerHeight - 8) y = e.clientY - th - 14;
      tip.style.left = x + 'px'; tip.style.top = y + 'px';
    });
    canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
  }
  function fillTip(tip, mat, q, k) {
    var L = current.labels, Sq = mat.S;
    tip.appendChild(W.el('div', { class: 'tip-main' }, '“' + L[q] + '” (' + q + ') → “' + L[k] + '” (' + k + ')'));
    tip.appendChild(W.el('div', { class: 'tip-val' }, 'weight ' + weightText(mat, q, k)));
    tip.appendChild(W.el('div', { class: 'tip-top' }, 'top keys for “' + L[q] + '”: ' + topKeysText(mat, q)));
  }
  // A weight as the student should read it: masked and dropped cells say so, tiny weights are not "0.000000".
  function weightText(mat, q, k) {
    var r = current.res, v = mat.data[q * mat.S + k];
    if (r.causal && k > q) return '0 (masked: a later key)';
    if (v === 0 && r.train && r.dropout > 0) return '0 (dropped by dropout)';
    return v !== 0 && Math.abs(v) < 1e-4 ? v.toExponential(2) : v.toFixed(6);
  }
  // The three largest weights of a row, leaving out masked and dropped keys.
  function topKeysText(mat, q) {
    var L = current.labels, Sq = mat.S;
    return W.topKeys(mat, q, 3).filter(function (j) { return mat.data[q * Sq + j] > 0; }).map(function (j) {
      var v = mat.data[q * Sq + j];
      return L[j] + ' ' + (v < 1e-3 ? v.toExponential(1) : v.toFixed(3));
    }).join(', ');
  }

  // wd: widths measured before the redraw's writes (draw()); without it (event handlers) read them here.
  function drawDetail(wd) {
    var eff = current.eff, b = selB(), h = eff.avg ? 'avg' : selH();
    var mat = headMat(b, h), Sq = mat.S;
    setText('detail-title', headName(h) + (current.res.B > 1 ? ' · batch item ' + b : ''));
    var c = $('detail-canvas');
    var avail = Math.min(480, ((wd ? wd.detail : c.parentNode.parentNode.clientWidth) || 700) - 120);
    if (cellSel[0] >= Sq || cellSel[1] >= Sq) cellSel = [0, 0];
    var oldW = c.style.width, oldH = c.style.height;
    W.drawHeatmap(c, mat, { labels: current.labels, scale: eff.scale, norm: eff.norm, vmax: current.res.vmax, size: Math.max(160, Math.min(avail, 480)),
      showLabels: true, selected: document.activeElement === c ? cellSel : null });
    W.setAttr(c, 'aria-label', headName(h) + ' enlarged heatmap; arrow keys move between cells.');
    c._mat = mat;
    // the line view's column shares the row with the heatmap: re-measure only if the heatmap changed size
    var linesW = wd && c.style.width === oldW && c.style.height === oldH ? wd.lines : $('lines').parentNode.clientWidth;
    var lw = Math.min(420, Math.max(260, (linesW || 360)));
    setText('lines-note', Sq > W.LINE_ROWS
      ? 'Line view of one query (' + Sq + ' tokens are too many to draw at once): its ' + W.LINE_TOP + ' strongest keys. ' +
        'Click a cell of the heatmap, or use the arrow keys on it, to pick the query.'
      : 'Line view (as BertViz\'s head view): a line from each query to each key, thicker for more weight. Hover a query token to isolate it.');
    W.lineView($('lines'), mat, current.labels, { focus: hoverQuery != null && hoverQuery < Sq ? hoverQuery : null,
      query: cellSel[0], width: lw });
    if (!$('table-box').hidden) drawTable();
  }
  function readCell() {
    var c = $('detail-canvas'), mat = c._mat; if (!mat) return;
    var q = cellSel[0], k = cellSel[1], L = current.labels;
    $('cell-readout').textContent = 'query “' + L[q] + '” (' + q + ') → key “' + L[k] + '” (' + k + '): ' +
      weightText(mat, q, k) + ' · top keys: ' + topKeysText(mat, q);
  }
  function drawTable() {
    var box = $('table-box'), h = current.eff.avg ? 'avg' : selH(), mat = headMat(selB(), h);
    box.textContent = '';
    var n = Math.min(mat.S, 64);
    var sub = { S: n, data: new Float32Array(n * n) };
    for (var i = 0; i < n; i++) for (var j = 0; j < n; j++) sub.data[i * n + j] = mat.data[i * mat.S + j];
    box.appendChild(W.matrixTable(sub, current.labels.slice(0, n), headName(h) + ': attention weights (rows: queries, columns: keys)' +
      (mat.S > n ? ' — first 64 of ' + mat.S + ' tokens' : '')));
  }

  function drawTrace() {
    var r = current.res, eff = current.eff;
    var trace = r.trace || [];
    setText('trace-note', !trace.length ? 'Hand-built weights: there is no forward pass here, so no shapes to trace. ' +
      'Pick another example of the lesson to see its trace.' : 'Live for B=' + r.B + ', S=' + r.S + ', D=' + r.D + ', H=' + r.H +
      ' (d_k=' + (r.D / r.H) + '). Hover or focus a row (↑/↓ move) to highlight its pipeline stage.');
    W.traceTable($('trace-body'), trace, highlightStep);   // rebuilds the rows only when the trace changed
    highlightStep(null);
  }
  function highlightStep(i) {
    var rows = $('trace-body').querySelectorAll('tr');
    var stage = i == null ? null : rows[i] && rows[i].getAttribute('data-stage');
    Array.prototype.forEach.call(rows, function (tr, k) { tr.classList.toggle('current', k === i); });
    Array.prototype.forEach.call($('pipeline').querySelectorAll('.stage'), function (s) {
      s.classList.toggle('current', stage !== null && s.getAttribute('data-stage') === stage);
    });
  }

  function codeBlock(cell, output) {
    var title = cell.title, id = cell.id;
    var wrap = W.el('article', { class: 'cell', 'data-cell': id });
    var head = W.el('div', { class: 'cell-head' });
    head.appendChild(W.el('h3', null, title));
    var copy = W.el('button', { type: 'button', class: 'btn small' }, cell.setup ? 'Copy code + setup' : 'Copy code');
    copy.addEventListener('click', function () { copyText(P.copyOf(wrap._cell), copy); });
    head.appendChild(copy);
    wrap.appendChild(head);
    wrap._cell = cell;
    if (cell.note) wrap.appendChild(W.el('p', { class: 'cell-note' }, cell.note));
    wrap._code = wrap.appendChild(W.el('pre', { class: 'code', tabindex: '0', role: 'region', 'aria-label': title + ': code' }, cell.code));
    wrap.appendChild(W.el('div', { class: 'out-label' }, 'Printed (computed live on this page)'));
    wrap._out = wrap.appendChild(W.el('pre', { class: 'out', 'data-out': id, tabindex: '0', role: 'region', 'aria-label': title + ': printed output' }, output));
    return wrap;
  }

  // The code cells are rebuilt only when their set (ids, titles) changes; otherwise the code text is
  // replaced in place when it changed. The printed outputs (torch-style printing of the S×S weights) are
  // formatted with the redraw for S <= LAZY_PRINT_S, otherwise on an idle callback after it (or at once
  // by getPrinted()).
  var LAZY_PRINT_S = 64;            // above this many tokens the printed S×S matrix is formatted lazily
  var printed = {}, printedTodo = null, printedTimer = null, lessonCells = null;
  // A cell's printed text (outputs may be deferred as functions), recorded for getPrinted().
  function printOf(c) {
    var out = typeof c.output === 'function' ? c.output() : c.output;
    printed[c.id] = out;
    return out;
  }
  function flushPrinted() {
    if (printedTimer !== null) { (root.cancelIdleCallback || clearTimeout)(printedTimer); printedTimer = null; }
    var todo = printedTodo; printedTodo = null;
    if (!todo) return;
    todo.forEach(function (c) { setText(c.el, printOf(c)); });
  }
  function schedulePrinted() {
    if (printedTimer !== null) return;
    printedTimer = root.requestIdleCallback ? root.requestIdleCallback(function () { printedTimer = null; flushPrinted(); }, { timeout: 150 })
      : setTimeout(function () { printedTimer = null; flushPrinted(); }, 30);
  }
  function drawLesson() {
    var eff = current.eff, pr = presetOf(eff), box = $('cells'), cells = current.cells;
    if (pr) {
      var mods = modified(eff);
      setText('lesson-title', pr.title(eff));
      setText('lesson-blurb', pr.blurb(eff) + (mods.length ? ' You changed: ' + mods.join(', ') +
        ' — the numbers below follow your values.' : '') + ' Source: ' + pr.file + '.');
    } else {
      setText('lesson-title', 'Your sentence in PyTorch');
      setText('lesson-blurb', 'The same computation as a PyTorch snippet: run it in a notebook and it prints the numbers below.');
    }
    var key = cells.map(function (c) { return c.id + '\u0001' + c.title; }).join('\u0002');
    var fresh = !lessonCells || lessonCells.key !== key || box.firstChild !== lessonCells.els[0];
    if (fresh) {
      // a new set of cells: printed at once (no empty output on screen)
      printedTodo = null; printed = {};
      box.textContent = '';
      lessonCells = { key: key, els: cells.map(function (c) { return box.appendChild(codeBlock(c, printOf(c))); }) };
      return;
    }
    printedTodo = cells.map(function (c, i) {
      var wrap = lessonCells.els[i];
      setText(wrap._code, c.code);
      wrap._cell = c;
      return { id: c.id, output: c.output, el: wrap._out };
    });
    // small matrices print in well under a millisecond: at once (never a stale panel); large ones when idle
    if (current.res.weights.shape[2] <= LAZY_PRINT_S) flushPrinted(); else schedulePrinted();
  }

  function renderEmpty(eff) {
    // the widgets' caches notice their emptied containers and rebuild on the next draw
    current = null; printedTodo = null;
    $('heads').textContent = '';
    $('heads').appendChild(W.el('p', { class: 'empty' }, 'No tokens yet — type a sentence in the controls.'));
    $('chips').textContent = '';
    $('trace-body').textContent = '';
    $('cells').textContent = '';
    $('input-desc').textContent = '0 tokens.';
    ['export-png', 'export-svg', 'show-table', 'copy-py'].forEach(function (id) { $(id).disabled = true; });
    $('table-box').hidden = true;
    setStatus(statusText());
    postHeight();
  }

  // ---- Loaded weights ------------------------------------------------------------------------------------
  // A file's attention weights become the module's state_dict (weights.js picks them; the core checks every
  // shape on a trial module first, so a bad file is refused here with its message, never half-loaded).
  function useWeights(file, tensors, layer) {
    var w;
    try {
      w = attentionWeights(tensors, layer, S.BY_NAME.dmodel.max);
      var gen = new M.Generator(0), trial = new M.MultiHeadAttention({ dModel: w.dModel, numHeads: 1, generator: gen });
      try { trial.loadStateDict(w.state); } finally { trial.delete(); gen.delete(); }
    } catch (err) {
      loadMessages = ['Could not load ' + file + ': ' + String(err && err.message || err)];
      render();
      return false;
    }
    freeWeights();
    loaded = Object.assign({ id: ++weightsSeq, file: file, tensors: tensors }, w);
    if (st.values.preset) S.set(st, 'preset', '');   // the weights run on the page's sentence
    var H = effective().heads;
    if (w.dModel % H) S.set(st, 'heads', nearestDivisor(w.dModel, H));
    S.set(st, 'head', 0);
    loadMessages = [];
    render();
    return true;
  }
  // The module cache holds the old weights: drop it so that they are freed now.
  function freeWeights() { model.freeCache(); }
  function loadBytes(bytes, file, layer) {
    var tensors;
    try { tensors = M.loadSafetensors(bytes); } catch (err) {
      loadMessages = ['Could not load ' + file + ': ' + String(err && err.message || err)];
      render();
      return false;
    }
    return useWeights(file, tensors, layer);
  }
  function loadFile(f) {
    if (!M) return;
    if (f.size > 1 << 30) { loadMessages = ['Could not load ' + f.name + ': it has ' + model.commas(f.size) + ' bytes; attention weights for d_model up to 1024 take about 17 MB.']; render(); return; }
    f.arrayBuffer().then(function (buf) { loadBytes(new Uint8Array(buf), f.name, 0); },
      function (err) { loadMessages = ['Could not read ' + f.name + ': ' + err.message]; render(); });
  }

  // ---- Controls ----------------------------------------------------------------------------------------
  function buildControls() {
    var ps = $('c-preset');
    P.list.forEach(function (p) { ps.appendChild(new Option(p[1], p[0])); });
    var on = function (id, ev, fn) { $(id).addEventListener(ev, fn); };
    on('c-preset', 'change', function () {
      var v = $('c-preset').value;
      // a new example starts from its own values
      ['dmodel', 'heads', 'causal', 'fill', 'dropout', 'train', 'seed', 'view', 'head', 'batch', 'avg'].forEach(function (k) { delete st.explicit[k]; st.values[k] = S.BY_NAME[k].def; });
      if (!v) { ['dmodel', 'heads'].forEach(function (k) { st.values[k] = S.BY_NAME[k].def; }); }
      S.set(st, 'preset', v);
      loadMessages = [];
      if (v && loaded) { loaded = null; freeWeights(); }   // a lesson's example uses the lesson's weights
      render();
    });
    on('c-view', 'change', function () { S.set(st, 'view', $('c-view').value); S.set(st, 'head', 0); S.set(st, 'batch', 0); render(); });
    var tdeb = null;
    on('c-text', 'input', function () {
      clearTimeout(tdeb);
      tdeb = setTimeout(function () {
        S.set(st, 'text', $('c-text').value); loadMessages = [];
        if (applyFitText().message) $('c-text').value = st.values.text;
        render();
      }, 120);
    });
    on('c-dmodel', 'change', function () {
      var D = +$('c-dmodel').value, H = effective().heads;
      S.set(st, 'dmodel', D);
      if (D % H) S.set(st, 'heads', nearestDivisor(D, H));
      render();
    });
    on('c-heads', 'change', function () { S.set(st, 'heads', +$('c-heads').value); S.set(st, 'head', 0); render(); });
    // A typed value that is not valid keeps the value in use, and says so; the control shows it again.
    var typed = function (name, label) {
      var r = S.parseValue(S.BY_NAME[name], $('c-' + name).value);
      if (r.ok) { S.set(st, name, r.value); loadMessages = []; } else {
        loadMessages = [label + ': ' + r.message.replace(/^URL parameter \w+=/, '').replace(/; using [^;]*$/, '; keeping ' + effective()[name] + '.')];
      }
      render();
    };
    on('c-seed', 'change', function () { typed('seed', 'Seed'); });
    on('c-fill', 'change', function () { S.set(st, 'fill', $('c-fill').value); render(); });
    on('c-causal', 'change', function () { S.set(st, 'causal', $('c-causal').checked); render(); });
    on('c-pos', 'change', function () { S.set(st, 'pos', $('c-pos').checked); render(); });
    on('c-dropout', 'change', function () { typed('dropout', 'Dropout'); });
    on('c-train', 'change', function () { S.set(st, 'train', $('c-train').value === '1'); render(); });
    on('c-scale', 'change', function () { S.set(st, 'scale', $('c-scale').value); redraw(); });
    on('c-norm', 'change', function () { S.set(st, 'norm', $('c-norm').value); redraw(); });
    on('c-theme', 'change', function () { S.set(st, 'theme', $('c-theme').value); applyTheme(st.values.theme); updateURL(); redraw(); });
    on('c-batch', 'change', function () { S.set(st, 'batch', +$('c-batch').value); redraw(); });
    on('theme-toggle', 'click', function () {
      var cur = document.documentElement.getAttribute('data-theme');
      S.set(st, 'theme', cur === 'dark' ? 'light' : 'dark');
      applyTheme(st.values.theme); updateURL(); redraw();
    });
    on('reset-preset', 'click', function () {
      ['dmodel', 'heads', 'causal', 'fill', 'dropout', 'train', 'seed'].forEach(function (k) { delete st.explicit[k]; });
      render();
    });
    on('show-table', 'click', function () {
      if (!current) return;
      var box = $('table-box'), open = box.hidden;
      box.hidden = !open; $('show-table').setAttribute('aria-expanded', String(open));
      $('show-table').textContent = open ? 'Hide table' : 'Show as table';
      if (open) drawTable();
      postHeight();
    });
    on('export-png', 'click', function () {
      if (!current) return;
      var cs = Array.prototype.slice.call($('heads').querySelectorAll('canvas'));
      var names = cs.map(function (c) { return c.hasAttribute('data-avg') ? 'Average' : 'Head ' + c.getAttribute('data-head'); });
      W.exportPNG(cs, names, exportInfo()).toBlob(function (blob) { W.download('mha-heads.png', blob); });
    });
    on('export-svg', 'click', function () {
      if (!current) return;
      var r = current.res, b = selB(), items = range(r.H).concat(r.H > 1 ? ['avg'] : []);
      var svg = W.exportSVG(items.map(function (h) { return headMat(b, h); }), current.labels, items.map(headName), exportInfo());
      W.download('mha-heads.svg', new Blob([svg], { type: 'image/svg+xml' }));
    });
    on('copy-link', 'click', function () { copyText(shareURL(false), $('copy-link')); });
    on('copy-embed', 'click', function () { copyText(embedCode($('embed-host').value), $('copy-embed')); });
    on('copy-py', 'click', function () { copyText(pageSnippet().code, $('copy-py')); });
    // detail canvas: keyboard cell reading
    var dc = $('detail-canvas');
    attachHover(dc, function () { return dc._mat; });
    dc.addEventListener('keydown', function (e) {
      var mat = dc._mat; if (!mat) return;
      var d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
      if (!d) return;
      e.preventDefault();
      cellSel = [Math.max(0, Math.min(mat.S - 1, cellSel[0] + d[0])), Math.max(0, Math.min(mat.S - 1, cellSel[1] + d[1]))];
      drawDetail(); readCell();
    });
    dc.addEventListener('focus', function () { drawDetail(); readCell(); });
    dc.addEventListener('blur', function () { if (current) drawDetail(); });
    dc.addEventListener('click', function (e) { var c = W.cellAt(dc, e); if (c) { cellSel = c; drawDetail(); readCell(); } });
    var lines = $('lines');
    lines.addEventListener('mouseover', function (e) {
      var q = e.target.getAttribute && e.target.getAttribute('data-q');
      if (q != null && +q !== hoverQuery) { hoverQuery = +q; drawDetail(); }
    });
    lines.addEventListener('mouseleave', function () { if (hoverQuery != null) { hoverQuery = null; drawDetail(); } });
    on('load-weights', 'change', function (e) {
      var f = e.target.files[0];
      e.target.value = '';
      if (f) loadFile(f);
    });
    on('random-weights', 'click', function () { loaded = null; freeWeights(); loadMessages = []; render(); });
    on('c-layer', 'change', function () { useWeights(loaded.file, loaded.tensors, +$('c-layer').value); });
    document.addEventListener('dragover', function (e) {
      if (!e.dataTransfer || Array.prototype.indexOf.call(e.dataTransfer.types || [], 'Files') < 0) return;
      e.preventDefault(); document.body.classList.add('dropping');
    });
    document.addEventListener('dragleave', function (e) { if (!e.relatedTarget) document.body.classList.remove('dropping'); });
    document.addEventListener('drop', function (e) {
      document.body.classList.remove('dropping');
      if (!e.dataTransfer || !e.dataTransfer.files.length) return;
      e.preventDefault();
      loadFile(e.dataTransfer.files[0]);
    });
    W.pipeline($('pipeline'));
    var rt = null;
    root.addEventListener('resize', function () { clearTimeout(rt); rt = setTimeout(redraw, 150); });
  }
  function redraw() { if (current) { current.eff = effective(); draw(); postHeight(); } updateURL(); }

  function syncControls(eff) {
    var pr = presetOf(eff), fixed = pr && pr.fixed;
    // a fixed example (lesson 002) shows the values it uses, or no model at all for the hand-built heads
    var shown = pr && pr.shown && M ? pr.shown(M, eff) : null;
    setProp($('model-fields'), 'hidden', !!fixed && !shown);
    if (shown) eff = Object.assign({}, eff, shown);
    setProp($('c-preset'), 'value', eff.preset);
    setProp($('f-view'), 'hidden', !(pr && pr.views));
    if (pr && pr.views) {
      var vs = $('c-view'), vkey = pr.views.join('|');
      if (vs._key !== vkey) { vs._key = vkey; vs.textContent = ''; pr.views.forEach(function (v) { vs.appendChild(new Option(v[1], v[0])); }); }
      setProp(vs, 'value', eff.view || pr.views[0][0]);
    }
    setProp($('f-text'), 'hidden', !!pr);
    setProp($('f-pos'), 'hidden', !!pr);
    if ($('c-text').value !== eff.text && document.activeElement !== $('c-text')) $('c-text').value = eff.text;
    var dm = $('c-dmodel'), list = DMODELS.slice();
    if (list.indexOf(eff.dmodel) < 0) { list.push(eff.dmodel); list.sort(function (a, b) { return a - b; }); }
    setOptions(dm, list);
    setProp(dm, 'value', String(eff.dmodel));
    setProp(dm, 'disabled', !!loaded);
    setProp(dm, 'title', loaded ? 'd_model comes from the loaded weights' : '');
    setText('weights-note', loaded ? 'Loaded from ' + loaded.file + (loaded.kind === 'model' ? ', layer ' + loaded.layer + ' of the lab\'s model' : '') +
      ' (d_model ' + loaded.dModel + '). Share links do not carry files: a link opens random weights.'
      : 'Random: nn.Linear\'s init after torch.manual_seed(' + eff.seed + '). Load a .safetensors state_dict of the lessons\' ' +
        'MultiHeadAttention or of the training lab\'s model to see its heads (or drop the file on the page).');
    setProp($('random-weights'), 'hidden', !loaded);
    setProp($('f-layer'), 'hidden', !(loaded && loaded.layers.length > 1));
    if (loaded && loaded.layers.length > 1) {
      setOptions($('c-layer'), loaded.layers);
      setProp($('c-layer'), 'value', String(loaded.layer));
    }
    var hs = $('c-heads');
    setOptions(hs, model.divisors(eff.dmodel));
    setProp(hs, 'value', String(eff.heads));
    var dk = eff.dmodel / eff.heads;
    setText('dk-note', 'd_k = ' + eff.dmodel + ' / ' + eff.heads + ' = ' + dk + ' per head. ' +
      (eff.heads === 1 ? 'One head: a single attention pattern over all ' + eff.dmodel + ' dims.'
        : 'Each head compares queries and keys in its own ' + dk + ' dims; the parameter count is the same for any ' +
          'number of heads. Untrained heads look alike whatever their number: training is what makes them differ.'));
    setProp($('c-seed'), 'value', String(eff.seed));
    setProp($('c-fill'), 'value', eff.fill);
    setProp($('c-causal'), 'checked', !!eff.causal);
    setProp($('c-pos'), 'checked', !!eff.pos);
    setProp($('c-dropout'), 'value', String(eff.dropout));
    setProp($('c-train'), 'value', eff.train ? '1' : '0');
    setProp($('c-scale'), 'value', eff.scale); setProp($('c-norm'), 'value', eff.norm); setProp($('c-theme'), 'value', eff.theme);
    setProp($('model-fields'), 'disabled', !!fixed);
    setProp($('model-fields'), 'title', fixed ? 'These examples are fixed by lesson 002; pick another example to change the model.' : '');
    setProp($('reset-preset'), 'hidden', !(pr && pr.defaults && modified(eff).length));
  }

  var darkQuery = null;
  function applyTheme(t) {
    if (t === 'auto' && !darkQuery && root.matchMedia) darkQuery = root.matchMedia('(prefers-color-scheme: dark)');
    var dark = t === 'dark' || (t === 'auto' && !!darkQuery && darkQuery.matches);
    W.setAttr(document.documentElement, 'data-theme', dark ? 'dark' : 'light');
  }
  var EMBED_HIDE = ['controls', 'input', 'detail', 'trace', 'lesson'];
  var layoutKey = null;
  function applyLayout(eff) {
    // An embed is focused: the heatmaps of every head (and the header's "Open full page") unless hide= says
    // otherwise; the share panel and heap statistics never show inside an embed.
    var hide = eff.hide.slice();
    if (eff.embed) hide = (st.explicit.hide ? hide : EMBED_HIDE.slice()).concat(hide.indexOf('share') < 0 ? ['share'] : []);
    if (eff.embed) {
      var full = new URLSearchParams(S.toQuery(st)); full.delete('embed'); full.delete('hide');
      setProp($('open-full'), 'hidden', false);
      W.setAttr($('open-full'), 'href', 'index.html' + (full.toString() ? '?' + full.toString() : ''));
    }
    var key = !!eff.embed + '|' + hide.join(',');
    if (key === layoutKey) return;   // sections and classes as they are
    layoutKey = key;
    document.body.classList.toggle('embed', !!eff.embed);
    S.SECTIONS.forEach(function (s) {
      Array.prototype.forEach.call(document.querySelectorAll('[data-section="' + s + '"]'), function (n) { n.hidden = hide.indexOf(s) >= 0; });
    });
    document.body.classList.toggle('no-controls', hide.indexOf('controls') >= 0);
    // an embed, and a phone, start with the controls folded: the heatmaps come first on a narrow screen
    if (eff.embed || (root.matchMedia && root.matchMedia('(max-width: 720px)').matches)) $('controls-box').open = false;
  }

  // ---- URL, sharing, embedding -------------------------------------------------------------------------
  // history.replaceState is slow in Chromium (and rate-limited): called only when the query changed.
  var lastURL = null;
  function updateURL() {
    var q = S.toQuery(st);
    var url = root.location.pathname + (q ? '?' + q : '') + root.location.hash;
    if (url === lastURL) return;
    lastURL = url;
    try { root.history.replaceState(null, '', url); } catch (e) { /* sandboxed frames */ }
  }
  function pageBase() {
    var href = root.location.href.split(/[?#]/)[0];
    return href.replace(/[^/]*$/, '');
  }
  function shareURL(embed) {
    var q = new URLSearchParams(S.toQuery(st));
    if (embed) { q.set('embed', '1'); } else { q.delete('embed'); }
    var base = root.location.protocol === 'file:' ? 'index.html' : root.location.href.split(/[?#]/)[0];
    return base + (q.toString() ? '?' + q.toString() : '');
  }
  // One snippet per host, each an iframe of the focused embed that takes the height the page posts
  // (a few lines of script; without it the iframe keeps its first height). host: 'myst' (Jupyter Book,
  // Sphinx + myst-parser), 'notebook' (Jupyter), 'html' (any page), 'element' (<mha-explorer>).
  var EMBED_HOSTS = ['myst', 'notebook', 'html', 'element'];
  function embedCode(host) {
    host = EMBED_HOSTS.indexOf(host) >= 0 ? host : 'html';
    var web = root.location.protocol !== 'file:';
    var base = web ? pageBase() : 'https://YOUR-SITE/mha-explorer/';
    var q = new URLSearchParams(S.toQuery(st)); q.delete('embed'); q.set('embed', '1');
    var src = base + 'index.html?' + q.toString();
    var esc = function (v) { return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;'); };
    if (host === 'element') {
      var attrs = [];
      new URLSearchParams(S.toQuery(st)).forEach(function (v, k) { if (k !== 'embed') attrs.push(k + '="' + esc(v) + '"'); });
      return '<script src="' + base + 'mha-explorer-element.js"></script>\n<mha-explorer ' + attrs.join(' ') + '></mha-explorer>\n';
    }
    var heads = document.querySelector('[data-section="heads"]');
    var h = Math.max(320, Math.ceil((heads ? heads.getBoundingClientRect().height : 600) + 90));
    var html = '<iframe src="' + esc(src) + '" data-mha-explorer width="100%" height="' + h + '" style="border:0;width:100%" ' +
      'title="MHA Explorer: multi-head attention"></iframe>\n' +
      '<script>addEventListener("message", function (e) { var d = e.data; if (!d || d.type !== "mha-explorer:height") return; ' +
      'document.querySelectorAll("iframe[data-mha-explorer]").forEach(function (f) { ' +
      'if (f.contentWindow === e.source) f.style.height = Math.min(20000, Math.ceil(d.height)) + "px"; }); });</script>\n';
    if (host === 'myst') return '```{raw} html\n' + html + '```\n';
    if (host === 'notebook') return 'from IPython.display import HTML\nHTML(\'\'\'' + html + '\'\'\')\n';
    return html;
  }
  function copyText(text, btn) {
    var out = $('share-out');
    out.value = text;
    var done = function (ok) {
      if (!btn) return;
      var old = btn.getAttribute('data-label') || btn.textContent;
      btn.setAttribute('data-label', old);
      btn.textContent = ok ? 'Copied ✓' : 'Select and copy below';
      setTimeout(function () { btn.textContent = old; }, 1500);
    };
    var fallback = function () {
      try { out.hidden = false; out.focus(); out.select(); done(document.execCommand('copy')); } catch (e) { done(false); }
    };
    if (navigator.clipboard && root.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    } else fallback();
  }

  // The embedding page learns our height (iframe auto-size); origin-agnostic, the payload is a number.
  function postHeight() {
    if (root.parent === root) return;
    var h = Math.ceil(document.body.getBoundingClientRect().height);
    try { root.parent.postMessage({ type: 'mha-explorer:height', height: h }, '*'); } catch (e) { /* ignore */ }
  }

  // What an exported image says about itself: the configuration, the batch item and the colour range.
  function exportInfo() {
    var eff = current.eff, r = current.res, pr = presetOf(eff);
    var what = pr ? pr.title(eff) + (r.note ? ' — ' + r.note : '')
      : 'MultiHeadAttention(d_model=' + eff.dmodel + ', num_heads=' + eff.heads + '), ' +
        (loaded ? 'weights from ' + loaded.file + (loaded.kind === 'model' ? ' layer ' + loaded.layer : '') : 'torch.manual_seed(' + eff.seed + ')') +
        (eff.causal ? ', causal' : '') + (eff.train && eff.dropout ? ', train() dropout ' + eff.dropout : '');
    return { caption: 'MHA Explorer · ' + what + (r.B > 1 ? ' · batch item ' + selB() : '') + ' · ' + r.S + ' tokens',
      scale: eff.scale, norm: eff.norm, vmax: r.vmax };
  }

  // "Copy as PyTorch": the whole page as one script, and what it prints (the page's printed panels).
  function pageSnippet() {
    if (!current) return { code: '', printed: '' };
    flushPrinted();
    if (current.copyAll) {
      return { code: P.copyAll(current.cells),
        printed: current.cells.map(function (c) { return printed[c.id]; }).filter(Boolean).join('\n') };
    }
    return { code: P.copySnippet(current.cfg), printed: printed.page };
  }
  // Every snippet the page offers with the text it shows as printed: each cell's "Copy code" and "Copy as PyTorch".
  function snippets() {
    if (!current) return [];
    var all = pageSnippet(), els = lessonCells ? lessonCells.els : [];
    return els.map(function (wrap) {
      var c = wrap._cell;
      return { id: c.id, title: c.title, code: P.copyOf(c), printed: printed[c.id] };
    }).concat([{ id: 'copy-as-pytorch', title: 'Copy as PyTorch', code: all.code, printed: all.printed }]);
  }

  // ---- Benchmark hook -----------------------------------------------------------------------------------
  // n full recompute+redraw cycles of the current state: each runs the forward (never a cached result)
  // and the redraw, one per frame (rAF + setTimeout(0) between cycles, as interactions come). Per cycle:
  // forwardMs (the forward, incl. embedding; a Worker round trip for large inputs), redrawMs (messages,
  // canvases, DOM), totalMs (render() from its start to the end of the redraw), layoutMs (style + layout
  // of the result, forced right after: what the browser would do before the next paint). Medians.
  function benchmarkRecompute(n) {
    n = Math.max(1, Math.floor(+n) || 20);
    var f = [], d = [], t = [], lay = [], su = [], i = 0;
    var med = function (v) { var s = v.slice().sort(function (a, b) { return a - b; }), k = s.length >> 1;
      return s.length ? (s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2) : NaN; };
    var frame = function () {
      return new Promise(function (res) {
        var done = false, go = function () { if (!done) { done = true; setTimeout(res, 0); } };
        if (root.requestAnimationFrame) root.requestAnimationFrame(go);
        setTimeout(go, 100);   // rAF does not run in hidden documents
      });
    };
    var one = function () {
      if (i++ >= n) {
        return { forwardMs: med(f), redrawMs: med(d), totalMs: med(t), layoutMs: med(lay), setupMs: med(su), runs: n,
          where: lastCompute.where, implementation: M && M.implementation,
          samples: { forwardMs: f, redrawMs: d, totalMs: t, layoutMs: lay } };
      }
      return frame().then(function () {
        lastTiming = null;
        return render();
      }).then(function () {
        var l0 = model.now();
        void document.body.offsetHeight;   // force style + layout of what the redraw changed
        var l1 = model.now();
        if (!lastTiming) throw new Error('benchmarkRecompute: render() did not complete (no core, no tokens, or an error)');
        su.push(lastTiming.setupMs); f.push(lastTiming.forwardMs); d.push(lastTiming.redrawMs); t.push(lastTiming.totalMs); lay.push(l1 - l0);
        return one();
      });
    };
    return ready.then(one);
  }

  // ---- Public API -------------------------------------------------------------------------------------
  var readyResolve;
  var ready = new Promise(function (r) { readyResolve = r; });
  root.mhaExplorer = {
    ready: ready,
    getWeights: function () {
      if (!current) return null;
      var w = current.res.weights;
      return { shape: w.shape.slice(), data: new Float32Array(w.data) };
    },
    // bytes: a .safetensors file (Uint8Array or ArrayBuffer); resolves true when the page shows its heads,
    // false when it was refused (the page's message says why).
    loadWeights: function (bytes, name, layer) {
      return ready.then(function () {
        var ok = loadBytes(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes, name || 'weights.safetensors', layer || 0);
        return pending.then(function () { return ok; });
      });
    },
    randomWeights: function () { loaded = null; freeWeights(); loadMessages = []; return render(); },
    getTrace: function () { return current && current.res.trace ? JSON.parse(JSON.stringify(current.res.trace)) : []; },
    getLabels: function () { return current ? current.labels.slice() : []; },
    getPrinted: function () { flushPrinted(); return JSON.parse(JSON.stringify(printed)); },
    getSnippets: function () { flushPrinted(); return snippets(); },
    getState: function () { return effective(); },
    getCompute: function () { return { ms: lastCompute.ms, where: lastCompute.where, implementation: M && M.implementation }; },
    set: function (values) {
      Object.keys(values).forEach(function (k) {
        var p = S.BY_NAME[k]; if (!p) throw new Error('unknown property ' + k);
        var r = S.parseValue(p, Array.isArray(values[k]) ? values[k].join(',') : values[k]);
        if (!r.ok) throw new Error(r.message);
        S.set(st, k, r.value);
      });
      return render();
    },
    render: function () { return render(); },
    benchmarkRecompute: benchmarkRecompute,
    embedCode: embedCode,
    shareURL: function () { return shareURL(false); },
    get module() { return M; }
  };

  buildControls();
  if (root.parent !== root && typeof ResizeObserver === 'function') new ResizeObserver(postHeight).observe(document.body);
  applyTheme(st.values.theme);
  applyLayout(effective());
  loadCore().then(function (mod) {
    M = mod;
    return render();
  }).then(function () { readyResolve(true); }, function (err) {
    showMessages([String(err && err.message || err)]);
    setStatus('The WebAssembly core did not load.');
    readyResolve(false);
  });
})(window);
