// MHA Explorer, mx.explore_model's view (an anywidget ESM; python/mha_explorer/_model_page.py is its kernel side):
// asks the kernel for the model page, shows it in a same-origin iframe (srcdoc), then asks for the checkpoint's files,
// which come as custom comm messages with binary buffers (never in the widget's state, so never saved with the
// notebook), and hands them to the page through its scripting API (window.mhaExplorer.load({files, folder}),
// web/models/api.js). Every load of the frame asks for the files again (a front end that moves the output reloads its
// iframe) and the view keeps none of them. The iframe takes the page's height, and its cell is kept out of Notebook 7's
// scroll box; the page follows the notebook's theme.
// notebookTheme comes from the package's notebook glue (_html.HOST), which the kernel puts before this module.
/* global notebookTheme */

const WAIT_MS = 8000; // no answer by then: say what the view waits for (a busy or stopped kernel)
const mb = (n) => (n / 1e6).toFixed(1) + ' MB';
const bytesOf = (b) =>
  b instanceof ArrayBuffer ? new Uint8Array(b) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const OTHER_PAGE = /^(?:index|lab|mha-explorer|mha-explorer-lab)\.html/;
const FOLDED = 'jp-mod-outputsScrolled'; // a JupyterLab cell whose outputs sit in a scroll box

// Notebook 7 folds a cell's outputs taller than 1,820 px into a scroll box whenever a cell is added or run (its
// scroll-output plugin sets the class alone): the model page's cell stays whole, as the classic Notebook's does
// (_html.wholeHeight). The student's own fold is left alone: one already there (saved in the notebook), or one that
// follows a click on the output's prompt or the context menu of the cell's outputs ("Enable Scrolling for Outputs"; a
// right-click in the cell's code, to copy, is not one). → stop().
function keepWhole(el) {
  const cell = el.closest('.jp-CodeCell');
  if (!cell || cell.classList.contains(FOLDED)) return () => {};
  const observer = new MutationObserver(() => {
    if (cell.classList.contains(FOLDED)) cell.classList.remove(FOLDED); // (a removal always queues a record)
  });
  const chosen = (e) => {
    const on = (selector) => e.target.closest && e.target.closest(selector);
    if (e.type === 'contextmenu' ? on('.jp-Cell-outputWrapper') : on('.jp-OutputArea-promptOverlay')) stop();
  };
  const stop = () => {
    observer.disconnect();
    cell.removeEventListener('click', chosen, true);
    cell.removeEventListener('contextmenu', chosen, true);
  };
  observer.observe(cell, { attributes: true, attributeFilter: ['class'] });
  cell.addEventListener('click', chosen, true);
  cell.addEventListener('contextmenu', chosen, true);
  return stop;
}

class ModelPageView {
  constructor(model, el) {
    Object.assign(this, {
      model,
      el,
      frame: null,
      alive: true,
      asked: null,
      themeObserver: null,
      whole: null,
      stops: [],
    });
    this.root = el.appendChild(document.createElement('div'));
    this.root.className = 'mhax-model';
    this.status = this.root.appendChild(document.createElement('p'));
    this.status.setAttribute('role', 'status');
    this.status.style.cssText = 'margin:4px 0;font:13px system-ui,sans-serif';
    const onMessage = (msg, buffers) => this.receive(msg, buffers),
      onText = () => this.setText();
    model.on('msg:custom', onMessage);
    model.on('change:text', onText);
    this.stops.push(() => model.off('msg:custom', onMessage));
    this.stops.push(() => model.off('change:text', onText));
    this.say('Asking the kernel for the model page and ' + model.get('description') + '…');
    this.ask('page');
  }

  say(text) {
    this.status.textContent = text;
    this.status.hidden = !text;
  }

  // A request to the kernel: what = 'page' | 'files'; only the latest one's answers count.
  ask(what) {
    const mine = { id: Math.random().toString(36).slice(2), what, got: new Map(), received: 0, answered: false };
    this.asked = mine;
    this.model.send({ type: 'request', id: mine.id, what });
    const waiting = setTimeout(() => {
      if (this.alive && !mine.answered && this.asked === mine)
        this.say(
          'Waiting for the kernel to send the model ' +
            (what === 'page' ? 'page' : 'files') +
            ' (it answers once the cells before have run). If the kernel is not running (a notebook reopened), ' +
            'run this cell again: the notebook does not keep the weights.',
        );
    }, WAIT_MS);
    this.stops.push(() => clearTimeout(waiting));
  }

