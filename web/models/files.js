// MHA Explorer, the model page — a checkpoint's files, however they come: a dropped folder (its entries read
// recursively), files chosen in the file dialog (one by one or a folder), or a folder next to the page named by the
// model= parameter (fetched from the page's own host, never elsewhere). pickCheckpoint checks that the files a
// model needs are there, naming the missing one; core.loadModel checks what they hold. A sentence-transformers folder
// (1_Pooling/config.json below the model's files) is read for its pooling.
import { readSentenceConfig } from './sentence.js';

// What a checkpoint folder holds that the page reads (by base name).
export const CONFIG = 'config.json',
  TOKENIZER = 'tokenizer.json',
  TOKENIZER_CONFIG = 'tokenizer_config.json';
export const WEIGHTS = 'model.safetensors',
  INDEX = 'model.safetensors.index.json';
const MODULES = 'modules.json'; // sentence-transformers' list of modules, beside the model's files
const FOLDER_HINT =
  "A model folder as transformers saves it (save_pretrained) or as a model's page on the Hugging Face Hub " +
  'lists it: model.safetensors (or model.safetensors.index.json and its shards), config.json, tokenizer.json and tokenizer_config.json.';

const baseName = (f) => String(f.name).split('/').pop();
// The path a file had in its folder, when the browser says (a folder chosen or dropped), else its name.
export const pathOf = (f) => f.relativePath || f.webkitRelativePath || f.name;

// A dropped DataTransfer → promise of [File] (each with relativePath when it came from a folder); folders are read
// recursively (FileSystemDirectoryEntry; readEntries answers in batches until an empty one).
export function filesFromDrop(dataTransfer) {
  const items = Array.from(dataTransfer.items || []).filter((i) => i.kind === 'file');
  const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  if (!entries.length || entries.some((e) => !e)) return Promise.resolve(Array.from(dataTransfer.files || []));
  const walk = (entry, path) =>
    new Promise((resolve, reject) => {
      if (entry.isFile) {
        entry.file((f) => {
          f.relativePath = path + f.name;
          resolve([f]);
        }, reject);
        return;
      }
      const reader = entry.createReader(),
        all = [];
      const more = () =>
        reader.readEntries((batch) => {
          if (!batch.length) {
            Promise.all(all.map((e) => walk(e, path + entry.name + '/'))).then((l) => resolve(l.flat()), reject);
            return;
          }
          all.push(...batch);
          more();
        }, reject);
      more();
    });
  return Promise.all(entries.map((e) => walk(e, ''))).then((l) => l.flat());
}

// The folder the files came from (the first part of their paths when they all share it), or null.
export function folderOf(files) {
  const firsts = new Set(files.map((f) => pathOf(f).split('/')).map((p) => (p.length > 1 ? p[0] : null)));
  return firsts.size === 1 ? Array.from(firsts)[0] : null;
}

// [File or {name, bytes} (a Uint8Array, as core.loadModel takes it)] → promise of {files (what loadModel reads: config,
// tokenizer files, weights or index and shards), text:
// {config, tokenizer, tokenizerConfig} (their text), shards: [names]}; rejects with a message naming the file that
// is missing or unreadable. sentence: sentence.js's readSentenceConfig of a sentence-transformers folder (its
// modules.json and 1_Pooling/config.json below the model's files), or null.
export async function pickCheckpoint(files) {
  const { byName, byPath } = filesByName(files);
  const need = (name, why) => {
    if (byName.has(name)) return byName.get(name);
    throw new Error(name + ' is missing: ' + why + ' ' + FOLDER_HINT);
  };
  const config = need(CONFIG, 'it says which model the weights are (model_type, layers, heads).');
  const tokenizer = need(
    TOKENIZER,
    'the page splits your text into tokens with it' +
      (byName.has('vocab.txt') || byName.has('vocab.json')
        ? ' (this folder has the older vocab files only: AutoTokenizer.from_pretrained(folder).save_pretrained(folder) writes tokenizer.json).'
        : '.'),
  );
  const weights = await weightFiles(byName);
  const picked = [config, tokenizer, ...weights.files];
  if (byName.has(TOKENIZER_CONFIG)) picked.push(byName.get(TOKENIZER_CONFIG));
  const text = {
    config: await readText(config),
    tokenizer: await readText(tokenizer),
    tokenizerConfig: byName.has(TOKENIZER_CONFIG) ? await readText(byName.get(TOKENIZER_CONFIG)) : null,
  };
  // a sentence-transformers folder: modules.json and its Pooling module's config.json (sentence.js)
  const read = (path) => (byPath.has(path) ? readText(byPath.get(path)) : Promise.resolve(null));
  const sentence = await readSentenceConfig(await read(MODULES), read);
  return { files: picked, text, shards: weights.shards, sentence };
}

