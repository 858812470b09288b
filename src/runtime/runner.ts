import type { PyodideAPI } from 'pyodide';
import type { RunRequest, Trace } from '../trace/types';

/** Runs requests in one Pyodide instance. Used by the browser worker and by Node alike. */
export interface Runner {
  run(request: RunRequest): Trace;
  /** Write the lesson's files and compile its modules, so its first run need not. */
  prepare(request: RunRequest): void;
}

export function createRunner(py: PyodideAPI, tracerSource: string): Runner {
  py.FS.mkdirTree('/steplight/runtime');
  py.FS.writeFile('/steplight/runtime/steplight_tracer.py', tracerSource);
  const run = py.runPython(
    `import sys\nsys.path.insert(0, "/steplight/runtime")\nimport steplight_tracer\nsteplight_tracer.run`,
  ) as (json: string) => string;
  const prepare = py.runPython('steplight_tracer.prepare') as (json: string) => void;
  return {
    prepare(request) {
      prepare(JSON.stringify(request));
    },
    run(request) {
      const out = run(JSON.stringify(request));
      if (typeof out !== 'string') throw new Error('Python stopped without a result (the Python runtime failed)');
      return JSON.parse(out) as Trace;
    },
  };
}
