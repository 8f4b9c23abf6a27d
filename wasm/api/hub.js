// A Hugging Face Hub model by its id: the requests huggingface_hub's file_download.py makes
// ({endpoint}/{repo}/resolve/{revision}/{file}, a redirect to a content host, X-Repo-Commit, ETag, X-Error-Code),
// with a message for each way they fail, and the preview: config.json and each safetensors header (one Range
// request a file) → what the model is and what it needs, before any weight is fetched. hub-store.js downloads and
// keeps the files. No core here but the config check (modelLoadingCreate).
import { fail, describe, unwrap } from './checks.js';

export const HUB_ENDPOINT = 'https://huggingface.co';
export const HEADER_RANGE = 1 << 16; // the first request's bytes of a safetensors file (GPT-2's header: 15 kB)
export const TRIES = 3; // a failed request or a cut download is tried again up to this many times
const WASM_MEMORY = 4 * 2 ** 30; // wasm32's 4 GB (wasm/CMakeLists.txt's MAXIMUM_MEMORY)
const REPO_ID = /^(?:[\w.-]+\/)?[\w.-]+$/;

function messageOf(e) {
  return e && typeof e.message === 'string' ? e.message : String(e);
}

// 'hf:owner/name@rev', 'owner/name@rev' or 'owner/name' (+ revision) → {repo, revision}; a message otherwise.
export function parseHubId(id, revision) {
  if (typeof id !== 'string') fail(`hub must be a model id such as 'openai-community/gpt2', got ${describe(id)}`);
  const text = id.trim().replace(/^hf:/i, '');
  const at = text.indexOf('@');
  const repo = at < 0 ? text : text.slice(0, at),
    rev = at < 0 ? undefined : text.slice(at + 1);
  if (!REPO_ID.test(repo) || /--|\.\./.test(repo) || /^[-.]|[-.]$/.test(repo) || repo.length > 96)
    fail(
      `${JSON.stringify(id)} is not a Hub model id: it is owner/name as on the model's page ` +
        `(letters, digits, '-', '_', '.'), optionally @revision, such as openai-community/gpt2@main`,
    );
  if (revision !== undefined && typeof revision !== 'string')
    fail(`revision must be a branch, tag or commit such as 'main', got ${describe(revision)}`);
  if (rev !== undefined && revision !== undefined && rev !== revision)
    fail(`the id says @${rev} and revision says ${revision}: give the revision once`);
  const r = rev !== undefined ? rev : revision !== undefined ? revision : 'main';
  if (!r) fail(`${JSON.stringify(id)} ends with @ and no revision: write @main, a tag or a commit`);
  return { repo, revision: r };
}

// The Hub's address (HF_ENDPOINT's role): an absolute URL, or one relative to the page.
export function checkEndpoint(endpoint) {
  if (endpoint === undefined) return HUB_ENDPOINT;
  if (typeof endpoint !== 'string' && !(endpoint instanceof URL))
    fail(`endpoint must be the Hub's address such as 'https://huggingface.co', got ${describe(endpoint)}`);
  let url;
  try {
    url = typeof location === 'object' && location ? new URL(endpoint, location.href) : new URL(endpoint);
  } catch (e) {
    fail(`endpoint ${JSON.stringify(String(endpoint))} is not an address such as https://huggingface.co`);
  }
  if (!/^https?:$/.test(url.protocol)) fail(`endpoint ${url.href}: the Hub is reached over http(s)`);
  return url.href.replace(/\/+$/, '');
}

// {endpoint}/{repo}/resolve/{revision}/{path}, quoted as huggingface_hub's hf_hub_url quotes them.
export function resolveUrl(endpoint, repo, revision, path) {
  const file = path.split('/').map(encodeURIComponent).join('/');
  return `${endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${file}`;
}

// A weight file's entry in a preview → its first bytes (8 + the header), read by the preview: the loader reads a
// shard's header from here during a first visit (hub-live.js). Not in the preview's JSON (the store's manifest).
export const HEADS = new WeakMap();

