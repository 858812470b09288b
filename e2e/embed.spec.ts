/**
 * Embedding as the README says: dist/ copied under a sub-path of another site, served by a plain
 * static server (no cross-origin isolation headers), in a foreign page with hostile CSS, no rebuild.
 */
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { openValues } from './helpers';
import { serveStatic, type StaticSite } from './static-server';

const DIST = resolve(process.env.STEPLIGHT_OUT ?? 'dist-e2e');

/** A blog post whose CSS tries hard to leak into the widget. */
const post = (attrs: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A foreign blog</title>
<style>
  html { font-size: 40px; }
  body { color: rgb(255, 0, 0); letter-spacing: 4px; line-height: 4; font-family: serif; background: #fff; }
  button { background: lime !important; font-size: 30px !important; }
  section, div, p, pre { border: 6px dashed orange !important; padding: 30px !important; }
  * { text-transform: uppercase; }
</style>
<script type="module" src="/static/blog/steplight/embed/steplight.js"></script></head>
<body><article><h1>Hooks, embedded</h1>
<steplight-widget ${attrs}></steplight-widget>
</article></body></html>`;

let site: StaticSite;
test.afterEach(async () => site?.close());

test('embeds from a sub-path without a rebuild, with no isolation headers, unharmed by the blog\'s CSS; theme="light" on a dark OS', async ({ browser }) => {
  site = await serveStatic({ '/static/blog/steplight/': DIST, '/posts/hooks.html': { html: post('lesson="s04-hooks" widget="run_hooks" lang="zh" scenario="block" theme="light"') } });
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${site.url}/posts/hooks.html`);
  const w = page.locator('steplight-widget section[data-widget="s04-hooks/run_hooks"]');
  await expect(w.locator('.sl-status')).toHaveAttribute('data-engine', 'ready', { timeout: 60_000 });
  expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(false);
  await w.locator('[data-action="run"]').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  await openValues(w.locator('[data-outcome]'));
  await expect(w.locator('[data-outcome]')).toContainText('run_main is switched off');
  // every file came from under the sub-path, none was missing
  const notFound = site.requests.filter((p) => !p.startsWith('/static/blog/steplight/') && p !== '/posts/hooks.html' && p !== '/favicon.ico');
  expect(notFound).toEqual([]);
  // the blog's styles stay outside
  const style = await w.locator('[data-action="run"]').evaluate((b) => {
    const s = getComputedStyle(b);
    return { font: s.fontSize, bg: s.backgroundColor, spacing: s.letterSpacing, transform: s.textTransform, border: s.borderTopStyle };
  });
  expect(style).toEqual({ font: '14.4px', bg: 'rgb(11, 92, 173)', spacing: 'normal', transform: 'none', border: 'solid' });
  expect(await w.evaluate((s) => getComputedStyle(s).color)).not.toBe('rgb(255, 0, 0)');
  // light theme although the OS is dark: panel and gutter alike
  expect(await w.evaluate((s) => getComputedStyle(s).backgroundColor)).toBe('rgb(255, 255, 255)');
  expect(await w.locator('.cm-gutters').evaluate((g) => getComputedStyle(g).backgroundColor)).toBe('rgb(245, 245, 245)');
  expect(errors).toEqual([]);
  await context.close();
});

test('the embed follows the OS by default and theme="dark" forces dark; --sl-* properties set on the element apply', async ({ browser }) => {
  const html = post('lesson="s04-hooks" widget="audit_event" lang="en"').replace('</article>', '<steplight-widget id="dark" lesson="s04-hooks" widget="audit_event" lang="en" theme="dark" style="--sl-accent: rgb(1, 2, 3)"></steplight-widget></article>');
  site = await serveStatic({ '/static/blog/steplight/': DIST, '/p.html': { html } });
  const context = await browser.newContext({ colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(`${site.url}/p.html`);
  const auto = page.locator('steplight-widget').first().locator('section[data-widget]');
  const dark = page.locator('#dark section[data-widget]');
  await expect(dark).toBeVisible();
  expect(await auto.evaluate((s) => getComputedStyle(s).backgroundColor)).toBe('rgb(255, 255, 255)');
  expect(await dark.evaluate((s) => getComputedStyle(s).backgroundColor)).toBe('rgb(31, 34, 39)');
  expect(await dark.locator('.cm-gutters').evaluate((g) => getComputedStyle(g).backgroundColor)).toBe('rgb(26, 29, 33)');
  expect(await dark.locator('[data-action="run"]').evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(1, 2, 3)');
  await context.close();
});

for (const [what, deny] of [
  ['the worker script', /\/assets\/worker-[^/]*\.js$/],
  ["Python's files", /\/pyodide\/[\d.]+\/pyodide\.asm\.wasm$/],
] as const) {
  test(`when ${what} cannot load: a few retries with backoff, then a clear message (no endless requests)`, async ({ page }) => {
    site = await serveStatic({ '/static/blog/steplight/': DIST, '/p.html': { html: post('lesson="s04-hooks" widget="run_hooks" lang="en"') } }, deny);
    await page.goto(`${site.url}/p.html`);
    const w = page.locator('steplight-widget section[data-widget]');
    await expect(w.locator('.sl-status')).toHaveAttribute('data-engine', 'error', { timeout: 60_000 });
    await expect(w.locator('[role="status"]')).toContainText('Python could not be loaded (3 tries)');
    await expect(w.locator('[role="status"]')).toContainText('/static/blog/steplight/pyodide/');
    const denied = () => site.requests.filter((p) => deny.test(p)).length;
    expect(denied()).toBe(3);
    await page.waitForTimeout(4_000); // nothing more is tried after giving up
    expect(denied()).toBe(3);
    await w.locator('[data-action="run"]').click();
    await expect(w.locator('[role="status"]')).toContainText('could not be loaded');
  });
}
