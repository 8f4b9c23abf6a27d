// A Hub file's bytes from 0 to its end, in order (hub-store.js's downloads): each answer checked against the
// preview (the same ETag, the same size, the range asked for), a connection that fails, stalls or ends early asked
// again from where it stopped with Range, at most TRIES times, then refused naming the file and the byte.
import { fail } from './checks.js';
import { hubFetch, normalEtag, messageOf, TRIES } from './hub.js';

function stallRace(promise, io) {
  let timer;
  const stall = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no bytes for ${io.stallTimeout / 1000} s`)), io.stallTimeout);
  });
  return Promise.race([promise, stall, io.aborted]).finally(() => clearTimeout(timer));
}

// An answer's checks against the preview: the same file (ETag), the same size, the range asked for. → bytes to skip.
function checkAnswer(res, file, pos, where) {
  const etag = normalEtag(res.headers.get('x-linked-etag') || res.headers.get('etag'));
  if (file.etag && etag && etag !== file.etag)
    fail(
      `${file.path} of ${where.repo} changed on the Hub between its preview and its download (ETag ${file.etag}, ` +
        `then ${etag}): nothing was computed from it; load the model again`,
    );
  const range = /^bytes (\d+)-\d+\/(\d+)$/.exec(res.headers.get('content-range') || '');
  const total =
    res.status === 206 && range
      ? Number(range[2])
      : res.headers.get('content-encoding')
        ? NaN
        : Number(res.headers.get('content-length') ?? NaN);
  // (a Content-Length is not the file's size: a body shorter than it is resumed, one longer refused, byte by byte)
  if (file.kind === 'weights' && res.status === 206 && Number.isSafeInteger(total) && total !== file.size)
    fail(`${file.path} of ${where.repo} has ${total} bytes now, ${file.size} in its preview: load the model again`);
  if (res.status === 206 && range && Number(range[1]) !== pos)
    fail(`${where.url} answered bytes from ${range[1]} where ${pos} was asked for`);
  return { skip: res.status === 206 ? 0 : pos, total };
}

// The file's bytes from 0 to its end, in order: a connection that fails or ends early is asked again from where it
// stopped (Range), at most TRIES times, then refused naming the file and the byte.
export async function* resumable(file, where, io, progress) {
  let pos = 0,
    failures = 0,
    size = file.kind === 'weights' ? file.size : undefined;
  for (;;) {
    const res = await hubFetch(where, pos > 0 ? { headers: { Range: `bytes=${pos}-` } } : {}, io);
    let { skip, total } = checkAnswer(res, file, pos, where);
    if (size === undefined && Number.isSafeInteger(total)) size = total;
    const reader = res.body.getReader();
    let why = null;
    for (;;) {
      let r;
      try {
        r = await stallRace(reader.read(), io);
      } catch (e) {
        io.stop();
        why = messageOf(e);
        break;
      }
      if (r.done) break;
      let v = r.value;
      if (skip) [v, skip] = [v.subarray(Math.min(skip, v.length)), Math.max(0, skip - v.length)];
      if (!v.length) continue;
      pos += v.length;
      if (size !== undefined && pos > size) fail(`${file.path} of ${where.repo} sent more than its ${size} bytes`);
      progress(v.length);
      yield v;
    }
    reader.cancel().catch(() => {});
    if (!why && (size === undefined || pos === size)) return;
    why = why || `the answer ended after ${pos} of its ${size} bytes`;
    if (++failures > TRIES)
      fail(
        `the download of ${file.path} of ${where.repo} failed ${failures} times, the last at byte ${pos} of ` +
          `${size === undefined ? '?' : size} (${why}): check the connection and load it again`,
      );
  }
}
