// MHA Explorer, the model page — a real checkpoint's heads: the student drops a model folder (or the page's model=
// parameter names one next to it), the core loads it (core.loadModel: slices of the files straight into the core's
// memory, with progress and Cancel), and for the text in the box (retokenized as the student types) the page shows
// every head of every layer (grid.js), the role scores (roles.js), where a picked token looks (lookup.js), the top 5
// predictions with heads switched off (ablate.js), the selected layer in the attention view (views/attention.js: the
// one view of the lessons, the notebook and this page) with its shape trace, and the same in Python (snippet.js).
// createModelPage(root, {query}) → {api}: window.mhaExplorer.
import MARKUP from './markup.html';
import { el, themeColors } from '../widgets/dom.js';
import { legend } from '../widgets/colors.js';
import { DEFAULT_SCALE } from '../state/scales.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';
import { mountAttention } from '../views/attention.js';
import { showMessages } from '../chrome/messages.js';
import { applyTheme, otherTheme } from '../chrome/theme.js';
import { copyWithButton } from '../chrome/clipboard.js';
import { FILES } from '../compute/source.js';
import { loadCore } from './engine.js';
import { filesFromDrop, folderOf, pickCheckpoint, folderURL, filesFromFolder } from './files.js';
import { readVocabulary } from './vocab.js';
import { ROLES, textRoleScores, repeatRoleScores, repeatedSequence, specialFrame } from './roles.js';
import { lookFrom, headsToward } from './lookup.js';
import { predictionPosition, topTokens, compareTops, normalizeHeads, wholeLayer, allBut, toggleHead, describeHeads } from './ablate.js';
import { pythonSnippet } from './snippet.js';
import { HeadGrid, cardSize } from './grid.js';
import { headMatrix, dimsOf } from './attentions.js';
import { layerTrace } from './trace.js';

// Lesson 004's sentence: which head links "it" to "road"?
export const DEFAULT_TEXT = "The chicken didn't cross the road because it was too wide.";
const REPEAT = { length: 25, seed: 0 };   // the repeated random sequence of the duplicate and induction scores
const LOOK_ROWS = 12;                     // rows of "where a token looks" before "Show every head"
const TYPING_MS = 60;                     // keystrokes closer than this make one forward

