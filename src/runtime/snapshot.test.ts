/**
 * The page's worker stores Pyodide's memory snapshot only once the page is quiet, after the
 * warm-up run and maybe the reader's first runs: it keeps the snapshot as Pyodide returns it,
 * which is safe only while that is a copy of the heap, not a view of it.
 */
import { createHash } from 'node:crypto';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { expect, test } from 'vitest';

test('a memory snapshot is a copy: Python running afterwards does not change it', async () => {
  const py = (await loadPyodide({ _makeSnapshot: true } as object)) as PyodideAPI & { makeMemorySnapshot(): Uint8Array };
  py.runPython('import copy, json, tempfile');
  const snapshot = py.makeMemorySnapshot();
  const digest = () => createHash('sha256').update(snapshot).digest('hex');
  const before = digest();
  // a run's worth of allocation and mutation on the heap
  py.runPython('import json\nkept = [json.dumps({"i": i, "s": "x" * i}) for i in range(20000)]\nkept.clear()');
  expect(digest()).toBe(before);
  expect(snapshot.buffer).not.toBe((py as unknown as { _module: { HEAP8: Uint8Array } })._module.HEAP8.buffer);
}, 60_000);