const readText = (f) =>
  // (a File first: Chromium's has a bytes() method)
  (typeof f.text === 'function' ? f.text() : Promise.resolve().then(() => new TextDecoder().decode(f.bytes))).then(
    (t) => t,
    (e) => {
      throw new Error(pathOf(f) + ' could not be read (' + e.message + ').');
    },
  );

// [File] → Map of base name → File for the files at the folder's top (the shallowest level that holds config.json:
// a sentence-transformers folder has another config.json in 1_Pooling/), and byPath: path below that level → File.
// Two files of one name at that level that the page reads (two folders at once) are refused.
function filesByName(files) {
  const parts = (f) => String(pathOf(f)).split('/');
  const configs = files.filter((f) => baseName(f) === CONFIG).map((f) => parts(f).length);
  const top = configs.length ? Math.min(...configs) : Math.min(...files.map((f) => parts(f).length));
  const byName = new Map(),
    byPath = new Map();
  for (const f of files) {
    const p = parts(f);
    if (p.length >= top) byPath.set(p.slice(top - 1).join('/'), f);
    if (p.length !== top) continue;
    const n = baseName(f);
    if (byName.has(n) && [CONFIG, TOKENIZER, TOKENIZER_CONFIG, WEIGHTS, INDEX].includes(n)) {
      throw new Error(
        'Two files are named ' +
          n +
          ' (' +
          pathOf(byName.get(n)) +
          ' and ' +
          pathOf(f) +
          '): drop one model folder at a time.',
      );
    }
    byName.set(n, f);
  }
  return { byName, byPath };
}

// The weights' files: model.safetensors, or the index and every shard it lists. → promise of {files, shards: [names]}.
async function weightFiles(byName) {
  if (byName.has(WEIGHTS)) return { files: [byName.get(WEIGHTS)], shards: [] };
  if (!byName.has(INDEX)) throw noWeights(byName);
  const index = byName.get(INDEX);
  let map;
  try {
    map = JSON.parse(await readText(index)).weight_map;
  } catch (e) {
    throw new Error(INDEX + ' is not the JSON transformers writes (' + e.message + ').', { cause: e });
  }
  if (!map || typeof map !== 'object')
    throw new Error(INDEX + ' has no weight_map: it is not the index transformers writes for sharded weights.');
  const shards = Array.from(new Set(Object.values(map).map(String)));
  const missing = shards.filter((s) => !byName.has(s));
  if (missing.length) {
    throw new Error(
      missing.join(', ') +
        (missing.length > 1 ? ' are' : ' is') +
        ' missing: ' +
        INDEX +
        ' lists ' +
        (missing.length > 1 ? 'them' : 'it') +
        ' among the ' +
        shards.length +
        ' shards of the weights. Drop the whole folder, every shard included.',
    );
  }
  return { files: [index, ...shards.map((s) => byName.get(s))], shards };
}

// The message of a folder without safetensors weights (naming the other format it has, if any).
function noWeights(byName) {
  const other = ['pytorch_model.bin', 'model.ckpt.index', 'tf_model.h5', 'flax_model.msgpack', 'model.onnx'].find((n) =>
    byName.has(n),
  );
  return new Error(
    WEIGHTS +
      ' is missing' +
      (other
        ? ': this folder has ' +
          other +
          ', which the page does not read (safetensors only; ' +
          'transformers writes it with model.save_pretrained(folder, safe_serialization=True)).'
        : ': the weights are in it (or in shards listed by ' + INDEX + ').') +
      ' ' +
      FOLDER_HINT,
  );
}

// A response's body as a Blob, counting its bytes as they come (progress(n) per piece). The Blob is the response's
// own (Response.blob of one branch of the body, the other counted): a File built from the pieces in JS is a Blob the
// renderer hands over, and Chromium refuses to read one of a few hundred MB back ("NotReadableError": GPT-2 small's
// 548 MB), where the network's blob reads fine.
async function bodyBlob(res, progress) {
  if (!res.body || !res.body.tee) return res.blob();
  const [counted, kept] = res.body.tee();
  const count = async () => {
    const reader = counted.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      progress(value.length);
    }
  };
  const [blob] = await Promise.all([new Response(kept).blob(), count()]);
  return blob;
}

