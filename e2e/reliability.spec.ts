import { expect, test, type Locator, type Page } from '@playwright/test';
import { keepClicking, pythonReady, openValues, valueText } from './helpers';

const PAGE = 'en/lessons/x-hostile/';
const hostile = (page: Page, id: string) => page.locator(`section[data-widget="x-hostile/${id}"]`);

async function open(page: Page) {
  await page.goto(PAGE);
  await pythonReady(page);
}

/**
 * The page still answers while Python misbehaves: a click on another widget takes effect while
 * the misbehaving run is still in progress (an ordering, not a wall-clock bound a loaded machine
 * could miss: the run lasts its whole time limit).
 */
async function responsive(page: Page, busy?: Locator) {
  const w = hostile(page, 'broken');
  const before = await w.getAttribute('data-breakpoints');
  await w.locator('.cm-lineNumbers .cm-gutterElement').filter({ hasText: /^1$/ }).click();
  await expect(w).not.toHaveAttribute('data-breakpoints', before ?? '');
  if (busy) await expect(busy).toHaveAttribute('data-status', 'running'); // shown once it has run a while (SHOW_RUN_AFTER_MS)
  await w.locator('.cm-lineNumbers .cm-gutterElement').filter({ hasText: /^1$/ }).click();
}

/** After whatever happened, Python works again. */
async function nextRunWorks(page: Page) {
  const calm = hostile(page, 'values');
  await calm.locator('[data-action="run"]').click();
  await expect(calm).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  await openValues(calm.locator('[data-outcome]'));
  await expect(calm.locator('[data-outcome]')).toContainText('11000000');
}

/** Run, from the keyboard: no pointer coordinates, so a layout shift elsewhere cannot swallow it. */
async function run(w: Locator) {
  await w.locator('[data-action="run"]').press('Enter');
}

/** Run, and wait until the widget shows this run's result (not the one before it, still finished). */
async function runToEnd(w: Locator) {
  const runs = (await w.getAttribute('data-runs')) ?? '0';
  await run(w);
  await expect(w).not.toHaveAttribute('data-runs', runs, { timeout: 30_000 });
  await expect(w).toHaveAttribute('data-status', 'finished');
}

test.describe('hostile lesson code', () => {
  test.beforeEach(async ({ page }) => open(page));

  test('an infinite loop in the target stops at the time limit with a partial trace', async ({ page }) => {
    const w = hostile(page, 'spin');
    await run(w);
    await responsive(page, w);
    await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    expect(Number(await w.getAttribute('data-steps'))).toBeGreaterThan(1000);
    await expect(w.locator('[role="status"]')).toContainText(/step cap|time limit/);
    await expect(w.locator('[data-panel="output"] .sl-error')).toContainText(/StepLimit|Timeout/);
    await nextRunWorks(page);
  });

  test('an infinite loop in the harness is interrupted; the target steps before it are kept', async ({ page }) => {
    const w = hostile(page, 'harness_loop');
    await run(w);
    await responsive(page, w);
    await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    await expect(w.locator('[data-panel="output"] .sl-error')).toContainText('Timeout');
    expect(Number(await w.getAttribute('data-steps'))).toBeGreaterThan(0);
    await nextRunWorks(page);
  });

  test('a loop that swallows BaseException gets its worker terminated and replaced', async ({ page }) => {
    const w = hostile(page, 'swallow');
    await run(w);
    await responsive(page, w);
    await expect(w).toHaveAttribute('data-status', 'error', { timeout: 30_000 });
    await expect(w.locator('[role="status"]')).toContainText('restarted');
    await nextRunWorks(page);
  });

  test('runaway recursion ends in a clear RecursionError', async ({ page }) => {
    const w = hostile(page, 'recurse');
    await run(w);
    await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    await expect(w.locator('[data-panel="output"] .sl-error')).toContainText('RecursionError');
    await nextRunWorks(page);
  });

  test('recursion past a raised limit: a clear message, and Python works again', async ({ page }) => {
    const w = hostile(page, 'deep');
    await run(w);
    await expect(w).toHaveAttribute('data-status', /finished|error/, { timeout: 60_000 });
    await expect(w.locator('[data-panel="output"] .sl-error')).toContainText(/RecursionError|crashed|call stack/);
    await nextRunWorks(page);
  });

  test('huge values are truncated and no lesson __repr__ or __len__ is called', async ({ page }) => {
    const w = hostile(page, 'values');
    await w.locator('.cm-lineNumbers .cm-gutterElement').filter({ hasText: new RegExp(`^${await returnLine(w)}$`) }).click();
    await w.locator('[data-action="debug"]').click();
    await expect(w).toHaveAttribute('data-status', 'paused', { timeout: 30_000 });
    await expect(w.locator('[data-var="big"]')).toContainText('10000000 characters in all');
    await expect(w.locator('[data-var="many"]')).toContainText('1000000 items');
    await expect(w.locator('[data-var="sneaky"]')).toContainText('Sneaky');
  });

  test('a stdout flood is capped and the run stops', async ({ page }) => {
    const w = hostile(page, 'flood');
    await run(w);
    await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    const out = await w.locator('.sl-stdout').textContent();
    expect(out!.length).toBeLessThanOrEqual(100_000);
    expect(out).toContain('flood 0\nflood 1\n');
    await responsive(page);
  });

  test('a worker crash (a fatal Python error) is reported; a fresh worker runs the next run', async ({ page }) => {
    const w = hostile(page, 'crash');
    await run(w);
    await expect(w).toHaveAttribute('data-status', 'error', { timeout: 30_000 });
    await expect(w.locator('[role="status"]')).toContainText('Python crashed');
    await responsive(page);
    await nextRunWorks(page);
  });

  test('a syntax error in a lesson file is reported, not crashed on', async ({ page }) => {
    const w = hostile(page, 'broken');
    await run(w);
    await expect(w).toHaveAttribute('data-status', 'error');
    await expect(w.locator('[role="status"]')).toContainText('SyntaxError');
    await nextRunWorks(page);
  });

  test('lesson values and output render as text, never as HTML', async ({ page }) => {
    const w = hostile(page, 'markup');
    await run(w);
    await expect(w).toHaveAttribute('data-status', 'finished');
    await expect(w.locator('.sl-stdout')).toContainText('<script>window.__xss=2</script>');
    await openValues(w.locator('[data-outcome]'));
    await expect(w.locator('[data-outcome]')).toContainText('<img src=x onerror');
    await expect(w.locator('[data-outcome]')).toContainText('<b>key</b>');
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await w.locator('img, script, b').count()).toBe(0);
  });
});

