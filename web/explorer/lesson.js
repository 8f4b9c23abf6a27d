// MHA Explorer — the lesson panel: the preset's code cells with what each prints (computed live), their
// "Copy code" buttons, and every snippet the explorer offers ("Copy as PyTorch" included) with its printed text.
// cur: the explorer's current result {cells, copyAll, res, …}.
import { copyOf, copyAll, copySnippet } from '../lessons/snippets.js';
import { el } from '../widgets/dom.js';
import { copyWithButton } from '../chrome/clipboard.js';
import { OffScreen, largeResult } from './offscreen.js';

export class LessonPanel {
  constructor(scope) {
    this.scope = scope;
    this.printed = {}; // a cell's printed text by cell id (outputs may be deferred as functions)
    this.cells = null; // {key, els}: the cells on screen
    // a large result's printed S×S matrices are formatted after the redraw, and its code text too while the panel is
    // off screen (offscreen.js; at once when read: printedTexts(), snippets())
    this.offScreen = new OffScreen(scope.$('cells'));
  }
  codeBlock(cell, output) {
    const title = cell.title,
      id = cell.id;
    const wrap = el('article', { class: 'cell', 'data-cell': id });
    const head = el('div', { class: 'cell-head' });
    head.appendChild(el('h3', null, title));
    const copy = el('button', { type: 'button', class: 'btn small' }, cell.setup ? 'Copy code + setup' : 'Copy code');
    copy.addEventListener('click', () => {
      copyWithButton(copyOf(wrap._cell), this.scope.$('share-out'), copy);
    });
    head.appendChild(copy);
    wrap.appendChild(head);
    wrap._cell = cell;
    if (cell.note) wrap.appendChild(el('p', { class: 'cell-note' }, cell.note));
    wrap._code = wrap.appendChild(
      el('pre', { class: 'code', tabindex: '0', role: 'region', 'aria-label': title + ': code' }, cell.code),
    );
    wrap.appendChild(el('div', { class: 'out-label' }, 'Printed (computed live on this page)'));
    wrap._out = wrap.appendChild(
      el(
        'pre',
        { class: 'out', 'data-out': id, tabindex: '0', role: 'region', 'aria-label': title + ': printed output' },
        output,
      ),
    );
    return wrap;
  }
  printOf(c) {
    const out = typeof c.output === 'function' ? c.output() : c.output;
    this.printed[c.id] = out;
    return out;
  }
  dispose() {
    this.offScreen.dispose();
  }
  flush() {
    this.offScreen.flush();
  }
  // The code cells are rebuilt only when their set (ids, titles) changes; otherwise the code text is replaced in
  // place when it changed. title, blurb: the panel's heading and introduction (the preset's, or the page's own).
  draw(cur, title, blurb) {
    const box = this.scope.$('cells'),
      cells = cur.cells;
    this.scope.setText('lesson-title', title);
    this.scope.setText('lesson-blurb', blurb);
    const key = cells.map((c) => c.id + '\u0001' + c.title).join('\u0002');
    const fresh = !this.cells || this.cells.key !== key || box.firstChild !== this.cells.els[0];
    if (fresh) {
      // a new set of cells: printed at once (no empty output on screen)
      this.offScreen.drop();
      this.printed = {};
      box.textContent = '';
      this.cells = { key: key, els: cells.map((c) => box.appendChild(this.codeBlock(c, this.printOf(c)))) };
      return;
    }
    const els = this.cells.els;
    cells.forEach((c, i) => {
      els[i]._cell = c;
    });
    const update = (printed) =>
      cells.forEach((c, i) => {
        this.scope.setText(els[i]._code, c.code);
        if (printed) this.scope.setText(els[i]._out, this.printOf(c));
      });
    // small matrices print in well under a millisecond: at once (never a stale panel); large ones when idle
    if (!largeResult(cur)) {
      this.offScreen.drop();
      update(true);
      return;
    }
    if (this.offScreen.onScreen) update(false);
    this.offScreen.later(() => update(true));
  }
  clear() {
    this.offScreen.drop();
    this.printed = {};
    this.cells = null;
    this.scope.$('cells').textContent = '';
  }
  // What each cell prints, by cell id.
  printedTexts() {
    this.flush();
    return JSON.parse(JSON.stringify(this.printed));
  }
  // "Copy as PyTorch": the whole page as one script, and what it prints (the page's printed panels).
  pageSnippet(cur) {
    if (!cur) return { code: '', printed: '' };
    this.flush();
    if (cur.copyAll) {
      return {
        code: copyAll(cur.cells),
        printed: cur.cells
          .map((c) => this.printed[c.id])
          .filter(Boolean)
          .join('\n'),
      };
    }
    return { code: copySnippet(cur.forward), printed: this.printed.page };
  }
  // Every snippet the explorer offers with the text it shows as printed: each cell's "Copy code" and "Copy as PyTorch".
  snippets(cur) {
    if (!cur) return [];
    const all = this.pageSnippet(cur),
      els = this.cells ? this.cells.els : [];
    return els
      .map((wrap) => {
        const c = wrap._cell;
        return { id: c.id, title: c.title, code: copyOf(c), printed: this.printed[c.id] };
      })
      .concat([{ id: 'copy-as-pytorch', title: 'Copy as PyTorch', code: all.code, printed: all.printed }]);
  }
}
