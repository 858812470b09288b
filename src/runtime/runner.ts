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
 * A memory snapshot of a Python the tracer runs in (Pyodide's makeMemorySnapshot, after the tracer
 * let go of what a restored Python would not have: its dict watcher's callback).
 */
export function memorySnapshot(py: PyodideAPI & { makeMemorySnapshot(): Uint8Array }): Uint8Array {
  py.runPython('steplight_tracer.before_snapshot()');
  return py.makeMemorySnapshot();
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

export function createRunner(py: PyodideAPI, tracerSource: string): Runner {
  installTracer(py, tracerSource);
  py.runPython('steplight_tracer.start()'); // the state every run starts from and returns to (or, from a snapshot, was taken already)
  const run = py.runPython('steplight_tracer.run') as (json: string) => string;
  const prepare = py.runPython('steplight_tracer.prepare') as (json: string) => void;
  const clean = py.runPython('steplight_tracer.clean') as () => number;
  return {
    clean,
    prepare(request) {
      prepare(stringify(request));
    },
    run(request) {
      let out: string;
      try {
        out = run(stringify(request));
      } catch (error) {
        // the host's interrupt reached Python at the very entry of the tracer, before anything ran
        if ((error as { type?: string }).type === 'KeyboardInterrupt') return timeoutTrace(request);
        throw error;
      }
      if (typeof out !== 'string') throw new Error('Python stopped without a result (the Python runtime failed)');
      return parse(out) as Trace;
    },
  };
}
