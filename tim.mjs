import { chromium } from '@playwright/test';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu','--disable-background-networking','--disable-component-update','--disable-sync','--no-first-run'] });
const page = await browser.newPage();
page.on('console', (m) => m.text().startsWith('TIMING') && console.log(m.text()));
await page.goto('http://127.0.0.1:4392/lessons/s04-hooks/?lang=en');
await page.waitForFunction(() => document.querySelector('.sl-status')?.getAttribute('data-engine') === 'ready', null, { timeout: 60000 });
for (let i = 0; i < 6; i++) {
  const t = await page.evaluate(async () => { const w = document.querySelector('section[data-widget="s04-hooks/run_hooks"]'); const t = performance.now(); w.querySelector('[data-action="run"]').click(); await new Promise(r => { const o = new MutationObserver(() => { if (w.getAttribute('data-status') === 'finished') { o.disconnect(); r(); } }); o.observe(w, { attributes: true }); }); return performance.now() - t; });
  console.log('click→finished', Math.round(t));
  await page.waitForTimeout(200);
}
await browser.close();
