// The training API through JS: it trains, names its parameters as PyTorch does, loads what it saves,
// rejects bad calls with a message for a student, and survives 10,000 mutated safetensors files
// without a crash or a leak. (Agreement with real PyTorch: torch.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testedBuilds, buildName, load, mulberry32 } from './fixtures/reference.mjs';

const FUZZ_FILES = 10_000;

function throwsMessage(fn, pattern, label) {
  assert.throws(
    fn,
    (e) => {
      assert.ok(e instanceof Error, `${label}: not an Error`);
      assert.match(e.message, pattern, label);
      return true;
    },
    label,
  );
}

for (const build of testedBuilds()) {
  const name = buildName(build);

  test(`training API — ${name}`, async (t) => {
    const M = await load(build);

    await t.test('two offsets reaches 99 % and its heads take different offsets; ablation costs accuracy', () => {
      const g = new M.Generator(0);
      const model = new M.TinyAttentionModel({ task: 'two-offsets', generator: g });
      assert.deepEqual(model.config, {
        task: 'two-offsets',
        vocab: 8,
        seqLen: 8,
        dModel: 16,
        numHeads: 2,
        layers: 1,
        causal: true,
      });
      const opt = new M.Adam(model, { lr: 1e-2 });
      let last;
      for (let i = 0; i < 150; i++) last = model.trainStep(opt, { batchSize: 32 });
      assert.ok(last.accuracy >= 0.99, `accuracy ${last.accuracy}`);
      assert.equal(opt.steps, 150);
      const roles = model.roleScores();
      assert.deepEqual(roles.map((r) => r.role).sort(), ['1 token back', '2 tokens back']);
      roles.forEach((r) => assert.ok(r.score >= 0.85, `${r.role} ${r.score}`));
      const att = model.attention([1, 2, 3, 4, 5, 6, 7, 0]);
      assert.equal(att.length, 1);
      assert.deepEqual(att[0].weights.shape, [2, 8, 8]);
      const logits = model.predict([1, 2, 3, 4, 5, 6, 7, 0]);
      assert.equal(logits.length, 2);
      assert.deepEqual(logits[0].shape, [8, 8]);
      // readout 0 predicts x[t-1]: at t = 5 the answer is x[4] = 5
      const row = logits[0].data.subarray(5 * 8, 6 * 8);
      assert.equal(row.indexOf(Math.max(...row)), 5);
      const full = model.evaluate({ batchSize: 256, seed: 9 });
      assert.ok(full.accuracy >= 0.99, `held-out accuracy ${full.accuracy}`);
      model.ablate(0, 0, true);
      const without = model.evaluate({ batchSize: 256, seed: 9 });
      assert.ok(without.accuracy < full.accuracy - 0.2, `without head 0: ${without.accuracy}`);
      model.ablate(0, 0, false);
      assert.deepEqual(
        model.evaluate({ batchSize: 256, seed: 9 }),
        full,
        'evaluate draws nothing from the training stream',
      );
      opt.delete();
      model.delete();
      g.delete();
    });

    await t.test(
      "the task table (the core's, through protocol()): every task builds from its defaults, with its targets and example",
      () => {
        assert.deepEqual(
          M.tasks.slice(0, 5),
          ['two-offsets', 'first-and-previous', 'reverse', 'induction', 'next-larger'],
          'the five tasks the lab has had, in order (a new task comes after them)',
        );
        assert.deepEqual(
          M.taskTable.map((e) => e.name),
          M.tasks,
        );
        assert.ok(Object.isFrozen(M.taskTable[0].defaults));
        for (const entry of M.taskTable) {
          assert.ok(
            entry.title &&
              entry.brief.length > 20 &&
              entry.readouts.length >= 1 &&
              entry.roles.length >= 1 &&
              entry.goalSteps >= 50,
            entry.name,
          );
          assert.deepEqual(M.modelDefaults(entry.name), { ...entry.defaults });
          const g = new M.Generator(0);
          const model = new M.TinyAttentionModel({ task: entry.name, generator: g });
          assert.deepEqual(model.config, { ...entry.defaults });
          const example = model.example();
          assert.equal(example.length, entry.defaults.seqLen);
          const targets = model.targets(example);
          assert.equal(targets.length, entry.readouts.length);
          assert.equal(
            model.stateDict()[`readouts.${entry.readouts.length - 1}.weight`].shape[0],
            entry.defaults.vocab,
          );
          model.delete();
          g.delete();
        }
        const g = new M.Generator(0);
        const model = new M.TinyAttentionModel({ task: 'next-larger', generator: g });
        assert.deepEqual(model.targets([5, 2, 9, 7]), [[7, 5, -100, 9]]);
        assert.equal(new Set(model.example()).size, 8, 'distinct tokens');
        model.delete();
        throwsMessage(
          () => new M.TinyAttentionModel({ task: 'next-larger', vocab: 6, generator: g }),
          /vocab must be at least seqLen/,
          'next-larger vocab',
        );
        throwsMessage(
          () => new M.TinyAttentionModel({ task: 'next-larger', causal: true, generator: g }),
          /turn the causal mask off/,
          'next-larger causal',
        );
        g.delete();
      },
    );

    await t.test('state dict: PyTorch names, round trip through safetensors, strict loading', () => {
      const g = new M.Generator(1);
      const a = new M.TinyAttentionModel({ task: 'induction', generator: g });
      const b = new M.TinyAttentionModel({ task: 'induction', generator: g });
      const names = Object.keys(a.stateDict());
      assert.deepEqual(names.slice(0, 4), ['tok.weight', 'pos.weight', 'layers.0.W_q.weight', 'layers.0.W_q.bias']);
      assert.equal(names.at(-1), 'readouts.0.bias');
      assert.equal(
        a.parameterCount(),
        Object.values(a.stateDict()).reduce((n, t) => n + t.data.length, 0),
      );
      const bytes = a.toSafetensors();
      assert.ok(bytes instanceof Uint8Array);
      b.loadStateDict(M.loadSafetensors(bytes));
      const tokens = [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1];
      assert.deepEqual(b.predict(tokens)[0].data, a.predict(tokens)[0].data);
      assert.equal(M.readSafetensors(bytes).metadata.format, 'pt');
      const sd = a.stateDict();
      delete sd['pos.weight'];
      sd['extra.weight'] = { shape: [1], data: new Float32Array(1) };
      sd['tok.weight'] = { shape: [2, 2], data: new Float32Array(4) };
      throwsMessage(
        () => b.loadStateDict(sd),
        /missing 'pos\.weight'.*unexpected 'extra\.weight'.*'tok\.weight' has shape \[2, 2\] but the module needs \[16, 32\]/,
        'strict load',
      );
      const mha = new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: g });
      assert.deepEqual(Object.keys(mha.stateDict()), [
        'W_q.weight',
        'W_q.bias',
        'W_k.weight',
        'W_k.bias',
        'W_v.weight',
        'W_v.bias',
        'W_o.weight',
        'W_o.bias',
      ]);
      const other = new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: g });
      const x = g.randn([1, 3, 8]);
      other.loadStateDict(M.loadSafetensors(mha.toSafetensors()));
      assert.deepEqual(other.forward(x).output.data, mha.forward(x).output.data);
      assert.deepEqual(other.parameters().W_q.weight.data, mha.stateDict()['W_q.weight'].data);
      throwsMessage(
        () => other.loadStateDict(a.stateDict()),
        /these weights do not fit this model/,
        'a model state into the MHA',
      );
      [a, b, mha, other, g].forEach((o) => o.delete());
    });

    await t.test('bad calls throw messages a student understands, and the module keeps working', () => {
      const g = new M.Generator(0);
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'copy', generator: g }),
        /task must be one of two-offsets, first-and-previous, reverse, induction/,
        'task',
      );
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'two-offsets', dModel: 10, numHeads: 3, generator: g }),
        /d_model \(10\) must be divisible by num_heads \(3\)/,
        'heads',
      );
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'reverse', causal: true, generator: g }),
        /reverse task needs to see later tokens/,
        'reverse causal',
      );
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'induction', vocab: 5, generator: g }),
        /vocab must be at least 7/,
        'induction vocab',
      );
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'two-offsets' }),
        /generator must be a Generator/,
        'no generator',
      );
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'two-offsets', heads: 2, generator: g }),
        /unknown option 'heads'/,
        'unknown option',
      );
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'two-offsets', seqLen: 1.5, generator: g }),
        /seqLen must be a whole number/,
        'seqLen',
      );
      const model = new M.TinyAttentionModel({ task: 'two-offsets', generator: g });
      throwsMessage(() => new M.Adam(model, { lr: -1 }), /Invalid learning rate/, 'lr');
      throwsMessage(() => new M.Adam(model, { betas: [0.9] }), /betas must be two numbers/, 'betas');
      throwsMessage(() => new M.Adam(model, { momentum: 0.9 }), /unknown option 'momentum'/, 'adam momentum');
      throwsMessage(
        () => new M.SGD(model, { lr: 0.1, nesterov: true }),
        /Nesterov momentum requires a momentum/,
        'nesterov',
      );
      throwsMessage(() => new M.Adam({}, {}), /expects a TinyAttentionModel/, 'model');
      const opt = new M.SGD(model, { lr: 0.1 });
      throwsMessage(
        () => model.trainStep(opt, { batchSize: 0 }),
        /batchSize must be a whole number from 1 to 1024/,
        'batch',
      );
      // the limits the JS checks come from the core's protocol; the core's own check (tests/native) says the same numbers
      assert.deepEqual(
        { ...M.limits },
        {
          dModel: 4096,
          modelDModel: 1024,
          vocab: 512,
          seqLen: 512,
          batch: 1024,
          layers: 4,
          scriptSteps: 100000,
          specializationTokens: 4096,
        },
      );
      throwsMessage(
        () => new M.TinyAttentionModel({ task: 'two-offsets', dModel: M.limits.modelDModel * 2, generator: g }),
        /dModel must be a whole number from 1 to 1024/,
        'model dModel',
      );
      throwsMessage(
        () => new M.MultiHeadAttention({ dModel: M.limits.dModel + 1, numHeads: 1, generator: g }),
        /dModel must be a whole number from 1 to 4096/,
        'module dModel',
      );
      throwsMessage(() => model.trainStep({}, {}), /expects an optimizer/, 'optimizer');
      const other = new M.TinyAttentionModel({ task: 'two-offsets', generator: g });
      throwsMessage(() => other.trainStep(opt), /made for another model/, 'foreign optimizer');
      throwsMessage(() => model.attention([1, 2, 9]), /token 2 must be a whole number from 0 to 7/, 'token range');
      throwsMessage(
        () => model.attention(new Array(9).fill(0)),
        /the number of tokens must be a whole number from 1 to 8/,
        'too long',
      );
      throwsMessage(() => model.ablate(0, 2), /head must be a whole number from 0 to 1/, 'ablate');
      throwsMessage(
        () => model.toPyTorch({ optimizer: 'rmsprop' }),
        /optimizer must be 'sgd', 'adam' or 'adamw'/,
        'script optimizer',
      );
      throwsMessage(() => other.toPyTorch(), /right after seeding its generator/, 'used generator');
      throwsMessage(() => M.loadSafetensors('file'), /expected the file's bytes/, 'bytes');
      throwsMessage(() => model.loadStateDict(null), /loadStateDict expects/, 'state');
      assert.ok(Number.isFinite(model.trainStep(opt).loss), 'still trains');
      const script = model.toPyTorch({ optimizer: opt, steps: 3 });
      assert.match(script, /torch\.optim\.SGD\(model\.parameters\(\), lr=0\.1, momentum=0\.0/);
      [opt, model, other, g].forEach((o) => o.delete());
    });

    await t.test(
      'training does not leak: 500 steps, role scores, attention and a state dict round trip keep the heap flat',
      () => {
        const g = new M.Generator(4);
        const model = new M.TinyAttentionModel({ task: 'first-and-previous', generator: g });
        const opt = new M.AdamW(model, { lr: 1e-2 });
        const cycle = () => {
          for (let i = 0; i < 50; i++) model.trainStep(opt, { batchSize: 16 });
          model.roleScores();
          model.attention([1, 2, 3, 4]);
          model.loadStateDict(M.loadSafetensors(model.toSafetensors()));
          model.toPyTorch();
        };
        cycle();
        const before = M.memoryStats().heapUsed;
        for (let i = 0; i < 10; i++) cycle();
        assert.ok(
          M.memoryStats().heapUsed - before < 64 * 1024,
          `heap grew by ${M.memoryStats().heapUsed - before} bytes`,
        );
        [opt, model, g].forEach((o) => o.delete());
      },
    );

    await t.test(`${FUZZ_FILES} mutated safetensors files: a model or an Error, never a crash, no leak`, () => {
      const g = new M.Generator(2);
      const model = new M.TinyAttentionModel({ task: 'two-offsets', generator: g });
      const valid = model.toSafetensors();
      const rand = mulberry32(20261122);
      const pick = (n) => Math.floor(rand() * n);
      const mutate = () => {
        let b = valid.slice();
        const kind = pick(6);
        if (kind === 0) for (let i = 0, n = 1 + pick(4); i < n; i++) b[pick(b.length)] ^= 1 << pick(8);
        else if (kind === 1) b = b.slice(0, pick(b.length));
        else if (kind === 2) {
          const h = new DataView(b.buffer);
          h.setUint32(0, pick(2 ** 32), true);
          if (rand() < 0.5) h.setUint32(4, pick(4), true);
        } else if (kind === 3) {
          const n = Number(new DataView(b.buffer).getBigUint64(0, true));
          b[8 + pick(Math.min(n, b.length - 8))] = '{}[]",:0123456789e-'.charCodeAt(pick(19));
        } else if (kind === 4) {
          const extra = new Uint8Array(1 + pick(16));
          const c = new Uint8Array(b.length + extra.length);
          c.set(b);
          c.set(extra, b.length);
          b = c;
        } else {
          const at = 8 + pick(200);
          b = Uint8Array.from([...b.slice(0, at), ...b.slice(at + 1 + pick(3))]);
        }
        return b;
      };
      const warm = () => {
        for (let i = 0; i < 50; i++) {
          try {
            model.loadStateDict(M.loadSafetensors(mutate()));
          } catch {
            /* measured below */
          }
        }
      };
      warm();
      const before = M.memoryStats().heapUsed;
      let loaded = 0,
        rejected = 0;
      for (let i = 0; i < FUZZ_FILES; i++) {
        const bytes = mutate();
        try {
          model.loadStateDict(M.loadSafetensors(bytes));
          loaded++;
        } catch (e) {
          assert.ok(e instanceof Error && typeof e.message === 'string' && e.message.length > 10, `file ${i}: ${e}`);
          rejected++;
        }
      }
      assert.equal(loaded + rejected, FUZZ_FILES);
      assert.ok(rejected > FUZZ_FILES / 2, `most mutations are errors (${rejected})`);
      assert.ok(M.memoryStats().heapUsed - before < 64 * 1024, 'heap did not grow');
      model.loadStateDict(M.loadSafetensors(valid));
      assert.ok(Number.isFinite(model.predict([0, 1, 2])[0].data[0]), 'still works');
      model.delete();
      g.delete();
    });
  });
}
