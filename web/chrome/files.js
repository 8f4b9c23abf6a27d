// Files a reader gives a page: the file button, or a file dropped anywhere on the page; the size a page reads.
export const MAX_FILE_BYTES = 64 << 20;

// '' for a file a page reads, else why not (reader: 'the page', 'the lab'; hint: what such files usually weigh).
export function tooLarge(length, reader, hint) {
  return length > MAX_FILE_BYTES ? 'it has ' + length.toLocaleString('en-US') + ' bytes, more than the ' + (MAX_FILE_BYTES >> 20) +
    ' MB ' + reader + ' reads' + (hint ? '; ' + hint : '') + '.' : '';
}

// file's bytes (a Uint8Array), or null when a later file was chosen meanwhile (only the latest counts); a file that is
// too large is refused before it is read.
let latest = 0;
export function readFile(file, reader, hint) {
  const mine = ++latest;
  const why = tooLarge(file.size, reader, hint);
  if (why) return Promise.reject(new Error(why));
  return file.arrayBuffer().then((buffer) => (mine === latest ? new Uint8Array(buffer) : null), (err) => {
    if (mine !== latest) return null;
    throw new Error('the browser could not read it (' + err.message + ')');
  });
}

// A file dropped anywhere on the page goes to onFile(file); other drags (text into a field) are left alone.
export function wireFileDrop(onFile) {
  const hasFiles = (e) => !!e.dataTransfer && Array.prototype.includes.call(e.dataTransfer.types || [], 'Files');
  document.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    document.body.classList.add('dropping');
  });
  document.addEventListener('dragleave', (e) => { if (!e.relatedTarget) document.body.classList.remove('dropping'); });
  document.addEventListener('drop', (e) => {
    document.body.classList.remove('dropping');
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    onFile(e.dataTransfer.files[0]);
  });
}
