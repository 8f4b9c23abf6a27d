// The static file server of the demo, the browser tests and the page benchmark, on 127.0.0.1.
//   node scripts/serve.mjs DIR [PORT]        serves DIR (default dist/) on PORT (default 8000)
//   serve(dir, {port, extra, cdn, headers}) the same from code; port 0 picks a free one; extra
//                                            maps paths to HTML served besides dir (host pages); cdn: serve
//                                            as public npm CDNs do (jsDelivr, unpkg): .html as text/plain,
//                                            any origin may fetch (Access-Control-Allow-Origin: *), nosniff;
//                                            headers are sent with every answer (a Content-Security-Policy);
//                                            isolated: true sends COOP same-origin + COEP require-corp (the page is
//                                            cross-origin isolated: the threaded core, docs/hosting.md), 'document'
//                                            Document-Isolation-Policy instead (a page in another site's frame)
//   node scripts/serve.mjs DIR [PORT] --not-isolated   without those headers (the command line sends COOP/COEP)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

// The headers that make a page cross-origin isolated (isolated: true), or only this document ('document': Chromium's
// Document-Isolation-Policy, which a page inside a course platform's frame can send for itself).
export function isolationHeaders(isolated) {
  if (isolated === 'document') return { 'document-isolation-policy': 'isolate-and-require-corp' };
  if (!isolated) return {};
  return { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
}

export function serve(dir, { port = 0, extra = {}, cdn = false, headers = {}, isolated = false } = {}) {
  const root = resolve(dir);
  headers = { ...isolationHeaders(isolated), ...headers };
  const server = createServer(async (req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    if (extra[path] !== undefined) {
      res.writeHead(200, { ...headers, 'content-type': TYPES['.html'] }).end(extra[path]);
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = join(root, path); // join normalizes, so the check below sees any '..'
    if (!file.startsWith(root + sep)) {
      res.writeHead(403, headers).end();
      return;
    }
    try {
      const body = await readFile(file);
      const type =
        cdn && extname(file) === '.html'
          ? 'text/plain; charset=utf-8'
          : TYPES[extname(file)] || 'application/octet-stream';
      const cors = cdn
        ? {
            'access-control-allow-origin': '*',
            'cross-origin-resource-policy': 'cross-origin',
            'x-content-type-options': 'nosniff',
          }
        : {};
      res.writeHead(200, { ...headers, 'content-type': type, 'cache-control': 'no-store', ...cors }).end(body);
    } catch {
      res.writeHead(404, headers).end('not found');
    }
  });
  return new Promise((ok) =>
    server.listen(port, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      ok({ origin, close: () => new Promise((r) => server.close(r)) });
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const isolated = !process.argv.includes('--not-isolated');
  const { origin } = await serve(args[0] || 'dist', { port: Number(args[1] || 8000), isolated });
  console.log(`MHA Explorer: ${origin}/` + (isolated ? ' (cross-origin isolated: COOP/COEP)' : ''));
}
