/**
 * A plain static file server for the embedding tests: no cross-origin isolation headers, no
 * compression, nothing a blog's static host would not do. `routes` maps URL prefixes to folders
 * (or to a page's HTML); `deny` answers 404 for paths it matches, as a host missing files would.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
};

export interface StaticSite {
  url: string;
  /** Every path requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** `cache` gives a path's Cache-Control header (none by default, as many hosts send). */
export async function serveStatic(routes: Record<string, string | { html: string }>, deny?: RegExp, cache?: (path: string) => string): Promise<StaticSite> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    const prefix = Object.keys(routes)
      .sort((a, b) => b.length - a.length)
      .find((p) => path.startsWith(p));
    const route = prefix === undefined ? undefined : routes[prefix];
    if (route === undefined || deny?.test(path)) return void res.writeHead(404).end('not found');
    if (typeof route !== 'string') return void res.writeHead(200, { 'Content-Type': TYPES['.html'] }).end(route.html);
    const file = normalize(join(route, path.slice(prefix!.length)));
    if (!file.startsWith(normalize(route))) return void res.writeHead(403).end();
    try {
      const target = statSync(file).isDirectory() ? join(file, 'index.html') : file;
      statSync(target);
      res.writeHead(200, { 'Content-Type': TYPES[extname(target)] ?? 'application/octet-stream', ...(cache ? { 'Cache-Control': cache(path) } : {}) });
      createReadStream(target).pipe(res);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    // The page may still hold keep-alive connections (or a download in flight): drop them, or
    // close() would wait for the browser to let go.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
