// MHA Explorer, mx.explore_model's view (an anywidget ESM; python/mha_explorer/_model_page.py is its kernel side):
// asks the kernel for the model page, shows it in a same-origin iframe (srcdoc), then asks for the checkpoint's files,
// which come as custom comm messages with binary buffers (never in the widget's state, so never saved with the
// notebook), and hands them to the page through its scripting API (window.mhaExplorer.load({files, folder}),
// web/models/api.js). Every load of the frame asks for the files again (a front end that moves the output reloads its
// iframe) and the view keeps none of them. The iframe takes the page's height; the page follows the notebook's theme.
// notebookTheme comes from the package's notebook glue (_html.HOST), which the kernel puts before this module.
/* global notebookTheme */

const WAIT_MS = 8000; // no answer by then: say what the view waits for (a busy or stopped kernel)
const mb = (n) => (n / 1e6).toFixed(1) + ' MB';
const bytesOf = (b) =>
  b instanceof ArrayBuffer ? new Uint8Array(b) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const OTHER_PAGE = /^(?:index|lab|mha-explorer|mha-explorer-lab)\.html/;

function render({ model, el }) {
  const root = el.appendChild(document.createElement('div'));
  root.className = 'mhax-model';
  const status = root.appendChild(document.createElement('p'));
  status.setAttribute('role', 'status');
  status.style.cssText = 'margin:4px 0;font:13px system-ui,sans-serif';
  const say = (text) => {
    status.textContent = text;
    status.hidden = !text;
  };
  const stops = [];
  let frame = null,
    alive = true,
    asked = null; // the latest request: {id, what, got (name → [Uint8Array]), received, answered}

  function ask(what) {
    asked = { id: Math.random().toString(36).slice(2), what, got: new Map(), received: 0, answered: false };
    const mine = asked;
    model.send({ type: 'request', id: mine.id, what });
    const waiting = setTimeout(() => {
      if (alive && !mine.answered && asked === mine)
        say(
          'Waiting for the kernel to send the model ' +
            (what === 'page' ? 'page' : 'files') +
            ' (it answers once the cells before have run). If the kernel is not running (a notebook reopened), ' +
            'run this cell again: the notebook does not keep the weights.',
        );
    }, WAIT_MS);
    stops.push(() => clearTimeout(waiting));
  }

  function onMessage(msg, buffers) {
    const a = asked;
    if (!alive || !msg || !a || msg.id !== a.id) return;
    a.answered = true;
    if (msg.type === 'page') showPage(new TextDecoder().decode(bytesOf(buffers[0])));
    else if (msg.type === 'file') {
      const chunk = bytesOf(buffers[0]);
      if (!a.got.has(msg.name)) a.got.set(msg.name, []);
      a.got.get(msg.name).push(chunk.slice());
      a.received += chunk.length;
      const total = model.get('files').reduce((s, f) => s + f.size, 0);
      say("Receiving the model's files from the kernel: " + mb(a.received) + ' of ' + mb(total));
    } else if (msg.type === 'done') load(a.got);
    else if (msg.type === 'error') report(msg.message);
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
    frame.addEventListener('load', () => {
      if (!alive) return;
      follow(frame.contentWindow);
      ask('files');
    });
    frame.srcdoc = page.replace('<head>', () => '<head>' + meta);
    root.appendChild(frame);
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
  let themeObserver = null;
  function followTheme(win) {
    const body = el.ownerDocument.body;
    if (!body || typeof MutationObserver !== 'function') return;
    if (themeObserver) themeObserver.disconnect(); // the frame's previous document
    const observer = (themeObserver = new MutationObserver(() => {
      const want = notebookTheme(el),
        button = win.document.getElementById('theme-toggle');
      if (want !== 'auto' && button && win.document.body.getAttribute('data-theme') !== want) button.click();
    }));
    observer.observe(body, { attributes: true, attributeFilter: ['data-jp-theme-light', 'class'] });
    stops.push(() => observer.disconnect());
  }

  async function load(got) {
    const win = frame && frame.contentWindow,
      api = win && win.mhaExplorer;
    if (!alive || !api) return;
    say('');
    const files = model.get('files').map((f) => new win.File(got.get(f.name) || [], f.name));
    got.clear();
    await api.load({ files, folder: model.get('folder') }).catch(() => {});
    report(null, api);
  }

  // What the page shows, for Python: tokens and status ("shown", or the page's or the kernel's message).
  async function report(message, api) {
    const shown = api ? await api.ready : false;
    if (!alive) return;
    if (message) say(message);
    model.set('tokens', shown ? api.getTokens() : []);
    model.set('status', shown ? 'shown' : message || api.getMessages().join(' ') || 'not shown');
    model.save_changes();
  }

  const onText = () => {
    const api = frame && frame.contentWindow && frame.contentWindow.mhaExplorer;
    if (api) api.set({ text: model.get('text') }).then(() => report(null, api));
  };
  model.on('msg:custom', onMessage);
  model.on('change:text', onText);
  say('Asking the kernel for the model page and ' + model.get('description') + '…');
  ask('page');
  return () => {
    alive = false;
    model.off('msg:custom', onMessage);
    model.off('change:text', onText);
    stops.forEach((stop) => stop());
  };
}

export default { render };
