/** The faithful-recording repros, each a test: what the reader sees is what Python did. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLesson } from '../lessons/load';
import { widgetRequest } from '../lessons/run';
import { plain, type Limits, type Trace } from '../trace/types';
import { cpythonRun, nodeRunner, type NodeRunner } from './node';
import { buildRequest } from './request';

let pyodide: NodeRunner;
const temp: string[] = [];
beforeAll(async () => {
  pyodide = await nodeRunner();
});
afterAll(() => temp.forEach((d) => rmSync(d, { recursive: true, force: true })));

const request = (module: string, harness: string, symbol = 'f', limits?: Partial<Limits>) =>
  buildRequest({ lesson: 'faithful', files: { 'm.py': module }, source: 'm.py', symbol, harness: { file: 'h.py', code: harness }, inputs: {} }, limits);

/** The same request under Pyodide and under CPython. */
function both(req: ReturnType<typeof request>): [string, Trace][] {
  const root = mkdtempSync(join(tmpdir(), 'steplight-faithful-'));
  temp.push(root);
  return [
    ['pyodide', pyodide.run(req)],
    ['cpython', cpythonRun(req, root)],
  ];
}
const last = (t: Trace) => t.steps[t.steps.length - 1]!;

describe('an exception leaving the target is recorded as raised', () => {
  it.each([
    ['finally', 'def f():\n    try:\n        1/0\n    finally:\n        pass\n', 'ZeroDivisionError'],
    ['a with block', 'import contextlib\ndef f():\n    with contextlib.nullcontext():\n        raise KeyError("k")\n', 'KeyError'],
    ['a non-matching except', 'def f():\n    try:\n        [].pop()\n    except KeyError:\n        pass\n', 'IndexError'],
    ['a raise in a handler', 'def f():\n    try:\n        1/0\n    except ZeroDivisionError:\n        raise ValueError("v")\n', 'ValueError'],
  ])('through %s', (_what, module, type) => {
    for (const [runtime, trace] of both(request(module, 'from m import f\ntry:\n    f()\nexcept Exception as e:\n    outcome = type(e).__name__\n'))) {
      expect(last(trace), runtime).toMatchObject({ event: 'return', exception: { type } });
      expect(last(trace).value, runtime).toBeUndefined();
      expect(plain(trace.outcome!), runtime).toBe(type);
    }
  });

  it('in a generator closed with close()', () => {
    const module = 'def f():\n    try:\n        yield 1\n    finally:\n        done = True\n';
    for (const [runtime, trace] of both(request(module, 'from m import f\ng = f()\nnext(g)\ng.close()\n'))) {
      expect(last(trace), runtime).toMatchObject({ event: 'return', exception: { type: 'GeneratorExit' } });
    }
  });
});

describe('the traced code is the code on screen', () => {
  const module = [
    'import functools', // 1
    'def deco(fn):', // 2
    '    @functools.wraps(fn)', // 3
    '    def wrapper(*a):', // 4
    '        return fn(*a)', // 5
    '    return wrapper', // 6
    '@deco', // 7
    'def f(x):', // 8
    '    y = x + 1', // 9
    '    return y', // 10
    '@functools.lru_cache', // 11
    'def g(n):', // 12
    '    return n * 2', // 13
    'class C:', // 14
    '    @property', // 15
    '    def p(self):', // 16
    '        return 7', // 17
  ].join('\n');
  it.each([
    ['a decorated function', 'f', 'from m import f\noutcome = f(1)\n', [9, 10], 2],
    ['an lru_cache function', 'g', 'from m import g\noutcome = g(4)\n', [13], 8],
    ['a property getter', 'C.p', 'from m import C\noutcome = C().p\n', [17], 7],
  ])('%s', (_what, symbol, harness, lines, outcome) => {
    for (const [runtime, trace] of both(request(module, harness, symbol))) {
      expect(trace.error, runtime).toBeUndefined();
      expect(trace.steps.filter((s) => s.event === 'line').map((s) => s.line), runtime).toEqual(lines);
      expect(plain(trace.outcome!), runtime).toBe(outcome);
    }
  });
});

