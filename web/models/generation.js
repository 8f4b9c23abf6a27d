// MHA Explorer, the model page — "Write on": a causal model generates after the text (model.generate: the core's
// key/value cache, greedy as transformers' generate(do_sample=False), sampled as generate(do_sample=True) under
// torch.manual_seed(seed): docs/analysis.md), one token per task with Stop; the text, the grid and "where a token
// looks" follow it (the new token's row), and each new token opens the top 5 it was drawn from.
// createGeneration(ctx) → {run(options), stop(), read(), update(), dispose()}.
import { el } from '../widgets/dom.js';
import { percent } from './predictions.js';
import { render } from './forward.js';
import { drawLook, drawTokens } from './panels.js';
import { addPanel, readNumber, whyNot, wireCopy } from './analysis-ui.js';
import { generateSnippet } from './analysis-snippets.js';

const MARKUP = `<section class="panel" aria-labelledby="gen-title">
<h2 id="gen-title">Write on</h2>
<p id="gen-how" class="note">The model writes after your text, one token at a time: the grid and “where a token looks” follow each new token. Click a new token to see the 5 most probable tokens it was drawn from.</p>
<div class="mp-row">
<div class="field"><label for="gen-mode">Next token</label><select id="gen-mode"><option value="greedy">the most probable (greedy)</option><option value="sample">sampled</option></select></div>
<div class="field"><label for="gen-max">New tokens</label><input id="gen-max" type="number" min="1" value="20"></div>
</div>
<div id="gen-sampling" class="mp-row" hidden>
<div class="field"><label for="gen-temperature">Temperature</label><input id="gen-temperature" type="number" min="0.01" step="0.1" value="1"></div>
<div class="field"><label for="gen-top-k">Top-k (0: off)</label><input id="gen-top-k" type="number" min="0" value="50"></div>
<div class="field"><label for="gen-top-p">Top-p</label><input id="gen-top-p" type="number" min="0.01" max="1" step="0.05" value="1"></div>
<div class="field"><label for="gen-seed">Seed</label><input id="gen-seed" type="number" min="0" value="0"></div>
</div>
<div class="mp-buttons"><button id="gen-run" class="btn small" type="button">Generate</button><button id="gen-stop" class="btn small" type="button" disabled>Stop</button><button id="gen-copy" class="btn small" type="button">Copy as Python</button></div>
<p id="gen-note" class="note" aria-live="polite"></p>
<div id="gen-tokens" class="chips mp-tokens" role="group" aria-label="The new tokens"></div>
<div class="mp-scroll" tabindex="0" role="region" aria-label="The top 5 a new token was drawn from" hidden><table id="gen-top" class="mp-top"><caption></caption><thead><tr><th scope="col">Token</th><th scope="col">Probability</th></tr></thead><tbody></tbody></table></div>
</section>`;

const STOPPED = {
  length: '',
  eos: 'it wrote the end-of-text token',
  positions: 'the text reached the model’s last position',
  cancelled: 'you stopped it',
  stopped: 'you stopped it',
};

export function createGeneration(ctx) {
  const { $ } = ctx;
  const section = addPanel(ctx, MARKUP);
  const g = { abort: null, steps: [], prompt: null, picked: -1, options: null };
  $('gen-mode').addEventListener('change', () => ($('gen-sampling').hidden = $('gen-mode').value !== 'sample'));
  $('gen-run').addEventListener('click', () => {
    let o;
    try {
      o = readOptions(ctx);
    } catch (err) {
      $('gen-note').textContent = err.message + '.';
      return;
    }
    ctx.track(run(ctx, g, o)).catch((err) => ($('gen-note').textContent = err.message));
  });
  $('gen-stop').addEventListener('click', () => g.abort && g.abort.abort());
  wireCopy(ctx, $('gen-copy'), () => snippetOf(ctx, g));
  const update = () => {
    const why = whyNot(ctx.S, 'generation');
    section.hidden = !!why && !!ctx.S.model;
    $('gen-run').disabled = !!why || !!g.abort;
    if (ctx.S.info) $('gen-max').max = String(ctx.S.info.maxPositions);
  };
  update();
  return {
    run: (o) => ctx.track(run(ctx, g, o || {})),
    stop: () => g.abort && g.abort.abort(),
    read: () => read(ctx, g),
    snippet: () => snippetOf(ctx, g),
    update,
    dispose: () => {
      if (g.abort) g.abort.abort();
      section.remove();
    },
  };
}

// The controls → generate's options (greedy: maxNewTokens alone).
function readOptions(ctx) {
  const { $, S } = ctx;
  const o = { maxNewTokens: readNumber($('gen-max'), 'New tokens', 1, S.info ? S.info.maxPositions : 1e6) };
  if ($('gen-mode').value !== 'sample') return o;
  return Object.assign(o, {
    temperature: readNumber($('gen-temperature'), 'Temperature', 0.01, 100, false),
    topK: readNumber($('gen-top-k'), 'Top-k', 0, S.info.vocab),
    topP: readNumber($('gen-top-p'), 'Top-p', 0.01, 1, false),
    seed: readNumber($('gen-seed'), 'Seed', 0, 2 ** 53 - 1),
  });
}

