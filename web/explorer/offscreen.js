// MHA Explorer — redraws put off while their view is off screen. A change redraws what the student sees first; a
// large redraw of a view below the fold (its text, tables and SVG relaid out and painted cost milliseconds at 512
// tokens) waits until the change's frame is painted: it runs on an idle callback (within IDLE_TIMEOUT ms), when the
// view comes within MARGIN of the viewport, or when something reads it (flush()). A newer redraw replaces a waiting one.

// Inputs above this many tokens are large (the printed S×S matrices are formatted later from the same size).
export const LAZY_TOKENS = 64;
// Whether an explorer's result (cur: {res, …}) is large.
export function largeResult(cur) {
  return cur.res.weights.shape[2] > LAZY_TOKENS;
}
const MARGIN = '200px';
const IDLE_TIMEOUT = 150;

export class OffScreen {
  // element: the view's element, whose place on screen decides.
  constructor(element) {
    this.onScreen = true;
    this.pending = null;
    this.timer = null;
    this.seen =
      typeof IntersectionObserver === 'function'
        ? new IntersectionObserver(
            (entries) => {
              this.onScreen = entries[entries.length - 1].isIntersecting;
              if (this.onScreen) this.flush();
            },
            { rootMargin: MARGIN },
          )
        : null;
    if (this.seen) this.seen.observe(element);
  }
  // draw(late): the redraw (late: it was put off, so what was measured before it may have changed); large: whether
  // it may wait while the view is off screen.
  run(draw, large) {
    if (large && !this.onScreen) {
      this.pending = draw;
      this.schedule();
      return;
    }
    this.drop();
    draw(false);
  }
  // Put off whether on screen or not (work that is no picture: the printed matrices' text).
  later(draw) {
    this.pending = draw;
    this.schedule();
  }
  schedule() {
    if (this.timer !== null) return;
    const run = () => {
      this.timer = null;
      this.flush();
    };
    this.timer = window.requestIdleCallback
      ? window.requestIdleCallback(run, { timeout: IDLE_TIMEOUT })
      : setTimeout(run, 30);
  }
  // The waiting redraw, now.
  flush() {
    const draw = this.pending;
    this.drop();
    if (draw) draw(true);
  }
  // The waiting redraw forgotten (the view was cleared or redrawn at once).
  drop() {
    this.pending = null;
    if (this.timer !== null) {
      (window.cancelIdleCallback || clearTimeout)(this.timer);
      this.timer = null;
    }
  }
  dispose() {
    this.drop();
    if (this.seen) this.seen.disconnect();
  }
}
