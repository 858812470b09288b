import type { PyodideAPI } from 'pyodide';
import { DEFAULT_LIMITS, type RunRequest, type Trace } from '../trace/types';

/** Bound at load: lesson code that patches JSON.parse in the worker cannot rewrite a trace. */
const parse = JSON.parse;
const stringify = JSON.stringify;

/** Runs requests in one Pyodide instance. Used by the browser worker and by Node alike. */
export interface Runner {
  run(request: RunRequest): Trace;
  /** Write the lesson's files and compile its modules, so its first run need not. */
  prepare(request: RunRequest): void;
  /**
   * Bring Python back to the state every run starts from (what the last run changed); the next
   * run does it first if it was not done. Hosts call it after handing over a result. Returns ms.
   */
  clean(): number;
}

/** Write the tracer into Python's file system and import it (again: a cached import). */
export function installTracer(py: PyodideAPI, tracerSource: string) {
  py.FS.mkdirTree('/steplight/runtime');
  py.FS.writeFile('/steplight/runtime/steplight_tracer.py', tracerSource);
  py.runPython('import sys\nif "/steplight/runtime" not in sys.path:\n    sys.path.insert(0, "/steplight/runtime")\nimport steplight_tracer');
}

/**
 * The recorder's C fast path (native/steplight_fast.c, built as an Emscripten side module) loaded
 * into this Pyodide: the same traces, with less work per event (see fast_path in the tracer). Load
 * it after any memory snapshot of this Python is taken (a snapshot cannot hold loaded code; the
 * tracer refuses to be snapshotted then). Returns whether the recorder uses it.
 */
export function loadFastPath(py: PyodideAPI, library: Uint8Array): boolean {
  const path = '/steplight/native/steplight_fast.so';
  py.FS.mkdirTree('/steplight/native');
  py.FS.writeFile(path, library);
  try {
    return py.runPython(`steplight_tracer.load_fast_path(${JSON.stringify(path)})`) as boolean;
  } finally {
    py.FS.unlink(path); // read once: nothing of it stays in the files lesson code sees
  }
}

/**
 * A memory snapshot of a Python the tracer runs in (Pyodide's makeMemorySnapshot, after the tracer
 * let go of what a restored Python would not have: its dict watcher's callback).
 */
export function memorySnapshot(py: PyodideAPI & { makeMemorySnapshot(): Uint8Array }): Uint8Array {
  py.runPython('steplight_tracer.before_snapshot()');
  return py.makeMemorySnapshot();
}

/**
 * After Python is restored from a memory snapshot: the time zone as this machine has it now. The
 * snapshot holds the C library's zone from where it was made (the site's: the build machine, in UTC)
 * and Emscripten's tzset runs once per process, so its zone names are written again here
 * (`_tzset_js`, what tzset calls) and the tracer computes the time module's zone constants anew.
 */
export function refreshTimeZone(py: PyodideAPI) {
  type Zone = { _timezone: number; _daylight: number; _tzname: number; HEAPU32: Uint32Array; __tzset_js(timezone: number, daylight: number, std: number, dst: number): void };
  const m = (py as unknown as { _module: Zone })._module;
  const names = m._tzname >>> 2;
  m.__tzset_js(m._timezone, m._daylight, m.HEAPU32[names]!, m.HEAPU32[names + 1]!);
  py.runPython('import steplight_tracer\nsteplight_tracer.after_restore()');
}

/** A run stopped by the time limit with no steps to show (`how` says what the host had to do). */
export function timeoutTrace(request: RunRequest, ms = request.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs, how = ''): Trace {
  return {
    version: 1,
    target: request.target,
    steps: [],
    stdout: '',
    truncated: 'time',
    error: { type: 'Timeout', message: `stopped after ${ms} ms (the time limit)${how ? `; ${how}` : ''}` },
    stats: { events: 0, durationMs: ms },
  };
}

/** A runner in this thread's Pyodide (the page's worker, Node's tests and bench). */
export interface LocalRunner extends Runner {
  /** The same run, its trace packed for the page (ASCII JSON, raw deflate: see trace/wire.ts). */
  runPacked(request: RunRequest): Uint8Array;
}

export function createRunner(py: PyodideAPI, tracerSource: string): LocalRunner {
  installTracer(py, tracerSource);
  py.runPython('steplight_tracer.start()'); // the state every run starts from and returns to (or, from a snapshot, was taken already)
  const run = py.runPython('steplight_tracer.run') as (json: string) => string;
  const prepare = py.runPython('steplight_tracer.prepare') as (json: string) => void;
  const clean = py.runPython('steplight_tracer.clean') as () => number;
  type Bytes = { toJs(): Uint8Array; destroy(): void };
  const runPacked = py.runPython('steplight_tracer.run_packed') as (json: string) => Bytes;
  const packJson = py.runPython('steplight_tracer.pack_json') as (json: string) => Bytes;
  const bytes = (proxy: Bytes) => {
    try {
      return proxy.toJs();
    } finally {
      proxy.destroy();
    }
  };
  /** The tracer's answer, or what the host records when the run never reached Python. */
  const attempt = <T>(request: RunRequest, call: () => T, stopped: (trace: Trace) => T): T => {
    let out: T;
    try {
      out = call();
    } catch (error) {
      // the host's interrupt reached Python at the very entry of the tracer, before anything ran
      if ((error as { type?: string }).type === 'KeyboardInterrupt') return stopped(timeoutTrace(request));
      throw error;
    }
    if (out === undefined || out === null) throw new Error('Python stopped without a result (the Python runtime failed)');
    return out;
  };
  return {
    clean,
    prepare(request) {
      prepare(stringify(request));
    },
    run(request) {
      const out = attempt<string | Trace>(request, () => run(stringify(request)), (trace) => trace);
      return typeof out === 'string' ? (parse(out) as Trace) : out;
    },
    runPacked(request) {
      return bytes(attempt(request, () => runPacked(stringify(request)), (trace) => packJson(stringify(trace))));
    },
  };
}
