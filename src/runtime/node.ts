/** Node hosts for the runner: Pyodide in this process, and CPython as a subprocess. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadPyodide } from 'pyodide';
import type { RunRequest, Trace } from '../trace/types';
import { createRunner, type Runner } from './runner';

export const TRACER_PATH = fileURLToPath(new URL('./steplight_tracer.py', import.meta.url));

export function tracerSource(): string {
  return readFileSync(TRACER_PATH, 'utf8');
}

export async function nodeRunner(): Promise<Runner> {
  const py = await loadPyodide();
  return createRunner(py, tracerSource());
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
