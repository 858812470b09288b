/**
 * The site's memory snapshot, made by the build: Python started in Node from the very files the site
 * serves (Pyodide's, and the standard library as stored, scripts/stdlib.ts), the tracer installed,
 * the runner started and warmed up exactly as the page's worker does it (runtime/started.ts), then
 * snapshotted in the form the worker stores (sparse.ts). A first visit starts from it instead of
 * running Python's own start-up; a revisit from the copy the worker keeps (snapshot-store.ts).
 *
 * Made once per set of inputs (Pyodide, the archive, the tracer and the code that starts it) and
 * cached under node_modules/.cache; the file name carries that hash, so it can be cached as
 * immutable by any host.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadPyodide } from 'pyodide';
import { tracerSource } from '../src/runtime/node';
import { createRunner, memorySnapshot } from '../src/runtime/runner';
import { toSparse } from '../src/runtime/sparse';
import { PYTHON_ENV, warmUpForSnapshot, type SiteSnapshot } from '../src/runtime/started';

const CACHE = resolve('node_modules/.cache/steplight-snapshot');
/** What shapes the snapshot besides Pyodide's files: a change to any of them makes a new one. */
const INPUTS = ['src/runtime/steplight_tracer.py', 'src/runtime/runner.ts', 'src/runtime/started.ts', 'src/runtime/sparse.ts', 'scripts/snapshot.ts'];

/**
 * The snapshot for these Pyodide files (`files`: name → path, as the site serves them), made now or
 * taken from the cache: its file name, its size as stored, and where it is on this machine.
 */
export async function siteSnapshot(files: Record<string, string>): Promise<SiteSnapshot & { path: string }> {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) hash.update(name).update(readFileSync(files[name]!));
  for (const input of INPUTS) hash.update(input).update(readFileSync(resolve(input)));
  const file = `steplight-${hash.digest('hex').slice(0, 16)}.snapshot`;
  const path = join(CACHE, file);
  if (!existsSync(path)) {
    const bytes = await inServedFolder(files, makeSnapshot);
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(`${path}.tmp`, bytes);
    renameSync(`${path}.tmp`, path); // never a half-written snapshot under the final name
  }
  return { file, size: statSync(path).size, path };
}

/** Runs `use` with Pyodide's served files copied side by side into a folder of their own (Pyodide loads from one folder). */
export async function inServedFolder<T>(files: Record<string, string>, use: (indexURL: string) => Promise<T>): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), 'steplight-pyodide-'));
  try {
    for (const [name, path] of Object.entries(files)) copyFileSync(path, join(folder, name));
    return await use(`${folder}/`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Pyodide from these files, started as the page's worker starts it (`more`: Pyodide's snapshot options). */
export async function startPython(indexURL: string, more: { _makeSnapshot?: boolean; _loadSnapshot?: Uint8Array } = {}) {
  const quiet = () => {};
  return (await loadPyodide({ indexURL, env: PYTHON_ENV, stdout: quiet, stderr: quiet, ...more } as Parameters<typeof loadPyodide>[0])) as Parameters<typeof memorySnapshot>[0];
}

/** The snapshot, in its stored form, of a Python started from the Pyodide at `indexURL` as the worker starts it. */
export async function makeSnapshot(indexURL: string): Promise<Uint8Array> {
  const py = await startPython(indexURL, { _makeSnapshot: true });
  const runner = createRunner(py, tracerSource());
  try {
    warmUpForSnapshot(runner);
  } catch (error) {
    throw new Error(`the site's snapshot: ${(error as Error).message}`);
  }
  return toSparse(memorySnapshot(py));
}
