// A weight file read by the loader while it downloads (a first visit of loadModel({hub})): each chunk from the
// network goes to the store (the body of a Response that cache.put writes to disk) and to the loader (a Blob-like
// object whose streams models.js's cursor reads in order), and the download is paced by the slower of the two, so
// neither holds more than a few MB: one pass over the network, no Blob, no second read. The bytes behind the loader
// are dropped (the last KEEP kept, for a cursor that opens again a little behind); the safetensors header is the
// preview's, so a shard's header is read with no request and no connection left waiting.
import { fail } from './checks.js';

const KEEP = 8 << 20; // bytes kept behind the loader's position
const AHEAD = 16 << 20; // bytes downloaded ahead of the loader at most
const STORE_QUEUE = 16 << 20; // bytes queued for the store's write at most

export class LiveFile {
  // size: the file's bytes; head: its first bytes (the preview's header) or null; chunks: () → an async iterator of
  // the file's bytes from 0 (hub-store.js's resumable download); name: for the messages.
  constructor({ size, head, chunks, name }) {
    Object.assign(this, { size, head: head || new Uint8Array(0), chunks, name });
    Object.assign(this, { kept: [], got: 0, readers: new Set(), last: 0, wakers: [], failure: null });
    Object.assign(this, { it: null, running: null, finishing: false, stopped: false, store: null });
  }
  // The store's side: a ReadableStream of the whole file for cache.put (started with the download).
  storeStream() {
    return new ReadableStream(
      {
        start: (c) => void (this.store = c),
        pull: () => this.wake(),
        cancel: () => {
          this.store = null;
          this.wake();
        },
      },
      { highWaterMark: STORE_QUEUE, size: (chunk) => chunk.byteLength },
    );
  }
  wake() {
    for (const w of this.wakers.splice(0)) w();
  }
  changed() {
    return new Promise((r) => this.wakers.push(r));
  }
  // The loader's position: the least of its open readers' (the last one's when none is open).
  position() {
    let p = Infinity;
    for (const r of this.readers) p = Math.min(p, r.pos);
    return p === Infinity ? this.last : p;
  }
  wanted() {
    if (this.finishing) return !!this.store;
    for (const r of this.readers) if (r.pos >= this.head.length && this.got < r.pos + AHEAD) return true;
    return false;
  }
  start() {
    if (!this.running) this.running = this.pump();
    this.running.catch(() => {});
  }
  async pump() {
    this.it = this.chunks();
    try {
      while (this.got < this.size) {
        if (this.failure) throw this.failure;
        if (this.stopped || (this.finishing && !this.store)) return;
        const full = this.store && this.store.desiredSize <= 0;
        if (!this.wanted() || full) {
          await this.changed();
          continue;
        }
        const { done, value } = await this.it.next();
        if (done) break;
        this.push(value);
      }
      if (this.got !== this.size) fail(`${this.name}: the download ended after ${this.got} of ${this.size} bytes`);
      if (this.store) this.store.close();
    } catch (e) {
      this.failure = this.failure || e;
      if (this.store) this.store.error(this.failure);
      throw this.failure;
    } finally {
      this.store = null;
      this.wake();
    }
  }
  push(bytes) {
    if (this.store) this.store.enqueue(bytes); // the chunk itself: the store copies it to disk
    this.kept.push({ at: this.got, bytes });
    this.got += bytes.length;
    const from = this.finishing && !this.readers.size ? this.got : this.position() - KEEP;
    while (this.kept.length && this.kept[0].at + this.kept[0].bytes.length <= from) this.kept.shift();
    this.wake();
  }
  // The bytes at pos (a view of up to max, valid until the next call), waiting for the download; null at the end.
  async read(reader, max) {
    const pos = reader.pos;
    if (pos >= this.size) return null;
    if (pos < this.head.length) return this.head.subarray(pos, Math.min(this.head.length, pos + max));
    this.start();
    this.wake();
    const ended = this.running.then(
      () => true,
      () => true,
    );
    while (this.got <= pos) {
      if (this.failure) throw this.failure;
      if ((await Promise.race([this.changed(), ended])) && this.got <= pos) {
        if (this.failure) throw this.failure;
        fail(`${this.name}: the download ended at byte ${this.got}, before byte ${pos}`);
      }
    }
    const chunk = this.kept.find((k) => k.at <= pos && pos < k.at + k.bytes.length);
    if (!chunk)
      fail(`${this.name}: byte ${pos} was read after it was dropped (${this.got} downloaded); load the model again`);
    return chunk.bytes.subarray(pos - chunk.at, Math.min(chunk.bytes.length, pos - chunk.at + max));
  }
  open(pos) {
    const reader = { pos };
    this.readers.add(reader);
    this.wake();
    return reader;
  }
  close(reader) {
    this.readers.delete(reader);
    this.last = Math.max(this.last, reader.pos);
    this.wake();
  }
  // The download to its end for the store (the loader is done with the file); → when it ended.
  finish() {
    this.finishing = true;
    this.kept = [];
    if (!this.store) {
      // nothing needs the rest: the download stops
      this.stopped = true;
      if (this.it) this.it.return().catch(() => {});
      this.wake();
      return Promise.resolve();
    }
    this.start();
    this.wake();
    return this.running || Promise.resolve();
  }
  // The store's write failed (a full quota): the loader's side goes on alone.
  unstore() {
    this.store = null;
    this.wake();
  }
  abort(reason) {
    this.failure = this.failure || reason;
    if (this.it) this.it.return().catch(() => {});
    if (this.store) this.store.error(this.failure);
    this.store = null;
    this.wake();
  }
}

// [start, end) of a LiveFile as a Blob-like object (size, slice, stream, arrayBuffer): what files.js takes as a
// Blob and cursor.js reads (a byte stream, read through its BYOB reader into the cursor's buffer).
export function liveBlob(file, start = 0, end = file.size) {
  const size = Math.max(0, end - start);
  const slice = (a = 0, b = size) => {
    const at = (x) => (x < 0 ? Math.max(0, size + x) : Math.min(size, x));
    return liveBlob(file, start + at(a), start + Math.max(at(a), at(b)));
  };
  const stream = () => {
    let reader = null;
    const close = () => reader && (file.close(reader), (reader = null));
    return new ReadableStream({
      type: 'bytes',
      start: () => void (reader = file.open(start)),
      async pull(c) {
        const req = c.byobRequest;
        const want = Math.min(end - reader.pos, req ? req.view.byteLength : 1 << 20);
        const v = want > 0 ? await file.read(reader, want) : null;
        if (!v) {
          close();
          c.close();
          if (req) req.respond(0);
          return;
        }
        reader.pos += v.length;
        if (req) {
          new Uint8Array(req.view.buffer, req.view.byteOffset, v.length).set(v);
          req.respond(v.length);
        } else c.enqueue(v.slice());
      },
      cancel: close,
    });
  };
  const arrayBuffer = async () => {
    const out = new Uint8Array(size);
    const reader = file.open(start);
    try {
      while (reader.pos < end) {
        const v = await file.read(reader, end - reader.pos);
        if (!v) fail(`${file.name} ended at byte ${reader.pos} of ${file.size}`);
        out.set(v, reader.pos - start);
        reader.pos += v.length;
      }
    } finally {
      file.close(reader);
    }
    return out.buffer;
  };
  return { size, type: '', slice, stream, arrayBuffer };
}
