/** Node hosts for the runner: Pyodide in this process, and CPython as a subprocess. */
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadPyodide } from 'pyodide';
import { DEFAULT_LIMITS, type RunRequest, type Trace } from '../trace/types';
import { createRunner, type Runner } from './runner';

export const TRACER_PATH = fileURLToPath(new URL('./steplight_tracer.py', import.meta.url));

export function tracerSource(): string {
  return readFileSync(TRACER_PATH, 'utf8');
}

/**
 * The watchdog: a thread that interrupts Python when a run outlives its limit (the main thread is
 * busy in Python, so it cannot do it itself). Slots: 0 Pyodide's interrupt buffer, 1 the armed run,
 * 2 its limit in ms, 3 the last finished run. Code that keeps swallowing KeyboardInterrupt is
 * interrupted again every 200 ms; after `hardMs` more the process is ended with a message.
 */
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const f = new Int32Array(workerData.buffer);
let armed = 0;
for (;;) {
  Atomics.wait(f, 1, armed);
  armed = Atomics.load(f, 1);
  let wait = Atomics.load(f, 2);
  let spent = 0;
  while (Atomics.load(f, 3) !== armed) {
    if (Atomics.wait(f, 3, Atomics.load(f, 3), wait) !== 'timed-out') continue;
    if (Atomics.load(f, 3) === armed) break;
    Atomics.store(f, 0, 2);
    spent += wait;
    wait = 200;
    if (spent > Atomics.load(f, 2) + workerData.hardMs) {
      process.stderr.write('steplight: lesson code ignored every interrupt; stopping\\n');
      process.kill(process.pid, 'SIGTERM');
    }
  }
}`;

/** Pyodide in this process, with a watchdog thread for the wall-clock limit. */
export async function nodeRunner(options: { graceMs?: number; hardMs?: number } = {}): Promise<Runner> {
  const py = await loadPyodide();
  const buffer = new SharedArrayBuffer(16);
  const flags = new Int32Array(buffer);
  py.setInterruptBuffer(flags.subarray(0, 1));
  const watchdog = new Worker(WATCHDOG, { eval: true, workerData: { buffer, hardMs: options.hardMs ?? 10_000 } });
  watchdog.unref();
  const runner = createRunner(py, tracerSource());
  let id = 0;
  return {
    prepare: (request) => runner.prepare(request),
    run(request) {
      id++;
      Atomics.store(flags, 0, 0);
      Atomics.store(flags, 2, (request.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs) + (options.graceMs ?? 500));
      Atomics.store(flags, 1, id);
      Atomics.notify(flags, 1);
      try {
        return runner.run(request);
      } finally {
        Atomics.store(flags, 3, id);
        Atomics.notify(flags, 3);
        Atomics.store(flags, 0, 0);
      }
    },
  };
}

/** The same tracer under the machine's CPython, with a real temporary lesson directory. */
export function cpythonRun(request: RunRequest, root: string, python = process.env.PYTHON ?? 'python3'): Trace {
  const result = spawnSync(python, [TRACER_PATH], {
    input: JSON.stringify({ ...request, root }),
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    timeout: (request.limits?.timeoutMs ?? 5000) + 10_000,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`CPython tracer failed (${result.status}): ${result.stderr}`);
  const trace = JSON.parse(result.stdout) as Trace;
  return trace;
}
