import { defineConfig } from '@playwright/test';

const port = Number(process.env.STEPLIGHT_PORT ?? 4317);
/** The dev server of the live-edit tests (e2e/dev.spec.ts reads the same number). */
export const DEV_PORT = port + 1000;

export default defineConfig({
  testDir: 'e2e',
  timeout: 90_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? 'list' : 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    viewport: { width: 1200, height: 900 },
  },
  webServer: [
    {
      // the site as built, plus the hostile fixture lessons of the reliability tests
      command: `STEPLIGHT_LESSONS=lessons:e2e/fixtures/lessons STEPLIGHT_OUT=dist-e2e npm run -s build && STEPLIGHT_OUT=dist-e2e npx vite preview --strictPort --host 127.0.0.1 --port ${port}`,
      url: `http://127.0.0.1:${port}/`,
      reuseExistingServer: false,
      timeout: 120_000,
    },
    {
      // `npm start` over a copy of one lesson that the live-edit tests change (e2e/dev.spec.ts)
      command: `rm -rf e2e-dev-lessons && mkdir e2e-dev-lessons && cp -r lessons/s03-permissions e2e-dev-lessons/ && STEPLIGHT_LESSONS=e2e-dev-lessons npx vite --strictPort --host 127.0.0.1 --port ${DEV_PORT}`,
      url: `http://127.0.0.1:${DEV_PORT}/`,
      reuseExistingServer: false,
      timeout: 120_000,
    },
  ],
});
