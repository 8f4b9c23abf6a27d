// The embed in the three places an instructor puts it — a Sphinx/MyST page, an nbconvert-exported
// Jupyter notebook, a plain HTML page — each with the iframe snippet and the <mha-explorer> element of the
// hosted page (the element mounts the explorer in its shadow root), the one-file page's iframe snippet, and the training lab's snippet as docs/embedding.md gives it,
// the page over http (host pages on another origin) and over file://. The snippets are the ones the
// pages offer; each embed loads, shows the focused layout, takes its content's height and the host's theme
// (the browser prefers dark, the host pages are light).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { suite, guardedPage, fileURL, repo, settledHeight, ARTIFACTS } from './helpers.mjs';
import { buildHosts } from './hosts.mjs';

const QUERY = 'preset=lesson000&embed=1';
const HOSTS = ['sphinx', 'notebook', 'plain'];
const MODES = ['http', 'file'];

// The snippets the page's own "Embed in …" offers (embedCode in web/explorer/share.js), one per host, taken from the
// page itself; `base` replaces the page's folder (an http origin, or {DIST}: hosts.mjs makes it the
// relative path to dist/).
const env = suite();
let offered, oneFile, lab;
async function pageSnippets(file, hosts) {
  const g = await guardedPage(env.browser.context, () => true);
  await g.page.goto(env.srv.origin + '/' + file + '?' + QUERY.replace('&embed=1', ''));
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.getWeights());
  const out = await g.page.evaluate(
    (hs) => Object.fromEntries(hs.map((h) => [h, window.mhaExplorer.embedCode(h)])),
    hosts,
  );
  await g.page.close();
  return out;
}
// The lab's snippet in docs/embedding.md (its MyST block), which must be what the lab offers for that view.
const DOCS_SITE = 'https://YOUR-SITE/mha-explorer';
async function labSnippet() {
  const block = readFileSync(join(repo, 'docs', 'embedding.md'), 'utf8').match(
    /```\{raw\} html\n<iframe src="[^"]*\/lab\.html\?[^]*?```\n/,
  );
  assert.ok(block, "docs/embedding.md has the lab's MyST snippet");
  const query = new URL(block[0].match(/src="([^"]*)"/)[1].replace(/&amp;/g, '&')).search;
  const g = await guardedPage(env.browser.context, () => true);
  await g.page.goto(fileURL('lab.html') + query.replace(/&?embed=1/, ''));
  await g.page.evaluate(() => window.mhaExplorer.ready);
  assert.equal(
    block[0],
    await g.page.evaluate(() => window.mhaExplorer.embedCode('myst')),
    "docs/embedding.md's lab snippet is the one the lab offers",
  );
  await g.page.close();
  return block[0];
}
function snippets(base) {
  const at = (t) =>
    t
      .split(env.srv.origin + '/')
      .join(base + '/')
      .split(DOCS_SITE + '/')
      .join(base + '/');
  return {
    myst:
      `## The iframe\n\n${at(offered.myst)}\n## The element\n\n${at(offered.element)}\nText after the element.\n\n` +
      `## The one-file page\n\n${at(oneFile.myst)}\n## The lab\n\n${at(lab)}\nText after the lab.\n`,
    notebookCells: [
      at(offered.notebook),
      `from IPython.display import HTML\nHTML('''${at(offered.element)}''')`,
      at(oneFile.notebook),
      `from IPython.display import HTML\nHTML('''${at(lab.replace(/^```\{raw\} html\n|```\n$/g, ''))}''')`,
    ],
    html:
      `<h2>The iframe</h2>\n${at(offered.html)}\n<h2>The element</h2>\n${at(offered.element)}\n<p>Text after the element.</p>\n` +
      `<h2>The one-file page</h2>\n${at(oneFile.html)}\n<h2>The lab</h2>\n${at(lab.replace(/^```\{raw\} html\n|```\n$/g, ''))}\n<p>Text after the lab.</p>`,
  };
}

let hostSrv, work;
const built = {},
  rows = [];
