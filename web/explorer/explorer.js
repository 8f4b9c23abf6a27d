// MHA Explorer — the explorer: createExplorer(root, options) mounts one into root and returns its handle. Its controller
// owns the state (state/page.js), computes every preset's result in one shape (compute()), and redraws the views from
// it (render() → draw()); loaded weights, the controls, theme and layout, and the script API (handle.api, which the
// hosted page publishes as window.mhaExplorer). Every instance keeps its state in its own closure, finds its elements
// through its own scope (scope.js: ids with the instance's prefix) and registers its window and document listeners
// with its own AbortSignal, so that explorers share a document without touching each other. Its jobs live in
// modules, TensorFlow Playground style: core (the core and the forward pool), heads, detail, trace, lesson (the
// views), read (reading weights), share (URL, links, embeds), input (an input given with the document), scope (DOM).
import { PAGE_PROPS, SECTIONS, pageProp, readPageQuery, pageQueryString, setValue } from '../state/page.js';
import { parse } from '../state/props.js';
import { MAX_TOKENS, commas, divisors, headsMessage, now, tokenEnds, tokenize } from '../core/model.js';
import { LESSONS, lessonById } from '../lessons/index.js';
import { copySnippet, moduleOutput } from '../lessons/snippets.js';
import { el, setAttr, themeColors } from '../widgets/dom.js';
import { legend } from '../widgets/colors.js';
import { pipeline } from '../widgets/trace.js';
import { exportSVG, exportPNG } from '../widgets/export.js';
import { chips } from '../widgets/chips.js';
import { SCALES } from '../widgets/scales.js';
import { attentionWeights, headsFromMetadata } from '../core/weights.js';
import { implementationName } from '../core/features.js';
import { showMessages as showMessagesIn } from '../chrome/messages.js';
import { applyTheme, otherTheme } from '../chrome/theme.js';
import { readFile, tooLarge, wireFileDrop } from '../chrome/files.js';
import { copyWithButton } from '../chrome/clipboard.js';
import { download } from '../chrome/download.js';
import { postHeight, followLinksTo } from '../chrome/frame.js';
import { fillEmbedHosts } from '../chrome/share.js';
import { FILES } from '../core/source.js';
import { Scope, setProp, setOptions, range } from './scope.js';
import { TEMPLATE } from './template.js';
import { ExplorerCore } from './core.js';
import { selB, headMat, headName, colourMax, fmtMax } from './read.js';
import { HeadsView } from './heads.js';
import { DetailView } from './detail.js';
import { TraceView } from './trace.js';
import { LessonView } from './lesson.js';
import { updateURL, shareURL, embedCode } from './share.js';
import { givenInput, inputLabels } from './input.js';
import { asRegion, withoutLandmarks } from '../chrome/landmarks.js';

const DMODELS = [4, 8, 16, 32, 48, 64, 96, 128, 256, 384, 512, 768, 1024];
const EMBED_HIDE = ['controls', 'input', 'detail', 'trace', 'lesson'];
const RESULT_BUTTONS = ['export-png', 'export-svg', 'show-table', 'copy-py'];   // need a result to act on
// Attention weights files of the largest d_model: what the size cap's message says.
const FILE_HINT = 'attention weights for d_model 1024 take about 17 MB';
// A text is cut after at most MAX_TOKENS tokens, at a token boundary, and so that its share link stays
// within what web servers accept (8 KiB request lines for nginx and Apache; Node answers 431 from 16 KiB).
const TEXT_LINK_BUDGET = 6000;      // characters of the URL-encoded text in a link

// Instances numbered, for their ids' prefixes: mhx1-, mhx2-, … (one not in use in root's document or shadow root,
// should another bundle of the explorer have mounted some there too).
let mounted = 0;
function freshPrefix(root) {
  const ids = root.getRootNode();
  let prefix;
  do prefix = 'mhx' + (++mounted) + '-'; while (ids.getElementById && ids.getElementById(prefix + 'status'));
  return prefix;
}

// The properties that build the module (state/page.js marks them): a new example or Reset starts them from defaults.
const MODEL_PROPS = PAGE_PROPS.filter((p) => p.model).map((p) => p.name);

