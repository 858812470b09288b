/**
 * The page's worker takes Pyodide's memory snapshot right after its warm-up run (the runner
 * started: baseline taken, modules preloaded) and stores it once the page is quiet; a revisit
 * starts from it. The snapshot must be a copy of the heap (runs before it is stored must not
 * change it), and a runner started from it must record what a cold one records.
 */
import { createHash } from 'node:crypto';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { expect, test } from 'vitest';
import { hooksRequests as requests, hooksTraces as traces } from './hooks-traces';
import { tracerSource } from './node';
import { createRunner, memorySnapshot, refreshTimeZone } from './runner';
import { warmUpForSnapshot } from './started';

type Snapshotting = PyodideAPI & { makeMemorySnapshot(): Uint8Array; _module: { HEAP8: Int8Array } };


test('a snapshot taken after runs is a copy of the heap, and a runner started from it records the same traces', async () => {
  const cold = (await loadPyodide({ _makeSnapshot: true } as object)) as Snapshotting;
  const runner = createRunner(cold, tracerSource());
  const before = traces(runner);
  const snapshot = memorySnapshot(cold);
  expect(snapshot.buffer).not.toBe(cold._module.HEAP8.buffer);
  const digest = () => createHash('sha256').update(snapshot).digest('hex');
  const taken = digest();
  runner.run(requests[0]!); // more runs in the same Python, as the reader's before the page is quiet
  runner.clean();
  expect(digest()).toBe(taken);

  // started from the snapshot: its file system is empty again, while the restored tracer once knew
  // the lesson's files as written; each run must write them again and record the same steps
  const warm = (await loadPyodide({ _loadSnapshot: snapshot } as object)) as PyodideAPI;
  const after = traces(createRunner(warm, tracerSource()));
  expect(after).toEqual(before);
  expect(JSON.parse(after[0]!).steps.length).toBeGreaterThan(0);
}, 120_000);

test('the site\'s snapshot holds what its warm-up learnt: restored (and its time zone refreshed), Python finds no watched namespace changed from its second run on', async () => {
  const cold = (await loadPyodide({ _makeSnapshot: true } as object)) as Snapshotting;
  warmUpForSnapshot(createRunner(cold, tracerSource()));
  const warm = (await loadPyodide({ _loadSnapshot: memorySnapshot(cold) } as object)) as PyodideAPI;
  refreshTimeZone(warm); // the time module's namespace is taken anew: still checked one by one
  const runner = createRunner(warm, tracerSource());
  runner.run(requests[0]!);
  runner.clean(); // the first clean after a restore makes the group
  runner.run(requests[0]!);
  expect(warm.runPython('(lambda st: st.BASELINE.steady.unchanged())(steplight_tracer)')).toBe(true);
  runner.clean();
}, 120_000);
