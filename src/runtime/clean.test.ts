/**
 * Every run starts clean: a battery of misbehaving lessons, each followed by an ordinary lesson
 * whose trace must be identical to its trace before any misbehaviour (in the same Python) and, but
 * for the random draw, to its trace in a fresh Python.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plain, type Trace } from '../trace/types';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { cpythonHost, cpythonRun, nodeRunner, PYODIDE_INDEX_URL, TRACER_PATH, tracerSource, type CpythonHost, type NodeRunner } from './node';
import { createRunner, memorySnapshot, type Runner } from './runner';
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
const BATTERY = ['patch_deepcopy', 'patch_len', 'patch_json', 'replace_module', 'mutate_tables', 'reach_recorder', 'write_files', 'plant_bytecode', 'change_process', 'exit_now', 'import_js', 'plant_folders', 'rename_attribute', 'rename_last_name', 'watch_the_watcher', 'add_audit_hook', 'patch_function', 'tamper_source', 'link_source', 'switch_events_off'];
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
  it.each(BATTERY)('%s', (fn) => {
    const bad = shared.run(misbehave(fn));
    expect(bad.steps.length).toBeGreaterThan(0);
    const after = shared.run(ordinary());
    expect(after.error).toBeUndefined();
    expect({ ...after, stats: undefined }).toEqual({ ...clean, stats: undefined });
  });

  it('the reference recorder\'s runs (lessons:check) are cleaned up after as well', () => {
    shared.reference(misbehave('change_process'));
    shared.reference(misbehave('patch_json'));
    shared.reference(misbehave('add_audit_hook'));
    expect({ ...shared.run(ordinary()), stats: undefined }).toEqual({ ...clean, stats: undefined });
  });

  it('what a lesson\'s monitoring tool switched off (DISABLE) in code that outlives its run is on again for the next run', () => {
    const heard = () => plain(shared.run(misbehave('switch_events_off')).outcome!) as number;
    const first = heard();
    expect(first).toBeGreaterThan(3);
    expect([heard(), heard()]).toEqual([first, first]);
  });

  it('an audit hook a lesson adds hears its own run, as in Python, and no later run', () => {
    expect(shared.run(misbehave('add_audit_hook')).stdout).toBe('audited\n');
    expect(shared.reference(misbehave('add_audit_hook')).stdout).toBe('audited\n');
    expect(shared.run(ordinary()).stdout).toBe(clean.stdout);
  });

  it('a lesson the host is done with is forgotten (lessons:check): its folder goes, and a later run writes it again', () => {
    const request = ordinary();
    shared.forget(request.root);
    expect(shared.run(ordinary()).error).toBeUndefined();
    expect({ ...shared.run(ordinary()), stats: undefined }).toEqual({ ...clean, stats: undefined });
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

/**
 * Questions about the tracer's baseline in a Python, asked without binding a name anywhere: `ask` a
 * Python expression (`st` is the tracer), `watched` whether a module's namespace is in the group the
 * dict watcher watches.
 */
function baselineOf(python: () => PyodideAPI) {
  const ask = (expression: string) => python().runPython(`(lambda st: ${expression})(steplight_tracer)`) as unknown;
  const watched = (module: string) => ask(`id(__import__("sys").modules["${module}"].__dict__) in set(map(id, st.BASELINE.steady.watched))`);
  return { ask, watched };
}

