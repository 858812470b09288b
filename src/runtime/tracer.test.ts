import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRequest, type Json } from './request';
import { cpythonRun, nodeRunner, type NodeRunner } from './node';
import { plain, type Limits, type Step, type Value } from '../trace/types';

let runner: NodeRunner;
beforeAll(async () => {
  runner = await nodeRunner();
});

/** A one-file lesson `m.py` with target `symbol`, and a harness that calls it. */
function request(module: string, harness: string, symbol = 'f', inputs: Record<string, Json> = {}, limits?: Partial<Limits>) {
  return buildRequest({ lesson: 'unit', files: { 'm.py': module, 'h.py': harness }, source: 'm.py', symbol, harness: { file: 'h.py', code: harness }, inputs }, limits);
}

const lines = (steps: Step[]) => steps.filter((s) => s.event === 'line').map((s) => s.line);

describe('tracer under Pyodide', () => {
  it('records call, line and return events of the target only, with real line numbers', () => {
    const trace = runner.run(
      request(
        'def helper(x):\n    return x * 2\n\ndef f(n):\n    total = 0\n    for i in range(n):\n        total += helper(i)\n    return total\n',
        'from m import f\noutcome = f(3)\nprint("done", outcome)\n',
      ),
    );
    expect(trace.error).toBeUndefined();
    expect(trace.target).toMatchObject({ file: 'm.py', symbol: 'f', firstLine: 4, lastLine: 8 });
    expect(trace.steps[0]).toMatchObject({ event: 'call', line: 4, depth: 1 });
    expect(trace.steps[0]!.locals).toEqual({ n: { t: 'int', v: 3 } });
    expect(lines(trace.steps)).toEqual([5, 6, 7, 6, 7, 6, 7, 6, 8]);
    const ret = trace.steps[trace.steps.length - 1]!;
    expect(ret).toMatchObject({ event: 'return', line: 8, value: { t: 'int', v: 6 } });
    expect(trace.outcome).toEqual({ t: 'int', v: 6 });
    expect(trace.stdout).toBe('done 6\n');
    // only what changed is stored: the line after `total = 0` carries just `total`
    expect(trace.steps[2]!.changes).toEqual({ total: { t: 'int', v: 0 } });
    expect(trace.steps.every((s) => s.depth === 1)).toBe(true);
  });

  it('tracks recursion depth and reports exceptions', () => {
    const trace = runner.run(
      request('def f(n):\n    if n == 0:\n        raise ValueError("bottom")\n    return f(n - 1)\n', 'from m import f\ntry:\n    f(2)\nexcept ValueError as e:\n    outcome = str(e)\n'),
    );
    expect(Math.max(...trace.steps.map((s) => s.depth))).toBe(3);
    const exc = trace.steps.find((s) => s.event === 'exception')!;
    expect(exc).toMatchObject({ line: 3, depth: 3, exception: { type: 'ValueError', message: 'bottom' } });
    const returns = trace.steps.filter((s) => s.event === 'return');
    expect(returns).toHaveLength(3);
    expect(returns.every((r) => r.value === undefined && r.exception?.type === 'ValueError')).toBe(true);
    expect(plain(trace.outcome!)).toBe('bottom');
  });

  it('encodes values with ids, truncation and without calling user __repr__', () => {
    const trace = runner.run(
      request(
        [
          'import copy',
          'class Loud:',
          '    def __repr__(self):',
          '        raise RuntimeError("repr must not be called")',
          'def f():',
          '    a = {"k": [1, 2]}',
          '    b = copy.deepcopy(a)',
          '    same = a',
          '    s = "x" * 1000',
          '    big = list(range(1_000_000))',
          '    loop = []',
          '    loop.append(loop)',
          '    obj = Loud()',
          '    obj.tag = "t"',
          '    n = 10 ** 30',
          '    return None',
        ].join('\n'),
        'from m import f\nf()\n',
      ),
    );
    expect(trace.error).toBeUndefined();
    const ret = trace.steps[trace.steps.length - 1]!;
    const final: Record<string, Value> = {};
    for (const s of trace.steps) Object.assign(final, s.locals, s.changes);
    const id = (v: Value | undefined) => (v && 'id' in v ? v.id : undefined);
    expect(id(final.a)).toBe(id(final.same));
    expect(id(final.b)).not.toBe(id(final.a));
    expect(plain(final.b!)).toEqual({ k: [1, 2] });
    expect(final.s).toMatchObject({ t: 'str', len: 1000 });
    expect((final.s as { v: string }).v).toHaveLength(200);
    expect(final.big).toMatchObject({ t: 'list', len: 1_000_000 });
    expect((final.big as { items: Value[] }).items).toHaveLength(50);
    expect(final.loop).toMatchObject({ t: 'list', len: 1, items: [{ t: 'ref', of: 'list' }] });
    expect(final.obj).toMatchObject({ t: 'obj', type: 'Loud', attrs: { tag: { t: 'str', v: 't' } } });
    expect(final.n).toEqual({ t: 'bigint', v: String(10n ** 30n) });
    expect(ret.value).toEqual({ t: 'none' });
  });

  it('stops at the step cap with a partial trace', () => {
    const trace = runner.run(request('def f():\n    while True:\n        pass\n', 'from m import f\nf()\n', 'f', {}, { maxSteps: 500 }));
    expect(trace.steps).toHaveLength(500);
    expect(trace.truncated).toBe('steps');
    expect(trace.error?.type).toBe('StepLimit');
  });

  it('stops runaway target code at the time limit, even when it swallows the stop once', () => {
    const trace = runner.run(
      request('def f():\n    try:\n        while True:\n            pass\n    except BaseException:\n        return "swallowed"\n', 'from m import f\noutcome = f()\n', 'f', {}, { timeoutMs: 200, maxSteps: 10_000_000 }),
    );
    expect(trace.truncated).toBe('time');
    expect(trace.error?.type).toBe('Timeout');
    expect(trace.steps.length).toBeGreaterThan(100);
  });

  it('caps stdout and counts what it dropped', () => {
    const trace = runner.run(request('def f():\n    for i in range(5000):\n        print("line", i)\n', 'from m import f\nf()\n', 'f', {}, { maxStdout: 1000 }));
    expect(trace.stdout).toHaveLength(1000);
    expect(trace.stdoutDropped).toBeGreaterThan(30_000);
    expect(trace.steps[trace.steps.length - 1]!.stdoutLen).toBe(1000);
  });

  it('gives every run fresh lesson modules and files', () => {
    const module = 'count = 0\ndef f():\n    global count\n    count += 1\n    return count\n';
    const first = runner.run(request(module, 'from m import f\noutcome = f()\n'));
    const second = runner.run(request(module, 'from m import f\noutcome = f()\n'));
    expect(plain(first.outcome!)).toBe(1);
    expect(plain(second.outcome!)).toBe(1);
    const changed = runner.run(request(module.replace('count += 1', 'count += 5'), 'from m import f\noutcome = f()\n'));
    expect(plain(changed.outcome!)).toBe(5);
  });

  it('reports harness errors, syntax errors and a missing symbol clearly', () => {
    const boom = runner.run(request('def f():\n    return 1\n', 'from m import f\nf()\n1 / 0\n'));
    expect(boom.error).toMatchObject({ type: 'ZeroDivisionError', frames: [{ file: 'h.py', line: 3 }] });
    const syntax = runner.run(request('def f(:\n    return 1\n', 'from m import f\n'));
    expect(syntax.error?.type).toBe('SyntaxError');
    const missing = runner.run(request('def g():\n    return 1\n', 'pass\n'));
    expect(missing.error).toMatchObject({ type: 'LookupError', message: 'no function f in m.py' });
    // and the runner still works afterwards
    expect(plain(runner.run(request('def f():\n    return 7\n', 'from m import f\noutcome = f()\n')).outcome!)).toBe(7);
  });

  it('prepends inputs as Python assignments', () => {
    const trace = runner.run(request('def f(x):\n    return x\n', 'from m import f\noutcome = f(value)\n', 'f', { value: { a: [true, null, 1.5, 'q"uote'] } }));
    expect(plain(trace.outcome!)).toEqual({ a: [true, null, 1.5, 'q"uote'] });
  });
});

