// @ts-check
// MHA Explorer — base64 text → its bytes (atob, as the page, its workers and Node have it). Throws atob's
// DOMException on text that is not base64.
/** @param {string} base64 @returns {Uint8Array} */
export function bytesOf(base64) {
  const text = atob(base64),
    bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
