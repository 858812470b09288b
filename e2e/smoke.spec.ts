import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page, type PlaywrightWorkerArgs, type Request } from '@playwright/test';
import { action, keepClicking, openLesson, pythonReady, widget, openValues, valueText } from './helpers';
import { serveStatic } from './static-server';
import { cacheControl } from '../vite.config';

test('the page loads, the Python worker gets ready from the same origin, and a trace arrives', async ({ page }) => {
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await openLesson(page);
  const w = widget(page, 'run_hooks');
  await expect(w).toHaveAttribute('aria-label', 'core/runtime.py · run_hooks');
  await expect(w).toHaveAttribute('data-status', 'idle');
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  const steps = Number(await w.getAttribute('data-steps'));
  expect(steps).toBeGreaterThan(10);
  await expect(w.locator('[data-panel="output"]')).toContainText('callbacks that ran: note_call, check_program');
  await openValues(w.locator('[data-outcome]'));
  await expect(w.locator('[data-outcome]')).toContainText('blocked');
  expect(requests.some((u) => /\/pyodide\/\d+\.\d+\.\d+\/pyodide\.asm\.wasm$/.test(u))).toBe(true);
  const origin = new URL(page.url()).origin;
  expect(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
});

/** Records when the page first tells its worker to start Python (performance.now() of the init message). */
async function recordPythonStart(page: Page) {
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
      if ((message as { type?: string })?.type === 'init') (window as unknown as { initAt: number }).initAt ??= performance.now();
      return (post as (...args: unknown[]) => void).call(this, message, ...rest);
    } as typeof Worker.prototype.postMessage;
  });
  return () => page.evaluate(() => ({ initAt: (window as unknown as { initAt: number }).initAt, loadAt: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventStart }));
}

test("a first visit starts Python once the page has loaded and settled, not alongside the page's own loading work; a revisit with the snapshot kept at once", async ({ page }) => {
  const times = await recordPythonStart(page);
  await openLesson(page);
  const { initAt, loadAt } = await times();
  // the worker is made by the page's first script; Python's start waits for the load and an idle moment (or 2.5 s)
  expect(loadAt).toBeGreaterThan(0);
  expect(initAt).toBeGreaterThanOrEqual(Math.min(loadAt, 2500));
  const w = widget(page, 'run_hooks');
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  // a revisit with the snapshot kept starts Python at once: before the page's load event, which
  // a held start waits for (here 1.5 s late: an image of the page's is held back)
  await expect(page.locator('html')).toHaveAttribute('data-snapshot', 'saved', { timeout: 30_000 });
  await page.route('**/held-back.png', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.fulfill({ status: 204 });
  });
  await page.addInitScript(() => document.addEventListener('DOMContentLoaded', () => document.body.append(Object.assign(new Image(), { src: '/held-back.png', alt: '' }))));
  await page.goto(page.url().split('#')[0]!); // not the deep link the run wrote: opening it would run, which starts Python anyway
  await pythonReady(page);
  const again = await times();
  await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine-start', 'snapshot');
  expect(again.initAt).toBeLessThan(again.loadAt);
});

test('a page that never has an idle moment still starts Python, 2.5 s after it asked', async ({ page }) => {
  const times = await recordPythonStart(page);
  await page.addInitScript(() => {
    // 30 ms of work in every task, back to back: no idle period of 40 ms ever comes
    const busy = () => {
      const end = performance.now() + 30;
      while (performance.now() < end);
      (window as unknown as { busy: number }).busy = window.setTimeout(busy, 0);
    };
    busy();
  });
  await openLesson(page);
  const { initAt } = await times();
  expect(initAt).toBeGreaterThanOrEqual(2500);
  await page.evaluate(() => clearTimeout((window as unknown as { busy: number }).busy));
});

