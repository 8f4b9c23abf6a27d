// MHA Explorer — the training lab as a component: createLab(root, options) puts the lab into root and returns
// {ready, api, update, dispose}. The model trains in a Web Worker (../trainer.js); the state is
// ../state/lab.js's property list; views.js draws, player.js plays. Everything an instance has lives in
// createLab's closure: two labs in one document share no state, and every element is looked up inside root
// through $ (ids carry the instance's prefix, which aria relations and labels need).
import { LAB_PROPS, OPTIMIZER_NAMES, labProp, task, useTasks, readLabQuery, labQueryString } from '../state/lab.js';
import { parse } from '../state/props.js';
import * as V from './views.js';
import { Player } from './player.js';
import { settingsOf, disagreement } from './saved-settings.js';
import MARKUP from './markup.html';
import { cellAt } from '../widgets/heatmap.js';
import { arrowStep } from '../widgets/dom.js';
import { start as startTrainer } from '../core/trainer.js';
import { implementationName } from '../core/features.js';
import { FILES } from '../core/source.js';
import { showMessages as showMessagesIn } from '../chrome/messages.js';
import { applyTheme, otherTheme } from '../chrome/theme.js';
import { readFile, tooLarge, wireFileDrop } from '../chrome/files.js';
import { copyText, copyWithButton } from '../chrome/clipboard.js';
import { download } from '../chrome/download.js';
import { postHeight, followLinksTo } from '../chrome/frame.js';
import { replaceQuery, shareLink, embedSnippet, fillEmbedHosts } from '../chrome/share.js';
import { asRegion, withoutLandmarks } from '../chrome/landmarks.js';

// The replay keeps at most this many views of the heads.
const MAX_SNAPSHOTS = 150;
// Steps per request: at most the speed, fewer when a step is slow, so the counter moves at least every
// FRAME_BUDGET ms (at large sizes one step per request).
const FRAME_BUDGET = 250;

// The prefixes of labs mounted without one: mhxlab1-, mhxlab2-, …
let mounted = 0;
// The attributes of the markup that name an id of it (for, aria-*, the skip link's #id).
const ID_REFS = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls'];

// The markup in root, every id (and every reference to one) with prefix in front.
// base: the folder of the lab's files ('' : the document's); styles: a stylesheet's text put first into root.
// ownsPage: the lab is its document's page (the markup's landmarks stay).
function render(root, prefix, base, styles, ownsPage) {
  root.innerHTML = ownsPage ? MARKUP : withoutLandmarks(MARKUP);   // the lab's own static markup (markup.html), no outside text
  if (styles) {
    const style = document.createElement('style');
    style.textContent = styles;
    root.insertBefore(style, root.firstChild);
  }
  // the link to the page: index.html next to lab.html, mha-explorer.html from the one-file lab
  root.querySelectorAll('a[href="index.html"]').forEach(function (a) { a.setAttribute('href', base + FILES.page); });
  if (!prefix) return;
  root.querySelectorAll('[id]').forEach(function (n) { n.id = prefix + n.id; });
  ID_REFS.forEach(function (a) {
    root.querySelectorAll('[' + a + ']').forEach(function (n) {
      n.setAttribute(a, n.getAttribute(a).split(/\s+/).map(function (id) { return prefix + id; }).join(' '));
    });
  });
  root.querySelectorAll('a[href^="#"]').forEach(function (a) { a.setAttribute('href', '#' + prefix + a.getAttribute('href').slice(1)); });
}

