// MHA Explorer — the heads view: one heatmap card per head and their average, on one colour scale, and the
// note that says what the student is looking at (untrained, loaded or hand-built heads, row sums, dropout,
// masks, colours). cur: the controller's current result {res, labels, eff, …}.
import { el } from '../widgets/dom.js';
import { range } from '../chrome/scope.js';
import { selB, selH, headMat, headName, fmtMax, hoverWords } from './read.js';
import { HeadCards, plotSize, cardLabels } from '../widgets/heads.js';
import { rangeOf } from '../widgets/colors.js';

export class HeadsPanel {
  // scope: the explorer's (scope.js); getCur() → its current result; onPick(h): a card was clicked (h a head index or
  // 'avg'); lab: the training lab's address.
  constructor(scope, getCur, onPick, lab) {
    Object.assign(this, { scope, getCur, onPick, lab, cards: null });
  }
  // The head cards (widgets/heads.js) are kept while the heads (count, names, S) stay the same; a redraw
  // repaints their canvases and updates the selection. colors: the explorer's theme colours (widgets/dom.js themeColors).
  draw(cur, wd, colors) {
    const eff = cur.eff,
      r = cur.res,
      b = selB(cur);
    const Sq = r.weights.shape[2];
    if (!this.cards)
      this.cards = new HeadCards(this.scope.$('heads'), this.scope.$('tooltip'), hoverWords(this.getCur), (h) =>
        this.onPick(h),
      );
    this.cards.draw(range(r.H).concat(r.H > 1 ? ['avg'] : []), {
      name: function (h) {
        return headName(cur, h);
      },
      mat: function (h) {
        return headMat(cur, b, h);
      },
      labels: cur.labels,
      scale: eff.scale,
      norm: eff.norm,
      vmax: r.vmax,
      colors,
      size: plotSize(Sq, r.H, wd.heads),
      showLabels: cardLabels(Sq, wd.heads),
      maxText: function (mat) {
        return eff.norm === 'max' ? 'colours 0 – ' + fmtMax(rangeOf(mat.data, 'max')) : '';
      },
    });
    this.select(cur);
  }
  // Whether a redraw paints the average's card now (not while it is off screen; before the first draw, it may).
  averageShown() {
    return !this.cards || this.cards.shown('avg');
  }
  // The head cards' canvases, every one painted (the cards off screen paint when they scroll into view).
  canvases() {
    return this.cards ? this.cards.canvases() : [];
  }
  select(cur) {
    if (this.cards) this.cards.select(cur.eff.avg ? 'avg' : selH(cur));
  }
  dispose() {
    if (this.cards) this.cards.dispose();
    this.cards = null;
  }

  // What the student is looking at, in words. The forward says whether its weights came from a file
  // (cur.forward.file: {file, layer, kind}), its mask, dropout and mode.
  note(cur) {
    const eff = cur.eff,
      r = cur.res,
      f = cur.forward,
      loaded = f.file;
    const box = this.scope.$('heads-note'),
      key = [
        eff.preset,
        eff.view,
        eff.seed,
        f.train,
        f.dropout,
        !!f.mask,
        eff.norm,
        r.vmax,
        loaded ? loaded.file + ':' + loaded.layer : '',
      ].join('|');
    if (box._key === key) return;
    box._key = key;
    box.textContent = '';
    const add = (t) => box.appendChild(document.createTextNode(t));
    if (r.headNames) {
      add('Hand-built logits, not learned: the lesson writes them to show what trained heads can do. ');
    } else if (loaded) {
      add(
        'These heads use the weights loaded from ' +
          loaded.file +
          (loaded.kind === 'model'
            ? ' (layer ' +
              loaded.layer +
              " of the training lab's model, which learned them on token ids with its own embeddings: on your sentence's " +
              'embeddings their patterns need not be the roles the lab showed)'
            : '') +
          '. ',
      );
    } else {
      add(
        'These heads are untrained: random initial weights (' +
          (r.origin || "nn.Linear's init after torch.manual_seed(" + eff.seed + ')') +
          '). Untrained heads spread their attention almost evenly and look alike; training is what makes heads ' +
          'specialize — see the hand-built heads of lesson 002, or watch heads learn their roles in the ',
      );
      box.appendChild(el('a', { href: this.lab + '?preset=train-two-offsets' }, 'training lab'));
      add('. ');
    }
    add('Rows are queries, columns are keys. ');
    if (f.dropout > 0 && f.train) {
      add(
        'train() with dropout p = ' +
          f.dropout +
          ': each weight was zeroed with probability p and the rest scaled by 1/(1 − p), ' +
          'so a row no longer sums to 1 (PyTorch does the same). ',
      );
    } else {
      add('Each row sums to 1. ');
      if (f.dropout > 0)
        add('Dropout p = ' + f.dropout + ' does nothing in eval() mode: choose train() to see it act. ');
    }
    if (f.mask) add('Causal mask: a query sees only itself and earlier keys; the masked cells are exactly 0. ');
    add(
      eff.norm === 'shared'
        ? 'Colours: one scale, 0 to ' + fmtMax(r.vmax) + ', for every head (legend above).'
        : eff.norm === 'max'
          ? 'Colours: each heatmap from 0 to its own max (printed on its card): heads cannot be compared by colour.'
          : 'Colours: 0 to 1 for every head.',
    );
  }
}