// Generates after the shown text; each new token shown, the text's views redrawn at most half the time (a redraw's
// own duration waited after it), once more at the end. → {ids, tokens, stopped} (the new tokens).
async function run(ctx, g, options) {
  const { S, $ } = ctx;
  await ctx.ready;
  const why = whyNot(S, 'generation');
  if (why) throw new Error(why);
  if (g.abort) throw new Error('the model is writing already: Stop it first');
  if (!shownIsText(S) && !(await render(ctx))) throw new Error(ctx.messages.text || 'the text gives no tokens');
  Object.assign(g, { abort: new AbortController(), steps: [], picked: -1, options });
  g.prompt = { ids: S.enc.ids.slice(), text: S.text };
  busy(ctx, g, true);
  // the text's views follow each new token: one render at a time, of the latest text (forward.js's coalesce)
  const onToken = ({ id, top }) => {
    g.steps.push({ id, top });
    follow(ctx, g);
    drawSteps(ctx, g);
  };
  const eos = S.vocab.eos;
  try {
    const r = await S.model.generate(
      g.prompt.ids,
      Object.assign(eos >= 0 ? { eos } : {}, options, { onToken, signal: g.abort.signal }),
    );
    $('gen-note').textContent =
      r.ids.length +
      ' new token' +
      (r.ids.length === 1 ? '' : 's') +
      (STOPPED[r.stopped] !== '' ? '; it stopped: ' + (STOPPED[r.stopped] || r.stopped) : '') +
      '.';
    return { ids: r.ids, tokens: r.ids.map((id) => S.vocab.tokenOf(id)), stopped: r.stopped };
  } finally {
    g.abort = null;
    busy(ctx, g, false);
    await follow(ctx, g);
    drawSteps(ctx, g);
  }
}

// Whether the tokens shown are the text's (a render that failed, such as a text too long, leaves the last ones).
function shownIsText(S) {
  if (!S.enc) return false;
  if (S.fixed && S.fixed.text === S.text) return true;
  const ids = S.model.tokenize(S.text).ids;
  return ids.length === S.enc.ids.length && ids.every((id, i) => id === S.enc.ids[i]);
}

function busy(ctx, g, on) {
  const { $ } = ctx;
  $('gen-run').disabled = on;
  $('gen-stop').disabled = !on;
  $('text').readOnly = on;
  ctx.generating = on; // the lens and the attribution wait for the end (generation.js's last redraw)
  if (on) $('gen-note').textContent = 'Writing…';
}

// The text becomes the prompt and the new tokens (their ids kept as they are: render reads S.fixed), drawn with
// "where a token looks" from the newest token. → a promise once drawn.
async function follow(ctx, g) {
  const S = ctx.S;
  if (!g.prompt || !S.model) return;
  const ids = g.prompt.ids.concat(g.steps.map((s) => s.id));
  S.text = g.prompt.text + g.steps.map((s) => S.vocab.decodedOf(s.id)).join('');
  S.fixed = { ids, text: S.text };
  ctx.$('text').value = S.text;
  if (!(await render(ctx)) || !S.enc) return;
  S.query = S.enc.ids.length - 1;
  S.key = -1;
  drawTokens(ctx);
  drawLook(ctx);
}

// The new tokens as chips; the picked one's top 5 below them.
function drawSteps(ctx, g) {
  const { $ } = ctx,
    box = $('gen-tokens');
  box.textContent = '';
  g.steps.forEach((s, i) => {
    const b = box.appendChild(
      el(
        'button',
        { type: 'button', class: 'chip', 'aria-pressed': String(i === g.picked), title: 'id ' + s.id },
        ctx.tokenText(s.id),
      ),
    );
    b.appendChild(el('sub', null, g.prompt.ids.length + i));
    b.addEventListener('click', () => {
      g.picked = i;
      drawSteps(ctx, g);
    });
  });
  const table = $('gen-top'),
    s = g.steps[g.picked];
  table.parentNode.hidden = !s;
  if (!s) return;
  table.querySelector('caption').textContent = 'Token ' + (g.prompt.ids.length + g.picked) + ' was drawn from';
  const tb = table.querySelector('tbody');
  tb.textContent = '';
  for (const t of s.top) {
    const tr = tb.appendChild(el('tr', t.id === s.id ? { class: 'mp-follow' } : null));
    tr.appendChild(el('td', null, ctx.tokenText(t.id)));
    tr.appendChild(el('td', { class: 'p' }, percent(t.prob)));
  }
}

// getGeneration(): the last generation's prompt and new tokens, each with the top 5 it was drawn from.
function read(ctx, g) {
  const S = ctx.S;
  if (!g.prompt) return null;
  const named = (id) => ({ id, token: S.vocab.tokenOf(id), text: ctx.tokenText(id) });
  return {
    prompt: g.prompt.ids.slice(),
    options: Object.assign({}, g.options),
    running: !!g.abort,
    steps: g.steps.map((s) =>
      Object.assign(named(s.id), { top: s.top.map((t) => Object.assign(named(t.id), { prob: t.prob })) }),
    ),
  };
}

function snippetOf(ctx, g) {
  const S = ctx.S;
  const o = g.options || (S.info ? readOptionsOr(ctx) : {});
  return generateSnippet({
    folder: S.source.folder || 'path/to/the/model/folder',
    dropped: S.source.dropped,
    text: g.prompt ? g.prompt.text : S.text,
    ids: g.prompt ? g.prompt.ids : S.enc ? S.enc.ids : [],
    options: o,
    eos: S.vocab.eos,
  });
}
function readOptionsOr(ctx) {
  try {
    return readOptions(ctx);
  } catch {
    return { maxNewTokens: 20 };
  }
}