describe('tracer under CPython', () => {
  it('produces the same steps as under Pyodide', () => {
    const req = request('def f(items):\n    out = []\n    for x in items:\n        out.append(x * 2)\n    return out\n', 'from m import f\noutcome = f(xs)\n', 'f', { xs: [1, 2, 3] });
    const root = mkdtempSync(`${tmpdir()}/steplight-unit-`);
    try {
      const cp = cpythonRun(req, root);
      const py = runner.run(req);
      expect(cp.steps).toEqual(py.steps);
      expect(cp.outcome).toEqual(py.outcome);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('isolation between lessons', () => {
  it('two lessons with a same-named package do not see each other', () => {
    const lesson = (name: string, body: string) =>
      buildRequest({ lesson: name, files: { 'core/__init__.py': '', 'core/m.py': body, 'h.py': 'from core.m import f\noutcome = f()\n' }, source: 'core/m.py', symbol: 'f', harness: { file: 'h.py', code: 'from core.m import f\noutcome = f()\n' }, inputs: {} });
    const a = runner.run(lesson('a', 'def f():\n    return "a"\n'));
    const b = runner.run(lesson('b', 'def f():\n    return "b"\n'));
    expect(plain(a.outcome!)).toBe('a');
    expect(plain(b.outcome!)).toBe('b');
    expect(plain(runner.run(lesson('a', 'def f():\n    return "a"\n')).outcome!)).toBe('a');
  });
});

describe('the Node watchdog', () => {
  // "quick" runs take a few ms; their 1 s limit leaves room for a loaded machine
  const quick = (timeoutMs = 1_000) => request('def f():\n    return 1\n', 'from m import f\noutcome = f()\n', 'f', {}, { timeoutMs });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('interrupts an infinite loop in the harness, and the next run works', () => {
    const trace = runner.run(request('def f():\n    return 1\n', 'from m import f\noutcome = f()\nwhile True:\n    pass\n', 'f', {}, { timeoutMs: 300 }));
    expect(trace.error).toMatchObject({ type: 'Timeout', message: expect.stringContaining('300 ms') });
    expect(trace.truncated).toBe('time');
    expect(trace.steps.map((s) => s.event)).toEqual(['call', 'line', 'return']);
    expect(runner.runs.interrupted).toBe(runner.runs.last); // it was this run that was interrupted
    expect(plain(runner.run(request('def f():\n    return 2\n', 'from m import f\noutcome = f()\n')).outcome!)).toBe(2);
  });

  it('interrupts again when the loop swallows the first interrupt', () => {
    const harness = 'from m import f\noutcome = f()\nfor _ in range(3):\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass\nwhile True:\n    pass\n';
    const trace = runner.run(request('def f():\n    return 1\n', harness, 'f', {}, { timeoutMs: 200 }));
    expect(trace.error?.type).toBe('Timeout');
  });

  it('an interrupt that lands in the tracer\'s own set-up or bookkeeping still gives a trace', async () => {
    const own = await nodeRunner({ graceMs: 0, hardMs: 60_000 });
    own.run(quick(60_000));
    // a 0 ms limit: the watchdog interrupts at once, wherever Python is (writing files, importing…)
    // the runner must hand back a trace every time (it threw before); what the trace says is
    // Timeout almost always — once under heavy CI load an interrupt inside Python's own machinery
    // surfaced as another error type, so only "a described error or none" is required here
    for (let i = 0; i < 20; i++) {
      const trace = own.run(quick(0));
      if (trace.error) expect(trace.error.type.length, JSON.stringify(trace.error)).toBeGreaterThan(0);
    }
    expect(plain(own.run(quick(60_000)).outcome!)).toBe(1);
  });

  // The old protocol lost track of runs that ended before the watchdog looked, then interrupted a
  // later, legitimate run at the stale deadline (or ended the process). These are those patterns.
  it('does not interrupt a legitimate run after many quick runs and a pause', async () => {
    const own = await nodeRunner({ graceMs: 100, hardMs: 300 });
    own.run(quick(60_000)); // the first run of a fresh Python imports and compiles: no tight limit
    for (let i = 0; i < 200; i++) expect(own.run(quick()).error).toBeUndefined();
    await sleep(2_000); // every quick run's deadline (1.1 s) is past
    const busy = 'import time\ndef f():\n    end = time.monotonic() + 1.0\n    while time.monotonic() < end:\n        pass\n    return "done"\n';
    const trace = own.run(request(busy, 'from m import f\noutcome = f()\n', 'f', {}, { timeoutMs: 5_000, maxSteps: 100_000_000 }));
    expect(trace.error).toBeUndefined();
    expect(plain(trace.outcome!)).toBe('done');
    expect(own.runs.interrupted).toBe(0);
  });

  it('keeps the process alive when no run is in progress, however long, after quick runs', async () => {
    const own = await nodeRunner({ graceMs: 50, hardMs: 200 });
    own.run(quick(60_000));
    for (let i = 0; i < 30; i++) own.run(quick());
    await sleep(2_500); // past every deadline plus hardMs: the old watchdog ended the process here
    expect(own.runs.interrupted).toBe(0);
    expect(plain(own.run(quick()).outcome!)).toBe(1);
    // and it still stops a runaway run, the right one
    const spin = own.run(request('def f():\n    return 1\n', 'from m import f\nf()\nwhile True:\n    pass\n', 'f', {}, { timeoutMs: 100 }));
    expect(spin.error?.type).toBe('Timeout');
    expect(own.runs.interrupted).toBe(own.runs.last);
  });
});

describe('the tracer\'s own bookkeeping under repeated interrupts', () => {
  // A run that outlived its limit is interrupted again every 200 ms. The bookkeeping after it
  // (cleaning, encoding the trace) used to restart on each KeyboardInterrupt, so work longer than
  // the interval never finished and the watchdog ended the process (seen in CI: a 500 ms clean).
  // work() asks for interrupts every 20 ms while it runs (for 1.5 s at most), and stops them at its end
  const ACTION = 'import time\nstarts = []\ndef work():\n    starts.append(1)\n    begin()\n    end = time.monotonic() + 0.6\n    while time.monotonic() < end:\n        pass\n    stop()\n    return "finished"\n';

  it('Pyodide: work longer than the interval between interrupts runs once, to the end', async () => {
    const { loadPyodide } = await import('pyodide');
    const { Worker } = await import('node:worker_threads');
    const { installTracer } = await import('./runner');
    const { tracerSource } = await import('./node');
    const py = await loadPyodide();
    // slot 0: Pyodide's interrupt buffer; slot 1: 0 idle, 1 interrupting, 2 asked to stop, 3 stopped
    const flags = new Int32Array(new SharedArrayBuffer(8));
    py.setInterruptBuffer(flags.subarray(0, 1));
    installTracer(py, tracerSource());
    const interrupter = new Worker(
      `const { workerData } = require('node:worker_threads'); const f = new Int32Array(workerData);
       Atomics.wait(f, 1, 0); const end = Date.now() + 1500;
       while (Atomics.load(f, 1) === 1 && Date.now() < end) { Atomics.store(f, 0, 2); Atomics.wait(f, 1, 1, 20); }
       Atomics.store(f, 1, 3); Atomics.notify(f, 1);`,
      { eval: true, workerData: flags.buffer },
    );
    py.globals.set('begin', () => {
      if (Atomics.compareExchange(flags, 1, 0, 1) === 0) Atomics.notify(flags, 1);
    });
    py.globals.set('stop', () => {
      if (Atomics.compareExchange(flags, 1, 1, 2) === 1) {
        Atomics.notify(flags, 1);
        Atomics.wait(flags, 1, 2, 10_000);
      }
      Atomics.store(flags, 0, 0);
    });
    py.runPython(ACTION);
    const result = (py.runPython('r = steplight_tracer.uninterrupted(work)\n(r, len(starts), steplight_tracer.STATE.interrupts)') as { toJs(): unknown }).toJs() as [string, number, number];
    await interrupter.terminate();
    expect(result[0]).toBe('finished');
    expect(result[1]).toBe(1); // started once, not restarted by each interrupt
    expect(result[2]).toBeGreaterThan(0); // interrupts did arrive meanwhile
    // outside bookkeeping an interrupt is a KeyboardInterrupt again
    Atomics.store(flags, 0, 2);
    expect(() => py.runPython('while True:\n    pass')).toThrow(/KeyboardInterrupt/);
  });

  it('CPython: the same with real SIGINTs', async () => {
    const { spawnSync } = await import('node:child_process');
    const { TRACER_PATH } = await import('./node');
    const { dirname } = await import('node:path');
    const script = `import sys, threading, signal, time
sys.path.insert(0, ${JSON.stringify(dirname(TRACER_PATH))})
import steplight_tracer
stopping = threading.Event()
def pester():
    end = time.monotonic() + 1.5
    while not stopping.is_set() and time.monotonic() < end:
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(0.02)
pesterer = threading.Thread(target=pester, daemon=True)
def begin():
    if not pesterer.is_alive() and not stopping.is_set():
        pesterer.start()
def stop():
    stopping.set()
    pesterer.join()
${ACTION}
r = steplight_tracer.uninterrupted(work)
print(r, len(starts), steplight_tracer.STATE.interrupts > 0)
`;
    const result = spawnSync(process.env.PYTHON ?? 'python3', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('finished 1 True');
  });
});

describe('prepare', () => {
  it('writes and compiles a lesson ahead of its first run; the run then gives the same trace', () => {
    const req = request('def f(x):\n    return x + 1\n', 'from m import f\noutcome = f(1)\n');
    const cold = runner.run(req);
    const prepared = { ...req, root: `${req.root}-prepared` };
    runner.prepare(prepared);
    const warm = runner.run(prepared);
    expect(warm.steps).toEqual(cold.steps);
    expect(plain(warm.outcome!)).toBe(2);
    runner.prepare({ ...req, root: `${req.root}-broken`, files: { 'm.py': 'def f(:\n' } }); // a syntax error is left to the run
  });
});