export function createModelPage(root, { query = '' } = {}) {
  root.classList.add('mhx', 'mhx-models');
  root.insertAdjacentHTML('beforeend', MARKUP);
  const $ = (id) => root.querySelector('#' + id);
  const params = new URLSearchParams(query);
  const S = {
    model: null, info: null, vocab: null, source: null, files: null,
    text: params.has('text') ? params.get('text') : DEFAULT_TEXT, enc: null, out: null, pos: -1,
    full: [], ablated: [], fullLogits: null, headsOff: [], repeat: null, scores: null,
    sel: { layer: Number(params.get('layer')) || 0, head: Number(params.get('head')) || 0 },
    role: '', minScore: 0, order: 'grid', query: null, key: -1, lookAll: false, loading: null, theme: params.get('theme') || 'auto',
  };
  const messages = { core: '', load: '', repeat: '', text: '' };
  const say = (kind, text) => { messages[kind] = text || ''; showMessages($('messages'), Object.values(messages).filter(Boolean)); };
  const status = (t) => { $('status').textContent = t; };
  applyTheme(S.theme, root);
  $('text').value = S.text;
  // the links to the page and the lab: their files next to this one, or their one-file pages from this one-file page
  root.querySelector('a[href="index.html"]').setAttribute('href', FILES.page);
  root.querySelector('a[href^="lab.html"]').setAttribute('href', FILES.lab + '?preset=train-two-offsets');

  // ---- The controls ------------------------------------------------------------------------------------------
  $('role').appendChild(el('option', { value: '' }, 'no score (layer by layer)'));
  for (const r of ROLES) $('role').appendChild(el('option', { value: r.name }, r.label));
  const tip = $('tip');
  const describeCell = (cell, mat, l, h) => {
    const [q, k] = cell, t = S.enc.tokens;
    return { main: 'Layer ' + l + ' head ' + h + ': “' + t[q] + '” (' + q + ') → “' + t[k] + '” (' + k + ')',
      value: 'weight ' + formatWeight(mat.data[q * mat.S + k]), top: 'top keys for “' + t[q] + '”: ' + topKeysWords(mat, q, t) };
  };
  const grid = new HeadGrid($('grid'), tip, describeCell, { select: (l, h) => select(l, h), toggle: (l, h) => setHeadsOff(toggleHead(S.headsOff, l, h)) });
  let view = null;   // the attention view of the selected layer, mounted with the first model

  // ---- Loading a model ---------------------------------------------------------------------------------------------
  const corePromise = loadCore().then((M) => { status('Ready: drop a model folder on the page.'); return M; }, (err) => {
    say('core', err.message); status('The core did not start.'); throw err;
  });
  corePromise.catch(() => {});

  function progress(text, fraction) {
    $('progress-box').hidden = text == null;
    if (text == null) return;
    $('progress-text').textContent = text;
    $('progress').value = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  }
  const mb = (n) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0) + ' MB';

  // files: [File] (dropped, chosen or fetched); source: {folder, dropped} for the snippet. → promise, rejected with the
  // message shown (the previous model stays when this one fails).
  async function loadFiles(files, source, fetching) {
    if (S.loading) S.loading.abort();
    const abort = fetching || new AbortController(), mine = abort;
    S.loading = abort;
    say('load', '');
    try {
      const picked = await pickCheckpoint(files);
      const vocab = readVocabulary(picked.text);
      const M = await corePromise;
      progress('Reading the weights…', 0);
      status('Loading the model…');
      // each File as {name, bytes: File}: Chromium's Blob has a bytes() method, which the API would take for the bytes
      const given = picked.files.map((f) => ({ name: f.name, bytes: f }));
      const model = await M.loadModel(given, { signal: abort.signal, onProgress: (a, b) => {
        const done = typeof a === 'object' ? a.loaded : a, total = typeof a === 'object' ? a.total : b;
        progress('Reading the weights: ' + mb(done) + ' of ' + mb(total), done / total);
      } });
      if (S.loading !== mine) { model.dispose(); return; }
      if (S.model) S.model.dispose();
      Object.assign(S, { model, info: model.info, vocab, source, files: picked.files, headsOff: [], query: null, key: -1, repeat: null });
      S.sel = { layer: Math.min(S.sel.layer, model.info.layers - 1), head: Math.min(S.sel.head, model.info.heads - 1) };
      showInfo(picked);
      computeRepeat();
      render();
      status('Loaded ' + (source.folder || 'the model') + '.');
    } catch (err) {
      const cancelled = abort.signal.aborted;
      if (S.loading === mine) say('load', cancelled ? cancelledWords() : err.message);
      if (S.loading === mine) status(S.model ? 'Showing ' + (S.source.folder || 'the model') + '.' : 'No model loaded.');
      throw err;
    } finally {
      if (S.loading === mine) { S.loading = null; progress(null); }
    }
  }
  const cancelledWords = () => 'Loading was cancelled' + (S.model ? ': the previous model stays.' : '.');
  function loadFromURL(value) {
    let base;
    try { base = folderURL(value, document.baseURI); } catch (err) { say('load', err.message); return Promise.reject(err); }
    const abort = new AbortController();
    if (S.loading) S.loading.abort();
    S.loading = abort;
    progress('Downloading ' + value + '…', 0);
    status('Downloading the model…');
    return filesFromFolder(base, { signal: abort.signal, onProgress: (done, total) => progress('Downloading ' + value + ': ' + mb(done) + ' of ' + mb(total), done / total) })
      .then((files) => { S.loading = null; return loadFiles(files, { folder: value, dropped: false }, abort); }, (err) => {
        if (S.loading === abort) {
          S.loading = null; progress(null);
          say('load', abort.signal.aborted ? cancelledWords() : err.message);
          status(S.model ? 'Showing ' + (S.source.folder || 'the model') + '.' : 'No model loaded.');
        }
        throw err;
      });
  }
  $('cancel').addEventListener('click', () => { if (S.loading) S.loading.abort(); });
  const fromPicker = (input) => input.addEventListener('change', () => {
    const files = Array.from(input.files || []);
    input.value = '';
    if (files.length) track(loadFiles(files, { folder: folderOf(files), dropped: true })).catch(() => {});
  });
  fromPicker($('pick-folder'));
  fromPicker($('pick-files'));
  const hasFiles = (e) => !!e.dataTransfer && Array.prototype.includes.call(e.dataTransfer.types || [], 'Files');
  root.ownerDocument.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); root.classList.add('dropping'); } });
  root.ownerDocument.addEventListener('dragleave', (e) => { if (!e.relatedTarget) root.classList.remove('dropping'); });
  root.ownerDocument.addEventListener('drop', (e) => {
    root.classList.remove('dropping');
    if (!hasFiles(e)) return;
    e.preventDefault();
    track(filesFromDrop(e.dataTransfer).then((files) => loadFiles(files, { folder: folderOf(files), dropped: true }))).catch(() => {});
  });

  function showInfo(picked) {
    const i = S.info, dl = $('model-info');
    dl.textContent = '';
    const row = (k, v) => { dl.appendChild(el('dt', null, k)); dl.appendChild(el('dd', null, v)); };
    row('Folder', S.source.folder || '(files)');
    row('Model', i.modelType + ' (' + i.family + ')');
    row('Layers × heads', i.layers + ' × ' + i.heads + (i.kvHeads && i.kvHeads !== i.heads ? ' (' + i.kvHeads + ' key/value heads)' : ''));
    row('Width', 'd_model ' + i.dModel + ', vocabulary ' + i.vocab.toLocaleString('en-US'));
    row('Attention', i.causal ? 'causal (each token sees the ones before it)' : 'bidirectional');
    row('Head', i.hasLmHead ? (i.causal ? 'next-token prediction' : 'masked-token prediction') : 'none (hidden states only)');
    row('Weights', i.dtype + (picked.shards.length ? ', ' + picked.shards.length + ' shards' : ''));
    dl.hidden = false;
  }

  // The duplicate and induction scores: one forward of the repeated random sequence per model.
  function computeRepeat() {
    say('repeat', '');
    try {
      const m = S.model, frame = specialFrame((t) => m.tokenize(t).ids);
      const layout = repeatedSequence({ vocab: S.info.vocab, length: REPEAT.length, seed: REPEAT.seed, prefix: frame.prefix, suffix: frame.suffix,
        exclude: S.vocab.special, maxPositions: S.info.maxPositions });
      const out = m.forward(layout.ids, { logitsAt: [] });
      S.repeat = { layout, scores: repeatRoleScores(out.attentions, layout) };
    } catch (err) {
      S.repeat = null;
      say('repeat', 'The duplicate and induction scores could not be computed: ' + err.message);
    }
  }

  // ---- The text: tokens, forwards, and everything drawn from them ---------------------------------------------------
  let typing = 0;
  $('text').addEventListener('input', () => {
    S.text = $('text').value;
    clearTimeout(typing);
    typing = setTimeout(render, TYPING_MS);
  });
  function render() {
    clearTimeout(typing);
    if (!S.model) return false;
    const m = S.model, i = S.info;
    let enc;
    try { enc = m.tokenize(S.text); } catch (err) { say('text', 'The tokenizer could not read the text: ' + err.message); return false; }
    if (!enc.ids.length) { say('text', 'The text gives no tokens: write something.'); return false; }
    if (enc.ids.length > i.maxPositions) {
      say('text', 'The text has ' + enc.ids.length + ' tokens; this model reads at most ' + i.maxPositions + ' (its max_position_embeddings). Shorten it.');
      return false;
    }
    const pos = predictionPosition(enc.ids, { causal: i.causal, hasLmHead: i.hasLmHead, maskId: S.vocab.maskId });
    let out;
    try { out = m.forward(enc.ids, { logitsAt: pos >= 0 ? [pos] : [] }); } catch (err) { say('text', err.message); return false; }
    say('text', '');
    const sameTokens = S.enc && S.enc.tokens.join('\u0001') === enc.tokens.join('\u0001');
    Object.assign(S, { enc, out, pos, fullLogits: pos >= 0 ? logitsRow(out, 0) : null });
    if (!sameTokens) { S.query = pickDefaultQuery(enc.tokens); S.key = -1; }
    S.scores = Object.assign(textRoleScores(out.attentions), S.repeat ? S.repeat.scores : {});
    S.full = S.fullLogits ? topTokens(S.fullLogits, 5) : [];
    predictAblated();
    $('text-note').textContent = enc.ids.length + ' tokens' + (pos >= 0 && !i.causal ? '; the model predicts the first ' + S.vocab.maskToken : '') + '.';
    drawAll();
    return true;
  }
  // One position's logits (V floats) from a forward's output.
  function logitsRow(out, p) {
    const l = out.logits, data = l && (l.data || l), V = S.info.vocab;
    return data && data.length >= (p + 1) * V ? data.subarray(p * V, (p + 1) * V) : null;
  }
  // "it" when the text has it (lesson 004's question), else the last token.
  function pickDefaultQuery(tokens) {
    const it = tokens.findIndex((t) => /^(Ġ|▁|##)?it$/i.test(t));
    return it >= 0 ? it : tokens.length - 1;
  }
  function predictAblated() {
    S.ablated = [];
    if (!S.fullLogits || !S.headsOff.length) return;
    try {
      const out = S.model.forward(S.enc.ids, { headsOff: S.headsOff, logitsAt: [S.pos] });
      S.ablated = topTokens(logitsRow(out, 0), 5);
    } catch (err) { say('text', err.message); }
  }
  function setHeadsOff(heads) {
    if (!S.model) return;
    S.headsOff = normalizeHeads(heads, S.info.layers, S.info.heads);
    predictAblated();
    drawGrid(); drawPredictions(); drawSide();
  }

  // ---- Drawing ------------------------------------------------------------------------------------------------------
  const colors = () => themeColors(root);
  function drawAll() {
    drawTokens(); drawGrid(); drawPredictions(); drawLook(); drawView(); drawSide();
  }
  function drawTokens() {
    const box = $('tokens');
    box.textContent = '';
    S.enc.tokens.forEach((t, i) => {
      const b = box.appendChild(el('button', { type: 'button', class: 'chip', 'aria-pressed': String(i === S.query) }, t));
      b.appendChild(el('sub', null, i));
      b.addEventListener('click', () => { S.query = i; S.key = -1; drawTokens(); drawLook(); });
    });
  }
  function scoresOf(role) { return role && S.scores ? S.scores[role] || null : null; }
  function drawGrid() {
    if (!S.out) return;
    const { L, H } = dimsOf(S.out.attentions), role = ROLES.find((r) => r.name === S.role);
    grid.draw({ L, H, mat: (l, h) => headMatrix(S.out.attentions, l, h), labels: S.enc.tokens, scale: DEFAULT_SCALE, colors: colors(),
      size: cardSize(H, $('grid').clientWidth || 800), scores: scoresOf(S.role), minScore: S.minScore, ranked: S.order === 'ranked' && !!role,
      off: new Set(S.headsOff.map((x) => x[0] + ':' + x[1])), selected: S.sel, roleLabel: role ? role.label : '' });
    legend($('legend'), DEFAULT_SCALE, '1');
    $('grid-note').textContent = L + ' layers × ' + H + ' heads, ' + S.enc.ids.length + ' tokens, every weight on one scale from 0 to 1 (rows: the token that looks; columns: the tokens it looks at). ' +
      'Click a head (or use the arrow keys on the grid) to enlarge it below; press O to switch the focused head off or on.' +
      (role ? ' Scores: ' + role.label.toLowerCase() + (role.on === 'repeat' && S.repeat ? ', on ' + S.repeat.layout.length + ' random tokens repeated twice' : '') + '.' : '');
  }
  function drawPredictions() {
    const i = S.info, note = $('predict-note');
    const fill = (table, rows, compare) => {
      const tb = table.querySelector('tbody');
      tb.textContent = '';
      for (const r of rows) {
        const tr = tb.appendChild(el('tr'));
        tr.appendChild(el('td', null, JSON.stringify(S.vocab.tokenOf(r.id))));
        const p = tr.appendChild(el('td', { class: 'p' }, (100 * r.prob).toFixed(2) + '%'));
        const bar = tr.appendChild(el('td')).appendChild(el('span', { class: 'mp-bar', 'aria-hidden': 'true' }));
        bar.style.width = Math.max(1, Math.round(80 * r.prob)) + 'px';
        if (compare) {
          const d = r.prob - r.was, moved = r.wasRank < 0 ? 'new in the top 5' : (d >= 0 ? '+' : '−') + (100 * Math.abs(d)).toFixed(2);
          p.appendChild(el('small', { class: d >= 0 ? 'mp-up' : 'mp-down' }, ' ' + moved));
        }
      }
    };
    $('top-off').hidden = !S.ablated.length;
    if (!S.fullLogits) {
      note.textContent = !i.hasLmHead ? 'This checkpoint has no prediction head (only hidden states): nothing to predict.'
        : 'Write ' + (S.vocab.maskToken || 'the mask token') + ' in the text to see what the model puts there.';
      fill($('top-full'), [], false);
      return;
    }
    const at = S.enc.tokens[S.pos];
    note.textContent = (i.causal ? 'The top 5 next tokens after “' + at + '”' : 'The top 5 tokens for ' + S.vocab.maskToken + ' (position ' + S.pos + ')') +
      ', with their probabilities. Heads off: ' + describeHeads(S.headsOff, i.layers, i.heads) + '.';
    fill($('top-full'), S.full, false);
    if (S.ablated.length) {
      const probs = probabilities(S.fullLogits);
      fill($('top-off'), compareTops(S.full, S.ablated, (id) => probs[id]), true);
    }
  }
  function probabilities(logits) {
    let max = -Infinity, sum = 0;
    for (const v of logits) if (v > max) max = v;
    const p = new Float64Array(logits.length);
    for (let j = 0; j < logits.length; j++) sum += (p[j] = Math.exp(logits[j] - max));
    for (let j = 0; j < p.length; j++) p[j] /= sum;
    return p;
  }
  function drawLook() {
    const t = S.enc.tokens, q = S.query, from = $('look-from'), to = $('look-to');
    const options = (sel, first, value) => {
      sel.textContent = '';
      if (first) sel.appendChild(el('option', { value: '-1' }, first));
      t.forEach((tok, k) => sel.appendChild(el('option', { value: String(k) }, k + ': ' + tok)));
      sel.value = String(value);
    };
    options(from, null, q);
    options(to, 'its strongest key', S.key);
    const looks = lookFrom(S.out.attentions, q, 3), H = S.info.heads;   // layer by layer: index layer·H + head
    const rows = S.key >= 0 ? headsToward(S.out.attentions, q, S.key)
      : looks.slice().sort((a, b) => b.keys[0].weight - a.keys[0].weight || a.layer - b.layer || a.head - b.head);
    $('look-note').textContent = S.key >= 0
      ? 'Every head ranked by the weight “' + t[q] + '” (' + q + ') puts on “' + t[S.key] + '” (' + S.key + ').'
      : 'Every head ranked by how strongly “' + t[q] + '” (' + q + ') looks at its strongest key. Pick a key above to find the heads that link the two.';
    const tb = $('look').querySelector('tbody');
    tb.textContent = '';
    const shown = S.lookAll ? rows : rows.slice(0, LOOK_ROWS);
    for (const r of shown) {
      const tr = tb.appendChild(el('tr', { class: r.layer === S.sel.layer && r.head === S.sel.head ? 'selected' : '' }));
      tr.appendChild(el('td', { 'data-label': 'Head' }, 'L' + r.layer + ' H' + r.head));
      tr.appendChild(el('td', { 'data-label': 'Weight' }, (S.key >= 0 ? r.weight : r.keys[0].weight).toFixed(3) + (S.key >= 0 ? ' (#' + (r.rank + 1) + ')' : '')));
      const cell = tr.appendChild(el('td', { 'data-label': 'Looks at' }));
      for (const k of looks[r.layer * H + r.head].keys) {
        cell.appendChild(el('span', { class: 'mp-key' + (k.key === S.key ? ' target' : '') }, '“' + t[k.key] + '” ' + k.weight.toFixed(3)));
      }
      tr.addEventListener('click', () => select(r.layer, r.head));
    }
    $('look-more').hidden = rows.length <= LOOK_ROWS;
    $('look-more').textContent = S.lookAll ? 'Show the first ' + LOOK_ROWS : 'Show every head (' + rows.length + ')';
  }
  $('look-from').addEventListener('change', () => { S.query = +$('look-from').value; S.key = -1; drawTokens(); drawLook(); });
  $('look-to').addEventListener('change', () => { S.key = +$('look-to').value; drawLook(); });
  $('look-more').addEventListener('click', () => { S.lookAll = !S.lookAll; drawLook(); });

  function drawView() {
    const a = S.out.attentions, { H, T } = dimsOf(a), l = S.sel.layer, n = H * T * T;
    const trace = layerTrace(S.out.trace || [], l, S.info, T);
    if (!view) {
      view = mountAttention($('view'), { weights: a.data.subarray(0, n), shape: [1, 1, H, T, T] });
      // the view's own head cards select a head of the shown layer too
      view.root.addEventListener('click', () => {
        const h = view.root.mhaExplorer.getSelection().head;
        if (typeof h === 'number' && h !== S.sel.head) { S.sel.head = h; drawGrid(); drawSide(); drawLook(); }
      });
    }
    view.update({ weights: a.data.subarray(l * n, (l + 1) * n), shape: [1, 1, H, T, T], tokens: S.enc.tokens, trace: trace.length ? trace : null,
      title: 'Layer ' + l + ' of ' + (S.source.folder || S.info.modelType), theme: root.getAttribute('data-theme') });
    view.root.mhaExplorer.select({ head: S.sel.head });
  }
  // The side panel: the role's sentence, the heads off, the snippet.
  function drawSide() {
    const role = ROLES.find((r) => r.name === S.role);
    $('role-how').textContent = role ? role.how : 'Pick a role to score every head: the grid shows each head\'s score, and can hide or rank the heads by it.';
    $('min-score').disabled = !role;
    $('order').disabled = !role;
    if (!S.model) return;
    const i = S.info;
    $('off-desc').textContent = 'Selected: layer ' + S.sel.layer + ' head ' + S.sel.head + '. Heads off: ' + describeHeads(S.headsOff, i.layers, i.heads) + '.';
    const off = S.headsOff.some((x) => x[0] === S.sel.layer && x[1] === S.sel.head);
    $('off-one').textContent = off ? 'This head on again' : 'This head off';
    $('snippet').textContent = snippet();
  }
  function snippet() {
    return pythonSnippet({ folder: S.source.folder || 'path/to/the/model/folder', dropped: S.source.dropped, text: S.text, layer: S.sel.layer, head: S.sel.head,
      headsOff: S.headsOff, info: S.info, maskToken: S.vocab.maskToken });
  }
  function select(l, h) {
    const layerChanged = l !== S.sel.layer;
    S.sel = { layer: l, head: h };
    drawGrid(); drawSide();
    if (S.out) { if (layerChanged || !view) drawView(); else view.root.mhaExplorer.select({ head: h }); drawLook(); }
  }

  $('role').addEventListener('change', () => { S.role = $('role').value; drawGrid(); drawSide(); });
  $('min-score').addEventListener('input', () => { S.minScore = +$('min-score').value; $('min-score-out').textContent = S.minScore.toFixed(2); drawGrid(); });
  $('order').addEventListener('change', () => { S.order = $('order').value; drawGrid(); });
  $('off-one').addEventListener('click', () => setHeadsOff(toggleHead(S.headsOff, S.sel.layer, S.sel.head)));
  $('off-layer').addEventListener('click', () => S.model && setHeadsOff(S.headsOff.concat(wholeLayer(S.sel.layer, S.info.heads))));
  $('off-others').addEventListener('click', () => S.model && setHeadsOff(allBut(S.sel.layer, S.sel.head, S.info.layers, S.info.heads)));
  $('off-none').addEventListener('click', () => setHeadsOff([]));
  $('copy-python').addEventListener('click', () => { if (S.model) copyWithButton(snippet(), $('copy-out'), $('copy-python')); });
  $('theme-toggle').addEventListener('click', () => {
    S.theme = otherTheme(root);
    applyTheme(S.theme, root);
    if (S.out) drawAll();
  });
  let resizing = 0;
  if (typeof ResizeObserver === 'function') {
    let width = 0;
    new ResizeObserver(() => {
      const w = $('grid').clientWidth;
      if (Math.abs(w - width) < 1 || resizing) return;
      width = w;
      resizing = requestAnimationFrame(() => { resizing = 0; drawGrid(); });
    }).observe($('grid'));
  }
  drawSide();

  // ---- Boot and the script API -------------------------------------------------------------------------------------
  // ready: a promise of whether a model and its text are shown, once the latest load or change has settled
  let ready = corePromise.then(() => (params.get('model') ? loadFromURL(params.get('model')) : null)).then(() => !!S.out, () => false);
  const track = (p) => { ready = p.then(() => !!S.out, () => false); return p; };
  const need = () => { if (!S.model || !S.out) throw new Error('no model is loaded: drop a model folder, or call load({files})'); };
  const topOut = (list) => list.map((t) => ({ id: t.id, token: S.vocab.tokenOf(t.id), prob: t.prob }));
  const api = {
    get ready() { return ready; },
    getWeights: () => (S.out ? { shape: S.out.attentions.shape.slice(), data: new Float32Array(S.out.attentions.data) } : null),
    getTokens: () => (S.enc ? S.enc.tokens.slice() : []),
    getIds: () => (S.enc ? S.enc.ids.slice() : []),
    getInfo: () => (S.info ? Object.assign({}, S.info) : null),
    getMessages: () => Object.values(messages).filter(Boolean),
    getRoles: () => (S.scores ? Object.fromEntries(Object.entries(S.scores).map(([k, v]) => [k, Array.from(v)])) : null),
    getRepeat: () => (S.repeat ? { ids: S.repeat.layout.ids.slice(), start: S.repeat.layout.start, length: S.repeat.layout.length } : null),
    getTop: () => ({ position: S.pos, full: topOut(S.full), ablated: topOut(S.ablated), headsOff: S.headsOff.map((x) => x.slice()) }),
    getSnippet: () => (S.model ? snippet() : null),
    getSelection: () => Object.assign({}, S.sel),
    select: (s) => { need(); select(s.layer != null ? +s.layer : S.sel.layer, s.head != null ? +s.head : S.sel.head); },
    set: (o) => {
      if (o && o.text != null) { S.text = String(o.text); $('text').value = S.text; }
      ready = ready.then(() => render() && !!S.out);
      return ready;
    },
    load: (o) => {
      const files = Array.from((o && o.files) || []);
      return track(loadFiles(files, { folder: (o && o.folder) || folderOf(files), dropped: true })).then(() => true);
    },
    loadURL: (value) => track(loadFromURL(value)).then(() => true),
    ablate: (heads) => { need(); setHeadsOff(heads || []); return Promise.resolve(topOut(S.headsOff.length ? S.ablated : S.full)); },
    cancel: () => { if (S.loading) S.loading.abort(); },
  };
  return { api };
}
