// MHA Explorer — the lesson panel: the preset's code cells with what each prints (computed live), their
// "Copy code" buttons, and every snippet the page offers ("Copy as PyTorch" included) with its printed text.
// cur: the controller's current result {cells, copyAll, res, …}.
import { copyOf, copyAll, copySnippet } from './lessons/snippets.js';
import { el } from './widgets/dom.js';
import { $, setText } from './page-dom.js';
import { copyWithButton } from './chrome/clipboard.js';

const root = window;

function codeBlock(cell, output) {
  var title = cell.title, id = cell.id;
  var wrap = el('article', { class: 'cell', 'data-cell': id });
  var head = el('div', { class: 'cell-head' });
  head.appendChild(el('h3', null, title));
  var copy = el('button', { type: 'button', class: 'btn small' }, cell.setup ? 'Copy code + setup' : 'Copy code');
  copy.addEventListener('click', function () { copyWithButton(copyOf(wrap._cell), $('share-out'), copy); });
  head.appendChild(copy);
  wrap.appendChild(head);
  wrap._cell = cell;
  if (cell.note) wrap.appendChild(el('p', { class: 'cell-note' }, cell.note));
  wrap._code = wrap.appendChild(el('pre', { class: 'code', tabindex: '0', role: 'region', 'aria-label': title + ': code' }, cell.code));
  wrap.appendChild(el('div', { class: 'out-label' }, 'Printed (computed live on this page)'));
  wrap._out = wrap.appendChild(el('pre', { class: 'out', 'data-out': id, tabindex: '0', role: 'region', 'aria-label': title + ': printed output' }, output));
  return wrap;
}

// The code cells are rebuilt only when their set (ids, titles) changes; otherwise the code text is
// replaced in place when it changed. The printed outputs (torch-style printing of the S×S weights) are
// formatted with the redraw for S <= LAZY_PRINT_S, otherwise on an idle callback after it (or at once
// by getPrinted()).
var LAZY_PRINT_S = 64;            // above this many tokens the printed S×S matrix is formatted lazily
var printed = {}, printedTodo = null, printedTimer = null, lessonCells = null;
// A cell's printed text (outputs may be deferred as functions), recorded for getPrinted().
function printOf(c) {
  var out = typeof c.output === 'function' ? c.output() : c.output;
  printed[c.id] = out;
  return out;
}
function flushPrinted() {
  if (printedTimer !== null) { (root.cancelIdleCallback || clearTimeout)(printedTimer); printedTimer = null; }
  var todo = printedTodo; printedTodo = null;
  if (!todo) return;
  todo.forEach(function (c) { setText(c.el, printOf(c)); });
}
function schedulePrinted() {
  if (printedTimer !== null) return;
  printedTimer = root.requestIdleCallback ? root.requestIdleCallback(function () { printedTimer = null; flushPrinted(); }, { timeout: 150 })
    : setTimeout(function () { printedTimer = null; flushPrinted(); }, 30);
}
// title, blurb: the panel's heading and introduction (the preset's, or the page's own).
export function drawLesson(cur, title, blurb) {
  var box = $('cells'), cells = cur.cells;
  setText('lesson-title', title);
  setText('lesson-blurb', blurb);
  var key = cells.map(function (c) { return c.id + '\u0001' + c.title; }).join('\u0002');
  var fresh = !lessonCells || lessonCells.key !== key || box.firstChild !== lessonCells.els[0];
  if (fresh) {
    // a new set of cells: printed at once (no empty output on screen)
    printedTodo = null; printed = {};
    box.textContent = '';
    lessonCells = { key: key, els: cells.map(function (c) { return box.appendChild(codeBlock(c, printOf(c))); }) };
    return;
  }
  printedTodo = cells.map(function (c, i) {
    var wrap = lessonCells.els[i];
    setText(wrap._code, c.code);
    wrap._cell = c;
    return { id: c.id, output: c.output, el: wrap._out };
  });
  // small matrices print in well under a millisecond: at once (never a stale panel); large ones when idle
  if (cur.res.weights.shape[2] <= LAZY_PRINT_S) flushPrinted(); else schedulePrinted();
}
export function clearLesson() {
  if (printedTimer !== null) { (root.cancelIdleCallback || clearTimeout)(printedTimer); printedTimer = null; }
  printedTodo = null; printed = {}; lessonCells = null;
  $('cells').textContent = '';
}

// What each cell prints, by cell id.
export function getPrinted() { flushPrinted(); return JSON.parse(JSON.stringify(printed)); }

// "Copy as PyTorch": the whole page as one script, and what it prints (the page's printed panels).
export function pageSnippet(cur) {
  if (!cur) return { code: '', printed: '' };
  flushPrinted();
  if (cur.copyAll) {
    return { code: copyAll(cur.cells), printed: cur.cells.map(function (c) { return printed[c.id]; }).filter(Boolean).join('\n') };
  }
  return { code: copySnippet(cur.cfg), printed: printed.page };
}
// Every snippet the page offers with the text it shows as printed: each cell's "Copy code" and "Copy as PyTorch".
export function snippets(cur) {
  if (!cur) return [];
  var all = pageSnippet(cur), els = lessonCells ? lessonCells.els : [];
  return els.map(function (wrap) {
    var c = wrap._cell;
    return { id: c.id, title: c.title, code: copyOf(c), printed: printed[c.id] };
  }).concat([{ id: 'copy-as-pytorch', title: 'Copy as PyTorch', code: all.code, printed: all.printed }]);
}
