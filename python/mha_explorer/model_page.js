// MHA Explorer, mx.explore_model's view (an anywidget ESM; python/mha_explorer/_model_page.py is its kernel side):
// asks the kernel for the model page and the checkpoint's files, which come as custom comm messages with binary
// buffers (never in the widget's state, so never saved with the notebook), shows the page in a same-origin iframe
// (srcdoc) and hands it the files through its scripting API (window.mhaExplorer.load({files, folder}),
// web/models/api.js). The iframe takes the page's height; the page follows the notebook's theme. notebookTheme comes
// from the package's notebook glue (_html.HOST), which the kernel puts before this module.
/* global notebookTheme */

const WAIT_MS = 8000; // no answer by then: say what the page waits for (a busy or stopped kernel)
const mb = (n) => (n / 1e6).toFixed(1) + ' MB';
const bytesOf = (b) =>
  b instanceof ArrayBuffer ? new Uint8Array(b) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const OTHER_PAGE = /^(?:index|lab|mha-explorer|mha-explorer-lab)\.html/;

function render({ model, el }) {
  const id = Math.random().toString(36).slice(2);
  const root = document.createElement('div');
  root.className = 'mhax-model';
  const status = document.createElement('p');
  status.setAttribute('role', 'status');
  status.style.cssText = 'margin:4px 0;font:13px system-ui,sans-serif';
  root.appendChild(status);
  el.appendChild(root);
  const say = (text) => {
    status.textContent = text;
    status.hidden = !text;
  };
  const total = model.get('files').reduce((s, f) => s + f.size, 0);
  const got = new Map(); // name → [Uint8Array]
  let received = 0,
    frame = null,
    framed = null,
    done = false,
    answered = false,
    alive = true;
  const stops = [];
  say('Asking the kernel for the model page and ' + model.get('description') + '…');
  const waiting = setTimeout(() => {
    if (!answered)
      say(
        'Waiting for the kernel to send the model page and the files (it answers once the cells before have run). ' +
          'If the kernel is not running (a notebook reopened), run this cell again: the notebook does not keep the weights.',
      );
  }, WAIT_MS);

  function onMessage(msg, buffers) {
    if (!alive || !msg || msg.id !== id) return;
    answered = true;
    if (msg.type === 'page') showPage(new TextDecoder().decode(bytesOf(buffers[0])));
    else if (msg.type === 'file') {
      const chunk = bytesOf(buffers[0]);
      if (!got.has(msg.name)) got.set(msg.name, []);
      got.get(msg.name).push(chunk.slice());
      received += chunk.length;
      say("Receiving the model's files from the kernel: " + mb(received) + ' of ' + mb(total));
    } else if (msg.type === 'done') {
      done = true;
      if (framed) framed.then(load);
    } else if (msg.type === 'error') fail(msg.message);
  }

  function fail(message) {
    say(message);
    model.set('status', message);
    model.save_changes();
  }

  function query() {
    const q = new URLSearchParams(model.get('query'));
    if (model.get('text')) q.set('text', model.get('text'));
    if (!q.has('theme')) {
      const theme = notebookTheme(el);
      if (theme !== 'auto') q.set('theme', theme);
    }
    return q.toString();
  }

  function showPage(page) {
    frame = document.createElement('iframe');
    frame.title = 'MHA Explorer: every head of ' + model.get('description');
    frame.style.cssText = 'display:block;border:0;width:100%;height:720px';
    const meta =
      '<meta name="mha-explorer-query" content="' + query().replace(/&/g, '&amp;').replace(/"/g, '&quot;') + '">';
    framed = new Promise((resolve) =>
      frame.addEventListener('load', () => resolve(frame.contentWindow), { once: true }),
    );
    frame.srcdoc = page.replace('<head>', () => '<head>' + meta);
    root.appendChild(frame);
    framed.then(follow);
    if (done) framed.then(load);
  }

  // The page's height, its links to the other pages (the cell holds this one only), the notebook's theme.
  function follow(win) {
    const doc = win.document;
    new win.ResizeObserver(() => {
      frame.style.height = Math.min(20000, Math.ceil(doc.body.getBoundingClientRect().height) + 4) + 'px';
    }).observe(doc.body);
    doc.addEventListener('click', (e) => {
      const a = e.target.closest && e.target.closest('a[href]');
      if (!a || !OTHER_PAGE.test(a.getAttribute('href'))) return;
      e.preventDefault();
      if (a.nextElementSibling && a.nextElementSibling.classList.contains('alone-hint')) return;
      const hint = doc.createElement('span');
      hint.className = 'alone-hint';
      hint.setAttribute('role', 'status');
      hint.textContent = ' mx.explore() or mx.lab() in a cell opens it';
      a.after(hint);
    });
    if (!new URLSearchParams(model.get('query')).has('theme')) followTheme(win);
  }

  // A notebook switching its theme while the page is shown: the page's own theme button follows it.
  function followTheme(win) {
    const body = el.ownerDocument.body;
    if (!body || typeof MutationObserver !== 'function') return;
    const observer = new MutationObserver(() => {
      const want = notebookTheme(el),
        button = win.document.getElementById('theme-toggle');
      if (want !== 'auto' && button && win.document.body.getAttribute('data-theme') !== want) button.click();
    });
    observer.observe(body, { attributes: true, attributeFilter: ['data-jp-theme-light', 'class'] });
    stops.push(() => observer.disconnect());
  }

  async function load(win) {
    if (!alive || !win.mhaExplorer) return;
    say('');
    const files = model.get('files').map((f) => new win.File(got.get(f.name) || [], f.name));
    got.clear();
    const api = win.mhaExplorer;
    await api.load({ files, folder: model.get('folder') }).catch(() => {});
    report(api);
  }

  async function report(api) {
    const shown = await api.ready;
    if (!alive) return;
    model.set('tokens', shown ? api.getTokens() : []);
    model.set('status', shown ? 'shown' : api.getMessages().join(' ') || 'not shown');
    model.save_changes();
  }

  const onText = () => {
    const api = frame && frame.contentWindow && frame.contentWindow.mhaExplorer;
    if (api) api.set({ text: model.get('text') }).then(() => report(api));
  };
  model.on('msg:custom', onMessage);
  model.on('change:text', onText);
  model.send({ type: 'request', id });
  return () => {
    alive = false;
    clearTimeout(waiting);
    model.off('msg:custom', onMessage);
    model.off('change:text', onText);
    stops.forEach((stop) => stop());
  };
}

export default { render };
