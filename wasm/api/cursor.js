// Reading a checkpoint's files (files.js's {name, size, bytes | blob | url | path}) in order, without a file-sized
// temporary, and never waiting forever: every read races the load's AbortSignal and a stall timer.
import { fail } from './checks.js';

const READ_BUFFER = 4 << 20; // the buffer a file is read through (1-16 MiB measured alike: Chromium gives ≤ 2 MiB a read)
const REOPEN = 1 << 20; // skipped bytes of a Blob past which its stream is reopened further on, not read over
const EMPTY = new Uint8Array(0);
export const STALL_TIMEOUT = 20000; // ms without an answer after which a read is retried once, then refused
const STALLED = Symbol('stalled');

function messageOf(e) {
  return e && typeof e.message === 'string' ? e.message : String(e);
}

// The load's reading state: {signal, stop (throws once the signal aborted), open (every cursor, closed at the end),
// stallTimeout, aborted (rejects with the signal's reason the moment it aborts), done (removes the listener)}.
export function readingState(signal, stallTimeout) {
  const reason = () => (signal.reason !== undefined ? signal.reason : new Error('the load was cancelled'));
  const stop = () => {
    if (signal && signal.aborted) throw reason();
  };
  let done = () => {};
  const aborted = new Promise((_, reject) => {
    if (!signal) return;
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    done = () => signal.removeEventListener('abort', onAbort);
  });
  aborted.catch(() => {}); // a load that ends without reading does not leave it unhandled
  return { signal, stop, open: [], stallTimeout, aborted, done: () => done() };
}

// promise's value, or STALLED when it has given none for io.stallTimeout ms; rejects at once when the load aborts.
function waitFor(promise, io) {
  let timer;
  const stall = new Promise((resolve) => {
    timer = setTimeout(resolve, io.stallTimeout, STALLED);
  });
  return Promise.race([promise, stall, io.aborted]).finally(() => clearTimeout(timer));
}

// What an answer of HTML means (a dev server's index.html for a missing file, a saved web page).
export function htmlMessage(file) {
  return file.url && !file.path
    ? `${file.url} answered an HTML page where ${file.name} was expected: is the path right? Dev servers answer a ` +
        'missing file with their index.html'
    : `${file.name} is an HTML page, not the checkpoint's file: was a web page saved under its name?`;
}

// The origin of a url fetched from this page, when it is not this page's own (null in Node or on the same origin).
function otherOrigin(url) {
  const here = typeof location === 'object' && location !== null ? location.origin : undefined;
  if (!here || here === 'null') return null;
  try {
    const there = new URL(url, location.href).origin;
    return there !== here ? there : null;
  } catch (e) {
    return null; // not a URL: fetch's own message says so
  }
}

