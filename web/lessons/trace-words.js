// @ts-check
// MHA Explorer — the words of the shape trace (data, no DOM): each step of the core's trace named as the lessons name it
// (its stage, label, PyTorch expression and description), and the one place the masked_fill call is worded. Read by
// the trace table (widgets/trace.js) and the lessons (lesson000, 002, 003).

// The trace's wording: the core gives each step's op, shape and strides; the page names it.
// Each row: {stage (0 Mix, 1 Split, 2 Attend, 3 Concat, 4 Mix), label, expr, description}. A model's trace
// (the training lab) adds tokens, embedding, residual and readout rows, and tags each layer's steps.
// mask: the mask of a masked forward ({style, fill}, worded by maskedFill), or null.
export function traceWords(trace, mask) {
  const first = (trace[0] && trace[0].shape) || [];
  /** @type {Wording} */
  const wording = {
    B: first[0],
    S: first[1],
    D: first[2],
    attended: false,
    readout: 0,
    src: trace.some((t) => t.layer !== undefined) ? 'h' : 'x',
    mask: mask,
  };
  return trace.map((t) => {
    // a step that carries its words (a real checkpoint's, worded by models/trace.js) keeps them
    const w = t.words
      ? Object.assign({}, t.words)
      : stepWords(t.op || !t.name ? t : Object.assign({}, t, { op: t.name }), wording);
    if (t.layer !== undefined) w.label = 'Layer ' + t.layer + ': ' + w.label;
    return w;
  });
}

/**
 * What the words of a step depend on from the steps before it, read and updated step by step.
 * @typedef {{B: number, S: number, D: number, attended: boolean, readout: number, src: string, mask: any}} Wording
 * B, S, D: the input's batch, length and width (a model trace's tokens and embedding steps set S and D); attended: the
 * attention step has run (the next linear is W_o, the next transpose swaps back); readout: the next readout's index;
 * src: the first projection's input (h in a model, x in a module).
 */

/** @typedef {{stage: number, label: string, expr: string, description: string}} StepWords */

/** @param {any} t a step of the core's trace @param {Wording} wording @returns {StepWords} */
function stepWords(t, wording) {
  return Object.hasOwn(STEP_WORDS, t.op) ? STEP_WORDS[t.op](t, t.shape || [], wording) : otherStep(t, wording);
}

// The heads and head width of a 4-D step: [B, S, H, dk] after .view, [B, H, S, dk] after it.
function heads(t, sh) {
  return { H: sh.length === 4 ? (t.op === 'view' ? sh[2] : sh[1]) : 0, dk: sh[3] };
}

function plural(n, word) {
  return n + ' ' + word + (n === 1 ? '' : 's');
}

/** @type {Record<string, (t: any, sh: number[], wording: Wording) => StepWords>} */
const STEP_WORDS = {
  tokens(t, sh, wording) {
    wording.S = sh[1];
    return { stage: 0, label: 'Input tokens', expr: 'x', description: 'One sequence of ' + wording.S + ' token ids' };
  },
  embedding(t, sh, wording) {
    wording.D = sh[2];
    return {
      stage: 0,
      label: 'Token + position embedding',
      expr: 'h = self.tok(x) + self.pos(torch.arange(' + wording.S + '))',
      description: 'Each token becomes a ' + wording.D + '-dim vector: its token row plus its position row',
    };
  },
  input(t, sh, { B, S, D }) {
    const description = 'Raw input: ' + plural(B, 'sequence') + ' of ' + plural(S, 'token') + ', each a ' + D;
    return { stage: 0, label: 'Input x', expr: 'x', description: description + '-dim embedding' };
  },
  linear(t, sh, wording) {
    if (wording.attended) {
      wording.attended = false;
      return {
        stage: 4,
        label: 'After W_o(x)',
        expr: 'self.W_o(attn_output)',
        description: "Final projection: mixes the heads' outputs",
      };
    }
    const src = wording.src;
    return {
      stage: 0,
      label: 'After W_q(' + src + ')',
      expr: 'Q = self.W_q(' + src + ')',
      description: 'Linear projection (still flat): every output dim mixes all ' + (sh[2] || wording.D) + ' input dims',
    };
  },
  view(t, sh) {
    const { H, dk } = heads(t, sh);
    return {
      stage: 1,
      label: 'After .view(' + sh.join(', ') + ')',
      expr: 'Q.view(' + sh.join(', ') + ')',
      description: 'Reshape: split ' + H * dk + ' dims into ' + H + ' heads × ' + dk + ' dims each (no copy)',
    };
  },
  transpose(t, sh, wording) {
    if (wording.attended) {
      return {
        stage: 3,
        label: 'After .transpose(1, 2)',
        expr: 'attn_output.transpose(1, 2)',
        description: 'Swap back: prepare for concatenation (not contiguous)',
      };
    }
    const { H, dk } = heads(t, sh);
    return {
      stage: 1,
      label: 'After .transpose(1, 2)',
      expr: 'Q.view(' + [sh[0], sh[2], sh[1], dk].join(', ') + ').transpose(1, 2)',
      description: 'Swap seq and heads: now ' + H + ' parallel attention mechanisms (strides change, no copy)',
    };
  },
  attention(t, sh, wording) {
    wording.attended = true;
    const { H, dk } = heads(t, sh);
    const scores = 'Q @ K.transpose(-2, -1) / math.sqrt(' + dk + ')';
    const weights = (t.weights || [sh[0], H, sh[2], sh[2]]).join(', ');
    return {
      stage: 2,
      label: 'Attention computation',
      expr: 'torch.softmax(' + maskedFill(scores, wording.mask) + ', dim=-1) @ V',
      description: 'Each head computes attention independently; weights are [' + weights + ']',
    };
  },
  contiguous_view(t, sh) {
    return {
      stage: 3,
      label: 'After .contiguous().view(' + sh.join(', ') + ')',
      expr: 'attn_output.transpose(1, 2).contiguous().view(' + sh.join(', ') + ')',
      description: 'Flatten: merge the heads back into one ' + sh[2] + '-dim vector (copies)',
    };
  },
  residual() {
    return {
      stage: 4,
      label: 'Residual add',
      expr: 'h = h + layer(h, h, h, mask)',
      description: "The layer's output is added to its input",
    };
  },
  readout(t, sh, wording) {
    const i = wording.readout++;
    return {
      stage: 4,
      label: 'Readout ' + i,
      expr: 'self.readouts[' + i + '](h)',
      description: 'Scores for each of the ' + sh[2] + ' tokens of the vocabulary, at every position',
    };
  },
};

// A step the page has no words for: its own name, expression and description, in the stage it falls in.
function otherStep(t, wording) {
  return {
    stage: wording.attended ? 3 : 1,
    label: String(t.name || t.op),
    expr: t.expr || '',
    description: t.description || '',
  };
}

// The one place the masked_fill call is worded. mask: null (no mask) or {style, fill}: style 'tril-keep' (the
// mask's 1s may attend, masked_fill(mask == 0, …): lessons 000 and 002, the page, the lab) or 'triu-block' (its
// 1s are blocked, masked_fill(mask == 1, …): lesson 003), as compute/explorer-run.js's maskTensor builds them; fill '-inf' or '-1e9'.
export function maskedFill(scores, mask) {
  if (!mask) return scores;
  return (
    '(' +
    scores +
    ').masked_fill(mask == ' +
    (mask.style === 'triu-block' ? '1' : '0') +
    ', ' +
    (mask.fill === '-1e9' ? '-1e9' : 'float("-inf")') +
    ')'
  );
}
