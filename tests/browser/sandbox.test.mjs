// A sandboxed frame tells the truth: the one-file page, the lab and the attention view in <iframe sandbox="allow-scripts">
// (as course platforms and notebook viewers frame them), served from a deep path over http. Where the frame forbids
// downloads or pop-ups, "Export PNG" / "Export SVG" / "Save as PNG" / "Download weights" / "Open full page ↗" say so
// next to the button with the way out (the picture, the SVG or Python that writes the weights, the page's address),
// and the lab never says "Saved …"; with allow-downloads allow-popups they save and open; a same-origin sandbox whose
// flags the page can read says "Not saved". The Python way out writes the very bytes the lab would have saved.
// Screenshots of the notes go to artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { serve } from '../../scripts/serve.mjs';
import { ARTIFACTS, DIST, guardedPage, launch } from './helpers.mjs';

const DEEP = '/pluginfile.php/1234/mod_resource/content/7';
const VIEW_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>View</title><link rel="icon" href="data:,">
<script src="mha-explorer-view-classic.js"></script></head><body><div id="v"></div><script>
const w = new Float32Array(2 * 4 * 4).map((_, i) => ((i * 7) % 5 + 1) / 15);
MhaExplorerView.mountAttention(document.getElementById('v'), { weights: w, shape: [2, 4, 4], tokens: ['a', 'b', 'c', 'd'] });
</script></body></html>`;
const FLAGS = {
  bare: 'allow-scripts',
  open: 'allow-scripts allow-downloads allow-popups',
  same: 'allow-scripts allow-same-origin',
};
const hostPage = (
  flags,
  src,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="data:,"></head>
<body><h1>Week 3</h1><iframe sandbox="${flags}" src="${src}" style="width:1200px;height:1400px;border:0" title="MHA Explorer"></iframe></body></html>`;

let browser, server, dir;
const extra = {};
for (const [name, flags] of Object.entries(FLAGS)) {
  extra[`/course/${name}/page.html`] = hostPage(flags, `${DEEP}/mha-explorer.html`);
  extra[`/course/${name}/embed.html`] = hostPage(flags, `${DEEP}/mha-explorer.html?embed=1`);
  extra[`/course/${name}/lab.html`] = hostPage(flags, `${DEEP}/mha-explorer.html?preset=train-two-offsets`);
  extra[`/course/${name}/view.html`] = hostPage(flags, `${DEEP}/view.html`);
}
extra[`${DEEP}/view.html`] = VIEW_PAGE;

before(async () => {
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'mha-sandbox-'));
  mkdirSync(join(dir, DEEP), { recursive: true });
  for (const f of ['mha-explorer.html', 'mha-explorer-view-classic.js'])
    copyFileSync(join(DIST, f), join(dir, DEEP, f));
  server = await serve(dir, { extra });
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The host page of a case and its frame once ready (what): the explorer rendered, the lab started, the view mounted.
async function framed(flagsName, what) {
  const g = await guardedPage(
    browser.context,
    (u) => u.startsWith(server.origin + '/') || u.startsWith('data:') || u.startsWith('blob:'),
  );
  const events = { downloads: [], popups: [] };
  g.page.on('download', (d) => events.downloads.push(d.suggestedFilename()));
  g.page.on('popup', (p) => events.popups.push(p.url()));
  await g.page.goto(`${server.origin}/course/${flagsName}/${what}.html`);
  const frame = await (await g.page.waitForSelector('iframe')).contentFrame();
  if (what === 'view') await frame.waitForSelector('[data-mha-explorer-view] canvas');
  else if (what === 'lab') {
    await frame.waitForFunction(
      () => window.mhaExplorer && window.mhaExplorer.train && document.querySelector('.mhx-lab'),
      null,
      { timeout: 30000 },
    );
    await frame.evaluate(() => window.mhaExplorer.ready);
    await frame.evaluate(() => window.mhaExplorer.train({ steps: 10 }));
  } else
    await frame.waitForFunction(
      () => window.mhaExplorer && window.mhaExplorer.getWeights && window.mhaExplorer.getWeights() !== null,
      null,
      { timeout: 30000 },
    );
  return { ...g, frame, events };
}
// The note after a control (chrome/sandbox.js's frameNote), once it is there: its text, picture and fields.
async function noteAfter(frame, selector) {
  await frame.waitForFunction(
    (sel) => document.querySelector(sel).nextElementSibling?.classList.contains('frame-note'),
    selector,
    { timeout: 10000 },
  );
  return frame.evaluate((sel) => {
    const n = document.querySelector(sel).nextElementSibling;
    return {
      text: n.textContent,
      image: !!n.querySelector('img'),
      fields: [...n.querySelectorAll('input, textarea')].map((f) => f.value),
    };
  }, selector);
}
const hasNote = (frame, selector) =>
  frame.evaluate((sel) => !!document.querySelector(sel).nextElementSibling?.classList.contains('frame-note'), selector);
