// What a sandboxed frame forbids (<iframe sandbox="allow-scripts">: course platforms, notebook viewers), found out
// where the browser lets a page know it, and said next to the control the student clicked, with the way out.
//   downloads: forbidden unless the sandbox says allow-downloads. A page can read its frame's sandbox only when the
//     host is of its own origin (frameElement); a sandbox without allow-same-origin gives the page an opaque origin
//     ('null'), which shows that it is sandboxed but not which flags it has: then the page tries and says what to do
//     if nothing was saved (Chromium blocks the download with a console message only).
//   pop-ups: window.open returns null when the frame (allow-popups) or the browser refuses: known at the click.
//   clipboard: the copy's own result (chrome/clipboard.js).

// Whether this document is sandboxed (true, false), and flags: the sandbox's tokens when the host's <iframe> can be
// read, else null.
export function frameSandbox() {
  let host = null;
  try {
    host = window.frameElement;
  } catch (e) {
    /* another origin */
  }
  if (host)
    return {
      sandboxed: host.hasAttribute('sandbox'),
      flags: host.hasAttribute('sandbox') ? Array.from(host.sandbox) : null,
    };
  if (self.origin === 'null' && !/^(file|data):$/.test(location.protocol)) return { sandboxed: true, flags: null };
  return { sandboxed: false, flags: null }; // (a frame of another origin sandboxed with allow-same-origin looks the same)
}
// Whether the frame allows what flag (allow-downloads, allow-popups) governs: true, false, or null (unknown).
export function frameAllows(flag) {
  const s = frameSandbox();
  if (s.sandboxed === false) return true;
  return s.flags ? s.flags.indexOf(flag) >= 0 : s.sandboxed ? null : true;
}

// This page's own address, to open on its own (null for a srcdoc page, which has none); without embed=1.
export function ownAddress() {
  if (!/^(https?|file):$/.test(location.protocol)) return null;
  const u = new URL(location.href);
  u.searchParams.delete('embed');
  return u.href;
}

const make = (tag, props, ...children) => {
  const n = Object.assign(document.createElement(tag), props || {});
  n.append(...children);
  return n;
};
// A read-only field holding text to copy (selected when focused), with a Copy button.
function copyField(text, rows) {
  const field = make(rows > 1 ? 'textarea' : 'input', { readOnly: true, value: text });
  if (rows > 1) field.rows = rows;
  field.setAttribute('aria-label', 'Text to copy');
  Object.assign(field.style, {
    display: 'block',
    width: '100%',
    boxSizing: 'border-box',
    margin: '4px 0',
    font: '12px ui-monospace, monospace',
  });
  field.addEventListener('focus', () => field.select());
  const button = make('button', { type: 'button', className: 'btn small', textContent: 'Copy' });
  button.addEventListener('click', () => {
    field.focus();
    field.select();
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch (e) {
      /* not allowed here */
    }
    button.textContent = copied ? 'Copied ✓' : 'Press Ctrl+C (⌘C) to copy the selection';
  });
  return make('div', null, field, button);
}
// The way out of a frame: the page on its own (its address to copy, and a link for a new tab).
function onItsOwn(address) {
  if (!address)
    return [
      make('p', {
        textContent:
          'Or open MHA Explorer on its own, outside this frame (the site that shows it can give you the file).',
      }),
    ];
  const link = make('a', { href: address, target: '_blank', rel: 'noopener', textContent: 'open it in a new tab' });
  return [make('p', null, 'Or open this page on its own (', link, ', or copy its address):'), copyField(address, 1)];
}

// A note right after the control where (one per control, replaced by the next): text, then nodes.
export function frameNote(where, text, nodes = []) {
  let note = where.nextElementSibling;
  if (!note || !note.classList.contains('frame-note')) {
    note = make('div', { className: 'frame-note' });
    note.setAttribute('role', 'status');
    Object.assign(note.style, {
      flexBasis: '100%',
      width: '100%',
      boxSizing: 'border-box',
      margin: '6px 0',
      padding: '6px 10px',
      borderLeft: '4px solid #b7791f',
      fontSize: '0.85rem',
      lineHeight: '1.4',
      textAlign: 'left',
    });
    where.after(note);
  }
  note.textContent = '';
  note.append(make('p', { textContent: text }), ...nodes);
  note.querySelectorAll('p').forEach((p) => {
    p.style.margin = '2px 0';
  });
  return note;
}

// A download the frame may forbid: where (the clicked control) gets a note when it is forbidden (false: not tried)
// or may be (null: tried, nothing tells whether the browser saved it); fallback() → {text, rows, say}: a copy of the
// data to take instead, or {image: URL}: a picture to save from its menu. → true | false | null.
export function guardDownload(name, save, where, fallback) {
  const allowed = frameAllows('allow-downloads');
  if (allowed !== false) save();
  if (allowed === true || !where) return allowed;
  fallback = (fallback && fallback()) || {};
  const nodes = [];
  if (fallback.image) {
    nodes.push(make('p', { textContent: 'Here is the picture: right-click it (or long-press) to save or copy it.' }));
    const img = make('img', { src: fallback.image, alt: name });
    Object.assign(img.style, { display: 'block', maxWidth: '100%', margin: '4px 0' });
    nodes.push(img);
  }
  if (fallback.text)
    nodes.push(
      make('p', { textContent: fallback.say || 'Here is its content to copy:' }),
      copyField(fallback.text, fallback.rows || 6),
    );
  nodes.push(...onItsOwn(ownAddress()));
  frameNote(
    where,
    allowed === false
      ? "Not saved: this page is in a frame that forbids downloads (the site's <iframe sandbox> lacks allow-downloads), so " +
          name +
          ' cannot be saved from here.'
      : 'Your browser was asked to save ' +
          name +
          ', but this page runs in a sandboxed frame, which saves nothing unless the site ' +
          'allows downloads (allow-downloads in the <iframe sandbox>). If no file appeared:',
    nodes,
  );
  return allowed;
}

// In a frame, a link that opens a new window (target=_blank: "Open full page ↗") is opened with window.open, so that a
// refusal (a sandbox without allow-popups, a pop-up blocker) is seen and said next to it, with its address to copy.
// root: the document or a shadow root's host document (composedPath reaches links in open shadow roots).
export function guardNewWindows(root = document, signal) {
  if (window.parent === window) return;
  root.addEventListener(
    'click',
    (e) => {
      const a = e.composedPath().find((n) => n.tagName === 'A' && n.target === '_blank' && n.href);
      if (!a || e.defaultPrevented || e.button !== 0) return;
      e.preventDefault();
      const w = window.open(a.href, '_blank');
      if (w) {
        try {
          w.opener = null;
        } catch (err) {
          /* another origin already */
        }
        return;
      }
      frameNote(
        a,
        "This frame may not open new pages (the site's <iframe sandbox> lacks allow-popups, or a pop-up blocker " +
          'stopped it). Copy the address and open it yourself:',
        [copyField(a.href, 1)],
      );
    },
    { capture: true, signal },
  );
}
