// @ts-check
// MHA Explorer, the model page — a vocabulary's tokens as text (no DOM, tested in Node against transformers on GPT-2's
// real vocabulary): byte-level BPE tokens (GPT-2, Qwen2, Llama 3: "Ġchicken", "ĠÃĹ") decoded from their bytes
// (" chicken", " ×"), SentencePiece's "▁" as the space it stands for and its byte tokens (<0x0A>) as their bytes,
// WordPiece continuations ("##ing") marked as such, special tokens as themselves. What is shown marks what is not
// visible: a space as ␣, a newline as ↵, a tab as ⇥, a continuation with a leading ·, and the other control characters
// and bytes that are not whole UTF-8 characters (one token may hold part of a character) as ⟨e2⟩.

// GPT-2's bytes_to_unicode: the printable bytes stand for themselves, the others for 256 + n in order.
function byteDecoder() {
  const printable = [];
  for (const [a, b] of [
    [33, 126],
    [161, 172],
    [174, 255],
  ])
    for (let i = a; i <= b; i++) printable.push(i);
  const map = new Map();
  let n = 0;
  for (let b = 0; b < 256; b++) map.set(String.fromCharCode(printable.includes(b) ? b : 256 + n++), b);
  return map;
}
let BYTES = null;

// tokenizer.json's parsed object → the kind of its vocabulary: 'bytelevel', 'sentencepiece', 'wordpiece' or 'plain'
// (and the WordPiece prefix).
export function vocabularyKind(tok) {
  const parts = (x) => (!x ? [] : x.type === 'Sequence' ? (x.decoders || x.pretokenizers || []).flatMap(parts) : [x]);
  const decoders = parts(tok && tok.decoder),
    pre = parts(tok && tok.pre_tokenizer),
    model = (tok && tok.model) || {};
  const has = (list, type) => list.some((d) => d && d.type === type);
  if (has(decoders, 'ByteLevel') || has(pre, 'ByteLevel')) return { kind: 'bytelevel' };
  if (has(decoders, 'Metaspace') || has(pre, 'Metaspace') || has(decoders, 'ByteFallback') || model.byte_fallback)
    return { kind: 'sentencepiece' };
  if (model.type === 'WordPiece' || has(decoders, 'WordPiece'))
    return { kind: 'wordpiece', prefix: model.continuing_subword_prefix || '##' };
  return { kind: 'plain' };
}

/**
 * A token's bytes or text → {text (decoded, as transformers' convert_tokens_to_string of the one token: U+FFFD for
 * bytes that are no whole character), shown (what the page shows)}.
 * @param {string} raw the vocabulary's string
 * @param {{kind: string, prefix?: string}} kind vocabularyKind's
 * @param {boolean} special an added special token ([CLS], <|endoftext|>): itself
 */
export function tokenText(raw, kind, special = false) {
  if (special) return { text: raw, shown: raw };
  if (kind.kind === 'bytelevel') {
    BYTES = BYTES || byteDecoder();
    const bytes = Array.from(raw, (c) => BYTES.get(c));
    if (bytes.some((b) => b === undefined)) return { text: raw, shown: visible(raw) }; // an added token's text
    return fromBytes(bytes);
  }
  if (kind.kind === 'sentencepiece') {
    const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(raw);
    if (m) return fromBytes([parseInt(m[1], 16)]);
    const text = raw.replace(/▁/g, ' ');
    return { text, shown: visible(text) };
  }
  if (kind.kind === 'wordpiece' && kind.prefix && raw.startsWith(kind.prefix) && raw.length > kind.prefix.length) {
    const text = raw.slice(kind.prefix.length);
    return { text, shown: '·' + visible(text) };
  }
  return { text: raw, shown: visible(raw) };
}

// Bytes → the text (U+FFFD where they are no whole UTF-8 character, as Python's errors="replace") and what is shown
// (those bytes as ⟨xx⟩).
function fromBytes(bytes) {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(bytes));
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
    return { text, shown: visible(text) };
  } catch {
    // the longest run of whole characters from the start, then the rest as bytes
    let n = bytes.length;
    for (; n > 0; n--) {
      try {
        const head = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes.slice(0, n)));
        return { text, shown: visible(head) + hex(bytes.slice(n)) };
      } catch {
        /* shorter */
      }
    }
    return { text, shown: hex(bytes) };
  }
}
const hex = (bytes) => bytes.map((b) => '⟨' + b.toString(16).padStart(2, '0') + '⟩').join('');
// Spaces, newlines and tabs made visible, and the other control characters as their byte.
const visible = (s) =>
  s
    .replace(/ /g, '␣')
    .replace(/\n/g, '↵')
    .replace(/\r/g, '⏎')
    .replace(/\t/g, '⇥')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, (c) => hex([c.charCodeAt(0)]));
