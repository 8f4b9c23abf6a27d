// The static file server of the demo, the browser tests and the page benchmark, on 127.0.0.1.
//   node scripts/serve.mjs DIR [PORT]        serves DIR (default dist/) on PORT (default 8000)
//   serve(dir, {port, extra, cdn, headers}) the same from code; port 0 picks a free one; extra
//                                            maps paths to HTML served besides dir (host pages); cdn: serve
//                                            as public npm CDNs do (jsDelivr, unpkg): .html as text/plain,
//                                            any origin may fetch (Access-Control-Allow-Origin: *), nosniff;
//                                            headers are sent with every answer (a Content-Security-Policy)
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

export function serve(dir, { port = 0, extra = {}, cdn = false, headers = {} } = {}) {
  const root = resolve(dir);
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
      const cors = cdn ? { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' } : {};
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
  const { origin } = await serve(process.argv[2] || 'dist', { port: Number(process.argv[3] || 8000) });
  console.log(`MHA Explorer: ${origin}/`);
}