// model= : a folder relative to the page, on its own host. → the folder's absolute URL (ending in /), or throws.
export function folderURL(value, pageURL) {
  const v = String(value).trim();
  if (!v) throw new Error('model= names no folder: give a folder next to the page, such as model=models/gpt2/.');
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(v)) {
    throw new Error(
      'model=' +
        v +
        ' is an address: the page loads a folder relative to itself only (such as model=models/gpt2/), never from another site.',
    );
  }
  const page = new URL(pageURL);
  if (page.protocol === 'file:') {
    throw new Error(
      'model=' +
        v +
        ' cannot be read from a page opened as a file (browsers forbid it): serve the folder and the page over http(s), or drop the model folder on the page.',
    );
  }
  const url = new URL(v.endsWith('/') ? v : v + '/', page);
  if (url.origin !== page.origin)
    throw new Error('model=' + v + ' leads to another site: the page loads from its own host only.');
  return url.href;
}

// Whether a config.json is a model's without a prediction head (architectures such as BertModel), whose folder may
// be a sentence-transformers one: only then does model= ask for modules.json (a 404 is logged for each file absent).
function headless(configText) {
  try {
    const a = JSON.parse(configText).architectures;
    return (
      Array.isArray(a) && a.length > 0 && !a.some((n) => /(LMHead|ForCausalLM|ForMaskedLM|ForPreTraining)/.test(n))
    );
  } catch {
    return false;
  }
}
// modules.json and the Pooling module's config.json (as File with relativePath: pickCheckpoint finds them by path).
async function fetchSentenceFiles(fetchFile) {
  const modules = await fetchFile(MODULES, true);
  if (!modules) return;
  let list;
  try {
    list = JSON.parse(await modules.text());
  } catch {
    return; // pickCheckpoint says so
  }
  const pool = Array.isArray(list) && list.find((m) => m && /Pooling$/.test(String(m.type)));
  const dir = pool && String(pool.path || '').replace(/\/$/, '');
  if (!dir || /(^|\/)\.\.(\/|$)|^\//.test(dir)) return;
  const f = await fetchFile(dir + '/' + CONFIG, true);
  if (f) f.relativePath = dir + '/' + CONFIG;
}

// The files of a folder on the page's host: config.json, tokenizer.json and tokenizer_config.json when there, fetched
// (with onProgress(loaded, total) over them), and the weights — model.safetensors, or the index (fetched) and its
// shards — as {name, url}: core.loadModel downloads them itself, straight into the core's memory (one copy, with its
// own progress); here a HEAD request only checks that they are there. → promise of [File | {name, url}]; a missing
// required file rejects with a message naming it.
export async function filesFromFolder(base, { signal, onProgress } = {}) {
  const got = [];
  let loaded = 0,
    total = 0;
  const request = async (name, method) => {
    try {
      return await fetch(base + name, { method, signal, credentials: 'same-origin' });
    } catch (e) {
      if (signal && signal.aborted) throw e;
      throw new Error(name + ' could not be fetched from ' + base + ' (' + e.message + ').', { cause: e });
    }
  };
  const probe = async (name) => {
    let res = await request(name, 'HEAD');
    if (res.status === 405 || res.status === 501) {
      res = await request(name, 'GET'); // a server without HEAD: its answer's start, then cancelled
      if (res.body) res.body.cancel().catch(() => {});
    }
    if (!res.ok) return null;
    const file = { name, url: base + name };
    got.push(file);
    return file;
  };
  const fetchFile = async (name, optional) => {
    const res = await request(name, 'GET');
    if (!res.ok) {
      if (optional) return null;
      throw new Error(name + ' is missing at ' + base + ' (the server answered ' + res.status + '). ' + FOLDER_HINT);
    }
    total += Number(res.headers.get('content-length')) || 0;
    const file = new File(
      [await bodyBlob(res, (n) => onProgress && onProgress((loaded += n), Math.max(total, loaded)))],
      name.split('/').pop(),
    );
    got.push(file);
    return file;
  };
  const config = await fetchFile(CONFIG);
  await fetchFile(TOKENIZER);
  if (headless(await config.text())) await fetchSentenceFiles(fetchFile);
  await fetchFile(TOKENIZER_CONFIG, true);
  if (!(await probe(WEIGHTS))) {
    const index = await fetchFile(INDEX, true);
    if (!index)
      throw new Error(
        WEIGHTS +
          ' is missing at ' +
          base +
          ' (and so is ' +
          INDEX +
          ', which lists the shards of sharded weights). ' +
          FOLDER_HINT,
      );
    let map = null;
    try {
      map = JSON.parse(await index.text()).weight_map;
    } catch (e) {
      /* pickCheckpoint names it */
    }
    for (const shard of new Set(Object.values(map || {}).map(String))) await probe(shard);
  }
  return got;
}
