/**
 * `npm start` for an author: editing a lesson's files updates its open page without a reload, the
 * reader keeps their place where the code did not change, and a broken lesson.yaml shows
 * lessons:check's message in the page instead of taking it down. Runs against the dev server over a
 * copy of s03-permissions (playwright.config.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { DEV_PORT } from '../playwright.config';

const DIR = 'e2e-dev-lessons/s03-permissions';
const original = (file: string) => readFileSync(`lessons/s03-permissions/${file}`, 'utf8');
const write = (file: string, text: string) => writeFileSync(`${DIR}/${file}`, text);

test.use({ baseURL: `http://127.0.0.1:${DEV_PORT}` });
test.afterEach(() => ['en.md', 'lesson.yaml', 'core/permissions.py'].forEach((file) => write(file, original(file))));

test('an edited lesson reaches its open page at once; the paused widget stays where it was; a broken lesson.yaml says what is wrong', async ({ page }) => {
  await page.goto('en/lessons/s03-permissions/');
  const w = page.locator('section[data-widget="s03-permissions/authorize_call"]');
  await expect(page.locator('.sl-status').first()).toHaveAttribute('data-engine', 'ready', { timeout: 90_000 });
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true)); // gone after a reload
  await w.locator('[data-action="step-into"]').click();
  await w.locator('[data-action="step-over"]').click();
  await expect(w).toHaveAttribute('data-status', 'paused');
  const step = await w.getAttribute('data-step');

  // the prose changes: the page shows it, the widget is still paused at the same step
  write('en.md', original('en.md').replace('Only True allows', 'Only True allows (edited)'));
  await expect(page.getByRole('heading', { name: 'Only True allows (edited)' })).toBeVisible();
  await expect(w).toHaveAttribute('data-status', 'paused');
  await expect(w).toHaveAttribute('data-step', step!);

  // the code changes: that widget starts over with the new code
  write('core/permissions.py', `${original('core/permissions.py')}\n# edited\n`);
  await expect(w).toHaveAttribute('data-status', 'idle');

  // a broken lesson.yaml: lessons:check's message in the page, then the lesson again once fixed
  write('lesson.yaml', original('lesson.yaml').replace('symbol: authorize_call', 'symbol: authorise_call'));
  await expect(page.getByRole('alert')).toContainText('authorise_call');
  await expect(page.getByRole('alert')).toContainText('authorize_call'); // the closest valid name
  write('lesson.yaml', original('lesson.yaml'));
  await expect(w).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
});
