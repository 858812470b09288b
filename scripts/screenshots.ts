/**
 * The README's screenshots: the execute_hooked widget of s04-hooks paused in 审计故障 at
 * `after = run_hooks(...)`, at 360, 768 and 1280 px, light and dark, zh and en.
 * Usage: start the built site (`npm run build && npx vite preview --port 4173`), then
 *   node --import tsx scripts/screenshots.ts [http://127.0.0.1:4173/]
 */
import { readFileSync } from 'node:fs';
import { chromium } from '@playwright/test';

const base = process.argv[2] ?? 'http://127.0.0.1:4173/';
const lines = readFileSync('lessons/s04-hooks/core/runtime.py', 'utf8').split('\n');
const after = lines.findIndex((l) => l.trim() === 'after = run_hooks(hooks, "after", {"call": call, "result": result})') + 1;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
for (const lang of ['zh', 'en'] as const)
  for (const width of [360, 768, 1280])
    for (const scheme of ['light', 'dark'] as const) {
      const phone = width < 500;
      const context = await browser.newContext({ viewport: { width, height: phone ? 740 : 900 }, colorScheme: scheme, isMobile: phone, hasTouch: phone });
      const page = await context.newPage();
      await page.goto(`${base}${lang === 'en' ? 'en/' : ''}lessons/s04-hooks/#widget=execute_hooked&scenario=audit_failure&breakpoints=${after}&step=1`);
      const w = page.locator('section[data-widget="s04-hooks/execute_hooked"]');
      await w.locator('[data-status="paused"], [data-status="finished"]').or(page.locator('section[data-widget="s04-hooks/execute_hooked"][data-status="paused"]')).first().waitFor({ timeout: 60_000 });
      await w.locator('[data-action="continue"]').click(); // from step 1 to the breakpoint, as a reader would
      await page.locator(`section[data-widget="s04-hooks/execute_hooked"][data-line="${after}"]`).waitFor();
      if (phone) await page.evaluate(() => scrollBy(0, document.querySelector('section[data-widget="s04-hooks/execute_hooked"] .sl-code')!.getBoundingClientRect().top - 250));
      else await w.locator('[data-var="result"] summary, [data-var="result"] button').first().click().catch(() => {});
      await page.waitForTimeout(300);
      const out = `docs/screenshots/${lang}-${width}-${scheme}.png`;
      if (phone) await page.screenshot({ path: out }); // what a phone shows at once, toolbar stuck on top
      else await w.screenshot({ path: out });
      console.log(out);
      await context.close();
    }
await browser.close();
