/** Node hosts for the runner: Pyodide in this process, and CPython as a subprocess. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import type { ReferenceRun } from '../trace/reference';
import { DEFAULT_LIMITS, type RunRequest, type Trace } from '../trace/types';
import { createRunner, loadFastPath, timeoutTrace, type Runner } from './runner';

export const TRACER_PATH = fileURLToPath(new URL('./steplight_tracer.py', import.meta.url));

export function tracerSource(): string {
  return readFileSync(TRACER_PATH, 'utf8');
}

/** The recorder's C fast path as built for Pyodide (scripts/build-native.sh). */
export const FAST_PATH = fileURLToPath(new URL('./native/steplight_fast.so', import.meta.url));

export function fastPathLibrary(): Uint8Array {
  return readFileSync(FAST_PATH);
}

/**
 * For tests and the bench, in a Python the fast path was loaded into: which recorder the next run
 * uses (C or Python). A clean puts the tracer's globals back, FAST among them: choose after it.
 */
export function recorderChoice(py: PyodideAPI): (fast: boolean) => void {
  return py.runPython('import steplight_tracer\nlambda fast, loaded=steplight_tracer.FAST: setattr(steplight_tracer, "FAST", loaded if fast else None)') as (fast: boolean) => void;
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
  /** Done with the lesson at this root: its folder is removed. */
  forget(root: string): void;
}

export const REFERENCE_PATH = fileURLToPath(new URL('./reference_recorder.py', import.meta.url));

/** Where Pyodide's files are, said outright: Pyodide guesses it from a stack trace, which fails in a worker thread. */
export const PYODIDE_INDEX_URL = `${dirname(createRequire(import.meta.url).resolve('pyodide'))}/`;

