// MHA Explorer — code that runs in the page that embeds the explorer: the snippets carry it as text (chrome/share.js
// serializes these functions, so they use nothing but the DOM and no comments inside), and the <mha-explorer>
// element imports hostTheme.

// The host's theme behind an element: 'dark' when the first opaque background above it is dark, else 'light'.
export function hostTheme(el) {
  for (var n = el && el.parentElement; n; n = n.parentElement) {
    var c = (getComputedStyle(n).backgroundColor.match(/[0-9.]+/g) || []).map(Number);
    if (c.length >= 3 && (c.length < 4 || c[3] > 0.5))
      return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 128 ? 'dark' : 'light';
  }
  return 'light';
}
// The snippets' script, run in the host page: every explorer iframe takes the theme of the page around it
// (unless its src names one) and the height it posts (mha-explorer:height). themeOf: hostTheme.
export function hostScript(themeOf) {
  document.querySelectorAll('iframe[data-mha-explorer]').forEach(function (f) {
    var src = f.getAttribute('src');
    if (!/[?&]theme=/.test(src))
      f.setAttribute('src', src + (src.indexOf('?') < 0 ? '?' : '&') + 'theme=' + themeOf(f));
  });
  addEventListener('message', function (e) {
    var d = e.data;
    if (!d || d.type !== 'mha-explorer:height') return;
    document.querySelectorAll('iframe[data-mha-explorer]').forEach(function (f) {
      if (f.contentWindow === e.source) f.style.height = Math.min(20000, Math.ceil(d.height)) + 'px';
    });
  });
}