async function returnLine(w: Locator): Promise<number> {
  const numbers = await w.locator('.cm-lineNumbers .cm-gutterElement').allTextContents();
  const lines = await w.locator('.cm-line').allTextContents();
  const first = Math.min(...numbers.map(Number).filter((n) => n > 0));
  return first + lines.findIndex((l) => l.trim().startsWith('return len(big)'));
}

test('the built page carries a Content-Security-Policy that allows only its own origin, and runs under it', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => m.text().includes('Content Security Policy') && violations.push(m.text()));
  await page.goto('en/lessons/s04-hooks/');
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toMatch(/https?:|\*/);
  const w = page.locator('section[data-widget="s04-hooks/run_hooks"]');
  await expect(w.locator('.sl-status')).toHaveAttribute('data-engine', 'ready', { timeout: 60_000 });
  await w.locator('[data-action="run"]').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  // a request to another origin is refused by the policy
  const blocked = await page.evaluate(() => fetch('http://127.0.0.2:9/x').then(() => 'sent', () => 'refused'));
  expect(blocked).toBe('refused');
  expect(violations.some((v) => v.includes('127.0.0.2'))).toBe(true);
  expect(violations.filter((v) => !v.includes('127.0.0.2'))).toEqual([]);
});

test('lesson code cannot spoil the memory snapshot the next visit starts from', async ({ page }) => {
  // the reader keeps clicking until the poisoning run is done, so the snapshot is written after it
  const stopClicking = await keepClicking(page);
  // started cold (the site's snapshot held back), so the snapshot stored is the one this Python takes
  await page.route(/\.snapshot$/, (route) => route.fulfill({ status: 404 }));
  await open(page);
  await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine-start', 'cold');
  const w = hostile(page, 'poison');
  await run(w);
  await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
  const outcome = w.locator('[data-outcome]');
  await openValues(outcome);
  // no way to the storage, and the prototypes the write goes through cannot be patched: the
  // worker's JavaScript is sealed before lessons run (realm.ts; were it not, the worker writes
  // with methods it bound at start-up)
  for (const text of ['navigator.storage: blocked', 'caches: blocked', "write: JsException TypeError: Cannot assign to read only property 'write'", "getFileHandle: JsException TypeError: Cannot assign to read only property 'getFileHandle'"]) {
    await expect(outcome).toContainText(text);
  }
  expect(await page.locator('html').getAttribute('data-snapshot')).toBeNull();
  await stopClicking();
  await expect(page.locator('html')).toHaveAttribute('data-snapshot', 'saved', { timeout: 30_000 });
  await page.reload();
  await pythonReady(page);
  await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine-start', 'snapshot');
  await nextRunWorks(page);
});