// A file's bytes in order from `pos`: take(max) → the next 1..max bytes, a view valid until the next take. A
// Blob's stream and a fetch's body are read by a BYOB reader refilling one buffer (a BYOB read cannot target
// wasm memory: it would detach it); where a Blob's stream has no BYOB reader, slice().arrayBuffer() per buffer;
// where a body has none, its chunks as they come. A read with no answer for io.stallTimeout ms is read again once
// as a slice (a Blob), then refused naming the file and the byte.
class FileCursor {
  constructor(file, pos, io) {
    Object.assign(this, { file, pos, io, view: EMPTY, used: 0, mode: 'memory', reader: null, buffer: null });
    this.stalled = false; // after a stall the rest of the file is read in slices
    io.open.push(this);
  }
  // A Blob from `pos`: its stream through a BYOB reader, else its slices. What is left of it, when one buffer
  // holds it, is one slice: Chromium's BYOB read of a small Blob's stream sometimes never answered while another
  // frame read a Blob (two model pages loading in one notebook: 1 load in 18–36 hung; DEVELOPERS.md).
  startBlob() {
    const blob = this.file.blob,
      whole = blob.size - this.pos <= READ_BUFFER || this.stalled,
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
  // A file:// URL in Node: the file as a Blob on disk (fs.openAsBlob), read as any Blob.
  async openPath() {
    const { file, io } = this;
    const get = typeof process.getBuiltinModule === 'function' ? (n) => process.getBuiltinModule(n) : null;
    if (!get)
      fail(
        `${file.name}: this Node reads no file:// URL (20.16 or later does); pass {name, bytes: await fs.openAsBlob(path)}`,
      );
    let blob;
    try {
      blob = await waitFor(get('node:fs').openAsBlob(get('node:url').fileURLToPath(file.path)), io);
    } catch (e) {
      io.stop();
      fail(`${file.name} could not be opened from ${file.url} (${messageOf(e)})`);
    }
    if (blob === STALLED) fail(`${file.name}: ${file.url} did not open in ${io.stallTimeout / 1000} s`);
    file.blob = blob;
    file.size = blob.size;
    this.startBlob();
  }
  // A url: fetched from its start; the size from Content-Length (without one, the body whole, as a Blob).
  async fetchBody() {
    const { file, io } = this;
    let res;
    try {
      res = await waitFor(fetch(file.url, { signal: io.signal }), io);
    } catch (e) {
      io.stop();
      const other = otherOrigin(file.url);
      fail(
        other
          ? `${file.name} could not be fetched from another origin (${file.url}: ${messageOf(e)}): a server on another ` +
              "origin must send Access-Control-Allow-Origin for this page (CORS), or serve the files from this page's origin"
          : `${file.name} could not be fetched from ${file.url} (${messageOf(e)})`,
      );
    }
    if (res === STALLED) fail(`${file.name}: ${file.url} gave no answer in ${io.stallTimeout / 1000} s`);
    if (!res.ok) {
      const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
      fail(`${file.name} could not be fetched: ${file.url} answered ${status}`);
    }
    if (/^text\/html\b/i.test(res.headers.get('content-type') || '') && !/\.html?$/i.test(file.name)) {
      res.body?.cancel().catch(() => {});
      fail(htmlMessage(file));
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
    let blob;
    try {
      blob = await waitFor(res.blob(), this.io);
    } catch (e) {
      this.io.stop();
      fail(this.readError(e));
    }
    if (blob === STALLED) fail(this.stallError());
    this.file.blob = blob;
    this.file.size = blob.size;
    this.startBlob();
  }
  // The next bytes of the source at pos, or null at its end (one read, not raced).
  async read() {
    const f = this.file;
    if (this.mode === 'slices') {
      const end = Math.min(f.size, this.pos + READ_BUFFER);
      const v = this.pos < end ? new Uint8Array(await f.blob.slice(this.pos, end).arrayBuffer()) : EMPTY;
      return v.length ? v : null;
    }
    const { done, value } = await this.reader.read(this.mode === 'byob' ? new Uint8Array(this.buffer) : undefined);
    if (this.mode === 'byob' && value) this.buffer = value.buffer;
    return done ? null : value;
  }
  // read(), raced (STALLED when it gave nothing in time); a stalled read of a Blob is read again once as one slice
  // (its stream cancelled).
  async next() {
    if (this.mode === 'memory') return this.pos < this.file.size ? this.file.bytes.subarray(this.pos) : null;
    const view = await waitFor(this.read(), this.io);
    if (view !== STALLED || !this.file.blob) return view;
    this.close();
    Object.assign(this, { stalled: true, buffer: null, mode: 'slices' });
    return waitFor(this.read(), this.io);
  }
  stallError() {
    const f = this.file,
      s = this.io.stallTimeout / 1000;
    return f.url && !f.blob
      ? `the download of ${f.name} from ${f.url} stalled: no bytes for ${s} s after ${this.pos} of its ${f.size} bytes`
      : `${f.name} could not be read: the browser gave no bytes for ${s} s at byte ${this.pos} of ${f.size}, ` +
          'twice (the second time as one slice); try again, or reload the page';
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
      if (view === STALLED) fail(this.stallError());
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
    if (f.url && !f.blob)
      return `the download of ${f.name} from ${f.url} failed after ${this.pos} of ${f.size} bytes (${messageOf(e)})`;
    return (
      `${f.name} could not be read at byte ${this.pos} of ${f.size} (${messageOf(e)}). A file chosen from disk ` +
      'gives this when it was changed or moved since; a File or Blob the page made itself (new File, new Blob, a ' +
      "fetched body's blob()) when the browser's Blob memory is full (Chromium keeps a few hundred MB of them per " +
      "page): drop the files of models no longer used, or load from an <input>'s Files or from URLs"
    );
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

// A cursor at byte pos of the file (a url is fetched, a file:// URL opened: its size is known from then on).
export async function openCursor(file, pos, io) {
  const cursor = new FileCursor(file, 0, io);
  if (file.path && !file.blob) await cursor.openPath();
  else if (file.url && !file.blob) await cursor.fetchBody();
  else if (file.blob) {
    cursor.pos = pos;
    cursor.startBlob();
  } else cursor.pos = pos;
  await cursor.skipTo(pos);
  return cursor;
}

const MAX_TEXT = 256 << 20; // tokenizer.json of a 150k-token vocabulary: about 10 MB
export async function readText(file, io) {
  const cursor = await openCursor(file, 0, io);
  if (file.size > MAX_TEXT)
    fail(`${file.name} has ${file.size} bytes, too many for a JSON file of a checkpoint; is it the right file?`);
  const bytes = await cursor.readInto(new Uint8Array(file.size));
  cursor.close();
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    return fail(`${file.name} is not UTF-8 text; is it the right file?`);
  }
  if (/^\s*</.test(text)) fail(htmlMessage(file));
  return text;
}
