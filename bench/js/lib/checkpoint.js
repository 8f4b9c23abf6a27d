'use strict';
// The GPT-2 checkpoint that bench/js/models.js and bench/js/models-page-speed.js share: lib/gpt2.py's
// random-initialised gpt2 config written with save_pretrained (never from a hub) under build/bench-models/<name>/,
// made once per version of gpt2.py (its hash in done.json, so one is made for both scripts): minutes for GPT-2
// small, seconds for the tiny one.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { spawnSync, execFileSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const GPT2 = path.join(__dirname, 'gpt2.py');

// The lessons' venv (transformers 4.46 over Debian's torch 1.13; scripts/venv-lessons makes it and prints its python).
function venvPython() {
  if (process.env.MHA_LESSONS_PYTHON) return process.env.MHA_LESSONS_PYTHON;
  return execFileSync('bash', [path.join(ROOT, 'scripts', 'venv-lessons')], { encoding: 'utf8' }).trim();
}

// Runs a Python script of the benchmarks offline, its output on this process's; throws when it fails.
function runPython(python, args) {
  const r = spawnSync(python, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' },
  });
  if (r.status !== 0) throw new Error(`${path.basename(args[0])} failed (exit ${r.status})`);
}

// name: the folder under build/bench-models/; tiny: 2 layers, 32 wide; refTokens: the float64 reference's length
// (when the checkpoint is made); says(dir): the line logged before making it. → {dir, meta: done.json}.
function ensureCheckpoint(python, { name, tiny, refTokens, says }) {
  const dir = path.join(ROOT, 'build', 'bench-models', name);
  const version = crypto.createHash('sha256').update(fs.readFileSync(GPT2)).digest('hex').slice(0, 16);
  const done = path.join(dir, 'done.json');
  const read = () => JSON.parse(fs.readFileSync(done, 'utf8'));
  if (!fs.existsSync(done) || read().script !== version) {
    process.stderr.write(says(path.relative(ROOT, dir)) + '\n');
    fs.rmSync(dir, { recursive: true, force: true });
    runPython(python, [GPT2, 'make', '--out', dir, '--tokens', String(refTokens), ...(tiny ? ['--tiny'] : [])]);
    fs.writeFileSync(done, JSON.stringify({ ...read(), script: version }));
  }
  return { dir, meta: read() };
}

module.exports = { ensureCheckpoint, runPython, venvPython };
