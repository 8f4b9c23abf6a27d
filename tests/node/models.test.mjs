// Real checkpoints through the JS API (loadModel, forward, dispose) against transformers: every case the
// oracle writes (tests/models/make_checkpoints.py → build/models/: the checkpoint as save_pretrained wrote it,
// oracle-<k>.safetensors with transformers' float64 run and a bound on any float32 implementation's error),
// on every build; sharded loading, progress and cancel; hostile files with their messages; memory returned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openAsBlob, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildName,
  HEAP_SLACK,
  heapUsed,
  load,
  modelCases,
  MODELS_DIR,
  rejects,
  testedBuilds,
  requireHeapBack,
  weightFiles,
} from './fixtures/reference.mjs';
import { readOracle, requireWithin } from './fixtures/oracle.mjs';

const CASES = modelCases();

// A case's checkpoint files: bytes in memory, or Blobs read in slices (openAsBlob: the file stays on disk).
async function files(name, { blobs = false, change = {} } = {}) {
  const c = CASES.find((x) => x.case === name);
  const out = [];
  for (const f of weightFiles(c)) {
    if (f in change && change[f] === null) continue;
    const bytes = f in change ? change[f] : null;
    out.push(
      bytes
        ? { name: f, bytes }
        : blobs
          ? { name: f, bytes: await openAsBlob(join(MODELS_DIR, name, f)) }
          : { name: f, bytes: new Uint8Array(readFileSync(join(MODELS_DIR, name, f))) },
    );
  }
  return out;
}

// The same forward without attentions, resumed from the activations cache that `model`'s forwards of `ids` filled:
// the layer it starts at is the lowest with a head off, and hidden and logits have the bits of the whole forward `whole`.
function requireResumedSame(what, model, ids, options, whole) {
  const resumed = model.forward(ids, { ...options, attentions: false });
  const lowest = Math.min(model.info.layers, ...options.headsOff.map((lh) => lh[0]));
  assert.equal(resumed.firstLayer, lowest, `${what}: resumed at the lowest layer with a head off`);
  assert.equal(resumed.attentions, null, `${what}: no attentions`);
  assert.deepEqual(resumed.hidden, whole.hidden, `${what}: hidden, resumed = whole forward, bit for bit`);
  assert.deepEqual(resumed.logits, whole.logits, `${what}: logits, resumed = whole forward, bit for bit`);
  assert.equal(resumed.trace.length, whole.trace.length, `${what}: the whole forward's trace`);
}