describe('where Python has dict watchers (Pyodide): namespaces are watched, not read', () => {
  let py: PyodideAPI;
  let runner: Runner;
  let first: Omit<Trace, 'stats'>;
  const { ask, watched } = baselineOf(() => py);
  const cleaned = (request: ReturnType<typeof ordinary>) => {
    const { stats: _, ...trace } = runner.run(request);
    runner.clean();
    return trace;
  };
  beforeAll(async () => {
    // as the page's worker loads it on a first visit: able to take a memory snapshot
    py = await loadPyodide({ indexURL: PYODIDE_INDEX_URL, _makeSnapshot: true } as object);
    runner = createRunner(py, tracerSource());
    first = cleaned(ordinary());
    for (let i = 0; i < 8; i++) cleaned(ordinary());
  }, 120_000);

  it('after a few runs a clean reads no namespace: what the runner patches and puts back itself is checked one by one', () => {
    expect(ask('len(st.BASELINE.steady.watched)')).toBeGreaterThan(1000);
    expect([watched('json'), watched('string'), watched('sys')]).toEqual([true, true, false]);
    runner.run(ordinary());
    expect(ask('st.BASELINE.steady.unchanged()')).toBe(true);
    runner.clean();
  });

  it('a watched namespace that changes (the same length and values, one name renamed) fails the check, is put back, and is checked one by one from then on', () => {
    runner.run(misbehave('rename_last_name'));
    expect(ask('st.BASELINE.steady.unchanged()')).toBe(false);
    runner.clean();
    expect(watched('json')).toBe(false);
    expect(cleaned(ordinary())).toEqual(first);
  });

  it('noticing a change runs no Python code: a profile function of the lesson\'s own sees no call of the recorder\'s', () => {
    expect(watched('string')).toBe(true);
    const trace = cleaned(misbehave('watch_the_watcher'));
    expect(trace.error).toBeUndefined();
    expect(plain(trace.outcome!)).toEqual([]);
    expect(cleaned(ordinary())).toEqual(first);
  });

  it('a memory snapshot lets go of the watcher; the next clean checks everything and watches again', () => {
    memorySnapshot(py as Parameters<typeof memorySnapshot>[0]);
    expect(ask('st.BASELINE.steady is None and st.BASELINE.watcher is None')).toBe(true);
    expect(cleaned(misbehave('rename_attribute')).steps.length).toBeGreaterThan(0);
    expect(cleaned(ordinary())).toEqual(first);
    expect(ask('len(st.BASELINE.steady.watched)')).toBeGreaterThan(1000);
  });
});

