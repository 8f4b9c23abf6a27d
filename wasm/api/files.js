// The checkpoint's files as loadModel takes them (File, Blob, {name, bytes}, {name, url}), checked with messages;
// cursor.js reads them. No core here: models.js copies the bytes.
import { fail, describe } from './checks.js';

function isBlob(x) {
  return (
    x !== null &&
    typeof x === 'object' &&
    typeof x.size === 'number' &&
    typeof x.slice === 'function' &&
    typeof x.arrayBuffer === 'function'
  );
}

// Brand checks, true for a Uint8Array or ArrayBuffer of any realm (a page's parent window: instanceof is false)
// and for nothing else (a Symbol.toStringTag cannot pass for one).
const typedArrayTag = Object.getOwnPropertyDescriptor(
    Object.getPrototypeOf(Uint8Array.prototype),
    Symbol.toStringTag,
  ).get,
  bufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
const isUint8Array = (x) => typedArrayTag.call(x) === 'Uint8Array';
function isArrayBuffer(x) {
  try {
    bufferLength.call(x);
    return true;
  } catch (e) {
    return false; // not an ArrayBuffer
  }
}

// One of loadModel's files as {name, size, bytes | blob | url}: a File, {name, bytes} with bytes a Uint8Array,
// ArrayBuffer or Blob, or {name, url} (fetched when read; its size comes with the answer). A path keeps its last
// part ('gpt2/config.json' is config.json).
function checkFile(f, i) {
  const what = `files[${i}]`;
  if (f === null || typeof f !== 'object')
    fail(`${what} must be a File, {name, bytes} or {name, url}, got ${describe(f)}`);
  if (typeof f.name !== 'string' || f.name === '')
    fail(`${what} has no name: loadModel finds config.json, model.safetensors... by name`);
  const name = f.name.slice(f.name.lastIndexOf('/') + 1);
  const bytes = isBlob(f) ? f : f.bytes; // a File is a Blob (whose newer bytes() method is not our bytes)
  if (isUint8Array(bytes)) return { name, size: bytes.length, bytes };
  if (isArrayBuffer(bytes)) return { name, size: bytes.byteLength, bytes: new Uint8Array(bytes) };
  if (isBlob(bytes)) return { name, size: bytes.size, blob: bytes };
  if (bytes === undefined && (typeof f.url === 'string' || f.url instanceof URL))
    return checkUrl(String(f.url), what, name);
  return fail(
    `${what} (${name}): bytes must be a Uint8Array, ArrayBuffer or Blob (or url the file's address), got ${describe(bytes)}`,
  );
}

// Node, where a url has no page to be relative to and fetch() reads no file:// URL.
function inNode() {
  return typeof process === 'object' && process !== null && !!(process.versions && process.versions.node);
}

// {name, size, url}, or {name, size, url, path} for a file:// URL in Node (cursor.js opens it with fs.openAsBlob).
function checkUrl(url, what, name) {
  if (!inNode()) {
    if (typeof fetch !== 'function') fail(`${what} (${name}): a url needs fetch(), which this JavaScript lacks`);
    return { name, size: undefined, url };
  }
  let parsed = null;
  try {
    parsed = new URL(url);
  } catch (e) {
    fail(
      `${what} (${name}): the url ${JSON.stringify(url)} is relative, and Node has no page it could be relative to: ` +
        `give an absolute URL (http://…), a file:// URL (url.pathToFileURL(path)), or the file itself ` +
        `({name, bytes: await fs.openAsBlob(path)})`,
    );
  }
  if (parsed.protocol === 'file:') return { name, size: undefined, url, path: parsed };
  if (typeof fetch !== 'function') fail(`${what} (${name}): a url needs fetch(), which this JavaScript lacks`);
  return { name, size: undefined, url };
}

function checkFiles(files) {
  if (files === null || typeof files !== 'object' || typeof files[Symbol.iterator] !== 'function') {
    fail(
      `loadModel expects the checkpoint's files (an array or FileList of File, or of {name, bytes}), got ${describe(files)}`,
    );
  }
  const byName = new Map();
  Array.from(files).forEach((f, i) => {
    const file = checkFile(f, i);
    if (byName.has(file.name)) fail(`${file.name} was given twice`);
    byName.set(file.name, file);
  });
  return byName;
}

export { checkFiles };
