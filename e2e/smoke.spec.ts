import { expect, test } from '@playwright/test';
import { action, openLesson, widget } from './helpers';

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
  await expect(w.locator('[data-outcome]')).toContainText('blocked');
  expect(requests.some((u) => u.endsWith('/pyodide/pyodide.asm.wasm'))).toBe(true);
  const origin = new URL(page.url()).origin;
  expect(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
});
