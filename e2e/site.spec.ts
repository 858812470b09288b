import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { action, at, gutterNumber, HOOKS, lineOf, openLesson, widget, openValues } from './helpers';

const CALLBACK = lineOf('core/runtime.py', 'answer = callback(view)');

test('pages are prerendered: prose and code are readable without JavaScript', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(HOOKS);
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await expect(page.locator('h1')).toContainText('第 4 课：钩子');
  await page.goto(at(HOOKS));
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.locator('h1')).toContainText('Lesson 4: Hooks');
  await expect(page.locator('.sl-prose').first()).toContainText('Hooks');
  await expect(page.locator('section[data-widget="s04-hooks/run_hooks"] .sl-static-code')).toContainText('answer = callback(view)');
  await page.goto('./');
  await expect(page.locator('.sl-lesson-list a[href*="s04-hooks"]')).toHaveCount(1);
  await expect(page.locator('.sl-lesson-list a[href*="s03-permissions"]')).toHaveCount(1);
  await context.close();
});

test('the index links to every lesson; the language switch goes to the other locale\'s page', async ({ page }) => {
  await page.goto('./');
  await expect(page.locator('h1')).toHaveText('课程');
  await page.getByRole('link', { name: /钩子/ }).click();
  await expect(page).toHaveURL(/\/lessons\/s04-hooks\/$/);
  await expect(page.locator('h1')).toContainText('钩子');
  await page.getByRole('link', { name: 'English' }).click();
  await expect(page).toHaveURL(/\/en\/lessons\/s04-hooks\/$/);
  await expect(page.locator('h1')).toContainText('Hooks');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.getByRole('link', { name: '中文' }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
});

for (const browserLang of ['zh-CN', 'en-US']) {
  for (const [url, lang, heading] of [
    ['lessons/s04-hooks/', 'zh-CN', '钩子'],
    ['en/lessons/s04-hooks/', 'en', 'Hooks'],
    ['lessons/s04-hooks/?lang=en', 'en', 'Hooks'],
    ['en/lessons/s04-hooks/?lang=zh', 'zh-CN', '钩子'],
    ['./', 'zh-CN', '课程'],
    ['en/', 'en', 'Lessons'],
  ] as const) {
    test(`${url} with a ${browserLang} browser: ${lang}, prerendered, hydrated without an error`, async ({ browser }) => {
      const context = await browser.newContext({ locale: browserLang });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      const workers: string[] = [];
      page.on('worker', (w) => workers.push(w.url()));
      const python: string[] = [];
      page.on('request', (r) => /\/pyodide\//.test(r.url()) && python.push(r.url()));
      await page.goto(url);
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await expect(page.locator('h1')).toContainText(heading);
      await expect(page.locator('#root')).toHaveAttribute('data-prerendered', lang === 'en' ? 'en' : 'zh');
      expect(await page.locator('link[rel="alternate"][hreflang]').count()).toBe(3);
      await page.waitForTimeout(500); // hydration has happened by now; any mismatch would have been logged
      expect(errors.filter((e) => /hydrat|#418|#423|#425/i.test(e))).toEqual([]);
      expect(page.url()).not.toContain('lang=');
      // a page that sends the reader to the other locale starts no Python of its own first; the
      // index, which has no widget, starts none at all
      const lessonPage = url.includes('lessons/');
      if (!lessonPage) await page.waitForLoadState('networkidle');
      expect(workers.filter((w) => /\/assets\/worker-[^/]*\.js$/.test(w))).toHaveLength(lessonPage ? 1 : 0);
      if (!lessonPage) expect(python).toEqual([]);
      await context.close();
    });
  }
}

test('a deep link records widget, scenario, breakpoints and step, and restores that paused state', async ({ page, context }) => {
  await openLesson(page);
  const w = widget(page, 'run_hooks');
  await w.locator('input[type="radio"][value="mutate"]').check();
  await gutterNumber(w, CALLBACK).click();
  await action(w, 'debug').click();
  await expect(w).toHaveAttribute('data-status', 'paused');
  await action(w, 'continue').click();
  await action(w, 'step-over').click();
  const step = await w.getAttribute('data-step');
  const line = await w.getAttribute('data-line');
  // the address follows once the reader pauses
  await expect.poll(() => page.url()).toContain(`#widget=run_hooks&scenario=mutate&breakpoints=${CALLBACK}&step=${step}`);
  const url = page.url();

  const other = await context.newPage();
  await other.goto(url);
  const restored = widget(other, 'run_hooks');
  await expect(restored).toHaveAttribute('data-status', 'paused', { timeout: 60_000 });
  await expect(restored).toHaveAttribute('data-step', step!);
  await expect(restored).toHaveAttribute('data-line', line!);
  await expect(restored).toHaveAttribute('data-scenario', 'mutate');
  await expect(restored).toHaveAttribute('data-breakpoints', String(CALLBACK));
  await expect(restored.locator('input[type="radio"][value="mutate"]')).toBeChecked();
  // the restored replay is live: Continue goes on from there
  await action(restored, 'continue').click();
  await expect(restored).toHaveAttribute('data-status', 'finished');
});

test('the custom element embeds a widget; a wrong attribute gives a clear message', async ({ page }) => {
  await page.goto('embed-demo.html');
  const w = page.locator('steplight-widget').first().locator('section[data-widget="s04-hooks/run_hooks"]');
  await expect(w).toHaveAttribute('data-scenario', 'block');
  await expect(w.locator('.sl-status')).toHaveAttribute('data-engine', 'ready', { timeout: 60_000 });
  await w.locator('[data-action="run"]').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  await openValues(w.locator('[data-outcome]'));
  await expect(w.locator('[data-outcome]')).toContainText('run_main is switched off');
  await expect(page.locator('steplight-widget').nth(1).locator('[role="alert"]')).toContainText('no widget "s04-hooks/no_such_widget"');
});

test('privacy: every request stays on the origin and no lesson code is sent anywhere', async ({ page, context }) => {
  const seen: { url: string; body: string | null; method: string }[] = [];
  context.on('request', (r) => seen.push({ url: r.url(), body: r.postData(), method: r.method() }));
  await openLesson(page);
  const w = widget(page, 'run_hooks');
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished');
  await widget(page, 'execute_hooked').locator('[data-action="run"]').click();
  await expect(widget(page, 'execute_hooked')).toHaveAttribute('data-status', 'finished');
  const origin = new URL(page.url()).origin;
  const code = readFileSync('lessons/s04-hooks/core/runtime.py', 'utf8');
  expect(seen.length).toBeGreaterThan(3);
  for (const r of seen) {
    expect(r.url.startsWith(origin) || r.url.startsWith('data:') || r.url.startsWith('blob:'), r.url).toBe(true);
    expect(r.method, r.url).toBe('GET');
    expect(r.body ?? '').not.toContain('def run_hooks');
  }
  expect(code).toContain('def run_hooks');
});

test('accessibility: axe finds no violations on the lesson pages and the index', async ({ page }) => {
  for (const path of [HOOKS, 'lessons/s03-permissions/', './'])
    for (const lang of ['zh', 'en']) {
      await page.goto(at(path, lang));
      await expect(page.locator('.sl-page')).toBeVisible();
      const results = await new AxeBuilder({ page }).analyze();
      expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
  // also before the code view has loaded (here: never), when each pane shows its listing
  await page.route(/\/assets\/codeview-[^/]*\.js$/, (route) => route.abort());
  await page.goto(at(HOOKS, 'zh'));
  await expect(page.locator('.sl-static-code')).toHaveCount(3);
  await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine', /.+/);
  const listings = await new AxeBuilder({ page }).analyze();
  expect(listings.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  await page.unroute(/\/assets\/codeview-[^/]*\.js$/);
  // also while paused (in Chinese), with panels and values on screen
  await openLesson(page, HOOKS, 'zh');
  const w = widget(page, 'run_hooks');
  await gutterNumber(w, CALLBACK).click();
  await action(w, 'debug').click();
  await expect(w).toHaveAttribute('data-status', 'paused');
  await w.locator('[data-panel="harness"] summary').click();
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
});

test('responsive down to a 360 px phone: nothing overflows sideways', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  await openLesson(page);
  const w = widget(page, 'run_hooks');
  await action(w, 'debug').click();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await context.close();
});

test('dark mode follows the OS', async ({ browser }) => {
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(HOOKS);
  const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  expect(bg).toBe('rgb(22, 24, 28)');
  await context.close();
});

test('a page carries only its own lesson: the index no lesson\'s code, a lesson page its own lesson only', async ({ page }) => {
  const scripts: string[] = [];
  page.on('response', (r) => void (r.request().resourceType() === 'script' && scripts.push(new URL(r.url()).pathname)));
  await openLesson(page, HOOKS, 'zh');
  expect(scripts.some((p) => /\/assets\/s04-hooks-[\w-]+\.js$/.test(p))).toBe(true);
  expect(scripts.filter((p) => /s03-permissions/.test(p))).toEqual([]);
  // the widgets still show the lesson's code, and it runs
  await action(widget(page, 'run_hooks'), 'run').click();
  await expect(widget(page, 'run_hooks')).toHaveAttribute('data-status', 'finished');
  scripts.length = 0;
  await page.goto(at('./', 'en'));
  await expect(page.locator('.sl-lesson-list a[href$="lessons/s04-hooks/"]')).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(scripts.filter((p) => /\/assets\/(s0\d|x)-[\w-]+-[\w-]{8}\.js$/.test(p))).toEqual([]);
});

test('prerendered controls wait for the page\'s code: disabled until it handles clicks, then a click runs', async ({ page }) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/boot-*.js', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(HOOKS);
  const w = widget(page, 'run_hooks');
  await expect(w.locator('.sl-static-code')).toContainText('answer = callback(view)'); // readable at once
  await expect(action(w, 'run')).toBeDisabled();
  await expect(w.locator('input[type="radio"]').first()).toBeDisabled();
  release();
  await expect(action(w, 'run')).toBeEnabled();
  await action(w, 'run').click();
  await expect(w).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
});

test('each code pane is as tall as its listing was: the editor replacing it does not move the page (360, 768, 1280 px)', async ({ browser }) => {
  for (const width of [360, 768, 1280]) {
    const viewport = { width, height: 800 };
    const listing = await browser.newContext({ viewport, javaScriptEnabled: false });
    const before = await (async () => {
      const page = await listing.newPage();
      await page.goto(at(HOOKS));
      return page.locator('section[data-widget] .sl-code').evaluateAll((panes) => panes.map((p) => p.getBoundingClientRect().height));
    })();
    await listing.close();
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(at(HOOKS));
    const panes = page.locator('section[data-widget] .sl-code');
    await expect(panes.locator('.cm-editor')).toHaveCount(before.length);
    const after: number[] = [];
    for (const pane of await panes.all()) {
      // in sight, so CodeMirror has drawn (not estimated) every line of it
      await pane.evaluate((p) => p.scrollIntoView({ block: 'start' }));
      await pane.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      after.push(await pane.evaluate((p) => p.getBoundingClientRect().height));
    }
    expect(after.map((h, i) => Math.abs(h - before[i]!)).every((d) => d <= 1), `${width}px: listing ${before.join(', ')} vs editor ${after.join(', ')}`).toBe(true);
    await context.close();
  }
});