before(async () => {
  await env.ready;
  offered = await pageSnippets('index.html', ['myst', 'notebook', 'html', 'element']);
  oneFile = await pageSnippets('mha-explorer.html', ['myst', 'notebook', 'html']);
  lab = await labSnippet();
  work = mkdtempSync(join(tmpdir(), 'mha-hosts-'));
  const [http, file] = await Promise.all([
    buildHosts({ outDir: join(work, 'http'), ...snippets(env.srv.origin) }),
    buildHosts({ outDir: join(work, 'file'), ...snippets(fileURL('index.html').replace(/\/index\.html$/, '')) }),
  ]);
  built.http = http;
  built.file = file;
  // http: the host pages come from a second server, so the explorer is cross-origin as on a course site
  // (with a favicon: Chromium asks each new origin for /favicon.ico, a 404 would read as a console error)
  hostSrv = await serve(work, { extra: { '/favicon.ico': '' } });
  for (const mode of MODES) {
    for (const h of HOSTS)
      console.log(
        `# built ${mode} ${h} in ${built[mode].builds[h].ms} ms` +
          (built[mode].builds[h].warnings.length ? `; warnings: ${built[mode].builds[h].warnings.join(' | ')}` : ''),
      );
  }
});
after(async () => {
  if (rows.length) {
    console.log('# host      mode  embed     iframe w×h (px)  content(px)  body(px)  iframe-content  errors');
    for (const r of rows) {
      console.log(
        `# ${r.host.padEnd(9)} ${r.mode.padEnd(5)} ${r.embed.padEnd(9)} ${(r.iframeWidth + '×' + r.iframeHeight).padStart(15)}  ` +
          `${String(r.contentHeight).padStart(11)}  ${String(r.bodyHeight).padStart(8)}  ${String(r.iframeHeight - r.contentHeight).padStart(14)}  ${r.errors.length ? JSON.stringify(r.errors) : 0}`,
      );
    }
    writeFileSync(join(ARTIFACTS, 'hosts-heights.json'), JSON.stringify(rows, null, 1));
  }
  await hostSrv?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const hostURL = (mode, file) =>
  mode === 'http'
    ? hostSrv.origin +
      '/' +
      file
        .slice(work.length + 1)
        .split('\\')
        .join('/')
    : pathToFileURL(file).href;

// In the host page: the theme its own background asks of an embed (body, else html, else the browser's white canvas:
// these hosts set no color-scheme).
function hostTheme() {
  const c = [document.body, document.documentElement]
    .map((n) =>
      getComputedStyle(n)
        .backgroundColor.match(/[0-9.]+/g)
        .map(Number),
    )
    .find((v) => v.length === 3 || v[3] > 0.5) || [255, 255, 255];
  return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 128 ? 'dark' : 'light';
}

// Heights once the embed has loaded and stopped resizing (the element resizes on the page's message).
// find: in the host page, returns the embed's <iframe> (light DOM, or the element's shadow root).
async function measure(page, find) {
  await page.waitForFunction(find, null, { timeout: 20000 });
  const el = (await page.evaluateHandle(find)).asElement();
  await el.scrollIntoViewIfNeeded(); // both snippets lazy-load the iframe
  const frame = await el.contentFrame();
  await frame.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 30000 });
  const ready = await frame.evaluate(() => window.mhaExplorer.ready);
  await settledHeight(page, el);
  const box = await el.evaluate((f) => {
    const r = f.getBoundingClientRect();
    return { height: r.height, width: r.width };
  });
  const inner = await frame.evaluate(() => ({
    scrollHeight: document.documentElement.scrollHeight,
    body: Math.ceil(document.body.getBoundingClientRect().height),
    embed: document.body.classList.contains('embed'),
    theme: (document.querySelector('.mhx') || document.documentElement).getAttribute('data-theme'),
  }));
  return {
    ready,
    iframeHeight: Math.round(box.height),
    iframeWidth: Math.round(box.width),
    contentHeight: inner.scrollHeight,
    bodyHeight: inner.body,
    embedClass: inner.embed,
    theme: inner.theme,
    hostTheme: await page.evaluate(hostTheme),
  };
}

