import { copyFileSync, createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { lessonDirs, loadLesson, LESSON_ROOTS, summarize } from './src/lessons/load';
import type { Lesson, LessonFailure, LessonSummary } from './src/lessons/types';
import { LESSON_EDITED } from './src/lessons/edited';
import { PYODIDE_DIR, PYODIDE_FILES, pyodideFile, servedPyodide } from './scripts/stdlib';

/**
 * Where the site serves Pyodide: a folder named by its version, so its files never change under
 * one URL and can be cached as immutable (a new Pyodide is a new folder).
 */
export const PYODIDE_PATH = `pyodide/${(JSON.parse(readFileSync(join(PYODIDE_DIR, 'package.json'), 'utf8')) as { version: string }).version}/`;
/** Each file's size as the worker reads it (decompressed): loading progress has a total even when a
 * host compresses the files or sends no Content-Length. */
const PYODIDE_SIZES = Object.fromEntries(PYODIDE_FILES.map((name) => [name, statSync(pyodideFile(name)).size]));
const TYPES: Record<string, string> = { mjs: 'text/javascript', wasm: 'application/wasm', zip: 'application/zip', json: 'application/json' };

/**
 * Self-hosted Pyodide: dev server middleware, and a copy into the build, with the site's memory
 * snapshot beside it (scripts/snapshot.ts: a first visit starts Python from it). `npm start` has no
 * snapshot: its pages start Python cold.
 */
function pyodide(): Plugin {
  let outDir = 'dist';
  let snapshot: { file: string; path: string } | null = null;
  return {
    name: 'steplight:pyodide',
    async config(_config, { command }) {
      if (command === 'build') {
        const { siteSnapshot } = await import('./scripts/snapshot');
        const made = await siteSnapshot(servedPyodide());
        snapshot = made;
        return { define: { __STEPLIGHT_SNAPSHOT__: JSON.stringify({ file: made.file, size: made.size }) } };
      }
      return { define: { __STEPLIGHT_SNAPSHOT__: 'null' } };
    },
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const base = server.config.base;
        const url = (req.url ?? '').split('?')[0]!;
        const name = url.startsWith(`${base}${PYODIDE_PATH}`) ? url.slice(base.length + PYODIDE_PATH.length) : '';
        if (!PYODIDE_FILES.includes(name)) return next();
        res.setHeader('Content-Type', TYPES[name.split('.').pop()!] ?? 'application/octet-stream');
        res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
        createReadStream(pyodideFile(name)).pipe(res);
      });
    },
    closeBundle() {
      const target = join(outDir, PYODIDE_PATH);
      mkdirSync(target, { recursive: true });
      for (const name of PYODIDE_FILES) copyFileSync(pyodideFile(name), join(target, name));
      if (snapshot) copyFileSync(snapshot.path, join(target, snapshot.file));
    },
  };
}

/**
 * `virtual:steplight/lessons`: the index of the lessons (id, title, widget ids) and a loader per
 * lesson; each lesson (`virtual:steplight/lesson/<id>`: code, prose, widgets, read and validated at
 * build time) is a chunk of its own, so a page carries only the lesson it shows. A lesson that cannot
 * be read fails the build; under `npm start` its page shows lessons:check's message instead, and an
 * edited lesson reaches its open page without a reload (the reader keeps their place in every widget
 * whose code did not change); a new or removed lesson reloads the pages.
 */
