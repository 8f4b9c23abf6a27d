// MHA Explorer — where the page and the lab get their files: next to the page (dist/index.html, lab.html,
// mha*.js, worker.js, trainer-mha*.js), or, in the one-file pages (dist/mha-explorer.html,
// mha-explorer-lab.html: each holds the page and the lab), from window.MHA_INLINE, which web/build.mjs writes into the page:
//   {files: {page, lab} (the file's own name), start: 'page' | 'lab', cores: {<build>: {glue | glueOf | glueDelta,
//    wasm | wasmDelta}}, workers: {trainer: source text}}
// where glue is a core build's JS with its embedded wasm cut out and wasm the module's bytes, both gzip then
// base64 (a build whose glue equals an earlier one's names that build: glueOf; a part carried as a delta against
// another build's: {of, ops}, web/build.mjs's deltaOf). coreText(build) puts them back together (DecompressionStream), once per build, and the page's
// script, its forward workers and the lab's training workers all start from that one text (blob: URLs).
import { BUILDS, threadsBlocked, threadsWanted } from './features.js';
import { bytesOf } from '../state/base64.js';

const inline = (typeof window !== 'undefined' && window.MHA_INLINE) || null;
// web/build.mjs puts this where the glue had the wasm's base64.
export const WASM_PLACEHOLDER = '@MHA_WASM_BASE64@';

// Whether this is a one-file page.
export const INLINE = !!inline;
// The view a one-file page shows when its address has no query ('page' or 'lab': web/entries/course.js).
export const START = inline && inline.start === 'lab' ? 'lab' : 'page';
// This document's own file name as its address ends (a course platform may rename an upload), or null (a srcdoc
// page, an address that ends with a folder).
function ownName() {
  if (!/^(https?|file):$/.test(location.protocol)) return null;
  return location.pathname.split('/').pop() || null;
}
// The page's and the lab's file names, for the links between them: the one-file course page (MHA_INLINE.start) holds
// both, so both are its own name (MHA_INLINE.files names it as web/build.mjs wrote it, for a page with no address of
// its own); another one-file page (the model page's twin) links to the files MHA_INLINE.files names.
export const FILES =
  inline && inline.start
    ? { page: ownName() || inline.files.page, lab: ownName() || inline.files.lab }
    : inline
      ? inline.files
      : { page: 'index.html', lab: 'lab.html' };
// The core builds this browser runs, fastest first, among the ones this page has.
export const CORE_BUILDS = BUILDS.filter(function (b) {
  return !inline || !!inline.cores[b];
});

