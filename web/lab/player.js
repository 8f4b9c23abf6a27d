// The lab's play / pause: the Play button's label and pressed state, and the animation-frame loop that asks for
// the next training request while playing (TensorFlow Playground's Player). One per lab instance.
export class Player {
  // button: the Play button; onFrame(): called on every animation frame while playing (the lab trains when it is
  // not busy).
  constructor(button, onFrame) {
    this.button = button;
    this.onFrame = onFrame;
    this.playing = false;
    this.frame = 0; // the pending animation frame's id (0: none)
  }
  play() {
    this.playing = true;
    this.show();
  }
  pause() {
    this.playing = false;
    this.show();
  }
  // The label is text and the icon an SVG (markup.html; lab.css shows the triangle or the two bars): no glyph a font may lack.
  show() {
    this.button.querySelector('.label').textContent = this.playing ? 'Pause' : 'Play';
    this.button.setAttribute('aria-pressed', this.playing ? 'true' : 'false');
  }
  // The frame loop: runs from start() until dispose().
  start() {
    if (this.frame || this.disposed) return;
    const tick = () => {
      this.frame = window.requestAnimationFrame(tick);
      if (this.playing) this.onFrame();
    };
    this.frame = window.requestAnimationFrame(tick);
  }
  dispose() {
    this.playing = false;
    this.disposed = true;
    if (this.frame) window.cancelAnimationFrame(this.frame);
    this.frame = 0;
  }
}