function lessons(): Plugin {
  const index = 'virtual:steplight/lessons';
  const one = 'virtual:steplight/lesson/';
  let serving = false;
  const cache = new Map<string, Lesson | LessonFailure>();
  const dirs = () => LESSON_ROOTS.flatMap((root) => (existsSync(root) ? lessonDirs(root) : []));
  const read = (dir: string): Lesson | LessonFailure => {
    const id = basename(dir);
    if (!cache.has(id))
      try {
        cache.set(id, loadLesson(dir));
      } catch (error) {
        if (!serving) throw error;
        cache.set(id, { id, error: (error as Error).message });
      }
    return cache.get(id)!;
  };
  const summary = (l: Lesson | LessonFailure): LessonSummary => ('error' in l ? { id: l.id, title: { zh: l.id, en: l.id }, widgets: [], error: l.error } : summarize(l));
  return {
    name: 'steplight:lessons',
    configResolved: (config) => void (serving = config.command === 'serve'),
    configureServer: (server) => void server.watcher.add(LESSON_ROOTS), // roots outside the project too
    resolveId: (source) => (source === index || source.startsWith(one) ? `\0${source}` : null),
    load(source) {
      if (source === `\0${index}`) {
        const all = dirs();
        const loaders = all.map((dir) => `${JSON.stringify(basename(dir))}: () => import(${JSON.stringify(one + basename(dir))})`);
        return `export const index = ${JSON.stringify(all.map((dir) => summary(read(dir))))};\nexport const loaders = {${loaders.join(',\n')}};\n`;
      }
      if (source.startsWith(`\0${one}`)) {
        const dir = dirs().find((d) => basename(d) === source.slice(one.length + 1));
        if (!dir) return null;
        // the page swaps in the new version (boot.tsx listens)
        const hot = `if (import.meta.hot) import.meta.hot.accept((next) => next && dispatchEvent(new CustomEvent(${JSON.stringify(LESSON_EDITED)}, { detail: next.default })));`;
        return `export default ${JSON.stringify(read(dir))};\n${serving ? hot : ''}\n`;
      }
      return null;
    },
    async handleHotUpdate({ file, server }) {
      const root = LESSON_ROOTS.find((r) => file.startsWith(r + sep));
      if (!root) return;
      await new Promise((settled) => setTimeout(settled, 50)); // a save can arrive as a truncate, then the write
      const id = file.slice(root.length + 1).split(sep)[0]!;
      const ids = dirs().map((dir) => basename(dir));
      cache.delete(id);
      const lesson = server.moduleGraph.getModuleById(`\0${one}${id}`);
      const summaries = server.moduleGraph.getModuleById(`\0${index}`);
      if (ids.includes(id) && lesson) {
        if (summaries) server.moduleGraph.invalidateModule(summaries); // a title or widget list read afresh on the next page
        server.moduleGraph.invalidateModule(lesson);
        return [lesson]; // accepted by the lesson module itself
      }
      for (const mod of server.moduleGraph.idToModuleMap.values()) if (mod.id?.startsWith(`\0${index}`) || mod.id?.startsWith(`\0${one}`)) server.moduleGraph.invalidateModule(mod);
      server.ws.send({ type: 'full-reload' });
      return [];
    },
  };
}

/** The built pages allow nothing but their own origin (plus inline styles, which CodeMirror uses). */
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

/**
 * The Python worker's own policy (a worker does not inherit the page's <meta> policy; it obeys the
 * header its script is served with): its origin only, WebAssembly but no eval, nothing else.
 * Sent by the dev server and `npm run preview`; the README (Hosting) gives it to other hosts.
 */
export const WORKER_CSP = ["default-src 'none'", "script-src 'self' 'wasm-unsafe-eval'", "connect-src 'self'"].join('; ');
const isWorkerScript = (url: string) => /(^|\/)worker(-[\w-]+)?\.(js|ts)(\?|$)/.test(url.split('#')[0]!);

function contentSecurityPolicy(): Plugin {
  const workerHeader = (req: { url?: string }, res: { setHeader(name: string, value: string): void }, next: () => void) => {
    if (isWorkerScript(req.url ?? '')) res.setHeader('Content-Security-Policy', WORKER_CSP);
    next();
  };
  return {
    name: 'steplight:csp',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, ctx) => (ctx.server ? [] : [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' }]),
    },
    configureServer: (server) => void server.middlewares.use(workerHeader),
    configurePreviewServer: (server) => void server.middlewares.use(workerHeader),
  };
}

