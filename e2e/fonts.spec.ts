import { expect, test, type Page } from '@playwright/test';
import { action, HOOKS, openLesson, widget } from './helpers';

/**
 * The text a widget shows once it runs is in fonts ("strikes": family, size, weight, style) the
 * page had made before the first run (src/widget/fonts.ts): a strike made in the frame that draws
 * a run's result cost that frame 110-240 ms on Linux Chromium. A widget style in a new size or
 * weight, without its specimen in fonts.ts, fails here with the element that shows it.
 */

/** Every strike the page lays text out in now, each with one element that uses it. */
const strikes = (page: Page) =>
  page.evaluate(() => {
    const found: Record<string, string> = {};
    const key = (s: CSSStyleDeclaration) => `${s.fontFamily} | ${s.fontSize} | ${s.fontWeight} | ${s.fontStyle}`;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement!;
      if (!n.textContent!.trim() || !el.getClientRects().length && !el.closest('.sl-font-specimens')) continue; // not laid out
      found[key(getComputedStyle(el))] ??= `${el.tagName.toLowerCase()}.${String(el.className).replace(/ /g, '.')} "${n.textContent!.trim().slice(0, 24)}"`;
    }
    for (const el of document.querySelectorAll('summary')) if (el.getClientRects().length) found[key(getComputedStyle(el, '::marker'))] ??= `summary::marker "${el.textContent!.slice(0, 24)}"`;
    return found;
  });

for (const lang of ['en', 'zh']) {
  test(`${lang}: what runs, debug sessions and the panels show is in fonts the page made before the first run`, async ({ page }) => {
    await openLesson(page, HOOKS, lang);
    await expect(page.locator('.sl-font-specimens')).toHaveAttribute('data-warmed', /\d+/);
    const before = await strikes(page);
    const after: Record<string, string> = {};
    const look = async () => Object.assign(after, await strikes(page), after);

    const hooks = widget(page, 'run_hooks');
    await action(hooks, 'run').click();
    await expect(hooks).toHaveAttribute('data-status', 'finished');
    await look();
    await hooks.locator('.sl-var-history').first().click();
    await look();
    await hooks.locator('input[type="radio"][value="bad_event"]').check();
    await action(hooks, 'run').click();
    await expect(hooks.locator('[data-error="ValueError"]')).toBeVisible();
    await look();

    const hooked = widget(page, 'execute_hooked');
    await hooked.locator('.cm-lineNumbers .cm-gutterElement').filter({ hasText: /^\d+$/ }).nth(3).click();
    await action(hooked, 'debug').click();
    await expect(hooked).toHaveAttribute('data-status', /paused|finished/);
    for (let k = 0; k < 3; k++) await action(hooked, 'step-into').click();
    await look();
    await hooked.locator('[data-panel="compare"] select, .sl-compare select').first().selectOption({ index: 1 });
    await look();

    const missing = Object.entries(after).filter(([k]) => !(k in before));
    expect(missing.map(([k, where]) => `${k}  (${where})`), 'strikes first made after the page loaded: add a specimen to src/widget/fonts.ts').toEqual([]);
    expect(Object.keys(after).length).toBeGreaterThan(5); // the look saw the widgets' text
  });
}