export const normalEtag = (e) => (e ? e.replace(/^W\//, '').replace(/^"|"$/g, '') : null);

// The words for an answer that is not the file (null: a missing optional file, said by the caller).
function statusMessage(res, where) {
  const code = res.headers.get('x-error-code'),
    said = res.headers.get('x-error-message');
  const tail = said ? ` (the Hub says: ${said})` : '';
  const { repo, revision, path, url } = where;
  if (code === 'GatedRepo' || ((res.status === 401 || res.status === 403) && code !== 'RepoNotFound'))
    return (
      `${repo} is gated or private (${url} answered ${res.status})${tail}: the page cannot log in to the Hub. ` +
      `Accept its conditions on the Hub, download it with \`hf download ${repo}\` (logged in), and drop the folder on the page`
    );
  if (code === 'RepoNotFound' || (res.status === 401 && !code))
    return `${repo} is not a model on ${where.endpoint}: no such repository (or a private one: the page cannot log in)${tail}`;
  if (code === 'RevisionNotFound')
    return `${repo} has no revision ${JSON.stringify(revision)} (a branch, tag or commit, such as main)${tail}`;
  if (res.status === 404) return null;
  if (res.status === 429)
    return `the Hub refused ${path}: too many requests (429)${tail}; wait a minute, then load it again`;
  return `${path} of ${repo} could not be fetched: ${url} answered ${res.status}${res.statusText ? ' ' + res.statusText : ''}${tail}`;
}

// fetch that says what failed: a network or CORS failure, a 401/403/404/429, a server error tried again up to
// TRIES times. → the Response (ok), or null for a missing file when optional; io: {signal, stop}.
export async function hubFetch(where, init, io, optional = false) {
  for (let attempt = 1; ; attempt++) {
    io.stop();
    let res;
    try {
      res = await fetch(where.url, { ...init, signal: io.signal, credentials: 'omit' });
    } catch (e) {
      io.stop();
      if (attempt < TRIES) continue;
      fail(
        `${where.path} of ${where.repo} could not be fetched from ${where.url} (${messageOf(e)}): is this computer ` +
          `offline, or is ${where.endpoint} out of reach? (A host the Hub redirects to must also send ` +
          'Access-Control-Allow-Origin for this page: CORS.)',
      );
    }
    if (res.ok) {
      if (/^text\/html\b/i.test(res.headers.get('content-type') || '')) {
        res.body?.cancel().catch(() => {});
        fail(`${where.url} answered an HTML page where ${where.path} was expected: is ${where.endpoint} a Hub?`);
      }
      return res;
    }
    res.body?.cancel().catch(() => {});
    if (res.status >= 500 && attempt < TRIES) {
      await new Promise((r) => setTimeout(r, 100 * attempt));
      continue;
    }
    const message = statusMessage(res, where);
    if (message === null && optional) return null;
    fail(message || `${where.repo} has no file ${where.path} at ${where.revision} (${where.url} answered 404)`);
  }
}

// A Range request's answer: the bytes [0, n) of a file and its whole size (Content-Range's total, or Content-Length
// when the server sent it all: then only n bytes are read).
async function firstBytes(where, n, io, optional) {
  const res = await hubFetch(where, { headers: { Range: `bytes=0-${n - 1}` } }, io, optional);
  if (!res) return null;
  const range = /\/(\d+)\s*$/.exec(res.headers.get('content-range') || '');
  const size = res.status === 206 && range ? Number(range[1]) : Number(res.headers.get('content-length'));
  const etag = normalEtag(res.headers.get('x-linked-etag') || res.headers.get('etag'));
  const reader = res.body.getReader(),
    parts = [];
  let got = 0;
  while (got < n) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
  }
  reader.cancel().catch(() => {});
  const bytes = new Uint8Array(got);
  parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
  return { bytes: bytes.subarray(0, Math.min(n, got)), size, etag, commit: res.headers.get('x-repo-commit') };
}

// A safetensors file's header (one ranged request, a second when it is longer than HEADER_RANGE) → {size, etag,
// headerBytes, tensors, params, dtypes: {dtype: params}, bytes (of the tensors)}.
async function readHeader(where, io, optional) {
  const first = await firstBytes(where, HEADER_RANGE, io, optional);
  if (!first) return null;
  const { bytes, size, etag } = first;
  if (bytes.length < 8 || !Number.isSafeInteger(size))
    fail(`${where.path} of ${where.repo} is not a safetensors file: it has ${bytes.length} bytes (${where.url})`);
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  if (n > 100e6 || 8 + n > size)
    fail(`${where.path} of ${where.repo} is not a safetensors file: its header says ${n} bytes of ${size}`);
  let head = bytes.subarray(8, 8 + n);
  if (head.length < n) {
    const res = await hubFetch(where, { headers: { Range: `bytes=8-${8 + n - 1}` } }, io);
    head = new Uint8Array(await res.arrayBuffer()).subarray(0, n);
    io.requests++;
  }
  io.headerBytes += 8 + head.length;
  let json;
  try {
    json = JSON.parse(new TextDecoder().decode(head));
  } catch (e) {
    fail(`${where.path} of ${where.repo}: its safetensors header is not JSON (${messageOf(e)})`);
  }
  const whole = new Uint8Array(8 + head.length);
  whole.set(bytes.subarray(0, 8));
  whole.set(head, 8);
  return { size, etag, head: whole, ...countTensors(json, where) };
}

function countTensors(json, where) {
  const dtypes = {};
  let tensors = 0,
    params = 0,
    bytes = 0;
  for (const [name, t] of Object.entries(json)) {
    if (name === '__metadata__') continue;
    if (!t || !Array.isArray(t.shape) || !Array.isArray(t.data_offsets))
      fail(`${where.path} of ${where.repo}: tensor ${name} has no shape or data_offsets in its header`);
    const count = t.shape.reduce((a, b) => a * b, 1);
    tensors++;
    params += count;
    bytes += t.data_offsets[1] - t.data_offsets[0];
    dtypes[t.dtype] = (dtypes[t.dtype] || 0) + count;
  }
  return { tensors, params, dtypes, bytes };
}

// The memory this JavaScript can give the core: wasm32's 4 GB, less where the browser says it has less.
export function memoryLimit() {
  let limit = WASM_MEMORY;
  const nav = typeof navigator === 'object' && navigator ? navigator : {};
  if (typeof nav.deviceMemory === 'number') limit = Math.min(limit, (nav.deviceMemory * 2 ** 30) / 2);
  const perf = typeof performance === 'object' && performance && performance.memory;
  if (perf && typeof perf.jsHeapSizeLimit === 'number') limit = Math.min(limit, perf.jsHeapSizeLimit);
  return limit;
}

export { firstBytes, readHeader, messageOf };

// The preview's part that needs the core: whether it computes this config.json (its own message when not).
export function configCheck(core, text) {
  try {
    const loading = unwrap(core.modelLoadingCreate(text));
    loading.delete();
    return null;
  } catch (e) {
    return messageOf(e);
  }
}

const INDEX = 'model.safetensors.index.json',
  WEIGHTS = 'model.safetensors';
const OPTIONAL = ['tokenizer.json', 'tokenizer_config.json'];

function num(config, keys) {
  const c =
    config.text_config && typeof config.text_config === 'object' ? { ...config.text_config, ...config } : config;
  for (const k of keys) if (Number.isSafeInteger(c[k])) return c[k];
  return null;
}

// The size a HEAD request says an optional file has (null: not there).
async function headSize(where, io) {
  const res = await hubFetch(where, { method: 'HEAD' }, io, true);
  io.requests++;
  if (!res) return null;
  const n = Number(res.headers.get('x-linked-size') || res.headers.get('content-length'));
  return Number.isSafeInteger(n) ? n : 0;
}

// The weights: model.safetensors's header, or the index and each shard's header; a repository with only a
// pickled pytorch_model.bin (or nothing) is said.
async function weightFiles(at, io) {
  const one = await readHeader(at(WEIGHTS), io, true);
  io.requests++;
  if (one) return { shards: [{ path: WEIGHTS, ...one }], index: null };
  const res = await hubFetch(at(INDEX), {}, io, true);
  io.requests++;
  if (!res) {
    const bin = await headSize(at('pytorch_model.bin'), io);
    const { repo, revision } = at(INDEX);
    fail(
      bin !== null
        ? `${repo} has only pytorch_model.bin (a pickle, which the page does not read), no model.safetensors: ` +
            'pick a repository with safetensors weights, or convert it (model.save_pretrained(folder)) and drop the folder'
        : `${repo} at ${revision} has no model.safetensors (nor ${INDEX}): its weights are not in safetensors files`,
    );
  }
  const text = await res.text();
  let map;
  try {
    map = JSON.parse(text).weight_map;
  } catch (e) {
    fail(`${INDEX} of ${at(INDEX).repo} is not JSON (${messageOf(e)})`);
  }
  if (!map || typeof map !== 'object') fail(`${INDEX} of ${at(INDEX).repo} has no weight_map`);
  const shards = [];
  for (const path of new Set(Object.values(map).map(String))) {
    shards.push({ path, ...(await readHeader(at(path), io)) });
    io.requests++;
  }
  return { shards, index: { path: INDEX, size: new TextEncoder().encode(text).length } };
}

// A sentence-transformers repository: modules.json and its Pooling module's config.json (for a model without a
// prediction head only, as the page's model= folders).
async function sentenceFiles(at, config, io) {
  const a = config.architectures;
  if (!Array.isArray(a) || !a.length || a.some((n) => /(LMHead|ForCausalLM|ForMaskedLM|ForPreTraining)/.test(n)))
    return [];
  const size = await headSize(at('modules.json'), io);
  if (size === null) return [];
  const res = await hubFetch(at('modules.json'), {}, io, true);
  io.requests++;
  let list;
  try {
    list = res && JSON.parse(await res.text());
  } catch (e) {
    list = null; // the page's sentence.js says so
  }
  const pool = Array.isArray(list) && list.find((m) => m && /Pooling$/.test(String(m.type)));
  const dir = pool && String(pool.path || '').replace(/\/$/, '');
  const out = [{ path: 'modules.json', size, kind: 'sentence' }];
  if (!dir || /(^|\/)\.\.(\/|$)|^\//.test(dir)) return out;
  const poolSize = await headSize(at(dir + '/config.json'), io);
  if (poolSize !== null) out.push({ path: dir + '/config.json', size: poolSize, kind: 'sentence' });
  return out;
}

// What a Hub model is and what it needs, from config.json (its X-Repo-Commit pins every later request), the
// weights' headers (one Range request each) and HEAD requests of the other files; no weight is fetched.
export async function previewHub(core, spec, io) {
  const { repo, revision, endpoint } = spec;
  const where = (rev) => (path) => ({
    repo,
    revision: rev,
    path,
    endpoint,
    url: resolveUrl(endpoint, repo, rev, path),
  });
  const res = await hubFetch(where(revision)('config.json'), {}, io);
  io.requests++;
  // X-Repo-Commit, else the commit in the address a redirect led to (the Hub's /api/resolve-cache/…/{commit}/…)
  const commit = res.headers.get('x-repo-commit') || (/\/([0-9a-f]{40})\//.exec(res.url || '') || [])[1] || null,
    text = await res.text();
  const at = where(commit || revision);
  let config;
  try {
    config = JSON.parse(text);
  } catch (e) {
    fail(`config.json of ${repo} is not JSON (${messageOf(e)})`);
  }
  const { shards, index } = await weightFiles(at, io);
  const files = [{ path: 'config.json', size: new TextEncoder().encode(text).length, kind: 'config' }];
  for (const path of OPTIONAL) {
    const size = await headSize(at(path), io);
    if (size !== null) files.push({ path, size, kind: 'tokenizer' });
  }
  files.push(...(await sentenceFiles(at, config, io)));
  if (index) files.push({ ...index, kind: 'index' });
  for (const s of shards) {
    const entry = { path: s.path, size: s.size, etag: s.etag, kind: 'weights' };
    HEADS.set(entry, s.head);
    files.push(entry);
  }
  return summary({ repo, revision, commit, endpoint, config, text, files, shards }, core, io);
}

function summary(p, core, io) {
  const dtypes = {};
  let params = 0,
    bytes = 0;
  for (const s of p.shards) {
    params += s.params;
    bytes += s.bytes;
    for (const [d, n] of Object.entries(s.dtypes)) dtypes[d] = (dtypes[d] || 0) + n;
  }
  const limit = memoryLimit();
  return {
    id: `${p.repo}@${p.commit || p.revision}`,
    repo: p.repo,
    revision: p.revision,
    commit: p.commit,
    endpoint: p.endpoint,
    modelType: typeof p.config.model_type === 'string' ? p.config.model_type : null,
    layers: num(p.config, ['num_hidden_layers', 'n_layer', 'n_layers']),
    heads: num(p.config, ['num_attention_heads', 'n_head', 'n_heads']),
    unsupported: configCheck(core, p.text),
    files: p.files,
    downloadBytes: p.files.reduce((s, f) => s + (f.size || 0), 0),
    params,
    dtypes,
    dtype: Object.keys(dtypes).sort((a, b) => dtypes[b] - dtypes[a])[0] || null,
    memory: { needed: bytes, limit, fits: bytes < limit },
    requests: io.requests,
    headerBytes: io.headerBytes,
    stored: false,
  };
}