async function shoot(g, frame, selector, name) {
  await frame.evaluate((sel) => document.querySelector(sel).scrollIntoView({ block: 'start' }), selector);
  const box = await (await frame.$(selector)).boundingBox();
  await g.page.screenshot({
    path: join(ARTIFACTS, name),
    clip: { x: 0, y: Math.max(0, box.y - 40), width: 1220, height: 520 },
  });
}

test(
  'sandbox="allow-scripts": the page\'s Export PNG and Export SVG say the frame forbids downloads and give the picture and the SVG',
  { timeout: 90000 },
  async () => {
    const g = await framed('bare', 'page');
    await g.frame.click('#export-png');
    const png = await noteAfter(g.frame, '#export-png');
    console.log(`# Export PNG: ${png.text.slice(0, 160)}…`);
    assert.match(png.text, /sandboxed frame.*allow-downloads/);
    assert.ok(png.image, 'the picture to save from its menu');
    assert.ok(
      png.fields.some((f) => f.endsWith(`${DEEP}/mha-explorer.html`)),
      "the page's address to open on its own",
    );
    await shoot(g, g.frame, '#export-png', 'sandbox-export-png.png');
    await g.frame.click('#export-svg');
    const svg = await noteAfter(g.frame, '#export-svg');
    assert.ok(
      svg.fields.some((f) => f.startsWith('<svg')),
      'the SVG to copy',
    );
    assert.deepEqual(g.events.downloads, [], 'Chromium saved nothing');
    assert.deepEqual(g.foreign, []);
    await g.page.close();
  },
);

test(
  'sandbox="allow-scripts": the lab\'s Download weights never says Saved, and its Python writes the same file',
  { timeout: 90000 },
  async () => {
    const g = await framed('bare', 'lab');
    await g.frame.click('#download');
    const note = await noteAfter(g.frame, '#download');
    console.log(`# Download weights: ${note.text.slice(0, 200)}…`);
    assert.match(note.text, /sandboxed frame.*allow-downloads/);
    assert.doesNotMatch(await g.frame.textContent('#pytorch-msg'), /Saved/);
    assert.equal(await g.frame.isVisible('#pytorch-msg'), false, 'no "Saved …" line');
    await shoot(g, g.frame, '#download', 'sandbox-download-weights.png');
    // the way out: Python that writes the lab's file, byte for byte
    const python = note.fields.find((f) => f.includes('base64.b64decode'));
    const name = /open\("([^"]+)"/.exec(python)[1];
    assert.match(name, /^mha-lab-two-offsets-seed\d+-step10\.safetensors$/);
    const work = mkdtempSync(join(tmpdir(), 'mha-weights-'));
    try {
      execFileSync('/usr/bin/python3', ['-c', python], { cwd: work });
      const saved = Buffer.from(await g.frame.evaluate(() => window.mhaExplorer.save().then((b) => Array.from(b))));
      assert.ok(readFileSync(join(work, name)).equals(saved), 'the Python writes the bytes the lab saves');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    assert.deepEqual(g.events.downloads, []);
    await g.page.close();
  },
);

