/** Node hosts for the runner: Pyodide in this process, and CPython as a subprocess. */
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPyodide } from 'pyodide';
import type { ReferenceRun } from '../trace/reference';
import { DEFAULT_LIMITS, type RunRequest, type Trace } from '../trace/types';
import { createRunner, timeoutTrace, type Runner } from './runner';

export const TRACER_PATH = fileURLToPath(new URL('./steplight_tracer.py', import.meta.url));

export function tracerSource(): string {
  return readFileSync(TRACER_PATH, 'utf8');
}

/**
 * The watchdog: a thread that interrupts Python when a run outlives its deadline (the main thread
 * is busy in Python, so it cannot do it itself). Shared slots (Int32 unless noted):
 *   0 Pyodide's interrupt buffer;
 *   1 the id of the run in progress, 0 when none (set at the start of a run, cleared at its end);
 *   2 a lock held around "is run N still in progress? then interrupt it" and around the end of a run,
 *     so an interrupt meant for one run can never land in the next;
 *   3 the id of the last run the watchdog interrupted (for tests and messages);
 *   BigInt64 slot 2 (bytes 16..23): the deadline of the run in progress, in ms of Date.now().
 * The watchdog compares the deadline of whatever run is in progress with the clock, so it cannot
 * lose track of runs however fast they come and go. Code that keeps swallowing KeyboardInterrupt
 * is interrupted again every 200 ms; after `hardMs` more the process is ended with a message.
 */
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const f = new Int32Array(workerData.buffer, 0, 4);
const deadlines = new BigInt64Array(workerData.buffer, 16, 1);
const lock = () => { while (Atomics.compareExchange(f, 2, 0, 1) !== 0) Atomics.wait(f, 2, 1, 1); };
const unlock = () => { Atomics.store(f, 2, 0); Atomics.notify(f, 2); };
let last = 0, nextAt = 0, hardAt = 0;
for (;;) {
  const run = Atomics.load(f, 1);
  if (run === 0) { Atomics.wait(f, 1, 0); continue; }
  const deadline = Number(Atomics.load(deadlines, 0));
  if (run !== last) { last = run; nextAt = deadline; hardAt = deadline + workerData.hardMs; }
  const now = Date.now();
  if (now < nextAt) { Atomics.wait(f, 1, run, nextAt - now); continue; }
  lock();
  const still = Atomics.load(f, 1) === run;
  if (still) { Atomics.store(f, 0, 2); Atomics.store(f, 3, run); }
  unlock();
  if (!still) continue;
  nextAt = now + 200;
  if (now > hardAt) {
    process.stderr.write('steplight: lesson code ignored every interrupt for ' + workerData.hardMs + ' ms; stopping\\n');
    process.kill(process.pid, 'SIGTERM');
  }
}`;

export interface NodeRunner extends Runner {
  /** The id of the last run (1, 2, …) and of the last run the watchdog had to interrupt. */
  readonly runs: { last: number; interrupted: number };
  /** The same request under the independent reference recorder (or with no tracer at all), in this Pyodide. */
  reference(request: RunRequest, traced?: boolean): ReferenceRun;
}

export const REFERENCE_PATH = fileURLToPath(new URL('./reference_recorder.py', import.meta.url));

/** The reference recorder runs in its own lesson folder, so its modules never meet the product's. */
const referenceRequest = (request: RunRequest, root = request.root): RunRequest => ({ ...request, root: `${root.replace(/\/$/, '')}/.reference` });

/** Pyodide in this process, with a watchdog thread for the wall-clock limit. */
export async function nodeRunner(options: { graceMs?: number; hardMs?: number } = {}): Promise<NodeRunner> {
  const py = await loadPyodide();
  const buffer = new SharedArrayBuffer(24);
  const flags = new Int32Array(buffer, 0, 4);
  const deadline = new BigInt64Array(buffer, 16, 1);
  py.setInterruptBuffer(flags.subarray(0, 1));
  const watchdog = new Worker(WATCHDOG, { eval: true, workerData: { buffer, hardMs: options.hardMs ?? 10_000 } });
  watchdog.unref();
  const runner = createRunner(py, tracerSource());
  py.FS.writeFile('/steplight/runtime/reference_recorder.py', readFileSync(REFERENCE_PATH, 'utf8'));
  const record = py.runPython('import reference_recorder\nreference_recorder.record') as (json: string, traced: boolean) => string;
  let id = 0;
  return {
    reference: (request, traced = true) => guarded(request, () => JSON.parse(record(JSON.stringify(referenceRequest(request)), traced)) as ReferenceRun),
    get runs() {
      return { last: id, interrupted: Atomics.load(flags, 3) };
    },
    prepare: (request) => runner.prepare(request),
    clean: () => runner.clean(),
    run: (request) => {
      const trace = guarded(request, () => runner.run(request));
      trace.stats.cleanMs = runner.clean(); // the tracer's own work, after the run: never interrupted
      return trace;
    },
  };

  /** Run `work` with the watchdog armed for the request's time limit. */
  function guarded<T>(request: RunRequest, work: () => T): T {
    id++;
    const limit = (request.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs) + (options.graceMs ?? 500);
    Atomics.store(flags, 0, 0);
    Atomics.store(deadline, 0, BigInt(Date.now() + limit));
    Atomics.store(flags, 1, id);
    Atomics.notify(flags, 1);
    try {
      return work();
    } finally {
      // under the lock: once the run is marked finished, no interrupt meant for it can follow
      while (Atomics.compareExchange(flags, 2, 0, 1) !== 0) Atomics.wait(flags, 2, 1, 1);
      Atomics.store(flags, 1, 0);
      Atomics.store(flags, 0, 0);
      Atomics.store(flags, 2, 0);
      Atomics.notify(flags, 2);
      Atomics.notify(flags, 1);
    }
  }
}

/** Every CPython run starts alike: the same string hashes (so the same set order), no user site. */
const CPYTHON_ENV = { ...process.env, PYTHONHASHSEED: '0', PYTHONNOUSERSITE: '1', PYTHONDONTWRITEBYTECODE: '' };

/**
 * A CPython run gets a folder of its own (the lesson, TMPDIR and HOME inside it), removed
 * afterwards: nothing a lesson writes outlives its run on the host.
 */
function inOwnFolder<T>(parent: string, work: (dir: string, env: NodeJS.ProcessEnv) => T): T {
  const dir = mkdtempSync(join(parent, 'steplight-run-'));
  try {
    for (const sub of ['tmp', 'home']) mkdirSync(join(dir, sub));
    return work(dir, { ...CPYTHON_ENV, TMPDIR: join(dir, 'tmp'), TEMP: join(dir, 'tmp'), HOME: join(dir, 'home') });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The reference recorder under the machine's CPython. */
export function cpythonReference(request: RunRequest, parent = tmpdir(), traced = true, python = process.env.PYTHON ?? 'python3'): ReferenceRun {
  return inOwnFolder(parent, (dir, env) => {
    const result = spawnSync(python, [REFERENCE_PATH, ...(traced ? [] : ['--untraced'])], {
      env,
      input: JSON.stringify(referenceRequest(request, join(dir, 'lesson'))),
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
      timeout: 60_000,
    });
    if (result.error) throw result.error;
    if (result.status !== 0) throw new Error(`CPython reference recorder failed (${result.status}): ${result.stderr}`);
    return JSON.parse(result.stdout) as ReferenceRun;
  });
}

/** The same tracer under the machine's CPython, in a folder of its own (see inOwnFolder). */
export function cpythonRun(request: RunRequest, parent = tmpdir(), python = process.env.PYTHON ?? 'python3'): Trace {
  const limit = request.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
  return inOwnFolder(parent, (dir, env) => {
    const result = spawnSync(python, [TRACER_PATH], {
      env,
      input: JSON.stringify({ ...request, root: join(dir, 'lesson') }),
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
      // the tracer's own watchdog interrupts at the limit; this kill is for code that ignores it
      timeout: limit + 5_000,
      killSignal: 'SIGKILL',
    });
    if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') return timeoutTrace(request, limit, 'CPython ignored every interrupt and was killed');
    if (result.error) throw result.error;
    if (result.status !== 0) throw new Error(`CPython tracer failed (${result.status}): ${result.stderr}`);
    return JSON.parse(result.stdout) as Trace;
  });
}