function gunzip(base64) {
  if (typeof DecompressionStream !== 'function') {
    return Promise.reject(
      new Error(
        'this browser cannot unpack the one-file page (it has no DecompressionStream): ' +
          'open it in a current Chrome, Edge, Firefox (113 or later) or Safari (16.4 or later)',
      ),
    );
  }
  return new Response(new Blob([bytesOf(base64)]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
}
function base64Of(buffer) {
  return new Promise(function (resolve, reject) {
    const reader = new FileReader();
    reader.onload = function () {
      resolve(String(reader.result).slice(String(reader.result).indexOf(',') + 1));
    };
    reader.onerror = function () {
      reject(reader.error);
    };
    reader.readAsDataURL(new Blob([buffer]));
  });
}

// web/build.mjs's deltaOf undone: the bytes of `to` from `from` and the delta (both ArrayBuffers).
function undelta(from, delta) {
  const src = new Uint8Array(from),
    d = new Uint8Array(delta);
  let p = 0,
    o = 0;
  const varint = function () {
    let v = 0,
      scale = 1,
      b;
    do {
      b = d[p++];
      v += (b & 127) * scale;
      scale *= 128;
    } while (b & 128);
    return v;
  };
  const out = new Uint8Array(varint());
  while (p < d.length) {
    const n = varint();
    out.set(d.subarray(p, p + n), o);
    p += n;
    o += n;
    if (p >= d.length) break;
    const len = varint(),
      at = varint();
    out.set(src.subarray(at, at + len), o);
    o += len;
  }
  if (o !== out.length) throw new Error('a core build of this one-file page is damaged: save the page again');
  return out.buffer;
}
// A build's glue or wasm (name): carried, named by glueOf, or a delta against another build's (web/build.mjs).
function partOf(build, name) {
  const c = inline.cores[build];
  if (c[name]) return gunzip(c[name]);
  if (name === 'glue' && c.glueOf) return partOf(c.glueOf, name);
  const delta = c[name + 'Delta'];
  return Promise.all([partOf(delta.of, name), gunzip(delta.ops)]).then(function (parts) {
    return undelta(parts[0], parts[1]);
  });
}

const texts = {}; // build → promise of the core build's JS text
// The JS text of a core build of this one-file page (as dist/<build>.js holds it).
export function coreText(build) {
  if (!inline || !inline.cores[build]) return Promise.reject(new Error('this page carries no ' + build + ' core'));
  if (!texts[build]) {
    texts[build] = Promise.all([partOf(build, 'glue'), partOf(build, 'wasm').then(base64Of)]).then(function (parts) {
      const glue = new TextDecoder().decode(parts[0]);
      return glue.replace(WASM_PLACEHOLDER, function () {
        return parts[1];
      });
    });
  }
  return texts[build];
}

// A worker's source text (web/compute/trainer-worker.js) carried by this one-file page.
export function workerCode(name) {
  return inline.workers[name];
}

// Content-Security-Policy violations seen in this document, to name the policy when something fails.
const violations = [];
if (typeof document !== 'undefined') {
  document.addEventListener('securitypolicyviolation', function (e) {
    violations.push(e.effectiveDirective + ' ' + (e.blockedURI || 'inline'));
  });
}
// A failure in words: the policy that blocked something, if one did (its violation events may come after the
// error: the browser's own words about the policy count too); else the error's own message.
export function explain(err) {
  const message = String((err && err.message) || err || 'unknown error');
  const blocked = violations.filter(function (v, i) {
    return violations.indexOf(v) === i;
  });
  if (!blocked.length && !/Content.Security.Polic/i.test(message)) return message;
  return (
    "this site's Content-Security-Policy blocked " +
    (blocked.length ? blocked.join(', ') : 'it (' + message + ')') +
    ". MHA Explorer needs script-src 'self' 'wasm-unsafe-eval' and worker-src 'self' blob: (ask the site's administrator to allow them)."
  );
}

export function blobURL(text) {
  return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}

function loadScript(src, missing) {
  return new Promise(function (resolve, reject) {
    const s = document.createElement('script');
    s.src = src;
    s.onload = function () {
      s.remove();
      resolve();
    };
    s.onerror = function () {
      s.remove();
      reject(new Error(missing));
    };
    document.head.appendChild(s);
  });
}

// The forward worker's code (web/compute/forward-worker.js bundled with its imports), which web/build.mjs defines as a string
// in the page's script: a blob: worker runs it after the page's core text.
/* global MHA_FORWARD_WORKER */
const FORWARD_WORKER = typeof MHA_FORWARD_WORKER === 'string' ? MHA_FORWARD_WORKER : null;

// How this page starts a forward worker (web/compute/forward-worker.js) running the build's core: a promise of {start: () => a new
// Worker, core: the script the worker imports, or null when it carries the core}. Over http(s), dist/worker.js,
// which imports <build>.js (the browser's cached copy); an explorer whose files are in another folder (base: the
// <mha-explorer> element's, perhaps on a CDN, where a worker script of another origin cannot start) starts a blob:
// worker of the worker code that imports the core by its absolute URL. Chromium refuses worker scripts and
// importScripts from file://, so there a blob: URL of the core's text and the worker code: in the one-file page its
// own core text, next to dist/index.html the text dist/trainer-<build>.js carries for the lab (MHA_CORE_TEXT, no
// fourth copy). base: the folder of the core files ('' : the page's own).
export function forwardWorkers(build, base = '') {
  if (!inline && location.protocol !== 'file:') {
    if (base && FORWARD_WORKER) {
      const url = blobURL(FORWARD_WORKER);
      return Promise.resolve({
        start: function () {
          return new Worker(url);
        },
        core: new URL(build + '.js', new URL(base, document.baseURI)).href,
      });
    }
    return Promise.resolve({
      start: function () {
        return new Worker(base + 'worker.js');
      },
      core: build + '.js',
    });
  }
  if (!FORWARD_WORKER) return Promise.resolve(null);
  const text = inline
    ? coreText(build)
    : (window.MHA_CORE_TEXT && window.MHA_CORE_TEXT[build]
        ? Promise.resolve()
        : loadScript(base + 'trainer-' + build + '.js', 'trainer-' + build + '.js is missing')
      ).then(function () {
        return window.MHA_CORE_TEXT[build];
      });
  return text.then(function (core) {
    const url = blobURL(core + '\n' + FORWARD_WORKER);
    return {
      start: function () {
        return new Worker(url);
      },
      core: null,
    };
  });
}

// The build's core as a classic script of this page (so createMhaModule is defined): from the file next to
// the page (or in base, the folder of the core files), or from the one-file page's text.
export function loadCoreScript(build, base = '') {
  return (inline ? coreText(build).then(blobURL) : Promise.resolve(base + build + '.js')).then(function (src) {
    return new Promise(function (resolve, reject) {
      const s = document.createElement('script');
      s.src = src;
      // a file that is not the core (a host's "not found" page served as 200) defines no createMhaModule
      const fail = function (why) {
        s.remove();
        const err = new Error(build + '.js ' + why);
        if (!inline) err.missingFile = build + '.js';
        reject(err);
      };
      s.onload = function () {
        if (typeof window.createMhaModule === 'function') resolve();
        else fail('ran but defined no createMhaModule: blocked, or not the core');
      };
      s.onerror = function () {
        fail('did not run: the browser blocked it, or it is not there');
      };
      document.head.appendChild(s);
    });
  });
}

// The one loop over the core builds (the page's, the model page's and the lab's): attempt(build) for each build, fastest
// first, until one resolves → a promise of {value, build}. A build that fails passes to the next; an error with
// missingFile names a file that is not there. When every build failed: the missing files and what to upload
// (missingFiles) when each was missing, else the last failure in words (explain); err.allMissing says which.
// where: {page (the page's file name), oneFile (its one-file twin), base (the folder looked in, when not the page's),
// builds (the order: CORE_BUILDS unless told)}.
/** @param {(build: string) => Promise<any>} attempt
 *  @param {{page: string, oneFile: string, base?: string, builds?: string[]}} where */
export function firstBuild(attempt, where) {
  const builds = where.builds || CORE_BUILDS,
    /** @type {string[]} */ missing = [];
  /** @param {number} i @returns {Promise<{value: any, build: string}>} */
  const next = (i) =>
    attempt(builds[i]).then(
      (value) => ({ value, build: builds[i] }),
      (err) => {
        if (err && err.missingFile) missing.push(err.missingFile);
        if (i + 1 < builds.length) return next(i + 1);
        const allMissing = missing.length === builds.length;
        const e = new Error(allMissing ? missingFiles(missing, where.page, where.oneFile, where.base) : explain(err));
        throw Object.assign(e, { allMissing });
      },
    );
  return next(0);
}

let pageBuild = null; // the build whose script defined this page's createMhaModule (its workers import the same)

// How long the threaded core may take to start its pthread workers before the page falls back to one thread (a
// worker that cannot start, blocked or missing, would otherwise leave the module waiting for it forever); a test sets
// window.mhaThreadsStartMs.
export const THREADS_START_MS = 20000;

// The threaded build's module: its script, then createMhaModule({threads}) raced against THREADS_START_MS.
function startThreaded(base, threads) {
  return loadCoreScript('mha-threads', base).then(() => {
    const ms = window.mhaThreadsStartMs || THREADS_START_MS;
    let timer;
    const late = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('its Web Workers did not start within ' + ms / 1000 + ' s')), ms);
    });
    // window.mhaSplitThreshold: a test's, to split every call of a tiny model (wasm/api/index.js's splitThreshold)
    const started = window.createMhaModule({ threads, splitThreshold: window.mhaSplitThreshold });
    return Promise.race([started, late]).finally(() => clearTimeout(timer));
  });
}

