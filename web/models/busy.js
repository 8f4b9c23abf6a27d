// MHA Explorer, the model page — what the page says while the model computes and when the heads shown are not the
// text's: a change that takes longer than a frame shows a busy sign with Cancel above the heads, and the views of the
// previous text stay, marked as the previous text's (stale), until the new text's forward is drawn; a cancelled or
// refused text (longer than the model's positions) leaves them so marked, said why. createBusy(ctx, cancel) →
// {start(words) → {end()}, stale(why), fresh(), state(), dispose()}. ctx: context.js's; cancel(): stops the work.
import { el } from '../widgets/dom.js';

export function createBusy(ctx, cancel) {
  const content = ctx.root.querySelector('.content');
  const bar = el('div', { class: 'mp-busy', role: 'status', 'aria-live': 'polite', hidden: '' });
  const words = bar.appendChild(el('span', { class: 'mp-busy-words' }));
  const stop = bar.appendChild(el('button', { type: 'button', class: 'btn small' }, 'Cancel'));
  content.prepend(bar);
  const b = { runs: 0, computing: '', why: '', timer: 0, frame: 0 };
  stop.addEventListener('click', () => cancel());
  // the words of the bar, the stale mark on the views shown
  const show = () => {
    const shown = ctx.S.enc && ctx.S.out,
      n = shown ? ctx.S.enc.ids.length : 0;
    const previous = shown
      ? 'the heads below are the previous text’s (' + n + ' token' + (n === 1 ? '' : 's') + ')'
      : '';
    const stale = !!shown && (!!b.computing || !!b.why);
    content.classList.toggle('mp-stale', stale);
    ctx.$('grid').setAttribute('aria-busy', String(!!b.computing));
    bar.hidden = !b.computing && !(b.why && shown);
    stop.hidden = !b.computing;
    words.textContent = b.computing
      ? b.computing + (previous ? ' Until then ' + previous + '.' : '')
      : b.why && shown
        ? previous.replace(/^t/, 'T') + ': ' + b.why
        : '';
  };
  return {
    // a computation under way: the sign shows once it has lasted past the next frame
    start(what) {
      const run = ++b.runs;
      const doc = ctx.root.ownerDocument;
      const on = () => {
        if (run !== b.runs) return;
        b.computing = what;
        show();
      };
      clearTimeout(b.timer);
      cancelAnimationFrame(b.frame);
      if (doc.hidden) b.timer = setTimeout(on, 16);
      else b.frame = requestAnimationFrame(() => (b.timer = setTimeout(on, 0)));
      return {
        end: () => {
          if (run !== b.runs) return;
          b.runs++;
          b.computing = '';
          clearTimeout(b.timer);
          cancelAnimationFrame(b.frame);
          show();
        },
      };
    },
    // the views shown are not the text's: why (a refused text, a cancelled computation)
    stale(why) {
      b.why = why;
      show();
    },
    fresh() {
      b.why = '';
      show();
    },
    // {computing, stale, words} for the script API (getBusy)
    state: () => ({
      computing: !!b.computing,
      stale: content.classList.contains('mp-stale'),
      words: bar.hidden ? '' : words.textContent,
    }),
    dispose: () => {
      b.runs++;
      clearTimeout(b.timer);
      cancelAnimationFrame(b.frame);
      bar.remove();
    },
  };
}
