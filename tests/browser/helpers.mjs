// Shared helpers of the browser tests: a tiny static server on 127.0.0.1 (port 0) over dist/,
// headless Debian Chromium through playwright-core, and request/console guards.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, statSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

export const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
export const DIST = resolve(process.env.MHA_DIST || join(repo, 'dist'));
export const ARTIFACTS = join(here, 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css',
  '.wasm': 'application/wasm', '.png': 'image/png', '.svg': 'image/svg+xml', '.json': 'application/json' };

// extra: {'/path': 'html text'} served in addition to dist/ (host pages for the custom element).
export function startServer(extra = {}) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let path = decodeURIComponent(url.pathname);
    if (extra[path] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(extra[path]);
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(DIST, path));
    if (!file.startsWith(DIST)) { res.writeHead(403); res.end(); return; }
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404); res.end('not found');
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    ok({ server, origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) });
  }));
}

export const fileURL = (name = 'index.html') => pathToFileURL(join(DIST, name)).href;

// Debian's Chromium, headless, with nothing talking to the network on its own.
export const CHROMIUM = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
};
export { chromium };

export async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'mha-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    ...CHROMIUM,
    viewport: { width: 1360, height: 900 },
  });
  const close = async () => { await context.close(); rmSync(userDataDir, { recursive: true, force: true }); };
  return { context, close };
}

// A page that records console errors, page errors and every request URL.
export async function guardedPage(context, allowed) {
  const page = await context.newPage();
  const errors = [], requests = [], foreign = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => {
    const u = r.url();
    requests.push(u);
    if (!allowed(u)) foreign.push(u);
  });
  return { page, errors, requests, foreign };
}

export async function openPage(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.getWeights && window.mhaExplorer.getWeights() !== null,
    null, { timeout: 20000 });
}
