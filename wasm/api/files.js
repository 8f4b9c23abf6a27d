// The checkpoint's files as loadModel takes them (File, Blob, {name, bytes}, {name, url}) and their readers: a
// cursor over each file's bytes in order, without a file-sized temporary. No core here: models.js copies the bytes.
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
  if (bytes === undefined && (typeof f.url === 'string' || f.url instanceof URL)) {
    if (typeof fetch !== 'function') fail(`${what} (${name}): a url needs fetch(), which this JavaScript lacks`);
    return { name, size: undefined, url: String(f.url) };
  }
  return fail(
    `${what} (${name}): bytes must be a Uint8Array, ArrayBuffer or Blob (or url the file's address), got ${describe(bytes)}`,
  );
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

// ---- Reading the files, in order, without a file-sized temporary -------------------------------------------

const READ_BUFFER = 4 << 20; // the buffer a file is read through (1-16 MiB measured alike: Chromium gives ≤ 2 MiB a read)
const REOPEN = 1 << 20; // skipped bytes of a Blob past which its stream is reopened further on, not read over
const EMPTY = new Uint8Array(0);

// A file's bytes in order from `pos`: take(max) → the next 1..max bytes, a view valid until the next take. A
// Blob's stream and a fetch's body are read by a BYOB reader refilling one buffer (a BYOB read cannot target
// wasm memory: it would detach it); where a Blob's stream has no BYOB reader, slice().arrayBuffer() per buffer;
// where a body has none, its chunks as they come. io: {signal, stop, open (every cursor, closed at the end)}.
class FileCursor {
  constructor(file, pos, io) {
    Object.assign(this, { file, pos, io, view: EMPTY, used: 0, mode: 'memory', reader: null, buffer: null });
    io.open.push(this);
  }
  // A Blob from `pos`: its stream through a BYOB reader, else its slices. What is left of it, when one buffer
  // holds it, is one slice: Chromium's BYOB read of a small Blob's stream sometimes never answered while another
  // frame read a Blob (two model pages loading in one notebook: 1 load in 18–36 hung; DEVELOPERS.md).
  startBlob() {
    const blob = this.file.blob,
      whole = blob.size - this.pos <= READ_BUFFER,
      stream = !whole && typeof blob.stream === 'function' ? blob.slice(this.pos).stream() : null;
    this.mode = stream && this.byob(stream) ? 'byob' : 'slices';
    if (stream && this.mode === 'slices') stream.cancel().catch(() => {});
  }
  byob(stream) {
    try {
      this.reader = stream.getReader({ mode: 'byob' });
    } catch (e) {
      return false; // not a byte stream
    }
    this.buffer = this.buffer || new ArrayBuffer(READ_BUFFER);
    return true;
  }
  // A url: fetched from its start; the size from Content-Length (without one, the body whole, as a Blob).
  async fetchBody() {
    const { file, io } = this;
    let res;
    try {
      res = await fetch(file.url, { signal: io.signal });
    } catch (e) {
      io.stop();
      fail(`${file.name} could not be fetched from ${file.url} (${messageOf(e)})`);
    }
    if (!res.ok) {
      const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
      fail(`${file.name} could not be fetched: ${file.url} answered ${status}`);
    }
    const coding = res.headers.get('content-encoding'),
      length = res.headers.get('content-length');
    const size = length !== null && res.body && (!coding || coding === 'identity') ? Number(length) : NaN;
    if (!Number.isSafeInteger(size)) return this.wholeBody(res);
    if (file.size !== undefined && file.size !== size)
      fail(`${file.name} changed on the server while it was read (${file.size} bytes, then ${size})`);
    file.size = size;
    if (!this.byob(res.body)) {
      this.reader = res.body.getReader();
      this.mode = 'chunks';
    } else this.mode = 'byob';
  }
  async wholeBody(res) {
    try {
      this.file.blob = await res.blob();
    } catch (e) {
      this.io.stop();
      fail(this.readError(e));
    }
    this.file.size = this.file.blob.size;
    this.startBlob();
  }
  // The next bytes of the source at pos, or null at its end.
  async next() {
    const f = this.file;
    if (this.mode === 'memory') return this.pos < f.size ? f.bytes.subarray(this.pos) : null;
    if (this.mode === 'slices') {
      const end = Math.min(f.size, this.pos + READ_BUFFER);
      const v = this.pos < end ? new Uint8Array(await f.blob.slice(this.pos, end).arrayBuffer()) : EMPTY;
      return v.length ? v : null;
    }
    const { done, value } = await this.reader.read(this.mode === 'byob' ? new Uint8Array(this.buffer) : undefined);
    if (this.mode === 'byob' && value) this.buffer = value.buffer;
    return done ? null : value;
  }
  async fill() {
    let view;
    do {
      try {
        view = await this.next();
      } catch (e) {
        this.io.stop();
        fail(this.readError(e));
      }
      this.io.stop();
      if (view === null) {
        const { name, size } = this.file;
        fail(
          this.file.url && !this.file.blob
            ? `the download of ${name} ended after ${this.pos} of its ${size} bytes (${this.file.url})`
            : `${name} ended after ${this.pos} of its ${size} bytes: was it changed while it was read?`,
        );
      }
    } while (view.length === 0);
    this.view = view;
    this.used = 0;
  }
  readError(e) {
    const f = this.file;
    return f.url && !f.blob
      ? `the download of ${f.name} from ${f.url} failed after ${this.pos} of ${f.size} bytes (${messageOf(e)})`
      : `${f.name} could not be read (${messageOf(e)}): was it changed or moved since it was chosen?`;
  }
  async take(max) {
    this.io.stop();
    if (this.used === this.view.length) await this.fill();
    const n = Math.min(max, this.view.length - this.used);
    const out = this.view.subarray(this.used, this.used + n);
    this.used += n;
    this.pos += n;
    return out;
  }
  async skipTo(offset) {
    if (this.file.blob && offset - this.pos > this.view.length - this.used + REOPEN) {
      this.close();
      Object.assign(this, { pos: offset, view: EMPTY, used: 0 });
      this.startBlob();
    }
    while (this.pos < offset) await this.take(offset - this.pos);
  }
  // The next out.length - at bytes into out from at.
  async readInto(out, at = 0) {
    while (at < out.length) {
      const v = await this.take(out.length - at);
      out.set(v, at);
      at += v.length;
    }
    return out;
  }
  close() {
    if (this.reader) this.reader.cancel().catch(() => {});
    this.reader = null;
  }
}

function messageOf(e) {
  return e && typeof e.message === 'string' ? e.message : String(e);
}

// A cursor at byte pos of the file (a url is fetched: its size is known from then on).
async function openCursor(file, pos, io) {
  const cursor = new FileCursor(file, 0, io);
  if (file.url && !file.blob) await cursor.fetchBody();
  else if (file.blob) {
    cursor.pos = pos;
    cursor.startBlob();
  } else cursor.pos = pos;
  await cursor.skipTo(pos);
  return cursor;
}

const MAX_TEXT = 256 << 20; // tokenizer.json of a 150k-token vocabulary: about 10 MB
async function readText(file, io) {
  const cursor = await openCursor(file, 0, io);
  if (file.size > MAX_TEXT)
    fail(`${file.name} has ${file.size} bytes, too many for a JSON file of a checkpoint; is it the right file?`);
  const bytes = await cursor.readInto(new Uint8Array(file.size));
  cursor.close();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    return fail(`${file.name} is not UTF-8 text; is it the right file?`);
  }
}

export { checkFiles, openCursor, readText, messageOf };