test.describe('lesson code cannot reach the page, the network or the next run', () => {
  test.beforeEach(async ({ page }) => open(page));

  test('a forged result and every network call from lesson code fail visibly; the widget shows the real run', async ({ page }) => {
    const outside: string[] = [];
    page.on('request', (r) => !r.url().startsWith(new URL(page.url()).origin) && outside.push(r.url()));
    const w = hostile(page, 'escape');
    await run(w);
    await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    const outcome = w.locator('[data-outcome]');
    await openValues(outcome);
    for (const text of ['js: ImportError', 'pyodide.http: ImportError', 'pyodide_js: ImportError', 'postMessage: blocked', 'fetch: blocked', 'XMLHttpRequest: blocked', 'WebSocket: blocked', 'importScripts: blocked']) await expect(outcome).toContainText(text);
    await expect(w.locator('.sl-stdout')).not.toContainText('FORGED');
    await expect(w).not.toHaveAttribute('data-steps', '0');
    expect(outside).toEqual([]);
    await nextRunWorks(page);
  });

  test('what one widget patches or writes is gone for the next widget\'s run', async ({ page }) => {
    const ordinary = hostile(page, 'ordinary');
    await runToEnd(ordinary);
    const before = await valueText(ordinary.locator('[data-outcome]'));
    expect(before).toContain('[1, 2, 3]');
    const taint = hostile(page, 'taint');
    await run(taint);
    await expect(taint).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    await runToEnd(ordinary);
    expect(await valueText(ordinary.locator('[data-outcome]'))).toBe(before);
  });

  test('lesson code cannot change the JavaScript that carries its own and the next runs\' results', async ({ page }) => {
    const ordinary = hostile(page, 'ordinary');
    await runToEnd(ordinary);
    const before = await valueText(ordinary.locator('[data-outcome]'));
    const ordinaryAgain = async () => {
      await runToEnd(ordinary);
      expect(await valueText(ordinary.locator('[data-outcome]'))).toBe(before);
      await expect(ordinary.locator('.sl-stdout')).not.toContainText('FORGED');
    };
    // one quiet replacement (%TypedArray%.prototype.slice, which Pyodide copies results out with):
    // were it to go through, this run and every later one would show a forged trace, no error
    const forge = hostile(page, 'forge');
    await run(forge);
    await expect(forge).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    await openValues(forge.locator('[data-outcome]'));
    await expect(forge.locator('[data-outcome]')).toContainText('TypedArray slice: TypeError');
    await expect(forge.locator('.sl-stdout')).not.toContainText('FORGED');
    await ordinaryAgain();
    // built-ins Pyodide converts results with, the global object's bindings, Pyodide's own API:
    // each replacement refused, so this run shows what Python really returned
    const w = hostile(page, 'realm');
    await run(w);
    await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
    const outcome = w.locator('[data-outcome]');
    await openValues(outcome);
    for (const what of ['TypedArray slice', 'Uint8Array slice', 'TextDecoder decode', 'JSON parse', 'global TextDecoder', 'global Uint8Array', 'Pyodide API', 'Pyodide module', 'heap view', 'heap views', 'file system', 'file nodes']) {
      await expect(outcome).toContainText(`${what}: TypeError`);
    }
    await expect(w.locator('.sl-stdout')).not.toContainText('FORGED');
    await ordinaryAgain();
    await nextRunWorks(page);
  });

  test('the Python worker is served with its own Content-Security-Policy', async ({ page }) => {
    const worker = page.workers().find((w) => /worker/.test(w.url()));
    expect(worker, 'the Python worker').toBeTruthy();
    const response = await page.request.get(worker!.url());
    expect(response.headers()['content-security-policy']).toBe("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'");
  });
});

for (const start of ['site', 'cold'] as const) {
  test(`Python started ${start === 'site' ? "from the site's snapshot (made in UTC)" : 'cold'} reports the reader's time zone`, async ({ browser }) => {
    const context = await browser.newContext({ timezoneId: 'Asia/Shanghai' });
    const page = await context.newPage();
    if (start === 'cold') await page.route(/\.snapshot$/, (route) => route.fulfill({ status: 404 }));
    try {
      await open(page);
      await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine-start', start);
      const w = hostile(page, 'zone');
      await run(w);
      await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
      // Emscripten names a zone by its offset; the epoch was 08:00 in Shanghai
      await openValues(w.locator('[data-outcome]'));
      await expect(w.locator('[data-outcome]')).toContainText(/-28800.*-28800.*UTC\+0800.*UTC\+0800 \+0800/s);
    } finally {
      await context.close();
    }
  });
}
