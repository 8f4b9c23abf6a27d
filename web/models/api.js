// MHA Explorer, the model page — its script API (window.mhaExplorer): ready (a promise of whether a model and its text
// are shown, once the latest load or change has settled), getWeights() → {shape: [L, 1, H, T, T], data}, getTokens(), getText(),
// set({text}), load({files}), ablate(heads) → the new top 5, and what the tests read (ids, info, messages, role
// scores, the repeated sequence, the top 5s, the snippet, the selection). ctx: context.js's; loading: loading.js's.
import { folderOf } from './files.js';
import { render, setHeadsOff } from './forward.js';
import { select, snippet } from './panels.js';
import { predictionRows } from './predictions.js';
import { computeEmbeddings, drawEmbedding, embeddingOut } from './embedding.js';

// getTop(): the predictions panel's rows (predictions.js), each with the token's raw and shown strings.
function topOf(ctx) {
  const S = ctx.S,
    rows = predictionRows(S),
    f = rows.follow;
  const named = (r) => r && Object.assign({ token: S.vocab.tokenOf(r.id), text: ctx.tokenText(r.id) }, r);
  return {
    position: S.pos,
    full: rows.full.map(named),
    ablated: rows.ablated.map(named),
    follow: f && { id: f.id, text: ctx.tokenText(f.id), full: named(f.full), ablated: named(f.ablated) },
    headsOff: S.headsOff.map((x) => x.slice()),
  };
}

// What the API reads and returns as copies (weights, tokens, text, ids, info, messages, role scores, the repeated
// sequence).
function readers(ctx) {
  const S = ctx.S;
  return {
    // {ablated: true}: the attentions with the heads off (the full model's when none is off)
    getWeights: (o) => {
      // (null while the grid shows the full model: the heads-off forward then computes no attentions)
      const a = S.out && (o && o.ablated && S.headsOff.length ? S.offOut : S.out.attentions);
      return a ? { shape: a.shape.slice(), data: new Float32Array(a.data) } : null;
    },
    getTokens: () => (S.enc ? S.enc.tokens.slice() : []), // as the tokenizer gives them (Ġ, ##)
    getTokenTexts: () => (S.enc ? S.enc.texts.slice() : []), // as the page shows them (decoded, ␣ ↵ · marked)
    getText: () => S.text, // the text asked for (its tokens are getTokens() once ready settles)
    getIds: () => (S.enc ? S.enc.ids.slice() : []),
    getInfo: () => (S.info ? Object.assign({}, S.info) : null),
    getMessages: () => Object.values(ctx.messages).filter(Boolean),
    getRoles: () =>
      S.scores ? Object.fromEntries(Object.entries(S.scores).map(([k, v]) => [k, Array.from(v)])) : null,
    getRepeat: () =>
      S.repeat
        ? { ids: S.repeat.layout.ids.slice(), start: S.repeat.layout.start, length: S.repeat.layout.length }
        : null,
  };
}

// set({text, other}): the text (its forward) or the second text of the sentence embedding. → ctx.ready.
function setValues(ctx, o) {
  const S = ctx.S;
  if (o && o.text != null) {
    S.text = String(o.text);
    ctx.$('text').value = S.text;
  }
  if (o && o.other != null) {
    S.other = String(o.other);
    ctx.$('other').value = S.other;
    if (o.text == null) {
      ctx.ready = ctx.ready.then(async () => {
        if (S.out) (await computeEmbeddings(ctx), drawEmbedding(ctx));
        return !!S.out;
      });
      return ctx.ready;
    }
  }
  ctx.cancelledText = null; // asked again: computed even after a Cancel
  ctx.ready = ctx.ready.then(() => render(ctx)).then((ok) => ok && Promise.resolve(ctx.ablation).then(() => !!S.out));
  return ctx.ready;
}