test('the built site is sent precompressed with lasting caching of hashed files, and Python starts from it', async ({ page }) => {
  const responses: { url: string; encoding?: string; cache?: string; coop?: string }[] = [];
  page.on('response', (r) => {
    const h = r.headers();
    responses.push({ url: r.url(), encoding: h['content-encoding'], cache: h['cache-control'], coop: h['cross-origin-opener-policy'] });
  });
  await openLesson(page, undefined, 'zh');
  const find = (pattern: RegExp) => responses.find((r) => pattern.test(r.url));
  expect(find(/\/pyodide\/[\d.]+\/pyodide\.asm\.wasm$/)).toMatchObject({ encoding: 'br', cache: 'public, max-age=31536000, immutable' });
  // the standard library too: stored inside the archive, so the host's brotli does the compressing
  expect(find(/\/pyodide\/[\d.]+\/python_stdlib\.zip$/)).toMatchObject({ encoding: 'br', cache: 'public, max-age=31536000, immutable' });
  expect(find(/\/assets\/Widget-[\w-]{8}\.js$/)).toMatchObject({ encoding: 'br', cache: 'public, max-age=31536000, immutable' });
  expect(find(/\/lessons\/s04-hooks\/$/)).toMatchObject({ encoding: 'br', cache: 'no-cache', coop: 'same-origin' });
  const w = widget(page, 'run_hooks');
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
});

/**
 * A page in a fresh real profile, removed after use: a reader's browser. An incognito context's
 * in-memory HTTP cache keeps nothing as large as the wasm, and it keeps no code cache at all.
 */