// The core as this page's classic script, of the first build whose script loads and whose module starts (a page that
// has createMhaModule already uses it), and its module → a promise of {M (createMhaModule()'s module), build,
// threads: {count, note}}. page, oneFile: as firstBuild's. options.threads: try dist/mha-threads.js first when the page
// is cross-origin isolated (features.js's threadsBlocked); note says why the core runs one thread.
/** @param {string} base @param {string} page @param {string} oneFile @param {{threads?: boolean}} [options] */
export function loadPageCore(base, page, oneFile, options = {}) {
  const blocked = !options.threads ? null : inline ? 'a one-file page carries no threaded core' : threadsBlocked();
  const wanted = threadsWanted(typeof location === 'object' ? location.search : '');
  let note = options.threads ? blocked : null;
  const start = (build) => {
    if (build === 'mha-threads')
      return startThreaded(base, wanted).then(
        (M) => ((pageBuild = build), M),
        (err) => {
          note =
            'the threaded core did not start (' + (err.missingFile ? 'mha-threads.js is missing' : err.message) + ')';
          throw new Error(note);
        },
      );
    return loadCoreScript(build, base).then(() => {
      pageBuild = build;
      return window.createMhaModule();
    });
  };
  const builds = options.threads && !blocked && wanted > 1 ? ['mha-threads'].concat(CORE_BUILDS) : CORE_BUILDS;
  const core =
    typeof window.createMhaModule === 'function'
      ? Promise.resolve()
          .then(() => window.createMhaModule())
          .then((value) => ({ value, build: pageBuild || CORE_BUILDS[0] }))
      : firstBuild(start, { page, oneFile, base, builds }).catch((err) => {
          const what = err.allMissing ? 'load' : 'start';
          throw new Error('MHA Explorer could not ' + what + ' its WebAssembly core: ' + err.message);
        });
  return core.then(
    ({ value, build }) => {
      const count = value.threads || 1;
      if (count === 1 && !note && options.threads && wanted === 1)
        note = /[?&]threads=/.test(location.search)
          ? 'the address asks for one (threads=1)'
          : 'the browser reports one core';
      return { M: value, build, threads: { count, note: count > 1 ? null : note } };
    },
    (err) => {
      throw new Error(explain(err));
    },
  );
}

// What a page says when files it needs are not next to it (page: FILES.page or FILES.lab; oneFile: the one-file page
// that can be uploaded alone instead; base: the folder they were looked for in, when not the page's own, as an
// element's): the one wording of "upload the whole dist/ folder".
/** @param {string[]} missing @param {string} page @param {string} oneFile @param {string} [base] */
export function missingFiles(missing, page, oneFile, base) {
  return (
    missing.join(', ') +
    (missing.length > 1 ? ' are' : ' is') +
    (base ? ' missing in ' + base + '. ' : ' missing next to ' + page + ' at this address. ') +
    'Upload the whole dist/ folder (every file in it, ' +
    missing.join(', ') +
    ' included) to the same place; or upload the ' +
    'one-file page ' +
    oneFile +
    ' alone.'
  );
}
