// MHA Explorer — widgets: canvas heatmaps (ImageData, scales to 512 tokens), colour scales,
// token chips, the shape-trace table, the pipeline diagram, the BertViz-style line view, exports.
// An ES module, bundled by web/build.mjs (esbuild) into a classic script: file:// keeps working. Everything user-provided is written with textContent, never innerHTML.
const root = typeof self !== 'undefined' ? self : globalThis;

  // ---- Colour scales -------------------------------------------------------------------------
  var ANCHORS = {
    // matplotlib 'Blues' (ColorBrewer), the lesson's scale
    blues: ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'],
    // 'cividis': perceptually uniform and readable with colour-vision deficiencies
    cividis: ['#00224e', '#123570', '#3b496c', '#575d6d', '#707173', '#8a8779', '#a69d75', '#c4b56c', '#e4cf5b', '#fee838']
  };
  var LUTS = {};
  function hex(h) { return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]; }
  function lut(name) {
    if (LUTS[name]) return LUTS[name];
    var a = ANCHORS[name].map(hex), out = new Uint8ClampedArray(256 * 3);
    for (var i = 0; i < 256; i++) {
      var t = i / 255 * (a.length - 1), k = Math.min(a.length - 2, Math.floor(t)), f = t - k;
      for (var c = 0; c < 3; c++) out[i * 3 + c] = Math.round(a[k][c] * (1 - f) + a[k + 1][c] * f);
    }
    return (LUTS[name] = out);
  }
  function colorOf(name, t) {
    var L = lut(name), i = Math.max(0, Math.min(255, Math.round(t * 255)));
    return 'rgb(' + L[i * 3] + ',' + L[i * 3 + 1] + ',' + L[i * 3 + 2] + ')';
  }
  function rangeOf(data, norm) {
    if (norm === 'one') return 1;
    var mx = 0;
    for (var i = 0; i < data.length; i++) if (data[i] > mx) mx = data[i];
    return mx > 0 ? mx : 1;
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === 'class') e.className = attrs[k]; else e.setAttribute(k, attrs[k]);
    });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#444'; }
  function shortLabel(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '…' : s; }

  // Theme colours used by the canvases, read once per theme (getComputedStyle forces a style recalc).
  var colorCache = { theme: null, colors: null };
  function themeColors() {
    var t = document.documentElement.getAttribute('data-theme') || '';
    if (colorCache.theme !== t) {
      colorCache = { theme: t, colors: { border: cssVar('--border'), fgMuted: cssVar('--fg-muted'), accent: cssVar('--accent'),
        line: cssVar('--line') } };
    }
    return colorCache.colors;
  }

  // ---- Heatmap ---------------------------------------------------------------------------------
  // mat: {S, data (S*S)}; opts: {labels, scale, norm, size (CSS px of the plot), showLabels, selected}
  // Incremental: the frame (canvas size, axis labels) is redrawn only when its key changes; otherwise
  // a redraw is one putImageData into an S×S scratch canvas, one unsmoothed drawImage of it over the plot
  // area, the border and the selected cell.
  var scratch = null;   // every heatmap of one draw has the same S
  function scratchFor(S) {
    if (!scratch || scratch.canvas.width !== S) {
      var c = document.createElement('canvas'); c.width = S; c.height = S;
      var x = c.getContext('2d'), img = x.createImageData(S, S);
      scratch = { canvas: c, ctx: x, img: img, px: new Uint32Array(img.data.buffer) };
    }
    return scratch;
  }
  var LUT32 = {};
  var LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  function lut32(name) {
    if (LUT32[name]) return LUT32[name];
    var L = lut(name), out = new Uint32Array(256);
    for (var i = 0; i < 256; i++) {
      var r = L[i * 3], g = L[i * 3 + 1], b = L[i * 3 + 2];
      out[i] = LITTLE ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
    }
    return (LUT32[name] = out);
  }
  var LABEL_FONT = '10px sans-serif';
  function drawHeatmap(canvas, mat, opts) {
    var S = mat.S, labels = opts.labels;
    var dpr = root.devicePixelRatio || 1;
    var showLabels = !!(opts.showLabels && labels && S <= 64);
    var col = themeColors();
    var plot = opts.size, cell = plot / S;
    var st = canvas._hm, ctx;
    var key = S + '|' + plot + '|' + dpr + '|' + col.border + '|' + col.fgMuted + '|' +
      (showLabels ? labels.slice(0, S).join('\u0001') : '-');
    if (!st || st.key !== key) {
      ctx = canvas.getContext('2d');
      ctx.font = LABEL_FONT;
      // margins from the labels as drawn: row labels on the left, column labels rotated 45° up and to the
      // right (the last ones reach past the plot's right edge by about 0.71 of their width)
      var marginL = 0, marginT = 0, marginR = 0;
      if (showLabels) {
        var w = 0;
        for (var i = 0; i < S; i++) w = Math.max(w, ctx.measureText(shortLabel(labels[i], 10)).width);
        marginL = Math.ceil(w) + 6; marginT = Math.ceil(w * 0.71) + 12;
        marginR = Math.max(0, Math.ceil(w * 0.71 + 6 - cell / 2));
      }
      var cssW = marginL + plot + 2 + marginR, cssH = marginT + plot + 2;
      var pw = Math.round(cssW * dpr), ph = Math.round(cssH * dpr);
      if (canvas.width !== pw || canvas.height !== ph) { canvas.width = pw; canvas.height = ph; }
      if (canvas.style.width !== cssW + 'px') canvas.style.width = cssW + 'px';
      if (canvas.style.height !== cssH + 'px') canvas.style.height = cssH + 'px';
      ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, pw, ph);
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.font = LABEL_FONT;   // set again: resizing the canvas resets the context
      if (showLabels) {
        ctx.fillStyle = col.fgMuted;
        ctx.textBaseline = 'middle'; ctx.textAlign = 'right';
        for (var r = 0; r < S; r++) ctx.fillText(shortLabel(labels[r], 10), marginL - 4, marginT + 1 + (r + 0.5) * cell);
        ctx.textAlign = 'left';
        for (var c = 0; c < S; c++) {
          ctx.save();
          ctx.translate(marginL + 1 + (c + 0.5) * cell, marginT - 4);
          ctx.rotate(-Math.PI / 4);
          ctx.fillText(shortLabel(labels[c], 10), 0, 0);
          ctx.restore();
        }
      }
      st = canvas._hm = { key: key, ctx: ctx, marginL: marginL, marginT: marginT };
      canvas._geom = { x0: marginL + 1, y0: marginT + 1, cell: cell, S: S };
    }
    ctx = st.ctx;
    var mL = st.marginL, mT = st.marginT;
    // pixels: one ImageData texel per cell, scaled without smoothing (opaque: covers the previous plot)
    var sc = scratchFor(S), px = sc.px, L = lut32(opts.scale), data = mat.data, vmax = opts.vmax || rangeOf(data, opts.norm);
    var k = 255 / vmax;
    for (var p = 0, n = S * S; p < n; p++) {
      var t = (data[p] * k + 0.5) | 0;   // round to the nearest of 256 colours; NaN gives 0
      px[p] = L[t > 255 ? 255 : t < 0 ? 0 : t];
    }
    sc.ctx.putImageData(sc.img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(sc.canvas, 0, 0, S, S, mL + 1, mT + 1, plot, plot);
    ctx.strokeStyle = col.border; ctx.lineWidth = 1;
    ctx.strokeRect(mL + 0.5, mT + 0.5, plot + 1, plot + 1);
    if (opts.selected) {
      ctx.strokeStyle = col.accent; ctx.lineWidth = 2;
      var sq = opts.selected;
      ctx.strokeRect(mL + 1 + sq[1] * cell, mT + 1 + sq[0] * cell, cell, cell);
    }
    return canvas._geom;
  }
  function cellAt(canvas, evt) {
    var g = canvas._geom; if (!g) return null;
    var r = canvas.getBoundingClientRect();
    var x = (evt.clientX - r.left) * (parseFloat(canvas.style.width) / r.width) - g.x0;
    var y = (evt.clientY - r.top) * (parseFloat(canvas.style.height) / r.height) - g.y0;
    var col = Math.floor(x / g.cell), row = Math.floor(y / g.cell);
    if (col < 0 || row < 0 || col >= g.S || row >= g.S) return null;
    return [row, col];
  }
  // The k largest weights of a row, largest first: one pass with a small sorted list (S log S sorting of
  // every row cost ~100 ms at S = 512).
  function topKeys(mat, row, k) {
    var S = mat.S, d = mat.data, off = row * S, idx = [], val = [];
    for (var j = 0; j < S; j++) {
      var v = d[off + j];
      if (idx.length === k && !(v > val[k - 1])) continue;
      var p = Math.min(idx.length, k - 1);
      while (p > 0 && v > val[p - 1]) { if (p < k) { idx[p] = idx[p - 1]; val[p] = val[p - 1]; } p--; }
      idx[p] = j; val[p] = v;
    }
    return idx;
  }

  // ---- Colour legend ----------------------------------------------------------------------------
  function legend(container, scale, vmax) {
    if (container._key === scale + '|' + vmax) return;   // unchanged: keep the DOM
    container._key = scale + '|' + vmax;
    container.textContent = '';
    var bar = el('span', { class: 'legend-bar', 'aria-hidden': 'true' });
    var stops = [];
    for (var i = 0; i <= 8; i++) stops.push(colorOf(scale, i / 8));
    bar.style.background = 'linear-gradient(90deg,' + stops.join(',') + ')';
    container.appendChild(el('span', { class: 'legend-lo' }, '0'));
    container.appendChild(bar);
    container.appendChild(el('span', { class: 'legend-hi' }, vmax));
  }

  // ---- Token chips --------------------------------------------------------------------------------
  function chips(container, tokens, max) {
    var n = Math.min(tokens.length, max || 80);
    var key = tokens.length + '|' + n + '|' + tokens.slice(0, n).join('\u0001');
    if (container._key === key && container.firstChild) return;   // unchanged: keep the DOM
    container._key = key;
    container.textContent = '';
    for (var i = 0; i < n; i++) {
      var c = el('span', { class: 'chip', title: 'token ' + i }, tokens[i]);
      c.appendChild(el('sub', null, i));
      container.appendChild(c);
    }
    if (tokens.length > n) container.appendChild(el('span', { class: 'chip more' }, '+' + (tokens.length - n) + ' more'));
  }

  // ---- Shape trace table + pipeline ----------------------------------------------------------------
  var STAGES = ['Mix', 'Split', 'Attend', 'Concat', 'Mix'];
  var STAGE_HELP = ['W_q, W_k, W_v: each output dim mixes all D inputs', 'view + transpose into [B, H, S, d_k]',
    'softmax(QKᵀ/√d_k)·V per head, in parallel', 'transpose back + contiguous().view to [B, S, D]',
    'W_o blends the heads'];
  // The trace's wording lives here: the core gives each step's op, shape and strides; the page names it.
  // Each row: {stage (0 Mix, 1 Split, 2 Attend, 3 Concat, 4 Mix), label, expr, description}. A model's trace
  // (the training lab) adds tokens, embedding, residual and readout rows, and tags each layer's steps.
  // mask: the masked_fill arguments of a masked forward ("mask == 0, -1e9"), or none.
  function traceWords(trace, mask) {
    var first = trace[0] && trace[0].shape || [], B = first[0], S = first[1], D = first[2], attended = false;
    var modelTrace = trace.some(function (t) { return t.layer !== undefined; }), readout = 0;
    return trace.map(function (t) {
      var w = stepWords(t);
      if (t.layer !== undefined) w.label = 'Layer ' + t.layer + ': ' + w.label;
      return w;
    });
    function stepWords(t) {
      var sh = t.shape || [], H = sh.length === 4 ? (t.op === 'view' ? sh[2] : sh[1]) : 0, dk = sh[3];
      var src = modelTrace ? 'h' : 'x';
      switch (t.op) {
        case 'tokens':
          S = sh[1];
          return { stage: 0, label: 'Input tokens', expr: 'x', description: 'One sequence of ' + S + ' token ids' };
        case 'embedding':
          D = sh[2];
          return { stage: 0, label: 'Token + position embedding', expr: 'h = self.tok(x) + self.pos(torch.arange(' + S + '))',
            description: 'Each token becomes a ' + D + '-dim vector: its token row plus its position row' };
        case 'input':
          return { stage: 0, label: 'Input x', expr: 'x', description: 'Raw input: ' + B + ' sequence' + (B === 1 ? '' : 's') +
            ' of ' + S + ' token' + (S === 1 ? '' : 's') + ', each a ' + D + '-dim embedding' };
        case 'linear':
          if (attended) { attended = false; return { stage: 4, label: 'After W_o(x)', expr: 'self.W_o(attn_output)', description: 'Final projection: mixes the heads\' outputs' }; }
          return { stage: 0, label: 'After W_q(' + src + ')', expr: 'Q = self.W_q(' + src + ')', description: 'Linear projection (still flat): every output dim mixes all ' + (sh[2] || D) + ' input dims' };
        case 'view':
          return { stage: 1, label: 'After .view(' + sh.join(', ') + ')', expr: 'Q.view(' + sh.join(', ') + ')',
            description: 'Reshape: split ' + (H * dk) + ' dims into ' + H + ' heads × ' + dk + ' dims each (no copy)' };
        case 'transpose':
          return attended ? { stage: 3, label: 'After .transpose(1, 2)', expr: 'attn_output.transpose(1, 2)',
            description: 'Swap back: prepare for concatenation (not contiguous)' }
            : { stage: 1, label: 'After .transpose(1, 2)', expr: 'Q.view(' + [sh[0], sh[2], sh[1], dk].join(', ') + ').transpose(1, 2)',
              description: 'Swap seq and heads: now ' + H + ' parallel attention mechanisms (strides change, no copy)' };
        case 'attention':
          attended = true;
          var scores = 'Q @ K.transpose(-2, -1) / math.sqrt(' + dk + ')';
          return { stage: 2, label: 'Attention computation',
            expr: 'torch.softmax(' + (mask ? '(' + scores + ').masked_fill(' + mask + ')' : scores) + ', dim=-1) @ V',
            description: 'Each head computes attention independently; weights are [' + (t.weights || [sh[0], H, sh[2], sh[2]]).join(', ') + ']' };
        case 'contiguous_view':
          return { stage: 3, label: 'After .contiguous().view(' + sh.join(', ') + ')', expr: 'attn_output.transpose(1, 2).contiguous().view(' + sh.join(', ') + ')',
            description: 'Flatten: merge the heads back into one ' + sh[2] + '-dim vector (copies)' };
        case 'residual':
          return { stage: 4, label: 'Residual add', expr: 'h = h + layer(h, h, h, mask)', description: 'The layer\'s output is added to its input' };
        case 'readout':
          return { stage: 4, label: 'Readout ' + readout, expr: 'self.readouts[' + (readout++) + '](h)', description: 'Scores for each of the ' + sh[2] + ' tokens of the vocabulary, at every position' };
        default:
          return { stage: attended ? 3 : 1, label: String(t.op), expr: '', description: '' };
      }
    }
  }

  // onFocus(i): a row was hovered or focused (rows are focusable only then); mask: as traceWords'.
  function traceTable(tbody, trace, onFocus, mask) {
    var key = JSON.stringify(trace) + '|' + (mask || '');
    if (tbody._key === key && tbody.childNodes.length === trace.length) return;   // unchanged
    tbody._key = key;
    tbody.textContent = '';
    var words = traceWords(trace, mask);
    trace.forEach(function (t, i) {
      var w = words[i];
      var tr = el('tr', onFocus ? { 'data-step': String(i), tabindex: '0', 'data-stage': String(w.stage) } : { 'data-step': String(i), 'data-stage': String(w.stage) });
      tr.appendChild(el('td', { class: 'num', 'data-label': '#' }, i));
      var stepCell = el('td', { 'data-label': 'Operation' });
      stepCell.appendChild(el('div', null, w.label));
      if (w.description) stepCell.appendChild(el('small', { class: 'desc' }, w.description));
      tr.appendChild(stepCell);
      var code = el('td', { 'data-label': 'PyTorch' }); code.appendChild(el('code', null, w.expr)); tr.appendChild(code);
      tr.appendChild(el('td', { class: 'mono', 'data-label': 'Shape' }, '[' + (t.shape || []).join(', ') + ']'));
      tr.appendChild(el('td', { class: 'mono', 'data-label': 'Strides' }, t.strides ? '(' + t.strides.join(', ') + ')' : ''));
      var ok = t.contiguous;
      tr.appendChild(el('td', { class: ok ? 'yes' : 'no', 'data-label': 'Contiguous' }, ok ? 'yes' : 'no'));
      if (onFocus) {
        tr.addEventListener('mouseenter', function () { onFocus(i); });
        tr.addEventListener('focus', function () { onFocus(i); });
        tr.addEventListener('keydown', function (e) {
          if (e.key === 'ArrowDown' && tr.nextSibling) { e.preventDefault(); tr.nextSibling.focus(); }
          if (e.key === 'ArrowUp' && tr.previousSibling) { e.preventDefault(); tr.previousSibling.focus(); }
        });
      }
      tbody.appendChild(tr);
    });
  }
  function pipeline(container) {
    container.textContent = '';
    STAGES.forEach(function (s, i) {
      if (i) container.appendChild(el('span', { class: 'arrow', 'aria-hidden': 'true' }, '→'));
      var b = el('div', { class: 'stage', 'data-stage': String(i), title: STAGE_HELP[i] });
      b.appendChild(el('strong', null, s));
      b.appendChild(el('small', null, STAGE_HELP[i]));
      container.appendChild(b);
    });
  }

  // ---- Line view (BertViz head view) ----------------------------------------------------------------
  var SVGNS = 'http://www.w3.org/2000/svg';
  function svgEl(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  // Incremental: the frame (size, column heads, token labels) is rebuilt only when its key changes; the
  // lines are a pool of <line> elements whose attributes are written only when their value changes.
  // Writes attribute k only when v differs from what this function last wrote there (no DOM read).
  function setAttr(e, k, v) { if (e['_' + k] !== v) { e['_' + k] = v; e.setAttribute(k, v); } }
  // Lines from each query to its keys. Up to LINE_ROWS tokens every query is drawn with its keys; above
  // that the view shows one query (opts.query: the selected or hovered row) and its LINE_TOP strongest keys,
  // labelled, so it stays readable and small at any S.
  var LINE_ROWS = 48, LINE_TOP = 8;
  function lineView(svg, mat, labels, opts) {
    var S = mat.S, width = opts.width || 360, accent = themeColors().line, colL = 110, colR = width - 110;
    var compact = S > LINE_ROWS;
    var q = compact ? Math.max(0, Math.min(S - 1, opts.focus != null ? opts.focus : opts.query || 0)) : null;
    var keys = compact ? topKeys(mat, q, LINE_TOP).filter(function (j) { return mat.data[q * S + j] > 0; }) : null;
    var rowH = compact ? 22 : S <= 24 ? 22 : 14, rows = compact ? LINE_TOP : S, H = rows * rowH + 30;
    var focus = compact ? null : opts.focus;
    var key = [S, width, focus, accent, compact ? q + ':' + keys.join(',') : labels.slice(0, S).join('\u0001')].join('\u0002');
    var st = svg._lv;
    if (!st || st.key !== key) {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      svg.setAttribute('viewBox', '0 0 ' + width + ' ' + H);
      svg.setAttribute('width', width); svg.setAttribute('height', H);
      svg.appendChild(svgEl('text', { x: colL - 8, y: 14, 'text-anchor': 'end', class: 'lv-head' }, 'query'));
      svg.appendChild(svgEl('text', { x: colR + 8, y: 14, class: 'lv-head' }, compact ? 'its ' + keys.length + ' strongest keys (of ' + S + ')' : 'key'));
      var g0 = svgEl('g', {});
      svg.appendChild(g0);
      var y = function (r) { return 26 + (r + 0.5) * rowH + 4; };
      if (compact) {
        svg.appendChild(svgEl('text', { x: colL - 8, y: y((rows - 1) / 2), 'text-anchor': 'end', class: 'lv-tok on', 'data-q': q },
          shortLabel(labels[q], 14) + ' (' + q + ')'));
        keys.forEach(function (j, r) {
          svg.appendChild(svgEl('text', { x: colR + 8, y: y(r), class: 'lv-tok' }, shortLabel(labels[j], 10) + ' (' + j + ') ' +
            mat.data[q * S + j].toFixed(3)));
        });
      } else {
        for (var r = 0; r < S; r++) {
          svg.appendChild(svgEl('text', { x: colL - 8, y: y(r), 'text-anchor': 'end',
            class: 'lv-tok' + (focus === r ? ' on' : ''), 'data-q': r, tabindex: '-1' }, shortLabel(labels[r], 14)));
          svg.appendChild(svgEl('text', { x: colR + 8, y: y(r), class: 'lv-tok' }, shortLabel(labels[r], 14)));
        }
      }
      st = svg._lv = { key: key, g: g0, pool: [] };
    }
    var g = st.g, pool = st.pool, n = 0, data = mat.data;
    var line = function (yq, yk, w) {
      var ln = pool[n];
      if (!ln) { ln = pool[n] = svgEl('line', { x1: colL, x2: colR, stroke: accent }); g.appendChild(ln); }
      setAttr(ln, 'y1', yq); setAttr(ln, 'y2', yk);
      setAttr(ln, 'stroke-width', Math.max(0.5, Math.min(4, w * 5))); setAttr(ln, 'stroke-opacity', Math.min(1, 0.2 + w * 1.2));
      n++;
    };
    if (compact) {
      keys.forEach(function (j, r) { line(26 + rows / 2 * rowH, 26 + (r + 0.5) * rowH, data[q * S + j]); });
    } else {
      for (var i = 0; i < S; i++) {
        if (focus != null && focus !== i) continue;
        for (var j = 0; j < S; j++) {
          var w = data[i * S + j];
          if (w >= 0.01) line(26 + (i + 0.5) * rowH, 26 + (j + 0.5) * rowH, w);
        }
      }
    }
    for (var k = pool.length - 1; k >= n; k--) g.removeChild(pool[k]);
    pool.length = n;
  }
  function matrixTable(mat, labels, caption) {
    var S = mat.S, t = el('table', { class: 'matrix' });
    t.appendChild(el('caption', null, caption));
    var head = el('tr'); head.appendChild(el('th', { scope: 'col' }, 'query \\ key'));
    for (var j = 0; j < S; j++) head.appendChild(el('th', { scope: 'col' }, labels[j]));
    var thead = el('thead'); thead.appendChild(head); t.appendChild(thead);
    var tb = el('tbody');
    for (var i = 0; i < S; i++) {
      var tr = el('tr'); tr.appendChild(el('th', { scope: 'row' }, labels[i]));
      for (j = 0; j < S; j++) tr.appendChild(el('td', null, mat.data[i * S + j].toFixed(4)));
      tb.appendChild(tr);
    }
    t.appendChild(tb);
    return t;
  }

  // ---- Export --------------------------------------------------------------------------------------
  // Exports carry what a reader needs to interpret them: every heatmap shown (the average too), a colour
  // legend with its numbers, and the configuration (info: {caption, scale, norm, vmax}).
  function legendStops(scale) { var st = []; for (var i = 0; i <= 8; i++) st.push(colorOf(scale, i / 8)); return st; }
  function legendHi(info) { return info.norm === 'max' ? 'each heatmap\'s max' : info.vmax >= 0.1 ? info.vmax.toFixed(2) : info.vmax.toPrecision(2); }
  function exportSVG(mats, labels, names, info) {
    var S = mats[0].S, cell = S <= 32 ? 16 : S <= 128 ? 4 : 1, plot = S * cell, lab = S <= 32 ? 70 : 0;
    var cols = Math.min(4, mats.length), rows = Math.ceil(mats.length / cols);
    var pw = lab + plot + 20, ph = lab + plot + 40, top = 56;
    var W = Math.max(cols * pw, 420);
    var esc = function (s) { return String(s).replace(/[&<>"']/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); };
    var out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + (top + rows * ph) +
      '" font-family="sans-serif" font-size="10"><rect width="100%" height="100%" fill="#fff"/>'];
    out.push('<text x="8" y="18" font-size="12">' + esc(info.caption) + '</text>');
    out.push('<defs><linearGradient id="legend">' + legendStops(info.scale).map(function (c, i) {
      return '<stop offset="' + (i / 8) + '" stop-color="' + c + '"/>';
    }).join('') + '</linearGradient></defs>');
    out.push('<text x="8" y="42">0</text><rect x="20" y="32" width="140" height="12" fill="url(#legend)" stroke="#999"/>' +
      '<text x="166" y="42">' + esc(legendHi(info)) + '</text>');
    mats.forEach(function (m, h) {
      var ox = (h % cols) * pw + lab, oy = top + Math.floor(h / cols) * ph + lab + 20;
      var vmax = info.norm === 'shared' ? info.vmax : rangeOf(m.data, info.norm);
      out.push('<text x="' + ox + '" y="' + (oy - lab - 4) + '" font-size="13" font-weight="bold">' + esc(names[h]) + '</text>');
      for (var i = 0; i < S; i++) for (var j = 0; j < S; j++) {
        out.push('<rect x="' + (ox + j * cell) + '" y="' + (oy + i * cell) + '" width="' + cell + '" height="' + cell +
          '" fill="' + colorOf(info.scale, m.data[i * S + j] / vmax) + '"><title>' + esc(labels[i]) + ' → ' + esc(labels[j]) + ': ' +
          m.data[i * S + j].toFixed(4) + '</title></rect>');
      }
      if (lab) for (i = 0; i < S; i++) {
        out.push('<text x="' + (ox - 4) + '" y="' + (oy + (i + 0.7) * cell) + '" text-anchor="end">' + esc(shortLabel(labels[i], 10)) + '</text>');
        out.push('<text transform="translate(' + (ox + (i + 0.6) * cell) + ',' + (oy - 4) + ') rotate(-45)">' + esc(shortLabel(labels[i], 10)) + '</text>');
      }
    });
    out.push('</svg>');
    return out.join('');
  }
  function exportPNG(canvases, names, info) {
    var pad = 12, title = 20, top = 58, cols = Math.min(4, canvases.length), cw = 0, ch = 0;
    canvases.forEach(function (c) { cw = Math.max(cw, c.width); ch = Math.max(ch, c.height); });
    var rows = Math.ceil(canvases.length / cols);
    var out = document.createElement('canvas');
    out.width = Math.max(cols * (cw + pad) + pad, 480); out.height = top + rows * (ch + title + pad) + pad;
    var ctx = out.getContext('2d');
    ctx.fillStyle = cssVar('--bg-card'); ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = cssVar('--fg'); ctx.font = '13px system-ui, sans-serif';
    ctx.fillText(info.caption, pad, pad + 12);
    var grad = ctx.createLinearGradient(pad + 14, 0, pad + 154, 0);
    legendStops(info.scale).forEach(function (c, i) { grad.addColorStop(i / 8, c); });
    ctx.fillText('0', pad, pad + 38);
    ctx.fillStyle = grad; ctx.fillRect(pad + 14, pad + 27, 140, 12);
    ctx.fillStyle = cssVar('--fg'); ctx.fillText(legendHi(info), pad + 160, pad + 38);
    ctx.font = 'bold 14px system-ui, sans-serif';
    canvases.forEach(function (c, i) {
      var x = pad + (i % cols) * (cw + pad), y = top + Math.floor(i / cols) * (ch + title + pad);
      ctx.fillText(names[i], x, y + 14);
      ctx.drawImage(c, x, y + title);
    });
    return out;
  }
  function download(name, blob) {
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob); a.download = name;
    document.body.appendChild(a); a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }

  const widgets = {
    el: el, setAttr: setAttr, lut: lut, colorOf: colorOf, rangeOf: rangeOf, drawHeatmap: drawHeatmap, cellAt: cellAt, topKeys: topKeys,
    legend: legend, chips: chips, traceTable: traceTable, pipeline: pipeline, lineView: lineView,
    matrixTable: matrixTable, exportSVG: exportSVG, exportPNG: exportPNG, download: download, shortLabel: shortLabel,
    STAGES: STAGES, traceWords: traceWords, LINE_ROWS: LINE_ROWS, LINE_TOP: LINE_TOP
  };
export default widgets;
