/**
 * Every run starts clean: a battery of misbehaving lessons, each followed by an ordinary lesson
 * whose trace must be identical to its trace before any misbehaviour (in the same Python) and, but
 * for the random draw, to its trace in a fresh Python.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { plain, type Trace } from '../trace/types';
import { nodeRunner, type NodeRunner } from './node';
import { buildRequest } from './request';

const file = (name: string) => readFileSync(new URL(`./clean/${name}`, import.meta.url), 'utf8');
const ordinary = () =>
  buildRequest({
    lesson: 'ordinary',
    files: { 'ordinary.py': file('ordinary.py') },
    source: 'ordinary.py',
    symbol: 'ordinary',
    harness: { file: 'harness.py', code: 'from ordinary import ordinary, fingerprint\noutcome = [ordinary({"items": [1, 2]}), fingerprint()]\n' },
    inputs: {},
  });
const misbehave = (fn: string) =>
  buildRequest({
    lesson: 'misbehaving',
    // a same-named module as the ordinary lesson's, as in two lessons of one page
    files: { 'misbehaving.py': file('misbehaving.py'), 'ordinary.py': 'def ordinary(data):\n    return "the wrong lesson"\n' },
    source: 'misbehaving.py',
    symbol: fn,
    harness: { file: 'harness.py', code: `import misbehaving\noutcome = misbehaving.${fn}()\n` },
    inputs: {},
  });

/** The trace without what legitimately differs between two Pythons (the random draw, timing). */
const comparable = (t: Trace) => JSON.stringify({ ...t, stats: undefined }).replace(/"t":"float","v":[0-9.e-]+/g, '"t":"float"');

let shared: NodeRunner;
let clean: Trace;
beforeAll(async () => {
  shared = await nodeRunner();
  clean = shared.run(ordinary());
});

describe('a misbehaving lesson leaves nothing for the next run', () => {
  it.each(['patch_deepcopy', 'patch_len', 'patch_json', 'replace_module', 'mutate_tables', 'reach_recorder', 'write_files', 'plant_bytecode', 'change_process', 'exit_now', 'import_js'])('%s', (fn) => {
    const bad = shared.run(misbehave(fn));
    expect(bad.steps.length).toBeGreaterThan(0);
    const after = shared.run(ordinary());
    expect(after.error).toBeUndefined();
    expect({ ...after, stats: undefined }).toEqual({ ...clean, stats: undefined });
  });

  it('the ordinary lesson gives the same trace in a fresh Python (but for its random draw)', async () => {
    const fresh = await nodeRunner();
    expect(comparable(fresh.run(ordinary()))).toBe(comparable(clean));
  });

  it('lesson code cannot import the JavaScript bridge or the recorder', () => {
    const trace = shared.run(misbehave('import_js'));
    expect(trace.error).toMatchObject({ type: 'ImportError', message: expect.stringContaining('js is not available to lesson code') });
    expect(plain(clean.outcome!)).toMatchObject([expect.anything(), { tracer_hidden: true, gc: true, profile: true }]);
  });

  it('measures what cleaning costs (the bench reports it): a few ms, not a fresh Python', () => {
    const trace = shared.run(ordinary());
    expect(trace.stats.cleanMs).toBeGreaterThan(0);
  });
});

describe('CPython runs leave nothing on the host', () => {
  it('a run has its own folder (lesson, TMPDIR, HOME), removed afterwards', async () => {
    const { existsSync, mkdtempSync, readdirSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { cpythonRun } = await import('./node');
    const parent = mkdtempSync(join(tmpdir(), 'steplight-host-'));
    try {
      const module = 'import os, tempfile\ndef f():\n    a = tempfile.mkstemp()[1]\n    b = os.path.expanduser("~/left.txt")\n    open(b, "w").write("x")\n    open("here.txt", "w").write("x")\n    return [a, b, os.path.abspath("here.txt")]\n';
      const trace = cpythonRun(buildRequest({ lesson: 'host', files: { 'm.py': module }, source: 'm.py', symbol: 'f', harness: { file: 'h.py', code: 'from m import f\noutcome = f()\n' }, inputs: {} }), parent);
      const paths = plain(trace.outcome!) as string[];
      expect(paths).toHaveLength(3);
      for (const path of paths) {
        expect(path.startsWith(parent)).toBe(true);
        expect(existsSync(path)).toBe(false);
      }
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
