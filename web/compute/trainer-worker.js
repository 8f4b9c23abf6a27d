// MHA Explorer — the training worker: owns one TinyAttentionModel, its generator and its optimizer,
// trains in slices of steps and answers the page's requests, so the page keeps drawing while it
// trains. web/build.mjs appends this file to a core build (mha.js …) and wraps both in a string
// (dist/trainer-*.js) that web/compute/trainer.js starts as a Blob worker: that works from file:// too,
// where Chromium refuses a worker script from a file path.
// Protocol: {id, op, args} → {id, result} or {id, error}; only scalars, small tensors and the
// weights file (transferred) cross.
/* global createMhaModule */
'use strict';
var M = null,
  g = null,
  model = null,
  opt = null;
var ready = createMhaModule().then(function (m) {
  M = m;
});

function dispose() {
  [opt, model, g].forEach(function (o) {
    if (o) o.delete();
  });
  opt = model = g = null;
}

function needModel() {
  if (!model) throw new Error('no model yet: reset({model, optimizer, seed}) first');
  return model;
}

// A lessons' MultiHeadAttention file belongs on the main page, which shows its heads on a sentence.
function refuseModule(state) {
  if (state['W_q.weight'] && !state['tok.weight']) {
    throw new Error(
      "it holds one MultiHeadAttention (the lessons' module: W_q, W_k, W_v, W_o), not this lab's model " +
        '(tok, pos, layers.0.W_q, …, readouts). Open it on the main page with "Load weights" to see its heads on your text.',
    );
  }
}
// A lab model's sizes as its tensors give them (num_heads and the task are not in a state_dict), or null.
function shapesOf(state) {
  var tok = state['tok.weight'],
    pos = state['pos.weight'];
  if (!tok || !pos || tok.shape.length !== 2 || pos.shape.length !== 2) return null;
  var count = function (re) {
    return Object.keys(state).filter(function (k) {
      return re.test(k);
    }).length;
  };
  return {
    vocab: tok.shape[0],
    seqLen: pos.shape[0],
    dModel: tok.shape[1],
    layers: count(/^layers\.\d+\.W_q\.weight$/),
    readouts: count(/^readouts\.\d+\.weight$/),
  };
}
function describe(s) {
  var n = function (k, one, many) {
    return k + ' ' + (k === 1 ? one : many);
  };
  return (
    n(s.layers, 'layer', 'layers') +
    ', d_model ' +
    s.dModel +
    ', vocabulary ' +
    s.vocab +
    ', length ' +
    s.seqLen +
    ' and ' +
    n(s.readouts, 'readout', 'readouts')
  );
}

var ops = {
  // The core's task table (name, title, brief, readouts, roles, defaults).
  tasks: function () {
    return M.taskTable;
  },
  // The core's settings for a task (vocab, seqLen, dModel, numHeads, layers, causal).
  defaults: function (a) {
    return M.modelDefaults(a.task);
  },
  // A fresh model and optimizer from `seed` (torch.manual_seed(seed) in the script).
  reset: function (a) {
    var asked = String(a.optimizer && a.optimizer.kind).toLowerCase();
    var kind = M.optimizers.find(function (k) {
      return k.toLowerCase() === asked;
    }); // the core's: 'SGD', 'Adam', 'AdamW'
    if (!kind)
      throw new Error(
        'optimizer.kind must be one of ' +
          M.optimizers
            .map(function (k) {
              return "'" + k.toLowerCase() + "'";
            })
            .join(', '),
      );
    var next = new M.Generator(a.seed);
    var m = null;
    try {
      m = new M.TinyAttentionModel(Object.assign({}, a.model, { generator: next }));
      var o = new M[kind](m, a.optimizer.options || {});
      dispose();
      g = next;
      model = m;
      opt = o;
    } catch (err) {
      if (m) m.delete();
      next.delete();
      throw err;
    }
    return {
      config: model.config,
      parameters: model.parameterCount(),
      implementation: M.implementation,
      example: model.example(),
    };
  },
  // `steps` training steps: [{step, loss, accuracy}] (the step count is the optimizer's).
  train: function (a) {
    var out = [];
    for (var i = 0; i < a.steps; i++) {
      var r = needModel().trainStep(opt, { batchSize: a.batchSize });
      out.push({ step: opt.steps, loss: r.loss, accuracy: r.accuracy });
    }
    return out;
  },
  // Every layer's attention, the readouts' logits and the task's targets for `tokens`, each head's role, and
  // the forward's shapes.
  inspect: function (a) {
    var m = needModel();
    return {
      attention: m.attention(a.tokens),
      logits: m.predict(a.tokens),
      targets: m.targets(a.tokens),
      roles: m.roleScores(),
      trace: m.shapeTrace(a.tokens.length),
    };
  },
  ablate: function (a) {
    needModel().ablate(a.layer, a.head, a.on);
    return true;
  },
  // Loss and accuracy on a held-out batch (its own generator), e.g. with and without a head.
  evaluate: function (a) {
    return needModel().evaluate(a);
  },
  script: function (a) {
    return needModel().toPyTorch(Object.assign({ optimizer: opt }, a));
  },
  save: function () {
    return needModel().toSafetensors();
  },
  // What a file holds, before loading it: {metadata, shapes: {vocab, seqLen, dModel, layers, readouts}}.
  peek: function (a) {
    var file = M.readSafetensors(a.bytes);
    refuseModule(file.tensors);
    return { metadata: Object.assign({}, file.metadata), shapes: shapesOf(file.tensors) };
  },
  load: function (a) {
    var state = M.loadSafetensors(a.bytes),
      m = needModel();
    refuseModule(state);
    try {
      m.loadStateDict(state);
    } catch (err) {
      var f = shapesOf(state),
        mine = shapesOf(m.stateDict());
      if (!f) throw err;
      if (describe(f) === describe(mine)) throw err;
      throw new Error(
        'this file is a model with ' +
          describe(f) +
          "; the lab's model has " +
          describe(mine) +
          ". Set the lab to the file's values (and the task and number of heads it was trained with), then load it again.",
        { cause: err },
      );
    }
    return true;
  },
  stateDict: function () {
    return needModel().stateDict();
  },
};

self.onmessage = function (e) {
  var id = e.data.id,
    op = e.data.op,
    args = e.data.args || {};
  ready
    .then(function () {
      if (!Object.prototype.hasOwnProperty.call(ops, op)) throw new Error('unknown request ' + op);
      return ops[op](args);
    })
    .then(
      function (result) {
        self.postMessage({ id: id, result: result }, result instanceof Uint8Array ? [result.buffer] : []);
      },
      function (err) {
        self.postMessage({ id: id, error: String((err && err.message) || err) });
      },
    );
};