/** Pyodide in this process, with a watchdog thread for the wall-clock limit. */
export async function nodeRunner(options: { graceMs?: number; hardMs?: number; fastPath?: boolean } = {}): Promise<NodeRunner> {
  const py = await loadPyodide({ indexURL: PYODIDE_INDEX_URL });
  const buffer = new SharedArrayBuffer(24);
  const flags = new Int32Array(buffer, 0, 4);
  const deadline = new BigInt64Array(buffer, 16, 1);
  py.setInterruptBuffer(flags.subarray(0, 1));
  const watchdog = new Worker(WATCHDOG, { eval: true, workerData: { buffer, hardMs: options.hardMs ?? 10_000 } });
  watchdog.unref();
  const runner = createRunner(py, tracerSource());
  if ((options.fastPath ?? true) && !loadFastPath(py, fastPathLibrary())) throw new Error('the recorder\'s C fast path does not fit this Pyodide (rebuild it: scripts/build-native.sh)');
  py.FS.writeFile('/steplight/runtime/reference_recorder.py', readFileSync(REFERENCE_PATH, 'utf8'));
  // contained: audit hooks the lesson adds go when the run ends, as in a run of the product's
  const record = py.runPython('import reference_recorder\nlambda request, traced, record=reference_recorder.record, contained=steplight_tracer.contained: contained(record, request, traced, True)') as (json: string, traced: boolean) => string;
  const cleanAfterReference = py.runPython('lambda: steplight_tracer.clean(after_other=True)') as () => number;
  const forget = py.runPython('steplight_tracer.forget') as (root: string) => void;
  let id = 0;
  return {
    reference: (request, traced = true) => {
      runner.prepare(request); // the lesson's files, as a run writes them (the same folder)
      const run = guarded(request, () => JSON.parse(record(JSON.stringify(request), traced)) as ReferenceRun);
      cleanAfterReference(); // what the lesson changed during the reference run must not reach the next run
      return run;
    },
    get runs() {
      return { last: id, interrupted: Atomics.load(flags, 3) };
    },
    forget,
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
      input: JSON.stringify({ ...request, root: join(dir, request.root) }),
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
      input: JSON.stringify({ ...request, root: join(dir, request.root) }), // the lesson's folder keeps its name, as in the page
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

/** One long-lived CPython for many runs (see `serve` in steplight_tracer.py). */
export interface CpythonHost {
  run(request: RunRequest): Promise<Trace>;
  /** The same request under the independent reference recorder, in the same CPython. */
  reference(request: RunRequest, traced?: boolean): Promise<ReferenceRun>;
  /** Both, in one exchange (lessons:check): CPython works on them while the caller does other work. */
  both(request: RunRequest): Promise<{ trace: Trace; reference: ReferenceRun }>;
  /** As NodeRunner.forget. */
  forget(root: string): Promise<void>;
  /** Where Python's ast says each symbol starts and ends (see symbol_ranges in steplight_tracer.py). */
  symbols(blocks: { file: string; symbol: string; text: string }[]): Promise<([number, number] | string | null)[]>;
  /** How many CPython processes were started: 1, plus one after each that had to be killed. */
  readonly started: number;
  close(): Promise<void>;
}

/**
 * CPython as a host of many runs: one process (started on first use) instead of one per run, each run
 * brought back to the baseline as in the page. Requests are written as soon as they are asked, so
 * CPython goes from one to the next without waiting for this thread (busy running Pyodide, say) to
 * read the answer before; it answers them in order, one line each. Lesson code that ignores every
 * interrupt gets its process killed (the run is reported as a Timeout); a process that ends fails the
 * request it was on, and the requests behind it are asked again of a fresh one.
 */
export function cpythonHost(options: { parent?: string; python?: string } = {}): CpythonHost {
  let proc: ChildProcess | null = null;
  /** Requests asked and not answered yet, in the order they were written; the first is in progress. */
  const pending: { line: string; limitMs: number; timer?: NodeJS.Timeout; resolve(line: string | null): void; reject(error: Error): void }[] = [];
  let started = 0;
  let stderr = '';
  let closed = false;

  function start(): ChildProcess {
    const folder = mkdtempSync(join(options.parent ?? tmpdir(), 'steplight-host-'));
    for (const sub of ['lessons', 'tmp', 'home']) mkdirSync(join(folder, sub));
    // imported under its own name, as in the page, so that lesson imports cannot reach it (hide())
    const boot = `import sys; sys.path.insert(0, ${JSON.stringify(dirname(TRACER_PATH))}); import steplight_tracer; steplight_tracer.serve(sys.argv[1])`;
    const child = spawn(options.python ?? process.env.PYTHON ?? 'python3', ['-c', boot, folder], {
      cwd: folder,
      env: { ...CPYTHON_ENV, TMPDIR: join(folder, 'tmp'), TEMP: join(folder, 'tmp'), HOME: join(folder, 'home') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    started++;
    stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
    createInterface({ input: child.stdout! }).on('line', (line) => proc === child && settle((job) => job.resolve(line)));
    // 'close', not 'exit': by then every line it wrote has been read
    child.on('close', (code, signal) => {
      rmSync(folder, { recursive: true, force: true });
      if (proc !== child) return; // killed on purpose: what it had left was handed on already
      proc = null;
      const error = new Error(`CPython stopped (${signal ?? `exit ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`);
      settle((job) => job.reject(error));
      resend();
    });
    child.stdin!.on('error', () => {}); // a write to a process that just ended: its exit reports it
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr] as unknown as { unref?(): void }[]) stream.unref?.();
    return child;
  }

  /** The request in progress is done (`how`); the clock starts for the next. */
  function settle(how: (job: (typeof pending)[number]) => void) {
    const job = pending.shift();
    if (!job) return;
    clearTimeout(job.timer);
    how(job);
    arm();
  }

  /** The request in progress may take its time limit and 5 s more; then its process is killed. */
  function arm() {
    const job = pending[0];
    if (!job || job.timer) return;
    const child = proc;
    job.timer = setTimeout(() => {
      proc = null;
      child?.kill('SIGKILL');
      settle((j) => j.resolve(null));
      resend();
    }, job.limitMs + 5_000);
  }

  /** A fresh process for the requests still waiting (their old one ended before reaching them). */
  function resend() {
    if (closed) while (pending.length) settle((job) => job.reject(new Error('this CPython host was closed')));
    if (!pending.length) return;
    const child = (proc = start());
    for (const job of pending) child.stdin!.write(job.line);
    for (const job of pending) (clearTimeout(job.timer), (job.timer = undefined));
    arm();
  }

  /** Send one request; null when CPython ignored every interrupt past the limit and was killed. */
  function ask(message: object[], limitMs: number): Promise<string | null> {
    if (closed) return Promise.reject(new Error('this CPython host was closed'));
    return new Promise((resolve, reject) => {
      pending.push({ line: `${JSON.stringify(message)}\n`, limitMs, resolve, reject });
      const child = (proc ??= start());
      child.stdin!.write(pending.at(-1)!.line);
      arm();
    });
  }

  const limitOf = (request: RunRequest) => request.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
  const traceOf = (request: RunRequest, out: (Trace & { lost?: boolean }) | undefined) =>
    out && !out.lost ? out : timeoutTrace(request, limitOf(request), out ? '' : 'CPython ignored every interrupt and was killed');
  const referenceOf = (out: (ReferenceRun & { lost?: boolean }) | undefined): ReferenceRun => (out && !out.lost ? out : { steps: [], outcome: null, stdout: '', error: 'KeyboardInterrupt' });
  /** Jobs for one request line; their results, or none when the process had to be killed. */
  async function jobs(request: RunRequest, list: object[]): Promise<unknown[]> {
    const line = await ask(list, limitOf(request) * list.length);
    return line === null ? [] : (JSON.parse(line) as unknown[]);
  }
  return {
    get started() {
      return started;
    },
    async run(request) {
      const [trace] = await jobs(request, [{ op: 'run', request }]);
      return traceOf(request, trace as Trace);
    },
    async reference(request, traced = true) {
      const [run] = await jobs(request, [{ op: 'reference', request, traced }]);
      return referenceOf(run as ReferenceRun);
    },
    async forget(root) {
      if (proc) await ask([{ op: 'forget', root }], 1_000);
    },
    async symbols(blocks) {
      const line = await ask([{ op: 'symbols', blocks }], 10_000);
      if (line === null) throw new Error('CPython did not answer in time');
      return (JSON.parse(line) as [([number, number] | string | null)[]])[0];
    },
    async both(request) {
      const [trace, reference] = await jobs(request, [
        { op: 'run', request },
        { op: 'reference', traced: true }, // the same request: CPython takes the one of the job before
      ]);
      return { trace: traceOf(request, trace as Trace), reference: referenceOf(reference as ReferenceRun) };
    },
    close() {
      closed = true;
      const child = proc;
      if (!child || child.exitCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.ref(); // keeps Node running until CPython has ended
        child.once('close', () => resolve());
        child.stdin!.end(); // CPython answers what it was asked, then ends
      });
    },
  };
}