// root: the element the explorer fills (its markup goes before what root holds; dispose() removes it again).
// options: {query (a page query string, '?…' or not), values ({name: value}, as api.set takes them, over the query),
//   embed (the focused embed layout), theme ('auto' follows the reader's system; the <mha-explorer> element passes
//   the host page's), idPrefix (the ids' prefix: '' for the hosted page; a fresh mhxN- when absent),
//   styles (a stylesheet's text, style.css's as <mha-explorer> imports it, put into root as a <style>: for a shadow
//   root or a page that does not link style.css),
//   ownsDocument (the hosted page: its URL follows the state (history.replaceState), it posts its height to a
//   parent frame, a file dropped anywhere is loaded; false for any other mount), input (the text of an input block,
//   input.js), onLab(query) (a link to the training lab was followed: the host shows the lab for that query instead
//   of the browser leaving the page, as <mha-explorer> does)}. → {ready (a promise of whether the core loaded), api, update(values) (api.set), dispose()}.
export function createExplorer(root, options = {}) {
  const prefix = options.idPrefix !== undefined ? options.idPrefix : freshPrefix(root);
  const ownsDocument = !!options.ownsDocument;
  const base = options.base || '';   // the folder of the page's files, for links and the core ('' : this page's)
  const events = new AbortController(), signal = events.signal;
  let disposed = false;
  const styleEl = options.styles ? root.insertBefore(el('style', null, options.styles), root.firstChild) : null;
  const scope = new Scope(root, ownsDocument ? TEMPLATE : withoutLandmarks(TEMPLATE), prefix);
  const $ = (name) => scope.$(name);
  const setText = (e, t) => scope.setText(e, t);
  root.classList.add('mhx');
  const unRegion = ownsDocument ? null : asRegion(root, 'MHA Explorer');
  setAttr($('open-lab'), 'href', base + FILES.lab + '?preset=train-two-offsets');
  const colors = () => themeColors(root);
  const posted = () => { if (ownsDocument) postHeight(); };
  const syncURL = () => { if (ownsDocument) updateURL(st); };
  const core = new ExplorerCore(base);
  const fileSeq = { n: 0 };
  const timers = new Set();
  const later = (fn, ms) => { const t = setTimeout(() => { timers.delete(t); fn(); }, ms); timers.add(t); return t; };
  const cancel = (t) => { clearTimeout(t); timers.delete(t); };

  let M = null;                     // the WebAssembly API
  const st = readPageQuery(options.query || '');
  let loadMessages = st.messages.slice();
  let current = null;               // {res, labels, cfg, cells, copyAll, eff}: what the views draw
  const getCur = function () { return current; };
  let renderId = 0;
  // Weights loaded from a .safetensors file (not in share links: a link cannot carry a file):
  // {id, file, tensors (the whole file), metadata, heads (the file's num_heads, or null), saidHeads (its raw value),
  //  state (the module's entries), dModel, kind: 'module' | 'model', layer, layers}.
  let loaded = null, weightsSeq = 0, weightsError = '';
  // The input this document was given (mx.explore: the student's x, tokens, module weights; input.js), or null.
  let given = givenInput(options.input === undefined ? null : options.input, MAX_TOKENS, pageProp('dmodel').max);
  if (given && given.error) { loadMessages.push('The page could not use the input it was given: ' + given.error + '.'); given = null; }

  // ---- Long texts ---------------------------------------------------------------------------------
  function fitText(text) {
    const t = tokenEnds(text), ends = t.ends;
    const fits = function (k) { return encodeURIComponent(t.text.slice(0, ends[k - 1])).length <= TEXT_LINK_BUDGET; };
    if (ends.length <= MAX_TOKENS && fits(ends.length || 1)) return { text: text, message: null };
    let lo = 1, hi = Math.min(ends.length, MAX_TOKENS);
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (fits(mid)) lo = mid; else hi = mid - 1; }
    const cut = t.text.slice(0, ends[lo - 1]);
    return { text: cut, message: 'Your text has ' + commas(ends.length) + ' tokens (' + commas(text.length) +
      ' characters): the page keeps the first ' + commas(lo) + ' tokens, up to “' + tokenize(cut).pop() + '”' +
      (lo < Math.min(ends.length, MAX_TOKENS) ? ', so that a share link stays short enough for web servers.' :
        ' (it draws at most ' + MAX_TOKENS + ').') };
  }
  function applyFitText() {
    const f = fitText(st.values.text);
    if (f.message) { st.values.text = f.text; loadMessages.push(f.message); }
    return f;
  }
  if (st.explicit.text) applyFitText();

  // ---- Effective configuration -------------------------------------------------------------------
  function presetOf(v) { return v.preset ? lessonById(v.preset) : null; }
  function effective() {
    const v = st.values, pr = presetOf(v), eff = {};
    PAGE_PROPS.forEach(function (p) {
      let val = v[p.name];
      if (pr && pr.defaults && p.model && !st.explicit[p.name] && pr.defaults[p.name] !== undefined) val = pr.defaults[p.name];
      eff[p.name] = Array.isArray(val) ? val.slice() : val;
    });
    if (loaded) eff.dmodel = loaded.dModel;   // the file's d_model
    if (given && given.x && !pr) eff.dmodel = given.x.shape[2];   // the given x's (loaded weights must match it)
    return eff;
  }
  function modified(eff) {
    const pr = presetOf(eff);
    if (!pr || !pr.defaults) return [];
    return Object.keys(pr.defaults).filter(function (k) { return String(pr.defaults[k]) !== String(eff[k]); });
  }

  // Validate cross-field rules; returns messages and fixes eff in place.
  function validate(eff, msgs) {
    if (eff.dmodel % eff.heads !== 0) {
      msgs.push(headsMessage(eff.dmodel, eff.heads) + '. Using ' + nearestDivisor(eff.dmodel, eff.heads) + ' heads.');
      eff.heads = nearestDivisor(eff.dmodel, eff.heads);
    }
  }
  function nearestDivisor(D, H) {
    let ds = divisors(D), best = ds[0];
    ds.forEach(function (d) { if (Math.abs(d - H) < Math.abs(best - H)) best = d; });
    return best;
  }

  // ---- Compute --------------------------------------------------------------------------------------
  function buildSpec(eff, msgs) {
    const pr = presetOf(eff);
    const spec = { dModel: eff.dmodel, numHeads: eff.heads, seed: eff.seed, bias: true, dropout: eff.dropout,
      train: eff.train, causal: eff.causal, fill: eff.fill, maskStyle: 'tril-keep' };
    let labels;
    if (pr && pr.input) {
      spec.input = { type: pr.input.type, batch: pr.input.batch, seqLen: pr.input.seqLen };
      spec.order = pr.order; spec.maskStyle = pr.maskStyle;
      labels = []; for (let i = 0; i < pr.input.seqLen; i++) labels.push('t' + i);
    } else if (given) {   // the given x (or tokens, which the page embeds)
      labels = given.x ? inputLabels(given) : given.tokens.slice();
      const listed = given.tokens ? 'the tokens from ' + given.source : '';
      spec.input = given.x ? { type: 'tensor', x: given.x, tokens: labels, listed: listed }
        : { type: 'text', tokens: labels, pos: eff.pos, text: labels.join(' '), listed: listed };
    } else {
      let tokens = tokenize(eff.text);
      let truncated = false;
      if (tokens.length > MAX_TOKENS) {
        msgs.push('The text has ' + commas(tokens.length) + ' tokens; the page uses the first ' + MAX_TOKENS + '.');
        tokens = tokens.slice(0, MAX_TOKENS); truncated = true;
      }
      spec.input = { type: 'text', tokens: tokens, pos: eff.pos, text: eff.text, truncated: truncated };
      labels = tokens;
    }
    if (loaded) { spec.weights = loaded.state; spec.weightsId = String(loaded.id); }
    return { spec: spec, labels: labels };
  }

  // ---- compute(): every preset's result in one shape ------------------------------------------------------
  // → {promise of {res, labels, cells, cfg, copyAll}, t0, t1 (0 while the forward runs elsewhere)}, or null when
  // there is nothing to compute. res: {weights [B, H, Sq, Skv], output, x, B, H, S, D, trace, causal, dropout,
  // train, headNames?, origin?, note?}; cells: the lesson panel's code cells ({id, title, code, output(), setup?});
  // copyAll: "Copy as PyTorch" is every cell (a fixed lesson) rather than the page's own cell.
  function compute(eff, pr, msgs) {
    if (pr && pr.compute) {   // a fixed lesson computes itself
      let t = now(), fixed;
      try { fixed = Promise.resolve(Object.assign({ cfg: null, copyAll: true }, pr.compute(M, eff))); } catch (err) { fixed = Promise.reject(err); }
      core.noForward();
      return { promise: fixed, t0: t, t1: t };
    }
    const b = buildSpec(eff, msgs);
    if (b.spec.input.type === 'text' && b.spec.input.tokens.length === 0) {
      msgs.push('Type a sentence above: there are no tokens to attend over yet.');
      showMessages(msgs);
      renderEmpty();
      return null;
    }
    const t0 = now(), job = core.runForward(b.spec), t1 = job.sync ? now() : 0;
    return { t0: t0, t1: t1, promise: job.promise.then(function (res) {
      const cfg = { seed: eff.seed, D: eff.dmodel, H: eff.heads, dropout: eff.dropout, train: eff.train,
        causal: eff.causal, maskStyle: b.spec.maskStyle, fill: eff.fill, input: b.spec.input, order: b.spec.order,
        b: Math.min(eff.batch, res.B - 1), h: Math.min(eff.head, res.H - 1), seedNote: pr && pr.seedNote,
        weights: loaded ? { file: loaded.file, layer: loaded.layer, kind: loaded.kind, sources: loaded.sources, how: loaded.how } : null };
      res.causal = eff.causal; res.dropout = eff.dropout; res.train = eff.train;
      const cells = pr ? [{ id: 'lesson', title: 'The lesson\'s example', code: pr.lessonCode(eff), output: function () { return pr.lessonOutput(res); } }] : [];
      cells.push({ id: 'page', title: 'Copy as PyTorch: the page\'s numbers (batch ' + cfg.b + ', head ' + cfg.h + ')',
        code: copySnippet(cfg), output: function () { return moduleOutput(res, cfg); } });
      return { res: res, labels: b.labels, cfg: cfg, cells: cells, copyAll: false };
    }) };
  }

  // ---- render() ---------------------------------------------------------------------------------------
  let pending = Promise.resolve();   // the last render()'s promise
  let lastTiming = null;            // {forwardMs, redrawMs, totalMs} of the last completed render()
  function render() {
    if (!M || disposed) return Promise.resolve();
    let t0 = now(), tF0 = 0, tF1 = 0;
    const myId = ++renderId;
    const eff = effective();
    const msgs = loadMessages.slice();
    applyTheme(eff.theme, root);
    applyLayout(eff);
    validate(eff, msgs);
    syncControls(eff);
    syncURL();
    const pr = presetOf(eff);
    const run = compute(eff, pr, msgs);
    if (run === null) return (pending = Promise.resolve());   // nothing to compute (no tokens): the page says so
    tF0 = run.t0; tF1 = run.t1;
    const job = run.promise;
    if (!tF1) setStatus('Computing…');   // only when the forward is asynchronous (Web Worker)
    pending = job.then(function (out) {
      if (myId !== renderId) return;   // a newer render superseded this one
      const tD0 = now();
      RESULT_BUTTONS.forEach(function (id) { setProp($(id), 'disabled', false); });
      if (!tF1) tF1 = tD0;
      current = { res: out.res, labels: out.labels, cfg: out.cfg, cells: out.cells, copyAll: out.copyAll, eff: eff };
      if (eff.batch >= out.res.B) { msgs.push('batch=' + eff.batch + ' is out of range for B=' + out.res.B + '; showing 0.'); }
      if (eff.head >= out.res.H) { msgs.push('head=' + eff.head + ' is out of range for ' + out.res.H + ' heads; showing 0.'); }
      showMessages(msgs);
      draw();
      setStatus(statusText());
      posted();
      const tD1 = now();
      lastTiming = { forwardMs: tF1 - tF0, redrawMs: tD1 - tD0, totalMs: tD1 - t0, setupMs: tF0 - t0 };
    }).catch(function (err) {
      if (myId !== renderId) return;   // superseded: the newer render says what happened
      msgs.push(String(err && err.message || err));
      showMessages(msgs);
      setStatus('Ready (last run failed)');
    });
    return pending;
  }
  function statusText() {
    return implementationName(M.implementation) + ' · ' + core.lastCompute.ms.toFixed(1) + ' ms · ' + core.lastCompute.where;
  }
  function setStatus(t) { setText('status', t); }

  function showMessages(msgs) { showMessagesIn($('messages'), msgs); }

  // ---- Drawing ----------------------------------------------------------------------------------------
  // Layout reads, done before any write of a redraw (no forced synchronous layout in between).
  function measure() {
    return { heads: $('heads').clientWidth, detail: $('detail-canvas').parentNode.parentNode.clientWidth,
      lines: $('lines').parentNode.clientWidth };
  }

  function draw() {
    const eff = current.eff, r = current.res, b = selB(current);
    r.vmax = colourMax(current, b);
    const wd = measure();
    // input
    const pr = presetOf(eff);
    setText('input-desc', pr
      ? (pr.input ? 'x = torch.' + pr.input.type + '(' + [pr.input.batch, pr.input.seqLen, eff.dmodel].join(', ') + ')' +
        ' — positions are labelled t0…t' + (pr.input.seqLen - 1) + '.' : (r.note || ''))
      : given ? (given.x ? 'x: your input from ' + given.source + ', shape [' + given.x.shape.join(', ') + ']' +
        (given.tokens ? '' : ' — positions are labelled t0…t' + (given.x.shape[1] - 1)) + '.'
        : current.labels.length + ' tokens from ' + given.source + ' · embeddings: randn(d_model) per token, seeded by fnv1a32("' +
          eff.seed + ':<token>")' + (eff.pos ? ' + sinusoidal positions' : '') + '.')
      : current.labels.length + ' tokens · embeddings: randn(d_model) per token, seeded by fnv1a32("' + eff.seed +
        ':<token>")' + (eff.pos ? ' + sinusoidal positions' : '') + '.');
    chips($('chips'), current.labels, 120);
    // batch selector
    setProp($('f-batch'), 'hidden', r.B <= 1);
    const bs = $('c-batch');
    setOptions(bs, range(r.B));
    setProp(bs, 'value', String(b));
    headsView.draw(current, wd, colors());
    detailView.draw(current, wd);
    traceView.draw(current);
    drawLessonPanel();
    legend($('legend'), eff.scale, eff.norm === 'max' ? 'each head\'s max' : fmtMax(r.vmax));
    headsView.note(current);
    const ms = M.memoryStats ? M.memoryStats() : null;
    setText('mem', ms ? 'WebAssembly heap: ' + (ms.heapUsed / 1048576).toFixed(1) + ' MiB used of ' +
      (ms.heapSize / 1048576).toFixed(1) + ' MiB.' : '');
  }

  // A head card was clicked: it becomes the enlarged head (h: a head index or 'avg').
  function pickHead(h) {
    if (h === 'avg') { setValue(st, 'avg', true); } else { setValue(st, 'avg', false); setValue(st, 'head', h); }
    syncURL(); current.eff = effective(); headsView.select(current); detailView.draw(current); drawLessonPanel();
  }
  // The lesson panel: the preset's title and introduction (or the page's own) over the result's code cells.
  function drawLessonPanel() {
    const eff = current.eff, pr = presetOf(eff);
    if (pr) {
      const mods = modified(eff);
      lessonView.draw(current, pr.title(eff), pr.blurb(eff) + (mods.length ? ' You changed: ' + mods.join(', ') +
        ' — the numbers below follow your values.' : '') + ' Source: ' + pr.file + '.');
    } else {
      lessonView.draw(current, given ? 'Your input in PyTorch' : 'Your sentence in PyTorch', 'The same computation as a PyTorch snippet: run it in a notebook and it prints the numbers below.');
    }
  }

  // No tokens: every view says so or is empty (the widgets' caches notice their emptied containers and
  // rebuild on the next draw).
  function renderEmpty() {
    current = null;
    lessonView.clear();
    detailView.clear();
    traceView.clear();
    $('heads').textContent = '';
    $('heads').appendChild(el('p', { class: 'empty' }, 'No tokens yet — type a sentence in the controls.'));
    ['chips', 'trace-body', 'heads-note', 'legend', 'lesson-title', 'lesson-blurb'].forEach(function (id) { $(id).textContent = ''; $(id)._key = null; });
    setText('trace-note', 'No tokens, so no forward pass to trace.');
    $('input-desc').textContent = '0 tokens.';
    RESULT_BUTTONS.forEach(function (id) { $(id).disabled = true; });
    $('table-box').hidden = true;
    setStatus('Ready · no tokens to compute');
    posted();
  }

  // ---- Loaded weights ------------------------------------------------------------------------------------
  // A file's attention weights become the module's state_dict (weights.js picks them; the core checks every
  // shape on a trial module first, so a bad file is refused here with its message, never half-loaded).
  // A refused file: said next to the button that loads files (and in the controls, opened if folded).
  function refuse(file, err) {
    weightsError = 'Could not load ' + file + ': ' + String(err && err.message || err);
    $('controls-box').open = true;
    render().then(function () { $('weights-msg').scrollIntoView({ block: 'nearest' }); });
    return false;
  }
  // metadata: the file's __metadata__ (the lab writes num_heads there; a state_dict has no tensor for it).
  function useWeights(file, tensors, layer, metadata) {
    let w;
    try {
      w = attentionWeights(tensors, layer, pageProp('dmodel').max);
      if (given && given.x && w.dModel !== given.x.shape[2]) {
        throw new Error('its d_model is ' + w.dModel + ', and the x the page was given has d_model ' + given.x.shape[2] + '.');
      }
      let gen = null, trial = null;
      try {
        gen = new M.Generator(0);
        trial = new M.MultiHeadAttention({ dModel: w.dModel, numHeads: 1, generator: gen });
        trial.loadStateDict(w.state);
      } finally { if (trial) trial.delete(); if (gen) gen.delete(); }
    } catch (err) {
      return refuse(file, err);
    }
    core.cache.free();   // the module cache holds the old weights: freed now
    const said = headsFromMetadata(metadata, w.dModel);
    loaded = Object.assign({ id: ++weightsSeq, file: file, tensors: tensors, metadata: metadata || {}, heads: said.heads, saidHeads: said.said }, w);
    if (st.values.preset) setValue(st, 'preset', '');   // the weights run on the page's sentence
    const H = said.heads || effective().heads;
    setValue(st, 'heads', w.dModel % H ? nearestDivisor(w.dModel, H) : H);
    setValue(st, 'head', 0);
    weightsError = '';
    render().then(function () { if (loaded && loaded.layers.length > 1) $('f-layer').scrollIntoView({ block: 'nearest' }); });
    return true;
  }
  // Back to the seed's random weights (a lesson's example always uses its own).
  function dropWeights() {
    if (loaded) core.cache.free();
    loaded = null; weightsError = '';
  }
  function loadBytes(bytes, file, layer) {
    let f;
    const big = tooLarge(bytes.length, 'the page', FILE_HINT);
    if (big) return refuse(file, big);
    try { f = M.readSafetensors(bytes); } catch (err) { return refuse(file, err); }
    return useWeights(file, f.tensors, layer, f.metadata);
  }
  function loadFile(f) {
    if (!M) return;
    readFile(f, 'the page', FILE_HINT, fileSeq).then(function (bytes) { if (bytes) loadBytes(bytes, f.name, 0); },
      function (err) { refuse(f.name, err.message); });
  }

  // ---- Controls ----------------------------------------------------------------------------------------
  function buildControls() {
    const ps = $('c-preset');
    ps.appendChild(new Option('Your sentence', ''));
    LESSONS.forEach(function (l) { ps.appendChild(new Option(l.menu, l.id)); });
    const on = function (id, ev, fn) { $(id).addEventListener(ev, fn); };
    on('controls', 'submit', function (e) { e.preventDefault(); });   // Enter in a field: its change event applies it
    fillEmbedHosts($('embed-host'));
    on('c-preset', 'change', function () {
      const v = $('c-preset').value;
      // a new example starts from its own values
      MODEL_PROPS.concat(['view', 'head', 'batch', 'avg']).forEach(function (k) { delete st.explicit[k]; st.values[k] = pageProp(k).def; });
      setValue(st, 'preset', v);
      loadMessages = [];
      if (v) dropWeights(); else weightsError = '';
      render();
    });
    on('c-view', 'change', function () { setValue(st, 'view', $('c-view').value); setValue(st, 'head', 0); setValue(st, 'batch', 0); render(); });
    let tdeb = null;
    on('c-text', 'input', function () {
      cancel(tdeb);
      tdeb = later(function () {
        setValue(st, 'text', $('c-text').value); loadMessages = [];
        if (applyFitText().message) $('c-text').value = st.values.text;
        render();
      }, 120);
    });
    on('c-dmodel', 'change', function () {
      const D = +$('c-dmodel').value, H = effective().heads;
      setValue(st, 'dmodel', D);
      if (D % H) setValue(st, 'heads', nearestDivisor(D, H));
      render();
    });
    on('c-heads', 'change', function () { setValue(st, 'heads', +$('c-heads').value); setValue(st, 'head', 0); render(); });
    // A typed value that is not valid keeps the value in use, and says so; the control shows it again.
    const typed = function (name) {
      const r = parse(pageProp(name), $('c-' + name).value, 'keeping ' + effective()[name]);
      if (r.ok) { setValue(st, name, r.value); loadMessages = []; } else loadMessages = [r.message];
      render();
    };
    on('c-seed', 'change', function () { typed('seed'); });
    on('c-fill', 'change', function () { setValue(st, 'fill', $('c-fill').value); render(); });
    on('c-causal', 'change', function () { setValue(st, 'causal', $('c-causal').checked); render(); });
    on('c-pos', 'change', function () { setValue(st, 'pos', $('c-pos').checked); render(); });
    on('c-dropout', 'change', function () { typed('dropout'); });
    on('c-train', 'change', function () { setValue(st, 'train', $('c-train').value === '1'); render(); });
    // the colour scale's options come from the scales' registry
    SCALES.forEach(function (s) { $('c-scale').appendChild(new Option(s.label, s.name)); });
    on('c-scale', 'change', function () { setValue(st, 'scale', $('c-scale').value); redraw(); });
    on('c-norm', 'change', function () { setValue(st, 'norm', $('c-norm').value); redraw(); });
    on('c-theme', 'change', function () { setValue(st, 'theme', $('c-theme').value); applyTheme(st.values.theme, root); syncURL(); redraw(); });
    on('c-batch', 'change', function () { setValue(st, 'batch', +$('c-batch').value); redraw(); });
    on('theme-toggle', 'click', function () {
      setValue(st, 'theme', otherTheme(root));
      applyTheme(st.values.theme, root); syncURL(); redraw();
    });
    on('reset-preset', 'click', function () {
      MODEL_PROPS.forEach(function (k) { delete st.explicit[k]; });
      render();
    });
    on('show-table', 'click', function () {
      if (!current) return;
      const box = $('table-box'), open = box.hidden;
      box.hidden = !open; $('show-table').setAttribute('aria-expanded', String(open));
      $('show-table').textContent = open ? 'Hide table' : 'Show as table';
      if (open) detailView.drawTable(current);
      posted();
    });
    on('export-png', 'click', function () {
      if (!current) return;
      const cs = headsView.canvases();
      const names = cs.map(function (c) { return c.hasAttribute('data-avg') ? 'Average' : 'Head ' + c.getAttribute('data-head'); });
      exportPNG(cs, names, exportInfo()).toBlob(function (blob) { download('mha-heads.png', blob, $('export-png'), 'image'); });
    });
    on('export-svg', 'click', function () {
      if (!current) return;
      const r = current.res, b = selB(current), items = range(r.H).concat(r.H > 1 ? ['avg'] : []);
      const svg = exportSVG(items.map(function (h) { return headMat(current, b, h); }), current.labels,
        items.map(function (h) { return headName(current, h); }), exportInfo());
      download('mha-heads.svg', new Blob([svg], { type: 'image/svg+xml' }), $('export-svg'), { text: svg, say: 'Here is the SVG: copy it into a file named mha-heads.svg.' });
    });
    on('copy-link', 'click', function () { copyWithButton(api.shareURL(), $('share-out'), $('copy-link')); });
    on('copy-embed', 'click', function () { copyWithButton(api.embedCode($('embed-host').value), $('share-out'), $('copy-embed')); });
    on('copy-py', 'click', function () { copyWithButton(lessonView.pageSnippet(current).code, $('share-out'), $('copy-py')); });
    on('load-weights', 'change', function (e) {
      const f = e.target.files[0];
      e.target.value = '';
      if (f) loadFile(f);
    });
    on('random-weights', 'click', function () { dropWeights(); render(); });
    on('c-layer', 'change', function () { if (loaded) useWeights(loaded.file, loaded.tensors, +$('c-layer').value, loaded.metadata); });
    wireFileDrop(loadFile, ownsDocument ? { signal } : { target: root, flag: root, signal });
    // "Skip to the heatmaps": an in-page link on the page; in a shadow root (which a # link does not reach) it focuses
    if (!ownsDocument) root.querySelector('.skip').addEventListener('click', function (e) { e.preventDefault(); $('heads-title').focus(); });
    if (options.onLab) followLinksTo(root, base + FILES.lab, options.onLab, signal);
    pipeline($('pipeline'));
    let rt = null;
    window.addEventListener('resize', function () { cancel(rt); rt = later(redraw, 150); }, { signal });
    // theme 'auto' follows the reader's system setting as it changes
    if (window.matchMedia) {
      window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () {
        if (effective().theme === 'auto') { applyTheme('auto', root); redraw(); }
      }, { signal });
    }
  }
  function redraw() { if (disposed) return; if (current) { current.eff = effective(); draw(); posted(); } syncURL(); }

  function syncControls(eff) {
    const pr = presetOf(eff), fixed = pr && pr.fixed;
    // a fixed example (lesson 002) shows the values it uses, or no model at all for the hand-built heads
    const shown = pr && pr.shown && M ? pr.shown(M, eff) : null;
    setProp($('model-fields'), 'hidden', !!fixed && !shown);
    if (shown) eff = Object.assign({}, eff, shown);
    setProp($('c-preset'), 'value', eff.preset);
    setProp($('f-view'), 'hidden', !(pr && pr.views));
    if (pr && pr.views) {
      const vs = $('c-view'), vkey = pr.views.join('|');
      if (vs._key !== vkey) { vs._key = vkey; vs.textContent = ''; pr.views.forEach(function (v) { vs.appendChild(new Option(v[1], v[0])); }); }
      setProp(vs, 'value', eff.view || pr.views[0][0]);
    }
    setProp($('f-text'), 'hidden', !!pr || !!given);
    setProp($('f-pos'), 'hidden', !!pr || !!(given && given.x));
    if ($('c-text').value !== eff.text && scope.activeElement() !== $('c-text')) $('c-text').value = eff.text;
    const dm = $('c-dmodel'), list = DMODELS.slice();
    if (list.indexOf(eff.dmodel) < 0) { list.push(eff.dmodel); list.sort(function (a, b) { return a - b; }); }
    setOptions(dm, list);
    setProp(dm, 'value', String(eff.dmodel));
    setProp(dm, 'disabled', !!loaded || !!(given && given.x && !pr));
    setProp(dm, 'title', given && given.x && !pr ? 'd_model comes from your x' : loaded ? 'd_model comes from the loaded weights' : '');
    setText('weights-note', loaded ? 'Loaded from ' + loaded.file + (loaded.kind === 'model' ? ', layer ' + loaded.layer + ' of the lab\'s model' : '') +
      ' (d_model ' + loaded.dModel + (loaded.heads ? ', ' + loaded.heads + ' heads, as the file says' : '') +
      (loaded.from ? '; W_q, W_k, W_v, W_o read from ' + loaded.from : '') + '). ' +
      (loaded.heads ? (eff.heads !== loaded.heads ? 'The page now splits it into ' + eff.heads + ' heads, as you chose. ' : '')
        : loaded.saidHeads !== null ? 'The file says num_heads "' + loaded.saidHeads.slice(0, 20) + '", which does not split d_model ' + loaded.dModel + ': choose num_heads above. '
          : 'A state_dict does not say how many heads the module had: choose its num_heads above. ') +
      'Share links do not carry files: a link opens random weights.'
      : 'Random: nn.Linear\'s init after torch.manual_seed(' + eff.seed + '). Load a .safetensors state_dict of the lessons\' ' +
        'MultiHeadAttention or of the training lab\'s model to see its heads (or drop the file on the page).');
    setProp($('random-weights'), 'hidden', !loaded);
    setText('weights-msg', weightsError);
    setProp($('weights-msg'), 'hidden', !weightsError);
    setProp($('f-layer'), 'hidden', !(loaded && loaded.layers.length > 1));
    if (loaded && loaded.layers.length > 1) {
      setOptions($('c-layer'), loaded.layers);
      setProp($('c-layer'), 'value', String(loaded.layer));
    }
    const hs = $('c-heads');
    setOptions(hs, divisors(eff.dmodel));
    setProp(hs, 'value', String(eff.heads));
    const dk = eff.dmodel / eff.heads;
    setText('dk-note', 'd_k = ' + eff.dmodel + ' / ' + eff.heads + ' = ' + dk + ' per head. ' +
      (eff.heads === 1 ? 'One head: a single attention pattern over all ' + eff.dmodel + ' dims.'
        : 'Each head compares queries and keys in its own ' + dk + ' dims; the parameter count is the same for any ' +
          'number of heads.' + (loaded ? '' : ' Untrained heads look alike whatever their number: training is what makes them differ.')));
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

  let layoutKey = null;
  function applyLayout(eff) {
    // An embed is focused: the heatmaps of every head (and the header's "Open full page") unless hide= says
    // otherwise; the share panel and heap statistics never show inside an embed.
    let hide = eff.hide.slice();
    if (eff.embed) hide = (st.explicit.hide ? hide : EMBED_HIDE.slice()).concat(hide.indexOf('share') < 0 ? ['share'] : []);
    if (eff.embed) {
      const full = new URLSearchParams(pageQueryString(st)); full.delete('embed'); full.delete('hide');
      setProp($('open-full'), 'hidden', window.location.protocol === 'about:');   // a srcdoc page (pageQuery) has no full page to open
      setAttr($('open-full'), 'href', base + FILES.page + (full.toString() ? '?' + full.toString() : ''));
    }
    const key = !!eff.embed + '|' + hide.join(',');
    if (key === layoutKey) return;   // sections and classes as they are
    layoutKey = key;
    root.classList.toggle('embed', !!eff.embed);
    SECTIONS.forEach(function (s) {
      scope.all('[data-section="' + s + '"]').forEach(function (n) { n.hidden = hide.indexOf(s) >= 0; });
    });
    root.classList.toggle('no-controls', hide.indexOf('controls') >= 0);
    // no enlarged head to click through to when its section is hidden (an embed)
    setText('heads-hint', 'Hover a cell for the exact weight' + (hide.indexOf('detail') >= 0 ? '.' : '; click a head to enlarge it.'));
    // an embed, and a phone (or a root as narrow), start with the controls folded: the heatmaps come first on a narrow screen
    if (eff.embed || root.clientWidth <= 720) $('controls-box').open = false;
  }

  // What an exported image says about itself: the configuration, the batch item and the colour range.
  function exportInfo() {
    const eff = current.eff, r = current.res, pr = presetOf(eff);
    const what = pr ? pr.title(eff) + (r.note ? ' — ' + r.note : '')
      : 'MultiHeadAttention(d_model=' + eff.dmodel + ', num_heads=' + eff.heads + '), ' +
        (current.cfg && current.cfg.weights ? 'weights from ' + current.cfg.weights.file + (current.cfg.weights.kind === 'model' ? ' layer ' + current.cfg.weights.layer : '') : 'torch.manual_seed(' + eff.seed + ')') +
        (eff.causal ? ', causal' : '') + (eff.train && eff.dropout ? ', train() dropout ' + eff.dropout : '');
    return { caption: 'MHA Explorer · ' + what + (r.B > 1 ? ' · batch item ' + selB(current) : '') + ' · ' + r.S + ' tokens',
      scale: eff.scale, norm: eff.norm, vmax: r.vmax, colors: colors() };
  }

  // ---- Benchmark hook -----------------------------------------------------------------------------------
  // n full recompute+redraw cycles of the current state: each runs the forward (never a cached result)
  // and the redraw, one per frame (rAF + setTimeout(0) between cycles, as interactions come). Per cycle:
  // forwardMs (the forward, incl. embedding; a Worker round trip for large inputs), redrawMs (messages,
  // canvases, DOM), totalMs (render() from its start to the end of the redraw), layoutMs (style + layout
  // of the result, forced right after: what the browser would do before the next paint). Medians.
  function benchmarkRecompute(n) {
    n = Math.max(1, Math.floor(+n) || 20);
    let f = [], d = [], t = [], lay = [], su = [], i = 0;
    const med = function (v) { const s = v.slice().sort(function (a, b) { return a - b; }), k = s.length >> 1;
      return s.length ? (s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2) : NaN; };
    const frame = function () {
      return new Promise(function (res) {
        let done = false, go = function () { if (!done) { done = true; later(res, 0); } };
        if (window.requestAnimationFrame) window.requestAnimationFrame(go);
        later(go, 100);   // rAF does not run in hidden documents
      });
    };
    const one = function () {
      if (i++ >= n) {
        return { forwardMs: med(f), redrawMs: med(d), totalMs: med(t), layoutMs: med(lay), setupMs: med(su), runs: n,
          where: core.lastCompute.where, implementation: M && M.implementation,
          samples: { forwardMs: f, redrawMs: d, totalMs: t, layoutMs: lay } };
      }
      return frame().then(function () {
        lastTiming = null;
        return render();
      }).then(function () {
        const l0 = now();
        void root.offsetHeight;   // force style + layout of what the redraw changed
        const l1 = now();
        if (!lastTiming) throw new Error('benchmarkRecompute: render() did not complete (no core, no tokens, or an error)');
        su.push(lastTiming.setupMs); f.push(lastTiming.forwardMs); d.push(lastTiming.redrawMs); t.push(lastTiming.totalMs); lay.push(l1 - l0);
        return one();
      });
    };
    return ready.then(one);
  }

  // ---- Public API -------------------------------------------------------------------------------------
  let readyResolve;
  const ready = new Promise(function (r) { readyResolve = r; });
  const api = {
    ready: ready,
    getWeights: function () {
      if (!current) return null;
      const w = current.res.weights;
      return { shape: w.shape.slice(), data: new Float32Array(w.data) };
    },
    // bytes: a .safetensors file (Uint8Array or ArrayBuffer); resolves true when the page shows its heads,
    // false when it was refused (the page's message says why).
    loadWeights: function (bytes, name, layer) {
      return ready.then(function () {
        const ok = loadBytes(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes, name || 'weights.safetensors', layer || 0);
        return pending.then(function () { return ok; });
      });
    },
    randomWeights: function () { dropWeights(); return render(); },
    getTrace: function () { return current && current.res.trace ? JSON.parse(JSON.stringify(current.res.trace)) : []; },
    getLabels: function () { return current ? current.labels.slice() : []; },
    getPrinted: function () { return lessonView.printedTexts(); },
    getSnippets: function () { return lessonView.snippets(current); },
    getState: function () { return effective(); },
    getCompute: function () { return Object.assign({}, core.lastCompute, { implementation: M && M.implementation }); },
    set: function (values) {
      Object.keys(values).forEach(function (k) {
        const p = pageProp(k); if (!p) throw new Error('unknown property ' + k);
        const r = parse(p, Array.isArray(values[k]) ? values[k].join(',') : values[k]);
        if (!r.ok) throw new Error(r.message);
        if (k === 'preset' && r.value) dropWeights();   // a lesson's example uses the lesson's weights
        setValue(st, k, r.value);
      });
      return render();
    },
    render: function () { return render(); },
    benchmarkRecompute: benchmarkRecompute,
    // {forwardMs, redrawMs, totalMs, setupMs} of the last completed render (right after ready: the first one's).
    getTiming: function () { return lastTiming && Object.assign({}, lastTiming); },
    embedCode: function (host) { return embedCode(st, host, headsSection(), ownsDocument ? null : base); },
    shareURL: function () { return shareURL(st, ownsDocument ? null : base); },
    get module() { return M; }
  };
  function headsSection() { return scope.all('[data-section="heads"]')[0]; }

  // Everything this explorer added to the document goes: its listeners, timers, workers, the core objects it holds,
  // its elements and the classes and attributes of its root. The shared core stays for the other explorers.
  function dispose() {
    if (disposed) return;
    disposed = true;
    renderId++;   // a render under way draws nothing
    events.abort();
    timers.forEach(clearTimeout); timers.clear();
    lessonView.dispose(); traceView.dispose();
    headsView.dispose(); detailView.dispose();
    core.dispose();
    scope.remove();
    if (styleEl) styleEl.remove();
    root.classList.remove('mhx', 'embed', 'no-controls', 'dropping');
    root.removeAttribute('data-theme');
    if (unRegion) unRegion();
    current = null; loaded = null;
    readyResolve(false);
  }

  const headsView = new HeadsView(scope, getCur, pickHead, base + FILES.lab);
  const detailView = new DetailView(scope, getCur, colors);
  const traceView = new TraceView(scope);
  const lessonView = new LessonView(scope);
  // the starting values: the query's, then options.values over them (as api.set, without a render)
  Object.keys(options.values || {}).forEach(function (k) {
    const p = pageProp(k), v = options.values[k], r = p && parse(p, Array.isArray(v) ? v.join(',') : v);
    if (!p) loadMessages.push('Unknown property ' + k + '.'); else if (!r.ok) loadMessages.push(r.message); else setValue(st, k, r.value);
  });
  if (options.embed) setValue(st, 'embed', true);
  if (options.theme) setValue(st, 'theme', options.theme);
  buildControls();
  applyTheme(st.values.theme, root);
  applyLayout(effective());
  core.load().then(function (mod) {
    if (disposed) return;
    M = mod;
    if (given && given.weights) {   // loaded as a file is (it renders); its snippet says how the notebook writes the file
      if (loadBytes(given.weights.bytes, given.weights.file, 0)) loaded.how = given.weights.how;
      return pending;
    }
    const eff = effective(), pr = presetOf(eff);
    validate(eff, []);
    return (pr && pr.compute ? Promise.resolve() : core.warmUp(buildSpec(eff, []).spec)).then(render);
  }).then(function () { readyResolve(!disposed); }, function (err) {
    if (disposed) return;
    showMessages([String(err && err.message || err)]);
    setStatus('The WebAssembly core did not load.');
    readyResolve(false);
  });
  return { ready: ready, api: api, update: api.set, dispose: dispose };
}