/**
 * `npm run preview` serves the site as a well-configured static host would: the build's
 * precompressed .br/.gz copies (scripts/compress.ts) when the browser accepts them, and caching
 * headers — hashed assets immutable for a year, everything else revalidated. README (Hosting)
 * gives the same rules for other hosts.
 */
const CONTENT_TYPES: Record<string, string> = { ...TYPES, html: 'text/html; charset=utf-8', js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml', txt: 'text/plain; charset=utf-8' };
export const cacheControl = (path: string) => (/\/assets\/[^/]+-[\w-]{8}\.\w+$/.test(path) || /\/pyodide\/\d+\.\d+\.\d+[\w.-]*\//.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');

function precompressed(): Plugin {
  return {
    name: 'steplight:precompressed',
    configurePreviewServer(server) {
      const base = server.config.base;
      const outDir = resolve(server.config.root, server.config.build.outDir);
      server.middlewares.use((req, res, next) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') return next();
        let path = decodeURIComponent((req.url ?? '').split(/[?#]/)[0]!);
        if (!path.startsWith(base)) return next();
        path = path.slice(base.length - 1);
        if (path.endsWith('/')) path += 'index.html';
        const file = join(outDir, path);
        if (!file.startsWith(outDir) || !existsSync(file) || statSync(file).isDirectory()) return next();
        for (const [name, value] of Object.entries(server.config.preview.headers ?? {})) if (value !== undefined) res.setHeader(name, value as string);
        res.setHeader('Cache-Control', cacheControl(path));
        res.setHeader('Vary', 'Accept-Encoding');
        const accepts = String(req.headers['accept-encoding'] ?? '');
        const encoding = /\bbr\b/.test(accepts) && existsSync(`${file}.br`) ? 'br' : /\bgzip\b/.test(accepts) && existsSync(`${file}.gz`) ? 'gzip' : null;
        if (!encoding) return next();
        const sent = `${file}.${encoding === 'br' ? 'br' : 'gz'}`;
        res.setHeader('Content-Type', CONTENT_TYPES[file.split('.').pop()!] ?? 'application/octet-stream');
        res.setHeader('Content-Encoding', encoding);
        res.setHeader('Content-Length', statSync(sent).size);
        if (req.method === 'HEAD') return void res.end();
        createReadStream(sent).pipe(res);
      });
    },
  };
}

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  base: process.env.STEPLIGHT_BASE ?? '/',
  plugins: [react(), pyodide(), lessons(), contentSecurityPolicy(), precompressed()],
  worker: { format: 'es' },
  assetsInclude: ['**/*.so'], // the recorder's C fast path, inlined into the worker (worker.ts)
  define: { __PYODIDE_SIZES__: JSON.stringify(PYODIDE_SIZES), __PYODIDE_PATH__: JSON.stringify(PYODIDE_PATH) },
  // URLs inside JavaScript (the worker, chunks) are relative to the script that uses them, so the
  // embed works from whatever path a blog copies dist/ to, without a rebuild
  experimental: { renderBuiltUrl: (_file, { hostType }) => (hostType === 'js' ? { relative: true } : undefined) },
  optimizeDeps: { exclude: ['pyodide'] },
  server: { headers: isolation, port: 5173 },
  preview: { headers: isolation, port: 4173 },
  build: {
    outDir: process.env.STEPLIGHT_OUT ?? 'dist',
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
    manifest: true, // read by the prerender: each page preloads its own chunks (and its lesson's)
    rollupOptions: {
      input: { main: resolve('index.html'), embed: resolve('src/embed/element.tsx') },
      output: { entryFileNames: (chunk) => (chunk.name === 'embed' ? 'embed/steplight.js' : 'assets/[name]-[hash].js') },
    },
  },
});