  // The kernel's answers: {type: page | file | done | error, id, name, offset, size, message} with their buffers.
  receive(msg, buffers) {
    const a = this.asked;
    if (!this.alive || !msg || !a || msg.id !== a.id) return;
    a.answered = true;
    if (msg.type === 'page') this.showPage(new TextDecoder().decode(bytesOf(buffers[0])));
    else if (msg.type === 'file') {
      const chunk = bytesOf(buffers[0]);
      if (a.broken) return;
      if (!a.got.has(msg.name)) {
        try {
          a.got.set(msg.name, Object.assign(new Uint8Array(msg.size), { filled: 0 }));
        } catch (e) {
          a.broken =
            'This browser tab has no memory left for ' +
            msg.name +
            ' (' +
            mb(msg.size) +
            '): close other tabs, then run the cell again.';
          a.got.clear();
          return;
        }
      }
      const file = a.got.get(msg.name);
      if (msg.offset + chunk.length > file.length)
        a.broken = msg.name + ' changed while the kernel sent it: run the cell again.';
      else file.set(chunk, msg.offset);
      file.filled += chunk.length;
      a.received += chunk.length;
      const total = this.model.get('files').reduce((s, f) => s + f.size, 0);
      this.say("Receiving the model's files from the kernel: " + mb(a.received) + ' of ' + mb(total));
    } else if (msg.type === 'done') {
      // a file that grew or shrank while it was read (its bytes no longer its size) is not shown with zeros
      const short = [...a.got].find(([, f]) => f.filled !== f.length);
      if (a.broken || short)
        this.report(a.broken || short[0] + ' changed while the kernel sent it: run the cell again.');
      else this.load(a.got);
    } else if (msg.type === 'error') this.report(msg.message);
  }

  // The page's query: layer, head, theme (the notebook's unless given) and the text.
  query() {
    const q = new URLSearchParams(this.model.get('query'));
    if (this.model.get('text')) q.set('text', this.model.get('text'));
    if (!q.has('theme')) {
      const theme = notebookTheme(this.el);
      if (theme !== 'auto') q.set('theme', theme);
    }
    return q.toString();
  }

  showPage(page) {
    const frame = (this.frame = document.createElement('iframe'));
    frame.title = 'MHA Explorer: every head of ' + this.model.get('description');
    frame.style.cssText = 'display:block;border:0;width:100%;height:720px';
    const meta =
      '<meta name="mha-explorer-query" content="' + this.query().replace(/&/g, '&amp;').replace(/"/g, '&quot;') + '">';
    frame.addEventListener('load', () => {
      if (!this.alive) return;
      if (!this.whole) this.stops.push((this.whole = keepWhole(this.el)));
      this.follow(frame.contentWindow);
      this.ask('files');
    });
    frame.srcdoc = page.replace('<head>', () => '<head>' + meta);
    this.root.appendChild(frame);
  }

  // The page's height, its links to the other pages (the cell holds this one only), the notebook's theme.
  follow(win) {
    const doc = win.document,
      frame = this.frame;
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
    if (!new URLSearchParams(this.model.get('query')).has('theme')) this.followTheme(win);
  }

  // A notebook switching its theme while the page is shown: the page's own theme button follows it.
  followTheme(win) {
    const body = this.el.ownerDocument.body;
    if (!body || typeof MutationObserver !== 'function') return;
    if (this.themeObserver) this.themeObserver.disconnect(); // the frame's previous document
    this.themeObserver = new MutationObserver(() => {
      const want = notebookTheme(this.el),
        button = win.document.getElementById('theme-toggle');
      if (want !== 'auto' && button && win.document.body.getAttribute('data-theme') !== want) button.click();
    });
    this.themeObserver.observe(body, { attributes: true, attributeFilter: ['data-jp-theme-light', 'class'] });
  }

  async load(got) {
    const win = this.frame && this.frame.contentWindow,
      api = win && win.mhaExplorer;
    if (!this.alive || !api) return;
    this.say('');
    // As bytes, not Files: Chromium cannot read back a Blob made of ~500 MB or more from memory (GPT-2 small's 548 MB:
    // "could not be read").
    const files = this.model.get('files').map((f) => ({ name: f.name, bytes: got.get(f.name) || new Uint8Array(0) }));
    got.clear();
    await this.showText(api); // the text set since the page's first (or a reloaded frame's srcdoc) text
    await api.load({ files, folder: this.model.get('folder'), dropped: false }).catch(() => {});
    await this.showText(api); // and a text set while it loaded (setText waits for a model)
    this.report(null, api);
  }

  // The model's text in the page, until they agree ("": the page's own, lesson 004's sentence; a page that refuses
  // the text, removed, ends it).
  async showText(api) {
    for (let text; this.alive && (text = this.model.get('text')) && api.getText() !== text;) {
      await api.set({ text });
      if (api.getText() !== text && this.model.get('text') === text) return;
    }
  }

  // What the page shows, for Python: tokens and status ("shown", or the page's or the kernel's message), and the text
  // they are for, read together once no change of the page is pending: Python says "computing" until a report for
  // its own text arrives, whatever order the kernel's and the view's updates cross in.
  async report(message, api) {
    let shown = false;
    for (let settled = null; api && settled !== api.ready;) shown = await (settled = api.ready);
    if (!this.alive) return;
    if (message) this.say(message);
    this.model.set('_shown_tokens', shown ? api.getTokens() : []);
    this.model.set('_shown_status', shown ? 'shown' : message || api.getMessages().join(' ') || 'not shown');
    this.model.set('_shown_text', api ? api.getText() : this.model.get('text'));
    this.model.save_changes();
  }

  // A text set from Python: shown once the page has a model (before, load() shows it and reports).
  setText() {
    const api = this.frame && this.frame.contentWindow && this.frame.contentWindow.mhaExplorer;
    if (api && api.getInfo()) this.showText(api).then(() => this.report(null, api));
  }

  dispose() {
    this.alive = false;
    if (this.themeObserver) this.themeObserver.disconnect();
    this.stops.forEach((stop) => stop());
  }
}

function render({ model, el }) {
  const view = new ModelPageView(model, el);
  return () => view.dispose();
}

export default { render };
