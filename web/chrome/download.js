// Saving a file the page made (an image, the weights): a Blob through a temporary link. In a sandboxed frame that
// forbids downloads (or may), where (the clicked control) gets a note with the way out (chrome/sandbox.js):
// fallback 'image' shows the picture to save from its menu, {text, say, rows} a copy of the data.
// → true (saved as far as a page can know), false (the frame forbids it: not tried), null (tried; the frame may block it).
import { guardDownload } from './sandbox.js';
import { saveFile } from '../widgets/export.js';

export function download(name, blob, where, fallback) {
  return guardDownload(
    name,
    () => saveFile(name, blob, document.body),
    where,
    () => (fallback === 'image' ? { image: URL.createObjectURL(blob) } : fallback),
  );
}