// The <mha-explorer> element: the explorer in its shadow root (no iframe), as tall as its content.
async function measureElement(page) {
  await page.waitForFunction(
    () => {
      const e = document.querySelector('mha-explorer');
      return e && e.mhaExplorer;
    },
    null,
    { timeout: 20000 },
  );
  const el = await page.$('mha-explorer');
  await el.scrollIntoViewIfNeeded();
  const ready = await page.evaluate(() => document.querySelector('mha-explorer').mhaExplorer.ready);
  return {
    ready,
    ...(await page.evaluate(() => {
      const e = document.querySelector('mha-explorer'),
        root = e.shadowRoot.querySelector('.mhx'),
        r = e.getBoundingClientRect();
      return {
        iframeHeight: Math.round(r.height),
        iframeWidth: Math.round(r.width),
        contentHeight: Math.round(root.getBoundingClientRect().height),
        bodyHeight: Math.round(root.scrollHeight),
        embedClass: root.classList.contains('embed'),
        theme: root.getAttribute('data-theme'),
        frames: e.shadowRoot.querySelectorAll('iframe').length,
      };
    })),
    hostTheme: await page.evaluate(hostTheme),
  };
}

for (const mode of MODES) {
  for (const host of HOSTS) {
    test(`${host} over ${mode}: iframe and <mha-explorer> load`, async () => {
      const file = built[mode][host];
      assert.ok(file && existsSync(file), `${host} built`);
      // not in the suite's end check: each host's errors are logged and kept in the heights table
      const g = await guardedPage(env.browser.context, () => true);
      await g.page.emulateMedia({ colorScheme: 'dark' }); // a reader whose system is dark, on a light course page
      const failed = [];
      g.page.on('response', (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      g.page.on('requestfailed', (r) => failed.push(`${r.failure()?.errorText} ${r.url()}`));
      await g.page.goto(hostURL(mode, file));
      const foreignReq = () =>
        g.requests.filter(
          (u) =>
            !/^(data|blob|file):/.test(u) && !u.startsWith(env.srv.origin + '/') && !u.startsWith(hostSrv.origin + '/'),
        );
      for (const [embed, find] of [
        ['iframe', () => document.querySelector('iframe[src*="/index.html"]')],
        ['element', null],
        ['one-file', () => document.querySelector('iframe[src*="/mha-explorer.html"]')],
        ['lab', () => document.querySelector('iframe[src*="/lab.html"]')],
      ]) {
        const errorsBefore = g.errors.length;
        const m = find ? await measure(g.page, find) : await measureElement(g.page);
        if (!find)
          assert.equal(m.frames, 0, `the element in ${host} over ${mode}: mounted in its shadow root, no iframe`);
        rows.push({ host, mode, embed, ...m, errors: g.errors.slice(errorsBefore) });
        assert.equal(m.ready, true, `${embed} in ${host} over ${mode}: mhaExplorer.ready`);
        assert.ok(m.embedClass, 'the focused embed layout');
        assert.ok(
          Math.abs(m.iframeHeight - m.contentHeight) <= 2,
          `${embed} in ${host} over ${mode}: iframe ${m.iframeHeight}px for ${m.contentHeight}px of content`,
        );
        assert.ok(
          m.contentHeight < 2000,
          `${embed} in ${host} over ${mode}: a focused embed, ${m.contentHeight}px tall`,
        );
        assert.equal(m.theme, m.hostTheme, `${embed} in ${host} over ${mode}: the host page's theme`);
      }
      await g.page.screenshot({ path: join(ARTIFACTS, `hosts-${host}-${mode}.png`), fullPage: true });
      const elemInHost = await g.page.evaluate(() => {
        const e = document.querySelector('mha-explorer');
        return e ? { parent: e.parentElement.tagName, defined: !!customElements.get('mha-explorer') } : null;
      });
      console.log(
        `# ${host} ${mode}: <mha-explorer> parent=${elemInHost && elemInHost.parent} defined=${elemInHost && elemInHost.defined}; ` +
          `errors=${JSON.stringify(g.errors)}; foreign requests=${JSON.stringify(foreignReq())}; failed=${JSON.stringify(failed)}`,
      );
      await g.page.close();
    });
  }
}
