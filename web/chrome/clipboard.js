// Copying text: the clipboard where the browser allows it (a secure context), else the text selected in out (a
// <textarea>) with the old copy command; out also keeps the text to select by hand. → promise of whether it copied.
export function copyText(text, out) {
  if (out) out.value = text;
  const byHand = () => {
    if (!out) return false;
    try {
      out.hidden = false;
      out.focus();
      out.select();
      return document.execCommand('copy');
    } catch (e) {
      return false;
    }
  };
  if (navigator.clipboard && window.isSecureContext)
    return navigator.clipboard.writeText(text).then(() => true, byHand);
  return Promise.resolve(byHand());
}

// A button that copies: its label says "Copied ✓" (or where to copy by hand) for a moment.
export function copyWithButton(text, out, button) {
  return copyText(text, out).then((copied) => {
    const label = button.getAttribute('data-label') || button.textContent;
    button.setAttribute('data-label', label);
    button.textContent = copied ? 'Copied ✓' : 'Select and copy below';
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
    return copied;
  });
}