it('a call at import time is traced, and its print is captured (the trace CLI prints valid JSON)', () => {
  const module = 'def f(x):\n    print("hello", x)\n    return x\nVALUE = f(3)\n';
  for (const [runtime, trace] of both(request(module, 'import m\noutcome = m.VALUE\n'))) {
    expect(trace.steps.map((s) => s.event), runtime).toEqual(['call', 'line', 'line', 'return']);
    expect(trace.stdout, runtime).toBe('hello 3\n');
  }
  const root = mkdtempSync(join(tmpdir(), 'steplight-cli-'));
  temp.push(root);
  const dir = join(root, 'noisy');
  mkdirSync(dir);
  writeFileSync(join(dir, 'm.py'), module);
  writeFileSync(join(dir, 'h.py'), 'import m\noutcome = m.VALUE\n');
  writeFileSync(join(dir, 'lesson.yaml'), 'title: Noisy\nwidgets:\n  - {id: w, source: m.py, symbol: f, harness: h.py, scenarios: [{id: a, label: A}]}\n');
  writeFileSync(join(dir, 'en.md'), '```debugger\nw\n```\n');
  writeFileSync(join(dir, 'zh.md'), '```debugger\nw\n```\n');
  for (const extra of [[], ['--cpython']]) {
    const cli = spawnSync('node', ['--import', 'tsx', 'scripts/trace.ts', dir, 'w', ...extra], { encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(0);
    expect((JSON.parse(cli.stdout) as Trace).stdout).toBe('hello 3\n');
  }
});

it('inputs keep their types: 12.0 in lesson.yaml is a Python float', () => {
  const root = mkdtempSync(join(tmpdir(), 'steplight-float-'));
  temp.push(root);
  const dir = join(root, 'floats');
  mkdirSync(dir);
  writeFileSync(join(dir, 'm.py'), 'def f(x):\n    return type(x).__name__\n');
  writeFileSync(join(dir, 'h.py'), 'from m import f\noutcome = [f(a), f(b), f(c), f(d), f(e)]\n');
  writeFileSync(join(dir, 'lesson.yaml'), 'title: Floats\nwidgets:\n  - {id: w, source: m.py, symbol: f, harness: h.py, inputs: {a: 12.0, b: 12, c: 1e3, d: .inf, e: 1.5}, scenarios: [{id: a, label: A}]}\n');
  writeFileSync(join(dir, 'en.md'), '```debugger\nw\n```\n');
  writeFileSync(join(dir, 'zh.md'), '```debugger\nw\n```\n');
  const lesson = loadLesson(dir);
  const req = widgetRequest(lesson.files, lesson.widgets[0]!);
  for (const [runtime, trace] of both(req)) expect(plain(trace.outcome!), runtime).toEqual(['float', 'int', 'float', 'float', 'float']);
});

describe('the recorder never changes what lesson code does', () => {
  it('a module whose __name__ was deleted, and an exception whose argument cannot be printed', () => {
    const module = 'import types\ndef f():\n    mod = types.ModuleType("x")\n    del mod.__name__\n    b = 2\n    return b\nclass U:\n    def __str__(self):\n        raise RuntimeError("no")\ndef g():\n    raise ValueError(U())\n';
    for (const [runtime, trace] of both(request(module, 'from m import f\noutcome = f()\n'))) {
      expect(plain(trace.outcome!), runtime).toBe(2);
      const mod = trace.steps.filter((s) => s.changes?.mod || s.locals?.mod).map((s) => (s.changes ?? s.locals)!.mod);
      expect(mod, runtime).toEqual([{ t: 'module', name: 'x' }, { t: 'module', name: '?' }]); // before and after `del`
    }
    for (const [runtime, trace] of both(request(module, 'from m import g\ntry:\n    g()\nexcept ValueError as e:\n    outcome = "ValueError"\n', 'g'))) {
      expect(plain(trace.outcome!), runtime).toBe('ValueError');
      expect(trace.steps.find((s) => s.event === 'exception')?.exception, runtime).toEqual({ type: 'ValueError', message: '<unprintable ValueError>' });
    }
  });

  it('lesson code that turns tracing off, or traces itself, does not end the recording', () => {
    const module = 'import sys\ndef f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n';
    const off = 'import sys\nfrom m import f\nsys.settrace(None)\noutcome = f(3)\n';
    const own = 'import sys\nfrom m import f\nseen = []\ndef mine(frame, event, arg):\n    seen.append(event)\n    return None\nsys.settrace(mine)\nf(2)\nok = sys.gettrace() is mine\nsys.settrace(None)\noutcome = [ok, seen]\n';
    const plainRun = (n: number) => pyodide.run(request(module, `from m import f\noutcome = f(${n})\n`)).steps;
    for (const [runtime, trace] of both(request(module, off))) {
      expect(trace.truncated, runtime).toBeUndefined();
      expect(trace.steps, runtime).toEqual(plainRun(3));
    }
    for (const [runtime, trace] of both(request(module, own))) {
      expect(plain(trace.outcome!), runtime).toEqual([true, ['call']]); // what the lesson's tracer sees with no recorder
      expect(trace.steps, runtime).toEqual(plainRun(2));
    }
  });
});

describe('say what happened', () => {
  it('a KeyboardInterrupt the lesson raises is reported as such, not as a time-out', () => {
    for (const [runtime, trace] of both(request('def f():\n    raise KeyboardInterrupt("by hand")\n', 'from m import f\nf()\n'))) {
      expect(trace.error, runtime).toMatchObject({ type: 'KeyboardInterrupt', message: 'by hand' });
      expect(trace.truncated, runtime).toBeUndefined();
    }
  });

  it('time.sleep longer than the time limit is interrupted (this test would outlast its own timeout otherwise)', () => {
    for (const [runtime, trace] of both(request('import time\ndef f():\n    time.sleep(120)\n    return 1\n', 'from m import f\noutcome = f()\n', 'f', { timeoutMs: 300 }))) {
      expect(trace.error?.type, runtime).toBe('Timeout');
      expect(trace.steps.length, runtime).toBeGreaterThan(0);
    }
  });

  it('a target run in a thread (CPython) is recorded', () => {
    const harness = 'import threading\nfrom m import f\nbox = []\nt = threading.Thread(target=lambda: box.append(f(2)))\nt.start()\nt.join()\noutcome = box\n';
    const root = mkdtempSync(join(tmpdir(), 'steplight-thread-'));
    temp.push(root);
    const trace = cpythonRun(request('def f(x):\n    y = x * 2\n    return y\n', harness), root);
    expect(plain(trace.outcome!)).toEqual([4]);
    expect(trace.steps.map((s) => s.event)).toEqual(['call', 'line', 'line', 'return']);
  });

  it('os._exit ends the run with a clear error and the steps before it, in both runtimes', () => {
    const module = 'import os\ndef f():\n    print("before")\n    os._exit(3)\n    print("after")\n';
    const harness = 'from m import f\ntry:\n    f()\nexcept BaseException:\n    print("caught")\noutcome = "unreachable"\n';
    for (const [runtime, trace] of both(request(module, harness))) {
      expect(trace.error, runtime).toMatchObject({ type: 'SystemExit', message: expect.stringContaining('os._exit(3)') });
      expect(trace.stdout, runtime).toBe('before\n');
      expect(trace.outcome, runtime).toBeUndefined();
      expect(trace.steps.filter((s) => s.event === 'line').map((s) => s.line), runtime).toEqual([3, 4]);
    }
    expect(plain(pyodide.run(request('def f():\n    return 1\n', 'from m import f\noutcome = f()\n')).outcome!)).toBe(1);
  });

  it('a lone surrogate string gives the same trace under CPython as under Pyodide', () => {
    const [py, cp] = both(request('def f():\n    s = "\\ud800"\n    return s\n', 'from m import f\noutcome = f()\n')).map(([, trace]) => trace) as [Trace, Trace];
    expect(cp.steps).toEqual(py.steps);
    expect(cp.outcome).toEqual({ t: 'str', v: '\ud800' });
  });

  it('input() fails at once with a clear error instead of waiting for a keyboard', () => {
    for (const [runtime, trace] of both(request('def f():\n    name = input("name? ")\n    return name\n', 'from m import f\noutcome = f()\n'))) {
      expect(trace.error, runtime).toMatchObject({ type: 'EOFError', message: expect.stringContaining('no keyboard') });
    }
  });
});
