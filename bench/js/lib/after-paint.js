'use strict';
// Injected into a benchmark's page (page.addInitScript(installAfterPaint)) before its scripts run:
// window.afterPaint() resolves in the task that follows the next painted frame (requestAnimationFrame runs before
// the frame's paint; a MessageChannel message is the first task after it), where a change's time ends and the next
// change starts. Used by bench/js/page-speed.js and bench/js/models-page-speed.js.
function installAfterPaint() {
  window.afterPaint = () =>
    new Promise((res) =>
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = res;
        ch.port2.postMessage(0);
      }),
    );
}

module.exports = { installAfterPaint };
