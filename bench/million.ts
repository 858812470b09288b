/**
 * #13: "1M steps replayable in the page under 500 MB". The hook workload traced to ~1M steps in
 * Pyodide (Node), packed as the worker sends it; then, in this process's V8 (the engine the page
 * uses), what the page does with it: unpack (DecompressionStream, JSON.parse) and index it for
 * the replay, with the JavaScript heap measured before and after (after a full GC each time).
 * The same in Chromium (V8 with pointer compression, as the page runs): replay.ts and wire.ts
 * built for the page, handed the packed bytes, the heap read through the DevTools protocol.
 * Run with `node --expose-gc --import tsx bench/million.ts` (npm run bench does).
 */
import { chromium } from '@playwright/test';
import { build } from 'vite';
import { loadPyodide } from 'pyodide';
import { findWidget, loadLesson } from '../src/lessons/load';
import { buildRequest } from '../src/runtime/request';
import { createRunner } from '../src/runtime/runner';
import { tracerSource } from '../src/runtime/node';
import * as R from '../src/replay/replay';
import { unpackTrace } from '../src/trace/wire';
import { harness, STEPS_PER_CALL } from './workload';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heapMB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

const lesson = loadLesson('lessons/s04-hooks');
const widget = findWidget(lesson, 'run_hooks');
const STEPS = Number(process.env.STEPS ?? 1_000_000);
const py = await loadPyodide();
const runner = createRunner(py, tracerSource());
const calls = Math.ceil(STEPS / STEPS_PER_CALL);
const request = buildRequest({ lesson: 's04-hooks', files: lesson.files, source: widget.file, symbol: widget.symbol, harness: { file: 'harness/bench.py', code: harness(calls) }, inputs: {} }, { maxSteps: STEPS, timeoutMs: 600_000 });
let t = performance.now();
const packed = runner.runPacked(request).slice();
const recordS = (performance.now() - t) / 1000;
runner.clean();
const before = heapMB();
t = performance.now();
const trace = await unpackTrace(packed);
const unpackS = (performance.now() - t) / 1000;
const afterUnpack = heapMB();
t = performance.now();
const ix = R.indexTrace(trace);
const indexS = (performance.now() - t) / 1000;
const afterIndex = heapMB();
const row = {
  steps: ix.size,
  truncated: trace.truncated ?? null,
  recordS: +recordS.toFixed(1),
  packedMB: +(packed.byteLength / 1e6).toFixed(1),
  unpackS: +unpackS.toFixed(1),
  indexS: +indexS.toFixed(1),
  traceHeapMB: Math.round(afterUnpack - before),
  withIndexHeapMB: Math.round(afterIndex - before),
  rssMB: Math.round(process.memoryUsage().rss / 1e6),
};

/** The same in Chromium: unpack and index in a page, the JavaScript heap after each (after GC). */
async function inChromium() {
  const built = (await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: true, lib: { entry: 'bench/million-page.ts', formats: ['iife'], name: 'SL', fileName: 'sl' } },
  })) as { output: { code?: string }[] }[] | { output: { code?: string }[] };
  const code = (Array.isArray(built) ? built[0]! : built).output[0]!.code!;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ content: code });
    const cdp = await page.context().newCDPSession(page);
    const used = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize / 1e6;
    };
    await page.evaluate((b64) => ((window as unknown as { packed: Uint8Array }).packed = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))), Buffer.from(packed).toString('base64'));
    const base = await used();
    const unpackMs = await page.evaluate(() => (window as unknown as { SL: { unpack(): Promise<number> } }).SL.unpack());
    const trace = await used();
    const indexMs = await page.evaluate(() => (window as unknown as { SL: { index(): number } }).SL.index());
    const index = await used();
    return { chromium: browser.version(), unpackS: +(unpackMs / 1000).toFixed(1), indexS: +(indexMs / 1000).toFixed(1), traceHeapMB: Math.round(trace - base), withIndexHeapMB: Math.round(index - base) };
  } finally {
    await browser.close();
  }
}
const page = await inChromium();
console.log('1M steps: the unpacked trace and its replay index on the JavaScript heap, in Node\'s V8 and in Chromium (the page\'s engine)');
console.table([{ where: 'Node', ...row }, { where: `Chromium ${page.chromium}`, steps: row.steps, unpackS: page.unpackS, indexS: page.indexS, traceHeapMB: page.traceHeapMB, withIndexHeapMB: page.withIndexHeapMB }]);
console.table([{ target: '#13: 1M steps replayable in the page under 500 MB (trace + index, JS heap in Chromium)', met: row.steps >= 1_000_000 && page.withIndexHeapMB < 500 }]);
process.exit(0);
