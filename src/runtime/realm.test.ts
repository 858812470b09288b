/**
 * The page's worker seals Pyodide's own objects before any lesson runs (realm.ts): their methods
 * cannot be replaced, Module.HEAP* cannot be swapped or given methods. Here, with a real Pyodide in
 * Node (SES lockdown itself runs only in the worker, not in the test process): sealing changes no
 * trace, and Python's memory can still grow.
 */
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { beforeAll, expect, test } from 'vitest';
import { hooksTraces as traces } from './hooks-traces';
import { tracerSource } from './node';
import { sealPyodide } from './realm';
import { createRunner, type LocalRunner } from './runner';

type Module = Record<string, unknown> & { HEAPU8: Uint8Array; HEAP8: Int8Array; FS: Record<string, unknown> & { FSNode: { prototype: object } } };
type Sealed = PyodideAPI & { _api: Record<string, unknown>; _module: Module };


let py: Sealed;
let runner: LocalRunner;
let before: string[];
beforeAll(async () => {
  py = (await loadPyodide({})) as Sealed;
  runner = createRunner(py, tracerSource());
  before = traces(runner);
  sealPyodide(py);
}, 120_000);

test('sealed, Pyodide records the same traces', () => {
  expect(traces(runner)).toEqual(before);
  expect(JSON.parse(before[0]!).steps.length).toBeGreaterThan(0);
});

test("Pyodide's methods, its file system's and its classes' cannot be replaced or redefined", () => {
  const fake = () => 'forged';
  const attempts: Array<[string, () => void]> = [
    ['API method', () => (py._api.typedArrayAsUint8Array = fake)],
    ['Module method', () => (py._module.js2python_convert = fake)],
    ['FS method', () => (py._module.FS.read = fake)],
    ['FS operation table', () => ((py._module.FS.filesystems as { MEMFS: { stream_ops: Record<string, unknown> } }).MEMFS.stream_ops.read = fake)],
    ['class prototype accessor', () => Object.defineProperty(py._module.FS.FSNode.prototype, 'isFolder', { value: true })],
    ['public API method', () => ((py as unknown as Record<string, unknown>).runPython = fake)],
  ];
  for (const [what, attempt] of attempts) expect(attempt, what).toThrow(TypeError);
  // data stays writable: Pyodide changes it with every run
  py._module.FS.currentPath = py._module.FS.currentPath;
});

test('the heap views cannot be swapped for other bytes or given methods, and follow the memory as it grows', () => {
  const view = py._module.HEAPU8;
  expect(() => (py._module.HEAPU8 = new Uint8Array(16))).toThrow(/sealed/);
  expect(() => ((view as unknown as Record<string, unknown>).slice = () => 'forged')).toThrow(TypeError);
  const size = view.length;
  // a Python object larger than the heap: the memory grows, Emscripten assigns new views (ignored),
  // and Module.HEAPU8 is a sealed view of the new memory
  py.runPython(`big = bytearray(${size + (64 << 20)}); big[-1] = 7`);
  const grown = py._module.HEAPU8;
  expect(grown.length).toBeGreaterThan(size);
  expect(grown.buffer).toBe(py._module.HEAP8.buffer);
  expect(Object.isExtensible(grown)).toBe(false);
  expect(py.runPython('big[-1] + len(big) - len(big)')).toBe(7);
  py.runPython('del big');
  expect(traces(runner)).toEqual(before);
}, 120_000);