async function inRealProfile(playwright: PlaywrightWorkerArgs['playwright'], use: (page: Page, context: BrowserContext) => Promise<void>) {
  const profile = mkdtempSync(join(tmpdir(), 'steplight-profile-'));
  const context = await playwright.chromium.launchPersistentContext(profile, test.info().project.use.launchOptions);
  try {
    await use(await context.newPage(), context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

test('a revisit asks the server for no hashed asset and no Python file (immutable, versioned URLs)', async ({ playwright }) => {
  const site = await serveStatic({ '/': 'dist-e2e' }, undefined, cacheControl);
  try {
    await inRealProfile(playwright, async (page) => {
      await page.goto(`${site.url}/lessons/s04-hooks/`);
      await pythonReady(page);
      const first = [...site.requests];
      expect(first.some((p) => /^\/pyodide\/\d+\.\d+\.\d+\/pyodide\.asm\.wasm$/.test(p))).toBe(true);
      expect(first.some((p) => /^\/assets\/Widget-/.test(p))).toBe(true);
      site.requests.length = 0;
      await page.goto(`${site.url}/lessons/s04-hooks/`);
      await pythonReady(page);
      // the page itself is revalidated (a new build must show); nothing it loads is asked for again
      expect(site.requests.filter((p) => p.startsWith('/assets/') || p.startsWith('/pyodide/'))).toEqual([]);
    });
  } finally {
    await site.close();
  }
});

test("a revisit takes Python's compiled wasm from the browser's code cache instead of compiling it again", async ({ playwright }) => {
  // traced by the browser itself
  await inRealProfile(playwright, async (page, context) => {
    const url = `${test.info().project.use.baseURL}/en/lessons/s04-hooks/`;
    await page.goto(url);
    await pythonReady(page);
    // V8 keeps the module once it has optimised some of it, a moment after Python is ready: each
    // revisit below is traced, and the page stays open a while after it for the next one
    const revisits: string[][] = [];
    for (let attempt = 0; attempt < 5 && !revisits.at(-1)?.includes('v8.wasm.moduleCacheHit'); attempt++) {
      await page.waitForTimeout(3_000);
      await context.browser()!.startTracing(page, { categories: ['disabled-by-default-devtools.timeline'] });
      await page.goto(url);
      await pythonReady(page);
      const trace = JSON.parse((await context.browser()!.stopTracing()).toString()) as { traceEvents: { name: string; args?: { url?: string } }[] };
      // a hit names its module; a cached module V8 refused (invalid, or not these bytes) does not
      const python = (e: { name: string; args?: { url?: string } }) => e.name !== 'v8.wasm.moduleCacheHit' || /\/pyodide\.asm\.wasm$/.test(e.args?.url ?? '');
      revisits.push(trace.traceEvents.filter((e) => e.name.startsWith('v8.wasm.moduleCache') && python(e)).map((e) => e.name));
    }
    expect(revisits.at(-1), JSON.stringify(revisits)).toEqual(['v8.wasm.moduleCacheHit']);
    const w = widget(page, 'run_hooks');
    await action(w, 'run').click();
    await expect(w).toHaveAttribute('data-status', 'finished');
  });
});

test('a revisit starts Python from the cached memory snapshot without asking for the site\'s, and it runs the same', async ({ page }) => {
  await openLesson(page);
  const status = page.locator('.sl-status').first();
  await expect(status).toHaveAttribute('data-engine-start', 'site');
  await expect(page.locator('html')).toHaveAttribute('data-snapshot', 'saved', { timeout: 30_000 });
  const asked: string[] = []; // from the network or the HTTP cache alike
  page.on('request', (r) => asked.push(r.url()));
  await page.reload();
  await pythonReady(page);
  await expect(status).toHaveAttribute('data-engine-start', 'snapshot');
  expect(asked.some((url) => url.endsWith('pyodide.asm.wasm'))).toBe(true);
  expect(asked.filter((url) => url.endsWith('.snapshot'))).toEqual([]);
  const w = widget(page, 'run_hooks');
  await w.locator('input[type="radio"][value="post_error"]').check();
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  await openValues(w.locator('[data-outcome]'));
  await expect(w.locator('[data-outcome]')).toContainText('crash_after raised RuntimeError: observer crashed');
});

test('the snapshot is stored at a quiet moment, not while the reader is clicking', async ({ page }) => {
  // a reader who keeps clicking from the start
  const stopClicking = await keepClicking(page);
  await openLesson(page);
  await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine-start', 'site');
  const w = widget(page, 'run_hooks');
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  await page.waitForTimeout(4_000);
  expect(await page.locator('html').getAttribute('data-snapshot')).toBeNull();
  await stopClicking();
  await expect(page.locator('html')).toHaveAttribute('data-snapshot', 'saved', { timeout: 30_000 }); // once the reader stops
});

/** Spoils the stored snapshot in the origin's private file system; returns the names stored there. */
async function spoilSnapshot(page: Page, how: 'torn' | 'garbage') {
  return page.evaluate(async (how) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('steplight-snapshots');
    const names: string[] = [];
    for await (const name of dir.keys()) names.push(name);
    const file = await (await dir.getFileHandle(names[0]!)).getFile();
    const out = await (await dir.getFileHandle(names[0]!)).createWritable();
    // torn: the first MB only, as a write cut short would leave it; garbage: the stored layout
    // intact (its header: 3 words and 2 per run of pages), every byte of the snapshot itself 0x5a,
    // so that Pyodide is the one to refuse it
    const bytes = new Uint8Array(await file.arrayBuffer());
    bytes.fill(0x5a, 12 + 8 * new DataView(bytes.buffer).getUint32(8, true));
    await out.write(how === 'torn' ? bytes.slice(0, 1 << 20) : bytes);
    await out.close();
    return names;
  }, how);
}

for (const how of ['torn', 'garbage'] as const) {
  test(`a ${how} snapshot is dropped, Python starts from the site's and stores a good one`, async ({ page }) => {
    await openLesson(page);
    await expect(page.locator('html')).toHaveAttribute('data-snapshot', 'saved', { timeout: 30_000 });
    expect(await spoilSnapshot(page, how)).toHaveLength(1); // one snapshot, not one per visit
    await page.reload();
    const status = page.locator('.sl-status').first();
    await pythonReady(page);
    await expect(status).toHaveAttribute('data-engine-start', 'site');
    await expect(page.locator('html')).toHaveAttribute('data-snapshot', 'saved', { timeout: 30_000 });
    const w = widget(page, 'run_hooks');
    await action(w, 'run').click();
    await expect(w).toHaveAttribute('data-status', 'finished');
    await page.reload();
    await pythonReady(page);
    await expect(status).toHaveAttribute('data-engine-start', 'snapshot');
  });
}

/** Every scenario of every widget on the hooks page run once: what the reader is shown of each run. */
async function runEveryScenario(page: Page): Promise<string[]> {
  const shown: string[] = [];
  for (const w of await page.locator('section[data-widget]').all()) {
    for (const scenario of await w.locator('input[type="radio"]').all()) {
      await scenario.check();
      await action(w, 'run').click();
      await expect(w).toHaveAttribute('data-status', /^(finished|error)$/);
      const text = async (selector: string) => ((await w.locator(selector).count()) ? await valueText(w.locator(selector).first()) : '');
      shown.push([await w.getAttribute('data-widget'), await scenario.getAttribute('value'), await w.getAttribute('data-status'), await w.getAttribute('data-steps'), await text('[data-outcome]'), await text('[data-panel="output"]')].join(' | '));
    }
  }
  return shown;
}

test("a first visit starts Python from the site's snapshot (made by the build in Node) and records in C, and every run shows what a cold start (recording in Python) shows", async ({ browser }) => {
  const visit = async (snapshot: 'served' | 'missing') => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const warnings: string[] = [];
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    const fetched: string[] = [];
    page.on('requestfinished', (r) => r.url().endsWith('.snapshot') && fetched.push(r.url()));
    if (snapshot === 'missing') await page.route(/\.snapshot$/, (route) => route.fulfill({ status: 404 }));
    try {
      await openLesson(page);
      await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine-start', snapshot === 'served' ? 'site' : 'cold');
      if (snapshot === 'served') expect(fetched).toHaveLength(1);
      else expect(warnings.join('\n')).toContain("the site's Python snapshot could not be used");
      const shown = await runEveryScenario(page);
      // from a snapshot the recorder's C fast path records; after a cold start (whose snapshot is
      // taken once the reader can run) the recorder in Python: the same runs either way
      const recorders = await page.locator('section[data-widget]').evaluateAll((ws) => ws.map((w) => w.getAttribute('data-recorder')));
      expect(new Set(recorders)).toEqual(new Set([snapshot === 'served' ? 'c' : 'python']));
      // and the C fast path takes its events from sys.monitoring (README, "Events from sys.monitoring")
      const tracing = await page.locator('section[data-widget]').evaluateAll((ws) => ws.map((w) => w.getAttribute('data-tracing')));
      expect(new Set(tracing)).toEqual(new Set([snapshot === 'served' ? 'monitoring' : 'settrace']));
      expect(warnings.join('\n')).not.toContain('fast path');
      return shown;
    } finally {
      await context.close();
    }
  };
  const fromSite = await visit('served');
  expect(fromSite.length).toBeGreaterThan(8);
  expect(await visit('missing')).toEqual(fromSite);
});

test("a spoiled site snapshot is refused: Python starts cold, runs, and keeps its own snapshot for the next visit", async ({ page }) => {
  // the right size, every byte wrong: Pyodide itself must refuse it
  await page.route(/\.snapshot$/, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: Buffer.alloc((await response.body()).length, 0x5a) });
  });
  await openLesson(page);
  const status = page.locator('.sl-status').first();
  await expect(status).toHaveAttribute('data-engine-start', 'cold');
  const w = widget(page, 'run_hooks');
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  await expect(w.locator('[data-panel="output"]')).toContainText('callbacks that ran: note_call, check_program');
  await expect(page.locator('html')).toHaveAttribute('data-snapshot', 'saved', { timeout: 30_000 });
  await page.reload();
  await pythonReady(page);
  await expect(status).toHaveAttribute('data-engine-start', 'snapshot');
});

