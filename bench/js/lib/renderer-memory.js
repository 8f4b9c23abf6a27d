'use strict';
// A Chromium renderer's memory from Linux's /proc, for bench/js/models.js's loads: the renderers a fresh context
// starts (CDP SystemInfo.getProcessInfo), a process's RSS and peak RSS (VmHWM), and the peak reset to the RSS.
const fs = require('fs');

// The renderer processes that appear when a page is opened in a fresh context: the page's own among them (the
// one whose peak grows by the file's size; Chromium also starts spare renderers).
async function rendererPids(cdp) {
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  return new Set(processInfo.filter((p) => p.type === 'renderer').map((p) => p.id));
}
function procMemory(pid) {
  let status;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (k) => Number((status.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm')) || [])[1]) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
// Resets the process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0, needs the right to write clear_refs).
function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

module.exports = { rendererPids, procMemory, resetPeak };
