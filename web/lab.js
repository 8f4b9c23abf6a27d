// MHA Explorer — the training lab (lab.html). The model trains in a Web Worker (trainer.js); this
// file keeps the state (one declarative property list, mirrored in the URL), draws the curves and
// heads, and wires the controls. Classic script: lab.html also works from file://.
/* global MhaTrainer */
(function (root) {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };

  // ---- State: one property list feeds the URL, the controls and their validation ----------------
  var TASKS = ['two-offsets', 'first-and-previous', 'reverse', 'induction'];
  var TASK_TEXT = {
    'two-offsets': { title: 'Two offsets', hint: 'Predict the token one back and the token two back. Two heads split the work: one attends one token back, the other two back. One head cannot do both.', readouts: ['x[t−1]', 'x[t−2]'], from: [1, 2] },
    'first-and-previous': { title: 'First and previous', hint: 'Predict the first token and the previous one: one head learns a stripe on column 0, another a diagonal one token back.', readouts: ['x[0]', 'x[t−1]'], from: [0, 1] },
    'reverse': { title: 'Reverse', hint: 'Predict the sequence backwards, x[T−1−t]: the head learns the anti-diagonal (no causal mask here).', readouts: ['x[T−1−t]'], from: [0] },
    'induction': { title: 'Induction', hint: 'A random motif of 3–7 tokens repeats; predict the next token. Layer 0 learns "one token back", layer 1 an induction head (Olsson et al.).', readouts: ['next token'], from: [0] },
  };
  var PROPS = [
    { name: 'task', kind: 'enum', values: TASKS, def: 'two-offsets' },
    { name: 'heads', kind: 'enum', values: [1, 2, 4, 8], model: 'numHeads' },
    { name: 'layers', kind: 'enum', values: [1, 2], model: 'layers' },
    { name: 'dmodel', kind: 'int', min: 1, max: 256, model: 'dModel' },
    { name: 'seqlen', kind: 'int', min: 2, max: 64, model: 'seqLen' },
    { name: 'vocab', kind: 'int', min: 2, max: 128, model: 'vocab' },
    { name: 'batch', kind: 'int', min: 1, max: 256, def: 32 },
    { name: 'optimizer', kind: 'enum', values: ['sgd', 'adam', 'adamw'], def: 'adam' },
    { name: 'lr', kind: 'num', min: 1e-6, max: 10, def: 1e-2 },
    { name: 'seed', kind: 'int', min: 0, max: 4294967295, def: 0 },
    { name: 'speed', kind: 'enum', values: [1, 2, 5, 10, 25], def: 5 },
    { name: 'compare', kind: 'bool', def: false },
    { name: 'autoplay', kind: 'bool', def: false },
    { name: 'embed', kind: 'bool', def: false },
    { name: 'hide', kind: 'list', values: ['header', 'controls', 'progress', 'heads', 'pytorch'], def: [] },
    { name: 'theme', kind: 'enum', values: ['auto', 'light', 'dark'], def: 'auto' },
  ];
  var OPTIMIZER_NAMES = { sgd: 'SGD', adam: 'Adam', adamw: 'AdamW' };
  var values = {}, explicit = {}, messages = [];

  function parse(p, raw) {
    if (p.kind === 'list') {
      var items = raw.split(',').filter(Boolean);
      return items.every(function (i) { return p.values.indexOf(i) >= 0; }) ? items : undefined;
    }
    if (p.kind === 'bool') return raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : undefined;
    if (p.kind === 'enum') {
      var v = p.values.find(function (x) { return String(x) === raw; });
      return v;
    }
    var n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < p.min || n > p.max || (p.kind === 'int' && !Number.isInteger(n))) return undefined;
    return n;
  }
  function describe(p) {
    return p.kind === 'list' ? 'a comma list of ' + p.values.join(', ') : p.kind === 'enum' ? 'one of ' + p.values.join(', ') : p.kind === 'bool' ? '0 or 1' : (p.kind === 'int' ? 'a whole number' : 'a number') + ' from ' + p.min + ' to ' + p.max;
  }
  function readURL() {
    var q = new URLSearchParams(root.location.search);
    PROPS.forEach(function (p) { values[p.name] = p.def; });
    var preset = q.get('preset');
    if (preset) {
      var task = preset.replace(/^train-/, '');
      if (TASKS.indexOf(task) >= 0 && preset !== task) { values.task = task; explicit.task = true; } else messages.push('Unknown preset "' + preset.slice(0, 40) + '": the presets here are ' + TASKS.map(function (t) { return 'train-' + t; }).join(', ') + '.');
    }
    PROPS.forEach(function (p) {
      if (!q.has(p.name)) return;
      var v = parse(p, q.get(p.name));
      if (v === undefined) messages.push(p.name + ' must be ' + describe(p) + '; using the default.');
      else { values[p.name] = v; explicit[p.name] = true; }
    });
  }
  function writeURL() {
    var q = new URLSearchParams();
    q.set('preset', 'train-' + values.task);
    PROPS.forEach(function (p) {
      if (p.name === 'task' || values[p.name] === undefined) return;
      if (!explicit[p.name] && (p.def !== undefined || p.model)) return;
      q.set(p.name, p.kind === 'bool' ? (values[p.name] ? '1' : '0') : p.kind === 'list' ? values[p.name].join(',') : String(values[p.name]));
    });
    try { root.history.replaceState(null, '', '?' + q.toString()); } catch (e) { /* file:// in some browsers */ }
  }

  // ---- The model ----------------------------------------------------------------------------------
  var trainer = null, defaults = null, modelConfig = null;
  var curve = [], inspected = null, playing = false, busy = false, held = null, ablated = {};
  // Kept views of the heads for the replay slider ({step, attention, roles, logits}), thinned to at most
  // MAX_SNAPSHOTS; replay is the index shown, or null for the live view.
  var snapshots = [], replay = null, MAX_SNAPSHOTS = 150;
  // The one-head model trained beside this one (its own worker), when compare is on.
  var twin = null, twinCurve = [], twinInspected = null;
  // The last step the PyTorch script reproduces: set when training goes on with a head switched off,
  // or when weights are loaded from a file (null: the whole run is the script's).
  var scriptUntil = null;
  var rate = { steps: 0, since: 0, value: 0 };
  var probe = [];

  function showMessages() {
    var box = $('messages');
    box.textContent = '';
    messages.forEach(function (m) { var p = document.createElement('p'); p.className = 'msg'; p.textContent = m; box.appendChild(p); });
  }
  function say(m) { messages = [m]; showMessages(); }
  function status(text) { $('status').textContent = text; }

  function defaultProbe(cfg) {
    var out = [];
    if (cfg.task === 'induction') {
      var motif = [3, 7, 1, 5, 2].map(function (v) { return v % cfg.vocab; });
      for (var i = 0; i < cfg.seqLen; i++) out.push(motif[i % motif.length]);
    } else {
      for (var j = 0; j < cfg.seqLen; j++) out.push((j + 1) % cfg.vocab);
    }
    return out;
  }

  // The model settings: the task's defaults (from the core), overridden by what the URL or the controls set.
  function modelSettings() {
    var cfg = Object.assign({}, defaults);
    PROPS.forEach(function (p) { if (p.model && explicit[p.name]) cfg[p.model] = values[p.name]; });
    PROPS.forEach(function (p) { if (p.model) values[p.name] = cfg[p.model]; });
    return cfg;
  }

  function reset() {
    pause();
    return trainer.request('defaults', { task: values.task }).then(function (d) {
      defaults = d;
      var cfg = modelSettings();
      return trainer.reset({ model: cfg, optimizer: { kind: values.optimizer, options: { lr: values.lr } }, seed: values.seed })
        .then(function (info) {
          modelConfig = info.config;
          curve = []; held = null; ablated = {}; snapshots = []; replay = null; scriptUntil = null;
          twinCurve = []; twinInspected = null;
          if (probe.length === 0 || probe.length > modelConfig.seqLen || probe.some(function (t) { return t >= modelConfig.vocab; })) probe = defaultProbe(modelConfig);
          $('c-probe').value = probe.join(' ');
          status(info.parameters.toLocaleString('en-US') + ' parameters · ' + info.implementation);
          messages = messages.filter(function (m) { return !/^(Could not|This model)/.test(m); });
          showMessages();
          return resetTwin(cfg).then(inspect);
        });
    }).catch(function (err) { say('This model cannot be built: ' + err.message); })
      .then(function () { syncControls(); writeURL(); draw(); });
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
    var ready = twin ? Promise.resolve(twin) : MhaTrainer.start().then(function (t) { twin = t; return t; });
    return ready.then(function (t) {
      return t.reset({ model: Object.assign({}, cfg, { numHeads: 1 }), optimizer: { kind: values.optimizer, options: { lr: values.lr } }, seed: values.seed });
    });
  }

  function keepSnapshot() {
    var last = curve[curve.length - 1];
    snapshots.push({ step: last ? last.step : 0, attention: inspected.attention, roles: inspected.roles, logits: inspected.logits });
    if (snapshots.length > MAX_SNAPSHOTS) snapshots = snapshots.filter(function (_, i) { return i % 2 === 0 || i === snapshots.length - 1; });
  }

  function currentStep() { return curve.length ? curve[curve.length - 1].step : 0; }

  function trainSteps(n) {
    busy = true;
    var anyOff = Object.keys(ablated).some(function (k) { return ablated[k]; });
    if (anyOff && scriptUntil === null) scriptUntil = currentStep();
    var args = { steps: n, batchSize: values.batch };
    return Promise.all([trainer.train(args), twin ? twin.train(args) : []]).then(function (r) {
      curve = curve.concat(r[0]);
      twinCurve = twinCurve.concat(r[1]);
      rate.steps += r[0].length;
      held = null;
      return inspect();
    }).then(function () { keepSnapshot(); replay = null; busy = false; draw(); }, function (err) { busy = false; pause(); say('Training stopped: ' + err.message); });
  }

  function play() {
    if (!modelConfig) return;
    playing = true;
    replay = null;
    rate.steps = 0; rate.since = performance.now();
    $('play').textContent = '⏸ Pause';
    $('play').setAttribute('aria-pressed', 'true');
  }
  function pause() {
    playing = false;
    $('play').textContent = '▶ Play';
    $('play').setAttribute('aria-pressed', 'false');
  }

  function tick() {
    if (playing && !busy) trainSteps(values.speed);
    var now = performance.now();
    if (now - rate.since > 1000) {
      rate.value = playing ? rate.steps * 1000 / (now - rate.since) : 0;
      rate.steps = 0; rate.since = now;
      drawStats();
    }
    root.requestAnimationFrame(tick);
  }

  // ---- Drawing ------------------------------------------------------------------------------------
  function css(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

  function drawStats() {
    var last = curve[curve.length - 1];
    var text = 'step ' + (last ? last.step : 0);
    if (last) text += ' · loss ' + last.loss.toFixed(4) + ' · accuracy ' + last.accuracy.toFixed(4);
    if (playing) text += ' · ' + Math.round(rate.value) + ' steps/s';
    $('stats').textContent = text;
  }

  function drawChart() {
    var c = $('chart'), dpr = root.devicePixelRatio || 1;
    var w = c.clientWidth || 900, h = c.clientHeight || 240;
    if (c.width !== Math.round(w * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    var g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    var left = 44, right = 40, top = 10, bottom = 22, pw = w - left - right, ph = h - top - bottom;
    g.strokeStyle = css('--border'); g.fillStyle = css('--fg-muted'); g.font = '11px system-ui, sans-serif';
    g.strokeRect(left, top, pw, ph);
    var n = Math.max(curve.length, 10);
    var losses = curve.map(function (p) { return Math.max(p.loss, 1e-6); });
    var hi = Math.log10(Math.max.apply(null, losses.concat([3]))), lo = Math.log10(Math.min.apply(null, losses.concat([0.01])));
    hi = Math.ceil(hi); lo = Math.floor(lo);
    var y = function (v) { return top + ph * (hi - Math.log10(Math.max(v, 1e-6))) / (hi - lo); };
    var ya = function (a) { return top + ph * (1 - a); };
    var x = function (i) { return left + pw * i / (n - 1); };
    g.textAlign = 'right';
    for (var e = lo; e <= hi; e++) { g.fillText(String(Math.pow(10, e) >= 1 ? Math.pow(10, e) : Math.pow(10, e).toPrecision(1)), left - 4, y(Math.pow(10, e)) + 4); }
    g.textAlign = 'left';
    [0, 0.5, 1].forEach(function (a) { g.fillText(a.toFixed(1), w - right + 4, ya(a) + 4); });
    g.textAlign = 'center';
    g.fillText('step ' + (curve.length ? curve[curve.length - 1].step : 0), left + pw / 2, h - 6);
    var line = function (color, f) {
      g.strokeStyle = color; g.lineWidth = 1.5; g.beginPath();
      curve.forEach(function (p, i) { var px = x(i), py = f(p); if (i) g.lineTo(px, py); else g.moveTo(px, py); });
      g.stroke();
    };
    line(css('--line'), function (p) { return y(p.loss); });
    line(css('--ok'), function (p) { return ya(p.accuracy); });
    if (twinCurve.length) {
      var main = curve;
      curve = twinCurve;
      g.setLineDash([4, 3]);
      line(css('--line'), function (p) { return y(p.loss); });
      line(css('--ok'), function (p) { return ya(p.accuracy); });
      g.setLineDash([]);
      curve = main;
    }
    g.textAlign = 'left';
    g.fillStyle = css('--line'); g.fillText('loss', left + 6, top + 14);
    g.fillStyle = css('--ok'); g.fillText('accuracy', left + 40, top + 14);
    if (twinCurve.length) { g.fillStyle = css('--fg-muted'); g.fillText('dashed: one head', left + 100, top + 14); }
  }

  // Blues, as the lessons' heatmaps: 0 → near white, 1 → dark blue (one shared 0..1 scale).
  function blue(v) {
    var t = Math.max(0, Math.min(1, v));
    return [Math.round(247 - t * 239), Math.round(251 - t * 203), Math.round(255 - t * 148)];
  }

  function drawHeads() {
    var view = replay === null ? inspected : snapshots[replay];
    drawHeadCards($('heads'), view, modelConfig && modelConfig.numHeads, true);
    var compare = $('compare-heads');
    compare.hidden = !twinInspected || replay !== null;
    if (!compare.hidden) drawHeadCards(compare, twinInspected, 1, false);
    var slider = $('c-replay');
    slider.max = String(Math.max(0, snapshots.length - 1));
    slider.value = String(replay === null ? Math.max(0, snapshots.length - 1) : replay);
    $('replay-step').textContent = String(replay !== null ? snapshots[replay].step : (curve.length ? curve[curve.length - 1].step : 0));
    var note = curve.length
      ? 'Rows are query positions t, columns the keys they attend to. Click a head to switch it off (ablate it) and see what it contributed.'
      : 'These heads are untrained (random initial weights), so they look alike. Press Play and watch them specialize as the loss falls.';
    if (replay !== null) note = 'Replaying step ' + snapshots[replay].step + ' of ' + curve[curve.length - 1].step + '. Press Play to go on training.';
    else if (held) note = 'Accuracy on 256 held-out sequences: ' + held.full.toFixed(3) + ' with every head on, ' + held.now.toFixed(3) + ' as shown.';
    $('ablation-note').textContent = note;
  }

  // The cards of one model's heads; interactive cards switch a head off and on.
  function drawHeadCards(box, inspected, H, interactive) {
    if (!inspected || !H) { box.textContent = ''; return; }
    var T = probe.length;
    var cards = box.querySelectorAll('.lab-head');
    if (cards.length !== inspected.attention.length * H || box.dataset.t !== String(T)) {
      box.textContent = '';
      box.dataset.t = String(T);
      inspected.attention.forEach(function (layer) {
        for (var h = 0; h < H; h++) {
          var b = document.createElement('button');
          b.type = 'button'; b.className = 'lab-head';
          b.dataset.layer = String(layer.layer); b.dataset.head = String(h);
          var title = document.createElement('span'); title.className = 'head-title';
          title.textContent = (interactive ? '' : 'One-head model: ') + 'Layer ' + layer.layer + ' · head ' + h;
          var canvas = document.createElement('canvas'); canvas.width = T; canvas.height = T;
          var role = document.createElement('span'); role.className = 'role';
          b.appendChild(title); b.appendChild(canvas); b.appendChild(role);
          if (interactive) b.addEventListener('click', onAblate); else b.disabled = true;
          box.appendChild(b);
        }
      });
      cards = box.querySelectorAll('.lab-head');
    }
    Array.prototype.forEach.call(cards, function (card) {
      var l = Number(card.dataset.layer), h = Number(card.dataset.head);
      var w = inspected.attention[l].weights.data, img = new ImageData(T, T);
      for (var i = 0; i < T * T; i++) {
        var c = blue(w[h * T * T + i]);
        img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
      }
      card.querySelector('canvas').getContext('2d').putImageData(img, 0, 0);
      var r = inspected.roles.find(function (x) { return x.layer === l && x.head === h; });
      var key = l + ':' + h, off = interactive && !!ablated[key];
      card.classList.toggle('ablated', off);
      card.setAttribute('aria-pressed', off ? 'true' : 'false');
      var role = card.querySelector('.role');
      role.textContent = '';
      var strong = document.createElement('strong'); strong.textContent = r ? r.role : '';
      role.appendChild(strong);
      role.appendChild(document.createTextNode(r ? ' · ' + r.score.toFixed(2) + (off ? ' · switched off' : '') : ''));
      // the accessible name is the visible text (title, role, score); the action is in aria-pressed and the tooltip
      card.title = 'Rows: query position t; columns: key position.' + (interactive ? ' Click to ' + (off ? 'switch this head back on' : 'switch this head off (ablate it)') : '');
    });
  }

  // The first position where readout r has a target (the task's -100 rule). Induction: once the
  // motif starts repeating (its tokens are distinct, so the first repeat of x[0] ends it).
  function firstTarget(r) {
    if (modelConfig.task !== 'induction') return TASK_TEXT[modelConfig.task].from[r];
    var p = probe.indexOf(probe[0], 1);
    return p < 0 ? probe.length : p - 1;
  }

  function drawPredictions() {
    var box = $('predictions');
    var view = replay === null ? inspected : snapshots[replay];
    if (!view || !modelConfig) { box.textContent = ''; return; }
    var names = TASK_TEXT[modelConfig.task].readouts, V = modelConfig.vocab, T = probe.length;
    var pad = function (s, n) { s = String(s); while (s.length < n) s = ' ' + s; return s; };
    var width = Math.max(3, String(V - 1).length + 1);
    var label = Math.max.apply(null, names.map(function (n) { return n.length; }).concat([10]));
    var lines = [pad('position t', label) + ' ' + probe.map(function (_, t) { return pad(t, width); }).join(''),
      pad('token x[t]', label) + ' ' + probe.map(function (v) { return pad(v, width); }).join('')];
    view.logits.forEach(function (l, r) {
      var row = [];
      for (var t = 0; t < T; t++) {
        if (t < firstTarget(r)) { row.push(pad('·', width)); continue; }  // no target there
        var best = 0;
        for (var v = 1; v < V; v++) if (l.data[t * V + v] > l.data[t * V + best]) best = v;
        row.push(pad(best, width));
      }
      lines.push(pad('→ ' + names[r], label) + ' ' + row.join(''));
    });
    box.textContent = 'The model\'s predictions for this sequence (argmax of each readout; · where there is nothing to predict):\n' + lines.join('\n');
  }

  function draw() { drawStats(); drawChart(); drawHeads(); drawPredictions(); reportHeight(); }

  function reportHeight() {
    if (!values.embed || root.parent === root) return;
    try { root.parent.postMessage({ type: 'mha-explorer:height', height: document.documentElement.scrollHeight }, '*'); } catch (e) { /* ignore */ }
  }

  // ---- Controls -----------------------------------------------------------------------------------
  function fillSelect(id, options, labels) {
    var s = $(id);
    if (s.options.length) return;
    options.forEach(function (v) { var o = document.createElement('option'); o.value = String(v); o.textContent = labels ? labels(v) : String(v); s.appendChild(o); });
  }
  function syncControls() {
    fillSelect('c-task', TASKS, function (t) { return TASK_TEXT[t].title; });
    fillSelect('c-heads', [1, 2, 4, 8]);
    fillSelect('c-layers', [1, 2]);
    fillSelect('c-optimizer', ['sgd', 'adam', 'adamw'], function (o) { return OPTIMIZER_NAMES[o]; });
    fillSelect('c-speed', [1, 2, 5, 10, 25]);
    $('c-task').value = values.task; $('c-heads').value = String(values.heads); $('c-layers').value = String(values.layers);
    $('c-optimizer').value = values.optimizer; $('c-speed').value = String(values.speed);
    $('c-dmodel').value = values.dmodel; $('c-seqlen').value = values.seqlen; $('c-vocab').value = values.vocab;
    $('c-batch').value = values.batch; $('c-lr').value = String(values.lr); $('c-seed').value = values.seed; $('c-compare').checked = !!values.compare;
    $('task-hint').textContent = TASK_TEXT[values.task].hint;
  }

  function onControl(e) {
    var name = e.target.name, p = PROPS.find(function (x) { return x.name === name; });
    if (!p) return;
    var v = parse(p, e.target.value);
    if (v === undefined) { say(name + ' must be ' + describe(p) + '; keeping ' + values[name] + '.'); syncControls(); return; }
    if (name === 'task') PROPS.forEach(function (q) { if (q.model) delete explicit[q.name]; });
    values[name] = v; explicit[name] = true;
    messages = []; showMessages();
    if (name === 'speed' || name === 'batch') { writeURL(); return; }
    reset();
  }

  function onAblate(e) {
    var card = e.currentTarget, l = Number(card.dataset.layer), h = Number(card.dataset.head), key = l + ':' + h;
    var on = !ablated[key];
    var full = null;
    var allOn = Object.keys(ablated).every(function (k) { return !ablated[k]; });
    (allOn ? trainer.evaluate({ batchSize: 256, seed: 1 }) : Promise.resolve(held ? { accuracy: held.full } : null))
      .then(function (r) { full = r ? r.accuracy : null; return trainer.ablate({ layer: l, head: h, on: on }); })
      .then(function () { ablated[key] = on; return trainer.evaluate({ batchSize: 256, seed: 1 }); })
      .then(function (r) { held = full === null ? null : { full: full, now: r.accuracy }; return inspect(); })
      .then(draw, function (err) { say(err.message); });
  }

  function onProbe() {
    var text = $('c-probe').value.trim(), toks = text ? text.split(/[\s,]+/).map(Number) : [];
    var V = modelConfig.vocab, T = modelConfig.seqLen;
    if (!toks.length || toks.length > T || toks.some(function (t) { return !Number.isInteger(t) || t < 0 || t >= V; })) {
      say('The sequence must be 1 to ' + T + ' whole numbers from 0 to ' + (V - 1) + ', separated by spaces.');
      return;
    }
    messages = []; showMessages();
    probe = toks;
    snapshots = []; replay = null;  // kept views were of the old sequence
    inspect().then(draw, function (err) { say(err.message); });
  }

  function copyScript() {
    var step = scriptUntil || currentStep() || 200;
    if (scriptUntil === 0) say('The script trains from this run\'s initial weights but reproduces none of its steps: you switched a head off or loaded weights before the first step, which the script does not do.');
    else if (scriptUntil !== null) say('The script reproduces steps 1 to ' + scriptUntil + ' of this run: after that you switched a head off or loaded weights, which the script does not do.');
    trainer.script({ steps: Math.max(step, 1), batchSize: values.batch }).then(function (text) {
      var out = $('script-out');
      out.hidden = false; out.value = text;
      out.select();
      var done = function () { status('PyTorch script copied: paste it into a notebook'); };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, function () { status('Select the script below and copy it'); });
      else status('Select the script below and copy it');
    }, function (err) { say(err.message); });
  }

  function download() {
    trainer.save().then(function (bytes) {
      var step = curve.length ? curve[curve.length - 1].step : 0;
      var a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      a.download = 'mha-lab-' + values.task + '-seed' + values.seed + '-step' + step + '.safetensors';
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
    }, function (err) { say(err.message); });
  }

  function loadFile(file) {
    if (!file) return;
    pause();
    file.arrayBuffer().then(function (buf) { return trainer.load(new Uint8Array(buf)); })
      .then(function () {
        if (scriptUntil === null) scriptUntil = currentStep();
        messages = [];
        say('Loaded ' + file.name + ': the heads and predictions below use its weights.');
        return inspect();
      })
      .then(draw, function (err) { say('Could not load ' + file.name + ': ' + err.message); });
  }

  function applyTheme() {
    var dark = values.theme === 'dark' || (values.theme === 'auto' && root.matchMedia && root.matchMedia('(prefers-color-scheme: dark)').matches);
    document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
  }

  function wire() {
    $('controls').addEventListener('change', onControl);
    $('play').addEventListener('click', function () { if (playing) pause(); else play(); });
    $('step').addEventListener('click', function () { pause(); if (!busy) trainSteps(1); });
    $('reset').addEventListener('click', reset);
    $('new-seed').addEventListener('click', function () { values.seed = Math.floor(Math.random() * 1e6); explicit.seed = true; reset(); });
    $('c-probe').addEventListener('change', onProbe);
    $('c-replay').addEventListener('input', function (e) {
      pause();
      var i = Number(e.target.value);
      replay = i >= snapshots.length - 1 ? null : i;
      drawHeads(); drawPredictions();
    });
    $('c-compare').addEventListener('change', function (e) { values.compare = e.target.checked; explicit.compare = true; reset(); });
    $('copy-script').addEventListener('click', copyScript);
    $('download').addEventListener('click', download);
    $('load-file').addEventListener('change', function (e) { loadFile(e.target.files[0]); e.target.value = ''; });
    $('theme-toggle').addEventListener('click', function () {
      values.theme = document.documentElement.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
      explicit.theme = true; applyTheme(); writeURL(); draw();
    });
    document.addEventListener('dragover', function (e) { e.preventDefault(); document.body.classList.add('dropping'); });
    document.addEventListener('dragleave', function () { document.body.classList.remove('dropping'); });
    document.addEventListener('drop', function (e) {
      e.preventDefault(); document.body.classList.remove('dropping');
      if (e.dataTransfer && e.dataTransfer.files.length) loadFile(e.dataTransfer.files[0]);
    });
    document.addEventListener('visibilitychange', function () { if (document.hidden) pause(); });
    root.addEventListener('resize', drawChart);
  }

  // ---- Scripting (window.mhaExplorer) -------------------------------------------------------------
  function trainFor(steps) {
    pause();
    var left = steps;
    var go = function () {
      if (left <= 0) return Promise.resolve();
      var n = Math.min(left, 50);
      left -= n;
      return trainSteps(n).then(go);
    };
    return go().then(function () { return api.getTraining(); });
  }
  var api = {
    ready: null,
    train: function (o) { return trainFor((o && o.steps) || 1); },
    getTraining: function () {
      var last = curve[curve.length - 1] || { step: 0, loss: NaN, accuracy: NaN };
      var one = twinCurve[twinCurve.length - 1];
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
    load: function (bytes) {
      return trainer.load(bytes).then(function () { if (scriptUntil === null) scriptUntil = currentStep(); }).then(inspect).then(draw);
    },
    script: function (o) { return trainer.script(o || {}); },
    reset: function () { return reset(); },
    set: function (changes) {
      Object.keys(changes).forEach(function (k) {
        var p = PROPS.find(function (x) { return x.name === k; });
        if (!p || parse(p, String(changes[k])) === undefined) throw new Error(k + ' must be ' + (p ? describe(p) : 'a lab setting'));
        values[k] = parse(p, String(changes[k])); explicit[k] = true;
      });
      return reset();
    },
    play: play,
    pause: pause,
  };
  root.mhaExplorer = api;

  readURL();
  applyTheme();
  if (values.embed) document.body.classList.add('embed');
  values.hide.forEach(function (name) { document.querySelector('[data-section="' + name + '"]').hidden = true; });
  document.body.classList.toggle('no-controls', values.hide.indexOf('controls') >= 0);
  showMessages();
  wire();
  api.ready = MhaTrainer.start().then(function (t) {
    trainer = t;
    return reset();
  }).then(function () {
    if (values.autoplay) play();
    root.requestAnimationFrame(tick);
  }, function (err) {
    status('Could not start');
    say('Could not start the training worker: ' + err.message);
  });
})(window);