test('on a connection slower than 4G the first visit does not download the snapshot: Python starts cold', async ({ page }) => {
  // The page's reading of its connection (navigator.connection), which it hands to the worker, as
  // Chromium gives it on a 3G connection. Set in the page: Chromium 150 drops a CDP network
  // emulation's connection rating when the page navigates (it reads 4g again in the new document)
  await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'connection', { configurable: true, get: () => ({ effectiveType: '3g', saveData: false, downlink: 0.7, rtt: 400 }) }));
  const asked: string[] = [];
  page.on('request', (r) => r.url().endsWith('.snapshot') && asked.push(r.url()));
  await openLesson(page);
  expect(await page.evaluate(() => (navigator as { connection?: { effectiveType?: string } }).connection?.effectiveType)).toBe('3g');
  await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine-start', 'cold');
  expect(asked).toEqual([]);
});

test("a lesson page announces every script it loads in its head, so none waits for the one that imports it", async ({ page }) => {
  const scripts: string[] = [];
  // the page's own (the worker's imports are sent with the worker's script, or Pyodide's, as referrer)
  const worker = /\/worker-[\w-]+\.js$|\/pyodide\//;
  const fromPage = (r: Request) => r.resourceType() === 'script' && !worker.test(r.url()) && !worker.test(r.headers()['referer'] ?? '');
  page.on('request', (r) => void (fromPage(r) && scripts.push(new URL(r.url()).pathname)));
  await openLesson(page);
  // as the page came (Vite adds preloads of its own as the page imports, too late to count)
  const html = await (await page.request.get(page.url())).text();
  const announced = [...html.matchAll(/<(?:link rel="modulepreload"[^>]* href|script type="module"[^>]* src)="([^"]+)"/g)].map((m) => new URL(m[1]!, page.url()).pathname);
  expect(scripts.length).toBeGreaterThan(5);
  expect(scripts.filter((path) => !announced.includes(path))).toEqual([]);
});
