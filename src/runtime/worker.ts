/// <reference lib="webworker" />
/** The module worker that hosts Pyodide for one page. */
import type { PyodideAPI } from 'pyodide';
import type { FromWorker, ToWorker } from './protocol';
import { createRunner, type Runner } from './runner';
import tracer from './steplight_tracer.py?raw';

declare const self: DedicatedWorkerGlobalScope;
const post = (message: FromWorker) => self.postMessage(message);
let runner: Promise<Runner> | null = null;

async function start(indexURL: string, interrupt?: SharedArrayBuffer): Promise<Runner> {
  const started = performance.now();
  post({ type: 'progress', phase: 'fetching' });
  const { loadPyodide } = (await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`)) as { loadPyodide: (o: object) => Promise<PyodideAPI> };
  const py = await loadPyodide({ indexURL, stdout: () => {}, stderr: () => {} });
  post({ type: 'progress', phase: 'starting' });
  if (interrupt) py.setInterruptBuffer(new Int32Array(interrupt));
  const result = createRunner(py, tracer);
  post({ type: 'ready', loadMs: Math.round(performance.now() - started) });
  return result;
}

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === 'init') {
    runner = start(message.indexURL, message.interrupt);
    runner.catch((error: Error) => post({ type: 'init-failed', message: error.message }));
    return;
  }
  try {
    if (!runner) throw new Error('the Python worker was not started');
    const trace = (await runner).run(message.request);
    post({ type: 'result', id: message.id, trace });
  } catch (error) {
    const e = error as Error & { pyodide_fatal_error?: boolean };
    const fatal = e.pyodide_fatal_error === true || e instanceof RangeError || /fatal/i.test(e.message);
    post({ type: fatal ? 'crashed' : 'failed', id: message.id, message: `${e.name}: ${e.message.split('\n')[0]}` });
  }
};
