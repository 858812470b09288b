import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';

export const HOOKS = 'lessons/s04-hooks/';
/** A page's address in a locale: Chinese (the site's default) at the root, English under en/. */
export const at = (path: string, lang = 'en') => (lang === 'zh' ? path : `en/${path}`);

export function widget(page: Page, id: string): Locator {
  return page.locator(`section[data-widget="s04-hooks/${id}"]`);
}

/** Wait until Python is ready in the page's worker. */
export const pythonReady = (page: Page) => expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine', 'ready', { timeout: 60_000 });

/** Open a lesson page and wait until Python is ready in its worker. */
export async function openLesson(page: Page, path = HOOKS, lang = 'en') {
  await page.goto(at(path, lang));
  await pythonReady(page);
}

/** Hold Python's standard library back, so the page stays loading until the returned function is called. */
export async function holdPythonBack(page: Page): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/pyodide/python_stdlib.zip', async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/** The 1-based line number of the line whose trimmed text is `text`, in a real lesson file. */
export function lineOf(file: string, text: string): number {
  const lines = readFileSync(join('lessons/s04-hooks', file), 'utf8').split('\n');
  const hits = lines.flatMap((l, i) => (l.trim() === text ? [i + 1] : []));
  if (hits.length !== 1) throw new Error(`"${text}" is on ${hits.length} lines of ${file}`);
  return hits[0]!;
}

export function gutterNumber(w: Locator, line: number): Locator {
  return w.locator('.cm-lineNumbers .cm-gutterElement').filter({ hasText: new RegExp(`^${line}$`) });
}

/** The widget's state as its data-* attributes say it: { status: 'paused', line: 98 } checks data-status and data-line. */
export async function expectState(w: Locator, state: Record<string, string | number>) {
  for (const [name, value] of Object.entries(state)) await expect(w).toHaveAttribute(`data-${name}`, String(value));
}

export function action(w: Locator, name: string): Locator {
  return w.locator(`[data-action="${name}"]`);
}

/**
 * A reader who clicks every 0.3 s from the page's first script on (in the page itself, so a loaded
 * machine cannot leave a gap): the page is never quiet, so the memory snapshot waits. Returns the
 * way to stop.
 */
export async function keepClicking(page: Page): Promise<() => Promise<void>> {
  await page.addInitScript(() => {
    (window as unknown as { clicking: number }).clicking = window.setInterval(() => document.body?.dispatchEvent(new MouseEvent('click', { bubbles: true })), 300);
  });
  return () => page.evaluate(() => clearInterval((window as unknown as { clicking: number }).clicking));
}

/**
 * Open every value (a container's or object's <details>) in `scope`, level by level, as a reader
 * does to read one whole: a closed value's items are made only once it is opened.
 */
export async function openValues(scope: Locator) {
  const closed = scope.locator('details.sl-value:not([open]) > summary');
  // opened, but its items not made yet: the browser opens a <details> on the click, React makes its
  // items on the toggle event after it (counted closed values alone ran out before the next level
  // was there: a text then read missed that level, now and then, on a loaded machine)
  const unmade = scope.locator('details.sl-value[open]:not(:has(> ul))');
  for (let k = 0; k < 300 && (await closed.count()) > 0; k++) {
    await closed.first().click();
    await expect(unmade).toHaveCount(0);
  }
}

/** The text of `scope` with every value in it opened. */
export async function valueText(scope: Locator): Promise<string> {
  await openValues(scope);
  return (await scope.textContent()) ?? '';
}