// root: the element the lab fills (its content is replaced). options: {
//   query: a lab URL query to start from ('?preset=train-two-offsets&heads=4'; the lab page passes its own),
//   values: properties of state/lab.js set over the query ({heads: 4, seed: 3}),
//   embed, theme ('auto' follows prefers-color-scheme, 'light', 'dark'): as the properties of the same names,
//   ownsPage: the lab is the document's page (the lab page's entry only): it writes the document's URL, takes files
//     dropped anywhere, posts its height to an embedding page, and mirrors its theme on <html> and embed on <body>,
//   idPrefix: put in front of every id ('' on the lab page; by default a fresh mhxlabN-),
//   base: the folder of the lab's files (trainer-<build>.js, the page's index.html; '' : the document's),
//   styles: a stylesheet's text put into root as a <style> (style.css and lab.css, for a shadow root),
//   onPage(query): a link to the explorer page was followed: the host shows the page for that query instead of the
//     browser leaving (as <mha-explorer> does)}.
// → {ready (a promise of whether the lab started), api (the lab page's window.mhaExplorer), update(values), dispose()}.
export function createLab(root, options) {
  options = Object.assign({ query: '', values: {}, ownsPage: false }, options);
  const prefix = options.idPrefix !== undefined ? String(options.idPrefix) : 'mhxlab' + (++mounted) + '-';
  if (!/^[A-Za-z0-9_-]*$/.test(prefix)) throw new Error('createLab: idPrefix may hold letters, digits, - and _ only, not "' + prefix + '"');
  const $ = function (id) { return root.querySelector('#' + prefix + id); };
  const readSeq = { n: 0 };   // this lab's files: only the latest one read counts
  const lifetime = new AbortController(), signal = lifetime.signal;
  let disposed = false;

  const base = options.base || '';
  render(root, prefix, base, options.styles, options.ownsPage);
  root.classList.add('mhx', 'mhx-lab');
  root.setAttribute('data-mha-explorer-lab', '');
  const unRegion = options.ownsPage ? null : asRegion(root, 'MHA Explorer training lab');
  const player = new Player($('play'), onFrame);

  // The query, then the options' properties over it (a refused one: a message, as the URL's).
  function readSettings() {
    const state = readLabQuery(options.query);
    const over = Object.assign({}, options.values);
    if (options.embed !== undefined) over.embed = !!options.embed;
    if (options.theme !== undefined) over.theme = options.theme;
    Object.keys(over).forEach(function (k) {
      const p = labProp(k), r = p ? parse(p, Array.isArray(over[k]) ? over[k].join(',') : over[k]) : null;
      if (!p) state.messages.push('createLab: unknown property ' + k + '.');
      else if (!r.ok) state.messages.push(r.message);
      else { state.values[k] = r.value; state.explicit[k] = true; }
    });
    return state;
  }
  // Before the worker has sent the task table (useTasks) no task is known: this first reading sets the theme,
  // the layout and the hidden sections; the settings are read again, with their messages, once the table is here.
  const initial = readSettings();
  let values = initial.values, explicit = initial.explicit, messages = [];

  function writeURL() {
    if (options.ownsPage) replaceQuery(labQueryString(values, explicit));
  }
  // The theme on the root (and on the page's <html>, whose background is the page's).
  function showTheme() {
    applyTheme(values.theme, root);
    if (options.ownsPage) applyTheme(values.theme);
  }

  // ---- The model ----------------------------------------------------------------------------------
  let trainer = null, defaults = null, modelConfig = null;
  let curve = [], inspected = null, busy = false, held = null, ablated = {};
  // Kept views of the heads for the replay slider ({step, attention, roles, logits}), thinned to at most
  // MAX_SNAPSHOTS; replay is the index shown, or null for the live view.
  let snapshots = [], replay = null;
  // The one-head model trained beside this one (its own worker), when compare is on.
  let twin = null, twinCurve = [], twinInspected = null;
  // The last step the PyTorch script reproduces: set when training goes on with a head switched off,
  // or when weights are loaded from a file (null: the whole run is the script's).
  let scriptUntil = null;
  // The training rate: the steps and wall time of the requests since Play (the last few seconds of them), so
  // that it is true from the first step even when one step takes seconds.
  const rate = { log: [], value: 0 };
  // Steps per request: at most the speed, fewer when a step is slow (FRAME_BUDGET); measured on every request.
  let msPerStep = 0;
  // The step where the run pauses by itself: the task's goal (its roles have formed by then), once per run.
  let goal = null;
  let probe = [], probeTask = null;
  let loadedName = null, loadedAt = 0;   // the file the weights came from (until the next reset), and the step then
  const closer = { layer: 0, head: 0, query: Infinity, key: null };   // the head and query the closer look shows (the last query first)

  function showMessages() { showMessagesIn($('messages'), messages); }
  function say(m) { messages = [m]; showMessages(); }
  function status(text) { $('status').textContent = text; }
  // What the PyTorch section's buttons (copy, download, load) did, said next to them; error: a refusal.
  function tell(text, error) {
    const box = $('pytorch-msg');
    box.textContent = text;
    box.classList.toggle('error', !!error);
    box.hidden = !text;
    if (text && box.scrollIntoView) box.scrollIntoView({ block: 'nearest' });
  }


  // The model settings: the task's defaults (from the core), overridden by what the URL or the controls set.
  function modelSettings() {
    const cfg = Object.assign({}, defaults);
    LAB_PROPS.forEach(function (p) { if (p.model && explicit[p.name]) cfg[p.model] = values[p.name]; });
    LAB_PROPS.forEach(function (p) { if (p.model) values[p.name] = cfg[p.model]; });
    return cfg;
  }

  // A fresh model from the settings; resolves true when it was built (false: the old model stays, and the
  // messages say why).
  function reset() {
    pause();
    if (!trainer) return Promise.resolve(false);
    let built = false;
    return trainer.defaults({ task: values.task }).then(function (d) {
      defaults = d;
      const cfg = modelSettings();
      if (cfg.dModel % cfg.numHeads !== 0) {
        const fits = labProp('heads').values.filter(function (h) { return cfg.dModel % h === 0; });
        throw new Error('d_model ' + cfg.dModel + ' does not split into ' + cfg.numHeads + ' heads of equal size (d_model must be a ' +
          'multiple of num_heads); with d_model ' + cfg.dModel + ' the heads can be ' + fits.join(', ') + ', or pick a d_model that is a ' +
          'multiple of ' + cfg.numHeads + '. The model shown is still the last one built.');
      }
      return trainer.reset({ model: cfg, optimizer: { kind: values.optimizer, options: { lr: values.lr } }, seed: values.seed })
        .then(function (info) {
          modelConfig = info.config;
          curve = []; held = null; ablated = {}; snapshots = []; replay = null; scriptUntil = null; loadedName = null;
          twinCurve = []; twinInspected = null;
          closer.query = Infinity; closer.key = null;
          built = true;
          tell('');
          if (probeTask !== modelConfig.task || probe.length === 0 || probe.length > modelConfig.seqLen ||
            probe.some(function (t) { return t >= modelConfig.vocab; })) probe = info.example;
          probeTask = modelConfig.task;
          goal = task(modelConfig.task).goalSteps;
          $('c-probe').value = probe.join(' ');
          status(info.parameters.toLocaleString('en-US') + ' parameters · ' + implementationName(info.implementation));
          messages = messages.filter(function (m) { return !/^(Could not|This model)/.test(m); });
          showMessages();
          return resetTwin(cfg).then(inspect).then(keepSnapshot);   // step 0 is the replay's first frame
        });
    }).catch(function (err) { say('This model cannot be built: ' + err.message); })
      .then(function () { syncControls(); writeURL(); draw(); return built; });
  }

  function inspect() {
    return Promise.all([trainer.inspect({ tokens: probe }), twin ? twin.inspect({ tokens: probe }) : null]).then(function (r) {
      inspected = r[0];
      twinInspected = r[1];
    });
  }

  // The one-head twin: the same settings and seed with num_heads = 1, restarted with this model.
  function resetTwin(cfg) {
    if (!values.compare) {
      if (twin) { twin.terminate(); twin = null; }
      return Promise.resolve();
    }
    const ready = twin ? Promise.resolve(twin) : startTrainer({ base: base }).then(function (t) {
      if (disposed) { t.terminate(); throw new Error('the lab was closed'); }
      twin = t;
      return t;
    });
    return ready.then(function (t) {
      return t.reset({ model: Object.assign({}, cfg, { numHeads: 1 }), optimizer: { kind: values.optimizer, options: { lr: values.lr } }, seed: values.seed });
    });
  }

  function keepSnapshot() {
    const last = curve[curve.length - 1];
    snapshots.push({ step: last ? last.step : 0, attention: inspected.attention, roles: inspected.roles, logits: inspected.logits, targets: inspected.targets });
    if (snapshots.length > MAX_SNAPSHOTS) snapshots = snapshots.filter(function (_, i) { return i % 2 === 0 || i === snapshots.length - 1; });
  }

  function currentStep() { return curve.length ? curve[curve.length - 1].step : 0; }

  function trainSteps(n) {
    busy = true;
    const anyOff = Object.keys(ablated).some(function (k) { return ablated[k]; });
    if (anyOff && scriptUntil === null) scriptUntil = currentStep();
    const args = { steps: n, batchSize: values.batch }, started = performance.now();
    return Promise.all([trainer.train(args), twin ? twin.train(args) : []]).then(function (r) {
      const ended = performance.now();
      msPerStep = (ended - started) / Math.max(1, r[0].length);
      if (player.playing) {
        rate.log.push({ started: started, ended: ended, steps: r[0].length });
        while (rate.log.length > 1 && ended - rate.log[0].started > 3000) rate.log.shift();
        const steps = rate.log.reduce(function (sum, e) { return sum + e.steps; }, 0);
        rate.value = steps * 1000 / Math.max(1, ended - rate.log[0].started);
      }
      curve.push(...r[0]);   // (the API hands out copies: curve.slice())
      twinCurve.push(...r[1]);
      held = null;
      return inspect();
    }).then(function () {
      keepSnapshot(); replay = null; busy = false;
      if (player.playing && goal !== null && currentStep() >= goal) reachGoal();
      draw();
    }, function (err) { busy = false; pause(); say('Training stopped: ' + err.message); });
  }

  // The run pauses once at the task's goal: its roles have formed by then on most seeds (the core's task table).
  function reachGoal() {
    pause();
    goal = null;
    const roles = inspected.roles.map(function (r) { return 'layer ' + r.layer + ' head ' + r.head + ': ' + V.roleName(r); });
    say('Paused at step ' + currentStep() + ', where this task\'s heads have usually found their roles (' + roles.join('; ') +
      '). Press Play to train on, or Step for one update at a time.');
  }

  function play() {
    if (!modelConfig || disposed) return;
    replay = null;
    rate.log = []; rate.value = 0;
    if (goal !== null && currentStep() >= goal) goal = null;   // already past it (trained by script or Step): no pause
    player.play();
  }
  function pause() { player.pause(); }

  // Each animation frame while playing: the next request, once the last one has answered.
  function onFrame() {
    if (!busy) trainSteps(Math.max(1, Math.min(values.speed, msPerStep ? Math.floor(FRAME_BUDGET / msPerStep) : 1)));
  }

  // ---- Drawing (views.js) -------------------------------------------------------------------------
  function drawStats() {
    const last = curve[curve.length - 1];
    let text = 'step ' + (last ? last.step : 0);
    if (last) text += ' · loss ' + last.loss.toFixed(4) + ' · accuracy ' + last.accuracy.toFixed(4);
    if (player.playing && rate.log.length) text += ' · ' + (rate.value < 10 ? rate.value.toFixed(1) : Math.round(rate.value)) + ' steps/s';
    $('stats').textContent = text;
    $('legend-twin').hidden = !twinCurve.length;
  }
  function drawChart() { V.drawChart($('chart'), curve, twinCurve); }
  function shownView() { return replay === null ? inspected : snapshots[replay]; }

  function drawHeads() {
    const view = shownView(), H = modelConfig && modelConfig.numHeads;
    V.drawHeadCards($('heads'), view, H, probe.length, { onAblate: onAblate, ablated: ablated });
    const compare = $('compare-heads');
    compare.hidden = !twinInspected || replay !== null;
    if (!compare.hidden) V.drawHeadCards(compare, twinInspected, 1, probe.length, {});
    const slider = $('c-replay');
    slider.max = String(Math.max(0, snapshots.length - 1));
    slider.value = String(replay === null ? Math.max(0, snapshots.length - 1) : replay);
    $('replay-step').textContent = String(replay !== null ? snapshots[replay].step : currentStep());
    const how = 'Rows are query positions t, columns the keys they attend to. Click a head to switch it off (ablate it) and see what it contributed.';
    let note = loadedName ? 'These heads use the weights loaded from ' + loadedName + (currentStep() > loadedAt ? ', trained ' + (currentStep() - loadedAt) + ' more steps here' : '') + '. ' + how
      : curve.length ? how
        : 'These heads are untrained (random initial weights), so they look alike. Press Play and watch them specialize as the loss falls.';
    if (replay !== null) note = 'Replaying step ' + snapshots[replay].step + ' of ' + currentStep() + '. Press Play to go on training.';
    else if (held) note = 'Accuracy on 256 held-out sequences: ' + held.full.toFixed(3) + ' with every head on, ' + held.now.toFixed(3) + ' as shown. ' + how;
    $('ablation-note').textContent = note;
  }

  function drawPredictions() {
    const view = shownView();
    $('predictions').textContent = view && modelConfig ? V.predictionsText(view, modelConfig, probe) : '';
  }

  function drawCloser() {
    const view = shownView();
    if (!view || !modelConfig) return;
    closer.layer = Math.min(closer.layer, view.attention.length - 1);
    closer.head = Math.min(closer.head, modelConfig.numHeads - 1);
    closer.query = Math.min(closer.query, probe.length - 1);
    if (closer.key !== null) closer.key = Math.min(closer.key, probe.length - 1);
    V.drawCloser({ select: $('c-closer'), canvas: $('closer-map'), legend: $('closer-legend'), readout: $('closer-readout'),
      traceBody: $('closer-trace') }, Object.assign({ trace: inspected.trace }, view), modelConfig, probe, closer);
  }

  function draw() {
    if (disposed) return;   // a request that answered after dispose()
    drawStats(); drawChart(); drawHeads(); drawPredictions(); drawCloser();
    if (options.ownsPage) postHeight();
  }
  // The share panel's snippets (chrome/share.js's, as the page's): this lab's view, focused for an iframe.
  function embedCode(host) {
    return embedSnippet(host, { query: labQueryString(values, explicit), file: FILES.lab, title: 'MHA Explorer training lab', height: 760 });
  }

  // ---- Controls -----------------------------------------------------------------------------------
  function fillSelect(id, choices, labels) {
    const s = $(id);
    if (s.options.length) return;
    choices.forEach(function (v) { const o = document.createElement('option'); o.value = String(v); o.textContent = labels ? labels(v) : String(v); s.appendChild(o); });
  }
  function syncControls() {
    fillSelect('c-task', labProp('task').values, function (t) { return task(t).title; });
    fillSelect('c-heads', labProp('heads').values);
    fillSelect('c-layers', labProp('layers').values);
    fillSelect('c-optimizer', labProp('optimizer').values, function (o) { return OPTIMIZER_NAMES[o]; });
    fillSelect('c-speed', labProp('speed').values);
    $('c-task').value = values.task; $('c-heads').value = String(values.heads); $('c-layers').value = String(values.layers);
    $('c-optimizer').value = values.optimizer; $('c-speed').value = String(values.speed);
    $('c-dmodel').value = values.dmodel; $('c-seqlen').value = values.seqlen; $('c-vocab').value = values.vocab;
    $('c-batch').value = values.batch; $('c-lr').value = String(values.lr); $('c-seed').value = values.seed; $('c-compare').checked = !!values.compare;
    $('task-hint').textContent = task(values.task).brief;
    $('task-brief').textContent = task(values.task).title + ': ' + task(values.task).brief;
  }

  function onControl(e) {
    const name = e.target.name, p = labProp(name);
    if (!p) return;
    const r = parse(p, e.target.value, 'keeping ' + values[name]);
    if (!r.ok) { say(r.message); syncControls(); return; }
    const v = r.value;
    if (name === 'task') LAB_PROPS.forEach(function (q) { if (q.model) delete explicit[q.name]; });
    values[name] = v; explicit[name] = true;
    messages = []; showMessages();
    if (name === 'speed' || name === 'batch') { writeURL(); return; }
    reset();
  }

  function onAblate(e) {
    const card = e.currentTarget, l = Number(card.dataset.layer), h = Number(card.dataset.head), key = l + ':' + h;
    const on = !ablated[key];
    replay = null;   // a head is switched off in the model as it is now, not in a replayed snapshot
    let full = null;
    const allOn = Object.keys(ablated).every(function (k) { return !ablated[k]; });
    (allOn ? trainer.evaluate({ batchSize: 256, seed: 1 }) : Promise.resolve(held ? { accuracy: held.full } : null))
      .then(function (r) { full = r ? r.accuracy : null; return trainer.ablate({ layer: l, head: h, on: on }); })
      .then(function () { ablated[key] = on; return trainer.evaluate({ batchSize: 256, seed: 1 }); })
      .then(function (r) { held = full === null ? null : { full: full, now: r.accuracy }; return inspect(); })
      .then(draw, function (err) { say(err.message); });
  }

  function onProbe() {
    const text = $('c-probe').value.trim(), toks = text ? text.split(/[\s,]+/).map(Number) : [];
    const V = modelConfig.vocab, T = modelConfig.seqLen;
    if (!toks.length || toks.length > T || toks.some(function (t) { return !Number.isInteger(t) || t < 0 || t >= V; })) {
      say('The sequence must be 1 to ' + T + ' whole numbers from 0 to ' + (V - 1) + ', separated by spaces.');
      return;
    }
    messages = []; showMessages();
    probe = toks;
    const had = snapshots.length > 1;
    snapshots = []; replay = null;  // kept views were of the old sequence
    inspect().then(function () {
      keepSnapshot();
      draw();
      if (had) $('ablation-note').textContent = 'The replay starts again from here: the kept snapshots showed the old sequence.';
    }, function (err) { say(err.message); });
  }

  function copyScript() {
    const step = scriptUntil || currentStep() || 200;
    const caveat = scriptUntil === 0 ? 'It trains from this run\'s initial weights but reproduces none of its steps: you switched a head off or loaded weights before the first step, which the script does not do.'
      : scriptUntil !== null ? 'The script reproduces steps 1 to ' + scriptUntil + ' of this run: after that you switched a head off or loaded weights, which the script does not do.' : '';
    trainer.script({ steps: Math.max(step, 1), batchSize: values.batch }).then(function (text) {
      const out = $('script-out');
      out.hidden = false;
      return copyText(text, out).then(function (copied) {
        out.select();
        tell((copied ? 'Copied: paste it into a notebook. ' : 'Select the script below and copy it. ') + caveat);
      });
    }, function (err) { tell(err.message, true); });
  }

  // The way out of a frame that forbids downloads: Python that writes the same file.
  function weightsInPython(name, bytes) {
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return { say: 'Here is Python that writes ' + name + ' (run it in a notebook cell; torch loads it with safetensors.torch.load_file):',
      text: 'import base64\nopen("' + name + '", "wb").write(base64.b64decode(\n    "' + btoa(binary) + '"))\n', rows: 4 };
  }

  function saveWeights() {
    trainer.save().then(function (bytes) {
      const name = 'mha-lab-' + values.task + '-seed' + values.seed + '-step' + currentStep() + '.safetensors';
      const saved = download(name, new Blob([bytes], { type: 'application/octet-stream' }), $('download'), weightsInPython(name, bytes));
      tell(saved ? 'Saved ' + name + ' (the state_dict, with the task and sizes in its metadata).' : '');   // else a note at the button says why not
    }, function (err) { tell(err.message, true); });
  }

  // Loads a .safetensors file: a file saved by the lab carries its settings, which the lab takes first (a
  // fresh model of that shape), so that the weights fit; then the weights. Only the latest file counts.
  let fileSeq = 0;
  function loadBytes(bytes, name) {
    if (!trainer) return Promise.resolve(false);
    let mine = ++fileSeq, changed = [];
    const stillLatest = function () { if (mine !== fileSeq) throw new Error('another file was chosen'); };
    pause();
    const big = tooLarge(bytes.length, 'the lab');
    if (big) {
      tell('Could not load ' + name + ': ' + big, true);
      return Promise.resolve(false);
    }
    return trainer.peek(bytes).then(function (info) {
      stillLatest();
      const want = settingsOf(info.metadata), why = disagreement(want, info.shapes);
      if (why) throw new Error(why);
      changed = Object.keys(want).filter(function (k) { return want[k] !== values[k]; });
      if (!changed.length) return true;
      if (want.task && want.task !== values.task) LAB_PROPS.forEach(function (q) { if (q.model) delete explicit[q.name]; });
      Object.keys(want).forEach(function (k) { values[k] = want[k]; explicit[k] = true; });
      return reset();
    }).then(function (built) {
      stillLatest();
      if (!built) throw new Error('the lab cannot build the model its metadata describes (' + changed.map(function (k) { return k + ' ' + values[k]; }).join(', ') + ').');
      return trainer.load(bytes);
    }).then(function () {
      stillLatest();
      if (scriptUntil === null) scriptUntil = currentStep();
      loadedName = name; loadedAt = currentStep(); held = null;
      messages = []; showMessages();
      tell('Loaded ' + name + (changed.length ? ' (the lab\'s settings now match the file: ' + changed.map(function (k) { return k + ' ' + values[k]; }).join(', ') + ')' : '') +
        ': the heads and predictions above use its weights.');
      return inspect();
    }).then(function () {
      snapshots = []; replay = null; keepSnapshot(); draw();
      return true;
    }).catch(function (err) {
      if (mine === fileSeq) tell('Could not load ' + name + ': ' + err.message, true);
      return false;
    });
  }
  function loadFile(file) {
    if (!file) return;
    readFile(file, 'the lab', '', readSeq).then(function (bytes) { if (bytes) loadBytes(bytes, file.name); },
      function (err) { tell('Could not load ' + file.name + ': ' + err.message, true); });
  }

  // A control that needs the model: ignored until the worker has built one (it may still be starting, or have failed).
  function whenReady(fn) { return function (e) { if (trainer && modelConfig) fn(e); }; }

  function wire() {
    $('controls').addEventListener('change', onControl);
    $('controls').addEventListener('submit', function (e) { e.preventDefault(); });   // Enter in a field: its change event applies it
    $('copy-link').addEventListener('click', function () { copyWithButton(shareLink(labQueryString(values, explicit), FILES.lab), $('share-out'), $('copy-link')); });
    $('copy-embed').addEventListener('click', function () { copyWithButton(embedCode($('embed-host').value), $('share-out'), $('copy-embed')); });
    fillEmbedHosts($('embed-host'));
    $('play').addEventListener('click', function () { if (player.playing) pause(); else play(); });
    $('step').addEventListener('click', whenReady(function () { pause(); if (!busy) trainSteps(1); }));
    $('reset').addEventListener('click', whenReady(reset));
    $('new-seed').addEventListener('click', whenReady(function () { values.seed = Math.floor(Math.random() * 1e6); explicit.seed = true; reset(); }));
    $('c-probe').addEventListener('change', whenReady(onProbe));
    $('c-replay').addEventListener('input', function (e) {
      pause();
      const i = Number(e.target.value);
      replay = i >= snapshots.length - 1 ? null : i;
      drawHeads(); drawPredictions(); drawCloser();
    });
    $('c-closer').addEventListener('change', function (e) {
      const lh = e.target.value.split(':').map(Number);
      closer.layer = lh[0]; closer.head = lh[1];
      drawCloser();
    });
    const map = $('closer-map');
    map.addEventListener('click', function (e) {
      const cell = cellAt(map, e);
      if (cell) { closer.query = cell[0]; closer.key = cell[1]; drawCloser(); }
    });
    map.addEventListener('keydown', function (e) {
      const d = arrowStep(e.key);
      if (!d) return;
      e.preventDefault();
      const T = probe.length, q = Math.min(closer.query, T - 1);
      closer.query = Math.max(0, Math.min(T - 1, q + d[0]));
      closer.key = d[1] ? Math.max(0, Math.min(T - 1, (closer.key === null ? closer.shown : closer.key) + d[1])) : closer.key;
      drawCloser();
    });
    $('c-compare').addEventListener('change', function (e) { values.compare = e.target.checked; explicit.compare = true; reset(); });
    $('copy-script').addEventListener('click', whenReady(copyScript));
    $('download').addEventListener('click', whenReady(saveWeights));
    $('load-file').addEventListener('change', function (e) { loadFile(e.target.files[0]); e.target.value = ''; });
    $('theme-toggle').addEventListener('click', function () {
      values.theme = otherTheme(root);
      explicit.theme = true; showTheme(); writeURL(); draw();
    });
    // the page takes a file dropped anywhere on it; a lab mounted in another page, one dropped on the lab
    wireFileDrop(loadFile, options.ownsPage ? { signal } : { target: root, flag: root, signal });
    if (options.onPage) followLinksTo(root, base + FILES.page, options.onPage, signal);
    document.addEventListener('visibilitychange', function () { if (document.hidden) pause(); }, { signal });
    window.addEventListener('resize', drawChart, { signal });
    if (window.matchMedia) {
      window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () {
        if (values.theme === 'auto') { showTheme(); draw(); }
      }, { signal });
    }
  }

  // ---- Scripting (the lab page's window.mhaExplorer) ----------------------------------------------
  function trainFor(steps) {
    pause();
    let left = steps;
    const go = function () {
      if (left <= 0) return Promise.resolve();
      const n = Math.min(left, 50);
      left -= n;
      return trainSteps(n).then(go);
    };
    return go().then(function () { return api.getTraining(); });
  }
  // changes: {property: value} of state/lab.js, each checked as the URL's would be (a refusal throws).
  function setValues(changes) {
    Object.keys(changes).forEach(function (k) {
      const p = labProp(k); if (!p) throw new Error('unknown property ' + k);
      const r = parse(p, Array.isArray(changes[k]) ? changes[k].join(',') : changes[k]);
      if (!r.ok) throw new Error(r.message);
      values[k] = r.value; explicit[k] = true;
    });
  }
  const api = {
    ready: null,
    train: function (o) { return trainFor((o && o.steps) || 1); },
    getTraining: function () {
      const last = curve[curve.length - 1] || { step: 0, loss: NaN, accuracy: NaN };
      const one = twinCurve[twinCurve.length - 1];
      return { step: last.step, loss: last.loss, accuracy: last.accuracy, curve: curve.slice(), roles: inspected ? inspected.roles.slice() : [],
        oneHead: one ? { step: one.step, loss: one.loss, accuracy: one.accuracy, roles: twinInspected ? twinInspected.roles.slice() : [] } : null };
    },
    getWeights: function () { return inspected ? inspected.attention : null; },
    getProbe: function () { return probe.slice(); },
    evaluate: function () { return trainer.evaluate({ batchSize: 256, seed: 1 }); },
    ablate: function (layer, head, on) {
      ablated[layer + ':' + head] = on;
      return trainer.ablate({ layer: layer, head: head, on: on }).then(inspect).then(draw);
    },
    stateDict: function () { return trainer.stateDict(); },
    save: function () { return trainer.save(); },
    load: function (bytes, name) { return loadBytes(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes, name || 'weights.safetensors'); },
    script: function (o) { return trainer.script(o || {}); },
    reset: function () { return reset(); },
    set: function (changes) {
      setValues(changes);
      return reset();
    },
    play: play,
    pause: pause,
    embedCode: embedCode,
    shareURL: function () { return shareLink(labQueryString(values, explicit), FILES.lab); },
  };

  root.mhaExplorer = api;   // as the attention view's root: a host finds a lab by [data-mha-explorer-lab] and scripts it

  // ---- Layout -------------------------------------------------------------------------------------
  showTheme();
  if (values.embed) {
    // an embed: the chart and the heads first, the settings folded below them; no share panel
    root.classList.add('embed');
    if (options.ownsPage) document.body.classList.add('embed');
    if (values.hide.indexOf('controls') < 0) { $('lab-settings').open = false; root.querySelector('.content').appendChild($('lab-settings')); $('lab-settings').classList.add('panel'); }
  }
  // a phone starts with the settings and the model's trace (one card per step) folded: the chart and heads come first
  if (window.matchMedia && window.matchMedia('(max-width: 720px)').matches) {
    $('closer-trace-box').open = false;
    $('lab-settings').open = false;   // Play, Step and Reset stay in view; the settings unfold on demand
  }
  // the share panel (links to this address, embed code) belongs to the lab page, and is not for its embeds
  values.hide.concat(values.embed || !options.ownsPage ? ['share'] : []).forEach(function (name) { root.querySelector('[data-section="' + name + '"]').hidden = true; });
  root.classList.toggle('no-controls', values.hide.indexOf('controls') >= 0);
  wire();

  // The worker: started once; when the lab is disposed meanwhile, stopped as soon as it is there.
  api.ready = startTrainer({ base: base }).then(function (t) {
    if (disposed) { t.terminate(); throw new Error('the lab was closed'); }
    trainer = t;
    return t.tasks();
  }).then(function (table) {
    // the task list is the core's: the preset and task are read once it is known
    useTasks(table);
    const parsed = readSettings();
    values = parsed.values; explicit = parsed.explicit; messages = parsed.messages;
    showMessages();
    return reset();
  }).then(function () {
    if (disposed) return false;
    if (values.autoplay) play();
    player.start();
    return true;
  }, function (err) {
    if (disposed) return false;
    status('Could not start');
    say('Could not start the training worker: ' + err.message);
    return false;
  });

  // New settings (properties of state/lab.js; embed and hide lay the lab out when it is mounted only), once the lab
  // has started: the speed, batch and theme apply at once, the others build a new model (as the controls do)
  // → a promise of whether the model was built (true when none was needed; a refused value rejects).
  function update(changes) {
    return api.ready.then(function (started) {
      if (!started) return false;
      setValues(changes);
      if (changes.theme !== undefined) showTheme();
      writeURL();
      syncControls();
      const rebuild = Object.keys(changes).some(function (k) { return ['speed', 'batch', 'theme', 'autoplay'].indexOf(k) < 0; });
      if (rebuild) return reset();
      draw();
      return true;
    });
  }

  // Stops training, ends the instance's workers (the model's and the one-head twin's), its animation frame and its
  // listeners on window and document, and empties root.
  function dispose() {
    if (disposed) return;
    disposed = true;
    player.dispose();
    lifetime.abort();
    if (trainer) trainer.terminate();
    if (twin) twin.terminate();
    trainer = twin = null;
    root.textContent = '';
    root.classList.remove('mhx', 'mhx-lab', 'embed', 'no-controls', 'dropping');
    root.removeAttribute('data-theme');
    root.removeAttribute('data-mha-explorer-lab');
    if (unRegion) unRegion();
    delete root.mhaExplorer;
  }

  return { ready: api.ready, api: api, update: update, dispose: dispose };
}