describe('the watcher hears every namespace a run changes', () => {
  let py: PyodideAPI;
  let runner: Runner;
  const { ask, watched } = baselineOf(() => py);
  /** The modules whose namespaces the watcher heard changing since the group was last settled. */
  const heard = () => ask('sorted(n for n, m in list(__import__("sys").modules.items()) if type(m) is type(st) and any(e[0] is m.__dict__ for e in st.BASELINE.steady.heard()))') as { toJs(): string[] };
  beforeAll(async () => {
    py = await loadPyodide({ indexURL: PYODIDE_INDEX_URL });
    runner = createRunner(py, tracerSource());
  }, 120_000);

  it('one clean learns them all (the runner patches sys, os, time and puts them back): the group loses them without being made anew, and the next run changes nothing in it', () => {
    runner.run(ordinary());
    runner.clean(); // the first clean makes the group
    const group = ask('id(st.BASELINE.steady)');
    expect([watched('sys'), watched('os'), watched('time')]).toEqual([true, true, true]);
    runner.run(ordinary());
    expect(heard().toJs()).toEqual(expect.arrayContaining(['os', 'sys', 'time']));
    runner.clean();
    expect(ask('id(st.BASELINE.steady)')).toBe(group);
    expect([watched('sys'), watched('os'), watched('time'), watched('json')]).toEqual([false, false, false, true]);
    runner.run(ordinary());
    expect(ask('st.BASELINE.steady.unchanged()')).toBe(true);
    runner.clean();
  });

  it('what it keeps is one entry per namespace, however often a run changes one; the change is put back', () => {
    const churn = buildRequest({
      lesson: 'churn',
      files: { 'churn.py': 'import string\n\ndef churn():\n    for i in range(5000):\n        string.churned = i\n    return i\n' },
      source: 'churn.py',
      symbol: 'churn',
      harness: { file: 'harness.py', code: 'from churn import churn\noutcome = churn()\n' },
      inputs: {},
    });
    expect(watched('string')).toBe(true);
    expect(runner.run(churn).error).toBeUndefined();
    expect(heard().toJs()).toContain('string');
    expect(ask('len(st.BASELINE.watcher.heard)')).toBeLessThan(10);
    runner.clean();
    expect(ask('hasattr(__import__("string"), "churned")')).toBe(false);
    expect(watched('string')).toBe(false);
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

describe('one CPython for many runs (lessons:check): every run starts clean there too', () => {
  let host: CpythonHost;
  let first: Trace;
  beforeAll(async () => {
    host = cpythonHost();
    first = await host.run(ordinary());
    expect(first.error).toBeUndefined();
  });
  afterAll(() => host.close());

  it.each(BATTERY)('%s', async (fn) => {
    const bad = await host.run(misbehave(fn));
    expect(bad.steps.length).toBeGreaterThan(0);
    const after = await host.run(ordinary());
    expect(after.error).toBeUndefined();
    expect({ ...after, stats: undefined }).toEqual({ ...first, stats: undefined });
    expect(host.started).toBe(1);
  });

  it('the reference recorder\'s runs are cleaned up after as well', async () => {
    await host.reference(misbehave('change_process'));
    await host.reference(misbehave('patch_json'));
    expect((await host.reference(misbehave('add_audit_hook'))).stdout).toBe('audited\n');
    expect({ ...(await host.run(ordinary())), stats: undefined }).toEqual({ ...first, stats: undefined });
  });

  it('a lesson the host is done with is forgotten, and a later run writes it again', async () => {
    await host.forget(ordinary().root);
    expect({ ...(await host.run(ordinary())), stats: undefined }).toEqual({ ...first, stats: undefined });
  });

  it('the ordinary lesson gives the same trace as in a CPython of its own (but for its random draw)', () => {
    expect(comparable(cpythonRun(ordinary()))).toBe(comparable(first));
  });

  it('lesson code cannot reach the requests or the results: file descriptors 0 and 1 go nowhere', async () => {
    const code = 'import os\ndef f():\n    os.write(1, b"{\\"forged\\": true}\\n")\n    return os.read(0, 100)\n';
    const trace = await host.run(buildRequest({ lesson: 'fds', files: { 'm.py': code }, source: 'm.py', symbol: 'f', harness: { file: 'h.py', code: 'from m import f\noutcome = f()\n' }, inputs: {} }));
    expect(trace.error).toBeUndefined();
    expect(plain(trace.outcome!)).toBe("b''");
    expect((await host.run(ordinary())).error).toBeUndefined();
  });

  it('a lesson that ignores every interrupt: its process is ended, the run says Timeout, the next run gets a fresh CPython', async () => {
    const code = 'def spin():\n    while True:\n        try:\n            while True:\n                pass\n        except KeyboardInterrupt:\n            pass\n\ndef f():\n    spin()\n';
    const trace = await host.run(buildRequest({ lesson: 'stubborn', files: { 'm.py': code }, source: 'm.py', symbol: 'f', harness: { file: 'h.py', code: 'from m import f\nf()\n' }, inputs: {} }, { timeoutMs: 300 }));
    expect(trace.error).toMatchObject({ type: 'Timeout', message: expect.stringContaining('CPython ignored every interrupt') });
    expect(comparable(await host.run(ordinary()))).toBe(comparable(first)); // a fresh CPython: its own random draw
    expect(host.started).toBe(2);
  }, 60_000);

  it('a lesson that kills its own process: that run fails with a clear message, the next one runs', async () => {
    const code = 'import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGKILL)\n';
    const request = buildRequest({ lesson: 'killer', files: { 'm.py': code }, source: 'm.py', symbol: 'f', harness: { file: 'h.py', code: 'from m import f\nf()\n' }, inputs: {} });
    await expect(host.run(request)).rejects.toThrow(/CPython stopped \(SIGKILL\)/);
    expect((await host.run(ordinary())).error).toBeUndefined();
  }, 60_000);

  it('closing answers what was asked before: a request nobody awaited is answered, not left to its timer', async () => {
    const other = cpythonHost();
    let answered: Trace | null = null;
    const asked = other.run(ordinary()).then((trace) => (answered = trace));
    await other.close();
    expect(answered).not.toBeNull(); // answered by the time close() is done
    expect((await asked).error).toBeUndefined();
    await expect(other.run(ordinary())).rejects.toThrow(/closed/);
  });

  it('requests are written as they are asked: those behind one whose process ends are answered by a fresh CPython', async () => {
    const lesson = (name: string, code: string, timeoutMs?: number) =>
      buildRequest({ lesson: name, files: { 'm.py': code }, source: 'm.py', symbol: 'f', harness: { file: 'h.py', code: 'from m import f\nf()\n' }, inputs: {} }, timeoutMs ? { timeoutMs } : {});
    const killer = lesson('killer', 'import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGKILL)\n');
    const stubborn = lesson('stubborn', 'def spin():\n    while True:\n        try:\n            while True:\n                pass\n        except KeyboardInterrupt:\n            pass\n\ndef f():\n    spin()\n', 300);
    const before = host.started;
    const answers = await Promise.allSettled([host.run(ordinary()), host.run(killer), host.run(ordinary()), host.run(stubborn), host.run(ordinary()), host.run(ordinary())]);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const [first, killed, second, timedOut, ...rest] = answers.map((a) => (a.status === 'fulfilled' ? a.value : a.reason)) as [Trace, Error, Trace, Trace, Trace, Trace];
    expect(killed.message).toMatch(/CPython stopped \(SIGKILL\)/);
    expect(timedOut.error).toMatchObject({ type: 'Timeout', message: expect.stringContaining('CPython ignored every interrupt') });
    for (const trace of [first, second, ...rest]) expect(trace.error).toBeUndefined();
    expect(comparable(rest[1]!)).toBe(comparable(first));
    expect(host.started).toBe(before + 2); // one after the kill, one after the timeout
  }, 60_000);
});

/** A CPython that imports the tracer (as serve() does) and runs `driver` on `input`; its JSON answer. */
function driveTracer(driver: string, input: unknown, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): unknown {
  const program = `import json, os, sys\nsys.path.insert(0, ${JSON.stringify(dirname(TRACER_PATH))})\nimport steplight_tracer as T\n${driver}`;
  const result = spawnSync(process.env.PYTHON ?? 'python3', ['-c', program], { input: JSON.stringify(input), encoding: 'utf8', env, timeout: timeoutMs });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('where the quick checks cannot be set up (no _ctypes, another Python)', () => {
  it('every namespace, list and function is checked one by one, and the battery still leaves nothing behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'steplight-noreader-'));
    try {
      for (const sub of ['tmp', 'home', 'lessons']) mkdirSync(join(dir, sub));
      const rooted = (request: ReturnType<typeof ordinary>) => ({ ...request, root: join(dir, 'lessons', request.root.split('/').pop()!) });
      const driver = `
T.address_reader = lambda: None  # before the baseline, so that it stays
T.Baseline.WATCHED = (os.environ["TMPDIR"], os.environ["HOME"])
T.LESSONS.top = os.path.join(os.path.dirname(os.environ["TMPDIR"]), "lessons")  # as serve() does
T.settle()
def main(requests):
    ordinary, bad = requests[0], requests[1:]
    def run(request):
        out = T.run(json.dumps(request))
        T.clean()  # first: until then json.loads meets what the lesson patched (builtins.len)
        trace = json.loads(out)
        trace.pop("stats", None)
        return trace
    first = run(ordinary)
    out = {"reader": T.BASELINE.read is not None, "steady": T.BASELINE.steady is not None, "first_error": first.get("error"), "differ": []}
    for request in bad:
        run(request)
        if run(ordinary) != first:
            out["differ"].append(request["harness"]["code"])
    return out
sys.stdout.write(json.dumps(main(json.loads(sys.stdin.read()))))
`;
      const requests = [rooted(ordinary()), ...BATTERY.filter((fn) => fn !== 'exit_now').map((fn) => rooted(misbehave(fn)))];
      const answer = driveTracer(driver, requests, 120_000, { ...process.env, PYTHONHASHSEED: '0', TMPDIR: join(dir, 'tmp'), HOME: join(dir, 'home') });
      expect(answer).toEqual({ reader: false, steady: false, first_error: null, differ: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the sweep stays in what belongs to the runner', () => {
  // asked of the runner rather than tried: were it wrong, a sweep would empty the folders beside
  it('a CPython given no folder for its lessons sweeps only each lesson\'s own folder, never what is beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'steplight-beside-'));
    try {
      const driver = `
T.Baseline.WATCHED = ()
T.settle()
def main(request):
    T.run(json.dumps(request))
    return sorted(T.LESSONS.tops)
sys.stdout.write(json.dumps(main(json.loads(sys.stdin.read()))))
`;
      const request = { ...ordinary(), root: join(dir, 'lesson') };
      expect(driveTracer(driver, request, 60_000)).toEqual([join(dir, 'lesson')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