test(
  'sandbox="allow-scripts": Open full page ↗ says the frame may not open pages, with the address',
  { timeout: 90000 },
  async () => {
    const g = await framed('bare', 'embed');
    await g.frame.click('#open-full');
    const note = await noteAfter(g.frame, '#open-full');
    console.log(`# Open full page: ${note.text}`);
    assert.match(note.text, /allow-popups/);
    assert.ok(
      note.fields[0].startsWith(`${server.origin}${DEEP}/mha-explorer.html`) && !/embed=/.test(note.fields[0]),
      note.fields[0],
    );
    await shoot(g, g.frame, '#open-full', 'sandbox-open-full.png');
    assert.deepEqual(g.events.popups, []);
    await g.page.close();
  },
);

test('sandbox="allow-scripts": the attention view\'s Save as PNG says so too', { timeout: 60000 }, async () => {
  const g = await framed('bare', 'view');
  const button = '[data-mha-explorer-view] button.mhav-btn:nth-of-type(1)';
  assert.match(await g.frame.textContent(button), /PNG/);
  await g.frame.click(button);
  const note = await noteAfter(g.frame, button);
  assert.match(note.text, /sandboxed frame.*allow-downloads/);
  assert.ok(note.image);
  assert.deepEqual(g.events.downloads, []);
  await g.page.close();
});

test(
  'sandbox="allow-scripts allow-downloads allow-popups": the files are saved and the full page opens',
  { timeout: 120000 },
  async () => {
    const page = await framed('open', 'page');
    await page.frame.click('#export-png');
    await page.page
      .waitForEvent('download', { predicate: (d) => d.suggestedFilename() === 'mha-heads.png', timeout: 10000 })
      .catch(() => null);
    assert.deepEqual(page.events.downloads, ['mha-heads.png']);
    await page.page.close();
    const lab = await framed('open', 'lab');
    await lab.frame.click('#download');
    await lab.page.waitForEvent('download', { timeout: 10000 }).catch(() => null);
    assert.match(lab.events.downloads.join(), /^mha-lab-two-offsets-seed\d+-step10\.safetensors$/);
    await lab.page.close();
    const embed = await framed('open', 'embed');
    await embed.frame.click('#open-full');
    await embed.page.waitForEvent('popup', { timeout: 10000 }).catch(() => null);
    assert.equal(embed.events.popups.length, 1, 'the full page opened');
    assert.equal(await hasNote(embed.frame, '#open-full'), false, 'and no note');
    await embed.page.close();
  },
);

test(
  'sandbox="allow-scripts allow-same-origin": the page reads the flags and says Not saved',
  { timeout: 90000 },
  async () => {
    const g = await framed('same', 'lab');
    await g.frame.click('#download');
    const note = await noteAfter(g.frame, '#download');
    assert.match(note.text, /^Not saved: this page is in a frame that forbids downloads/);
    assert.doesNotMatch(await g.frame.textContent('#pytorch-msg'), /Saved/);
    assert.deepEqual(g.events.downloads, []);
    await g.page.close();
  },
);

test('not framed: Download weights saves and says Saved, with no note', { timeout: 90000 }, async () => {
  const g = await guardedPage(browser.context, () => true);
  const downloads = [];
  g.page.on('download', (d) => downloads.push(d.suggestedFilename()));
  await g.page.goto(`${server.origin}${DEEP}/mha-explorer.html?preset=train-two-offsets`);
  await g.page.waitForFunction(
    () => window.mhaExplorer && window.mhaExplorer.train && document.querySelector('.mhx-lab'),
    null,
    { timeout: 30000 },
  );
  await g.page.evaluate(() => window.mhaExplorer.ready);
  await g.page.evaluate(() => window.mhaExplorer.train({ steps: 10 }));
  await g.page.click('#download');
  await g.page.waitForEvent('download', { timeout: 10000 }).catch(() => null);
  assert.equal(downloads.length, 1);
  assert.match(await g.page.textContent('#pytorch-msg'), /^Saved mha-lab-two-offsets/);
  assert.equal(await hasNote(g.page, '#download'), false);
  await g.page.close();
});
