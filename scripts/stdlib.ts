/**
 * Python's standard library archive as the site serves it: the same files, stored instead of
 * deflated inside the zip, so that the host's brotli compresses the whole (2.49 MB on the wire
 * deflated, 1.61 MB stored and brotli'd) and Python imports without inflating. Built once per
 * Pyodide archive (by content hash) under node_modules/.cache.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { unzipSync, zipSync } from 'fflate';

const CACHE = resolve('node_modules/.cache/steplight-stdlib');

/** The path of the stored archive made from the deflated one at `original`. */
export function storedStdlib(original: string): string {
  const data = readFileSync(original);
  const path = join(CACHE, `python_stdlib-${createHash('sha256').update(data).digest('hex').slice(0, 16)}.zip`);
  if (existsSync(path)) return path;
  // entries keep their names and order; one fixed date, so the archive is the same on every machine
  const stored = zipSync(unzipSync(data), { level: 0, mtime: new Date('2020-01-01T00:00:00Z') });
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(`${path}.tmp`, stored);
  renameSync(`${path}.tmp`, path); // never a half-written archive under the final name
  return path;
}

/** Where npm put Pyodide. */
export const PYODIDE_DIR = resolve('node_modules/pyodide');
/** The Pyodide files a page needs; the site serves them from its own origin. */
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];
/** Where a Pyodide file the site serves comes from: the package, but the standard library stored. */
export function pyodideFile(name: string): string {
  return name === 'python_stdlib.zip' ? storedStdlib(join(PYODIDE_DIR, name)) : join(PYODIDE_DIR, name);
}
/** Every file the site serves as Pyodide: name → path on this machine. */
export const servedPyodide = (): Record<string, string> => Object.fromEntries(PYODIDE_FILES.map((name) => [name, pyodideFile(name)]));