for (const build of testedBuilds()) {
  test(`real checkpoints through the JS API — ${buildName(build)}`, async (t) => {
    const M = await load(build);

    for (const c of CASES) {
      await t.test(
        `${c.case} (${c.model_type}, ${c.dtype}): token ids, attentions, hidden, logits, ablated logits within transformers' bounds`,
        async () => {
          const model = await M.loadModel(
            await files(c.case, { blobs: c.case.includes('sharded') || c.dtype === 'F16' }),
          );
          try {
            assert.equal(model.info.modelType, c.model_type);
            assert.equal(model.info.dtype, c.dtype);
            for (const name of c.oracles) {
              const { meta, tensors } = readOracle(join(MODELS_DIR, c.case, name));
              const what = `${c.case}/${name}`;
              assert.deepEqual(
                model.tokenize(meta.text).ids,
                meta.ids,
                `${what}: token ids as transformers' tokenizer(text) gives them`,
              );
              const logitsAt = model.info.hasLmHead ? meta.logits_at : [];
              const out = model.forward(meta.ids, { logitsAt });
              requireWithin(what, out.attentions, tensors, 'attentions');
              requireWithin(what, out.hidden, tensors, 'hidden');
              assert.equal(
                out.logits === null,
                !tensors.logits,
                `${what}: logits given exactly when transformers gives them`,
              );
              if (tensors.logits) requireWithin(what, out.logits, tensors, 'logits');
              assert.ok(
                out.trace.some((s) => s.op === 'softmax' && s.layer === model.info.layers - 1),
                `${what}: the trace reaches the last layer`,
              );
              if (meta.heads_off && meta.heads_off.length) {
                const off = model.forward(meta.ids, { logitsAt, headsOff: meta.heads_off });
                for (const k of ['logits', 'hidden'])
                  if (tensors[`ablated.${k}`]) requireWithin(what, off[k], tensors, `ablated.${k}`);
                requireResumedSame(what, model, meta.ids, { logitsAt, headsOff: meta.heads_off }, off);
              }
            }
          } finally {
            model.dispose();
          }
        },
      );
    }

    await t.test(
      'sharded: the index and its four shards, as File objects in any order, or named with their folder',
      async () => {
        const given = await files('llama-sharded');
        const asFiles = given.reverse().map((f) => new File([f.bytes], f.name));
        const withFolder = given.map((f) => ({ name: `llama-sharded/${f.name}`, bytes: f.bytes.buffer }));
        const single = await M.loadModel(await files('llama'));
        const { meta } = readOracle(join(MODELS_DIR, 'llama-sharded', 'oracle-0.safetensors'));
        for (const checkpoint of [asFiles, withFolder]) {
          const model = await M.loadModel(checkpoint);
          assert.equal(model.info.layers, single.info.layers);
          assert.deepEqual(model.tokenize(meta.text).ids, meta.ids);
          assert.ok(model.forward(meta.ids).attentions.data.length > 0);
          model.dispose();
        }
        single.dispose();
      },
    );

    await t.test('progress: from 0 to the bytes of the weights read, per slice; the files named', async () => {
      const seen = [];
      const model = await M.loadModel(await files('llama-sharded', { blobs: true }), {
        onProgress: (p) => seen.push(p),
      });
      model.dispose();
      assert.equal(seen[0].loaded, 0);
      const total = seen[0].total;
      assert.ok(total > 100_000, `total ${total}`);
      for (let i = 1; i < seen.length; i++) {
        assert.ok(seen[i].loaded > seen[i - 1].loaded && seen[i].total === total);
        assert.match(seen[i].file, /^model-0000[1-4]-of-00004\.safetensors$/);
      }
      assert.equal(seen.at(-1).loaded, total);
      assert.equal(new Set(seen.slice(1).map((p) => p.file)).size, 4, 'every shard read');
    });

    await t.test('cancel: an AbortSignal stops the load between slices and frees everything', async () => {
      const given = await files('gpt2', { blobs: true });
      const warm = await M.loadModel(given);
      warm.dispose();
      const before = heapUsed(M);
      const controller = new AbortController();
      await assert.rejects(
        M.loadModel(given, { signal: controller.signal, onProgress: () => controller.abort() }),
        (e) => e.name === 'AbortError',
      );
      requireHeapBack(M, before, 'after a cancelled load');
      const aborted = AbortSignal.abort();
      await assert.rejects(M.loadModel(given, { signal: aborted }), (e) => e.name === 'AbortError');
      requireHeapBack(M, before, 'after a load cancelled before it started');
    });

    await t.test('memory: dispose gives the weights back; forward allocates nothing that stays', async () => {
      const given = await files('qwen2');
      (await M.loadModel(given)).dispose();
      const before = heapUsed(M);
      const model = await M.loadModel(given);
      assert.ok(heapUsed(M) - before >= model.info.weightBytes, 'the weights are in wasm memory');
      const ids = readOracle(join(MODELS_DIR, 'qwen2', 'oracle-0.safetensors')).meta.ids;
      model.forward(ids, { headsOff: [[0, 1]] });
      const loaded = heapUsed(M);
      for (let i = 0; i < 5; i++) model.forward(ids);
      for (let l = 0; l < model.info.layers; l++) model.forward(ids, { headsOff: [[l, 0]], attentions: false });
      assert.ok(
        heapUsed(M) - loaded <= HEAP_SLACK,
        'forwards leave nothing behind but the activations cache of their ids',
      );
      model.forward(ids.concat(ids), { attentions: false }); // a longer text: the cache for its ids
      model.forward(ids, { headsOff: [[1, 1]], attentions: false }); // back to the first: as large as before
      assert.ok(heapUsed(M) - loaded <= HEAP_SLACK, 'the cache of other ids replaces the last');
      model.dispose();
      model.dispose(); // twice is harmless
      requireHeapBack(M, before, 'after dispose');
      assert.throws(() => model.forward(ids), /this model was disposed/);
      assert.equal(model.disposed, true);
    });

    await t.test('hostile: each file missing in turn, named', async () => {
      const before = heapUsed(M);
      await rejects(M.loadModel(await files('gpt2', { change: { 'config.json': null } })), 'config.json is missing');
      await rejects(
        M.loadModel(await files('gpt2', { change: { 'model.safetensors': null } })),
        'model.safetensors is missing',
      );
      const noTokenizer = await M.loadModel(await files('gpt2', { change: { 'tokenizer.json': null } }));
      assert.throws(() => noTokenizer.tokenize('hello'), /loaded without tokenizer\.json/);
      noTokenizer.dispose();
      for (let k = 1; k <= 4; k++) {
        const shard = `model-0000${k}-of-00004.safetensors`;
        await rejects(
          M.loadModel(await files('llama-sharded', { change: { [shard]: null } })),
          `${shard} is missing: the index (model.safetensors.index.json) puts`,
        );
      }
      await rejects(
        M.loadModel(await files('llama-sharded', { change: { 'model.safetensors.index.json': null } })),
        'model.safetensors is missing',
      );
      await rejects(M.loadModel([]), 'config.json is missing');
      await rejects(M.loadModel('gpt2/config.json'), "loadModel expects the checkpoint's files");
      requireHeapBack(M, before, 'after the failed loads');
    });

    await t.test(
      'hostile: a truncated shard, a lying config, NaN weights, a tokenizer of another model — named, memory back',
      async () => {
        (await M.loadModel(await files('gpt2'))).dispose();
        const before = heapUsed(M);
        const shard = 'model-00003-of-00004.safetensors';
        const whole = readFileSync(join(MODELS_DIR, 'llama-sharded', shard));
        await rejects(
          M.loadModel(
            await files('llama-sharded', {
              change: { [shard]: new Uint8Array(whole.subarray(0, whole.length - 100)) },
            }),
          ),
          `${shard}: this is not a valid .safetensors file: its tensors need`,
          '(is it cut short?)',
        );

        const config = JSON.parse(readFileSync(join(MODELS_DIR, 'gpt2', 'config.json'), 'utf8'));
        const lying = (change) => new TextEncoder().encode(JSON.stringify({ ...config, ...change }));
        await rejects(
          M.loadModel(await files('gpt2', { change: { 'config.json': lying({ n_embd: 48 }) } })),
          'config.json does not match the weights: the tensor',
          'has shape',
        );
        await rejects(
          M.loadModel(await files('gpt2', { change: { 'config.json': lying({ n_layer: 3 }) } })),
          "config.json does not match the weights: the checkpoint has no tensor 'h.2.",
        );
        await rejects(
          M.loadModel(await files('gpt2', { change: { 'config.json': lying({ vocab_size: 500 }) } })),
          "config.json does not match the weights: the tensor 'wte.weight' has shape",
        );
        await rejects(
          M.loadModel(await files('gpt2', { change: { 'config.json': lying({ model_type: 'mamba' }) } })),
          'config.json',
          'mamba',
        );

        // A NaN in h.1.mlp.c_fc.weight, found through the file's own header.
        const weights = new Uint8Array(readFileSync(join(MODELS_DIR, 'gpt2', 'model.safetensors')));
        const n = Number(Buffer.from(weights).readBigUInt64LE(0));
        const entry = JSON.parse(Buffer.from(weights.subarray(8, 8 + n)).toString())['h.1.mlp.c_fc.weight'];
        new DataView(weights.buffer).setFloat32(8 + n + entry.data_offsets[0] + 4 * 7, NaN, true);
        await rejects(
          M.loadModel(await files('gpt2', { change: { 'model.safetensors': weights } })),
          "model.safetensors: tensor 'h.1.mlp.c_fc.weight' holds NaN (element 7 of",
        );

        const tokenizer = JSON.parse(readFileSync(join(MODELS_DIR, 'gpt2', 'tokenizer.json'), 'utf8'));
        tokenizer.added_tokens.push({
          id: 50256,
          content: '<|endoftext|>',
          single_word: false,
          lstrip: false,
          rstrip: false,
          normalized: false,
          special: true,
        });
        await rejects(
          M.loadModel(
            await files('gpt2', { change: { 'tokenizer.json': new TextEncoder().encode(JSON.stringify(tokenizer)) } }),
          ),
          "tokenizer.json's vocabulary does not match the model: it has token ids up to 50256, but the embedding has 512 rows",
        );
        await rejects(
          M.loadModel(await files('gpt2', { change: { 'config.json': new Uint8Array([0xff, 0xfe]) } })),
          'config.json is not UTF-8 text',
        );
        requireHeapBack(M, before, 'after the failed loads');
      },
    );

    await t.test(
      'attentions: false resumes at the lowest layer with a head off, bit-identical; other ids start over',
      async () => {
        for (const name of ['gpt2', 'distilbert', 'llama']) {
          const model = await M.loadModel(await files(name));
          const { layers, heads, hasLmHead } = model.info;
          const ids = [3, 1, 4, 1, 5, 9];
          const logitsAt = hasLmHead ? [ids.length - 1] : [];
          model.forward(ids, { logitsAt }); // the text's forward fills the cache
          for (let l = 0; l < layers; l++) {
            const options = { logitsAt, headsOff: [[l, heads - 1]] };
            requireResumedSame(`${name}, layer ${l}`, model, ids, options, model.forward(ids, options));
          }
          const other = [2, 7, 1, 8];
          model.forward(other, { logitsAt: hasLmHead ? [3] : [] });
          const after = model.forward(ids, { logitsAt, headsOff: [[layers - 1, 0]], attentions: false });
          assert.equal(after.firstLayer, 0, `${name}: other ids replaced the cache`);
          assert.deepEqual(after.logits, model.forward(ids, { logitsAt, headsOff: [[layers - 1, 0]] }).logits);
          model.dispose();
          assert.throws(() => model.forward(ids, { attentions: false }), /this model was disposed/);
        }
      },
    );

    await t.test('forward: ids and options checked with messages for students', async () => {
      const model = await M.loadModel(await files('gpt2'));
      const { maxPositions, vocab } = model.info;
      assert.throws(
        () => model.forward(new Array(maxPositions + 1).fill(1)),
        new RegExp(`${maxPositions + 1} tokens are more than this model's ${maxPositions} positions`),
      );
      assert.throws(() => model.forward([]), /at least one token id/);
      assert.throws(
        () => model.forward([1, vocab]),
        new RegExp(`token id 1 must be a whole number from 0 to ${vocab - 1}`),
      );
      assert.throws(() => model.forward([1, 2.5]), /token id 1 must be a whole number/);
      assert.throws(() => model.forward('hello'), /forward expects token ids/);
      assert.throws(
        () => model.forward([1, 2], { headsOff: [[0, 9]] }),
        /headsOff\[0\]'s head must be a whole number from 0 to 3/,
      );
      assert.throws(
        () => model.forward([1, 2], { headsOff: [[5, 0]] }),
        /headsOff\[0\]'s layer must be a whole number from 0 to 1/,
      );
      assert.throws(() => model.forward([1, 2], { logitsAt: [2] }), /logitsAt\[0\] must be a whole number from 0 to 1/);
      assert.throws(() => model.forward([1, 2], { heads: [0, 1] }), /unknown option 'heads'/);
      assert.throws(() => model.forward([1, 2], { attentions: 'no' }), /attentions must be true or false/);
      const out = model.forward(Int32Array.from([1, 2, 3]), { logitsAt: [0, 2] });
      assert.deepEqual(out.logits.shape, [2, vocab]);
      assert.deepEqual(out.logitsAt, [0, 2]);
      assert.deepEqual(out.attentions.shape, [model.info.layers, 1, model.info.heads, 3, 3]);
      model.dispose();
      const encoder = await M.loadModel(await files('bert-noprefix'));
      assert.equal(encoder.info.hasLmHead, false);
      assert.throws(() => encoder.forward([1, 2], { logitsAt: [0] }), /has no LM or MLM head/);
      assert.equal(encoder.forward([1, 2]).logits, null);
      encoder.dispose();
    });
  });
}
