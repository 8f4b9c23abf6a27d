// Shared helpers of the browser tests: the static server (scripts/serve.mjs) on a free port over
// dist/, headless Debian Chromium through playwright-core, and request/console guards.
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { CHROMIUM } from '../../scripts/chromium.mjs';
import { serve } from '../../scripts/serve.mjs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

export const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
export const DIST = resolve(process.env.MHA_DIST || join(repo, 'dist'));
export const ARTIFACTS = join(here, 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

// extra: {'/path': 'html text'} served in addition to dist/ (host pages for the custom element).
export const startServer = (extra = {}) => serve(DIST, { extra });

export const fileURL = (name = 'index.html') => pathToFileURL(join(DIST, name)).href;

export { CHROMIUM, chromium };

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