export function createApi(ctx, loading) {
  const S = ctx.S;
  // forward: whether the call needs the text's forward too (select needs the model only)
  const need = (forward = true) => {
    if (!S.model || (forward && !S.out))
      throw new Error('no model is loaded: drop a model folder, or call load({files})');
  };
  // after dispose (an element removed from its page): nothing loads or runs
  const gone = () => !!ctx.signal && ctx.signal.aborted,
    removed = () => Promise.reject(new Error('this model page was removed from its page'));
  const topOut = (list) => list.map((t) => ({ id: t.id, token: S.vocab.tokenOf(t.id), prob: t.prob }));
  return {
    get ready() {
      return ctx.ready;
    },
    ...readers(ctx),
    getTop: () => topOf(ctx),
    // follows a token in the predictions (as the "Follow a token" box): → its id, or -1 when it is not one token
    follow: (text) => {
      need();
      ctx.$('follow').value = String(text);
      ctx.$('follow').dispatchEvent(new Event('input'));
      return S.follow.id;
    },
    getModel: () => S.model, // the core's Model (wasm/api/models.js): forward, tokenize, info (the benchmark times it)
    getSentence: () => embeddingOut(S), // a sentence-transformers model's embeddings and cosines, else null
    getSnippet: () => (S.model ? snippet(ctx) : null),
    getSelection: () => Object.assign({}, S.sel),
    select: (s) => {
      need(false);
      const pick = (v, now, n, what) => {
        if (v == null) return now;
        if (!(Number.isInteger(+v) && +v >= 0 && +v < n))
          throw new Error(what + ' must be a whole number from 0 to ' + (n - 1) + ', got ' + JSON.stringify(v));
        return +v;
      };
      select(ctx, pick(s.layer, S.sel.layer, S.info.layers, 'layer'), pick(s.head, S.sel.head, S.info.heads, 'head'));
    },
    set: (o) => (gone() ? Promise.resolve(false) : setValues(ctx, o)),
    load: (o) => {
      if (gone()) return removed();
      const files = Array.from((o && o.files) || []);
      return ctx
        .track(
          loading.loadFiles(files, {
            folder: (o && o.folder) || folderOf(files),
            dropped: !(o && o.dropped === false),
          }),
        )
        .then(() => true);
    },
    loadURL: (value) => (gone() ? removed() : ctx.track(loading.loadFromURL(value)).then(() => true)),
    ...headsApi(ctx, need, topOut),
    cancel: loading.cancel,
    // the busy sign's state: {computing, stale, words} (its Cancel: the button)
    // worker: whether the model runs in its worker (else on the page's thread)
    getBusy: () =>
      Object.assign(ctx.busy.state(), {
        worker: !!ctx.host && !ctx.host.local,
        restarts: ctx.host ? ctx.host.restarts : 0,
      }),
  };
}

// The heads' part of the API: switching heads off and the norm view.
function headsApi(ctx, need, topOut) {
  const S = ctx.S;
  return {
    // heads switched off, {ablation: 'zero' | 'mean' | 'resample', text: resample's other text} (each when given)
    ablate: (heads, how) => {
      need();
      if (how && how.ablation != null && !['zero', 'mean', 'resample'].includes(how.ablation))
        throw new Error("ablation must be 'zero', 'mean' or 'resample', got " + JSON.stringify(how.ablation));
      if (how)
        Object.assign(
          S,
          how.ablation != null ? { ablation: how.ablation } : {},
          how.text != null ? { resampleText: String(how.text) } : {},
        );
      if (ctx.ablationMode) ctx.ablationMode.update();
      return ctx.track(setHeadsOff(ctx, heads || [])).then(() => topOut(S.headsOff.length ? S.ablated : S.full));
    },
    getAblation: () => ({ ablation: S.ablation, text: S.resampleText, headsOff: S.headsOff.map((x) => x.slice()) }),
    // the norm view: 'norm' (α·‖v·W_O‖) or 'attention' → a promise once drawn; getWrites(): [L, H, T] of the text
    setWeighting: (w) => {
      need();
      return ctx.track(ctx.writesView.set(w));
    },
    getWrites: (o) => {
      const w = o && o.ablated ? S.offWrites : S.writes;
      return w ? { shape: w.shape.slice(), data: Array.from(w.data) } : null;
    },
    // the maps the grid draws (the norm view's α·‖v·W_O‖, the ablated model's as the grid shows it)
    getShownWeights: () => {
      const a = S.out && ctx.ablatedView.weights();
      return a ? { shape: a.shape.slice(), data: Array.from(a.data) } : null;
    },
  };
}
