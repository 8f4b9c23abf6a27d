// Files a reader gives a page: the file button, or a file dropped anywhere on the page; the size a page reads.
export const MAX_FILE_BYTES = 64 << 20;

// '' for a file a page reads, else why not (reader: 'the page', 'the lab'; hint: what such files usually weigh).
export function tooLarge(length, reader, hint) {
  return length > MAX_FILE_BYTES
    ? 'it has ' +
        length.toLocaleString('en-US') +
        ' bytes, more than the ' +
        (MAX_FILE_BYTES >> 20) +
        ' MB ' +
        reader +
        ' reads' +
        (hint ? '; ' + hint : '') +
        '.'
    : '';
}

// file's bytes (a Uint8Array), or null when a later file of the same reader was chosen meanwhile (only the latest
// counts; seq: that reader's counter {n}, one per explorer or lab); a file that is too large is refused before it is read.
export function readFile(file, reader, hint, seq) {
  const mine = ++seq.n;
  const latest = () => seq.n;
  const why = tooLarge(file.size, reader, hint);
  if (why) return Promise.reject(new Error(why));
  return file.arrayBuffer().then(
    (buffer) => (mine === latest() ? new Uint8Array(buffer) : null),
    (err) => {
      if (mine !== latest()) return null;
      throw new Error('the browser could not read it (' + err.message + ')');
    },
  );
}

// A file dropped anywhere on the page goes to onFile(file); other drags (text into a field) are left alone.
// o: {target (where drops count: the document unless told otherwise), flag (the element that carries the class
// "dropping" while a file is over it: <body> unless told otherwise), signal (an AbortSignal that removes the listeners)}.
/** @param {(file: File) => void} onFile @param {{target?: Node, flag?: Element, signal?: AbortSignal}} [o] */
export function wireFileDrop(onFile, { target = document, flag = document.body, signal } = {}) {
  const hasFiles = (e) => !!e.dataTransfer && Array.prototype.includes.call(e.dataTransfer.types || [], 'Files');
  target.addEventListener(
    'dragover',
    (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      flag.classList.add('dropping');
    },
    { signal },
  );
  target.addEventListener(
    'dragleave',
    (e) => {
      if (!e.relatedTarget || !target.contains(e.relatedTarget)) flag.classList.remove('dropping');
    },
    { signal },
  );
  target.addEventListener(
    'drop',
    (e) => {
      flag.classList.remove('dropping');
      if (!e.dataTransfer || !e.dataTransfer.files.length) return;
      e.preventDefault();
      onFile(e.dataTransfer.files[0]);
    },
    { signal },
  );
}
