/** lessons:check as an author meets it: each kind of mistake gives one clear line. Real CPython and Pyodide. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpythonHost, cpythonRun, nodeRunner, type NodeRunner } from '../runtime/node';
import { once, pyodideThread } from '../runtime/pyodide-thread';
import { buildRequest, lessonRoot } from '../runtime/request';
import type { RunRequest } from '../trace/types';
import { checkLessons } from './check';
import { checkInParallel, jobsFor } from './parallel';
import { watchLessons } from './watch';

let pyodide: NodeRunner;
const made: string[] = [];
beforeAll(async () => {
  pyodide = await nodeRunner();
});
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function lessonDir(yaml: string, files: Record<string, string>, id = 'demo'): string {
  const root = mkdtempSync(join(tmpdir(), 'steplight-check-test-'));
  made.push(root);
  const dir = join(root, id);
  const all: Record<string, string> = { 'lesson.yaml': yaml, 'en.md': '```debugger\nw\n```\n', 'zh.md': '```debugger\nw\n```\n', ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const yaml = (scenarios: string) => `title: Demo\nwidgets:\n  - id: w\n    source: m.py\n    symbol: f\n    harness: h.py\n    scenarios:\n${scenarios}`;

async function check(dir: string) {
  const lines: string[] = [];
  const result = await checkLessons([dir], pyodide, (line) => lines.push(line));
  return { ...result, lines };
}

describe('lessons:check messages', () => {
  it('a wrong expect shows a structural diff, one line per difference', async () => {
    const dir = lessonDir(yaml('      - {id: a, label: A, expect: {outcome: {blocked: null, warnings: [x, y]}}}\n'), {
      'm.py': 'def f():\n    return {"blocked": "no", "warnings": ["x"]}\n',
      'h.py': 'from m import f\noutcome = f()\n',
    });
    const { failed, lines } = await check(dir);
    expect(failed).toBe(2); // CPython and Pyodide
    const text = lines.join('\n');
    expect(text).toContain('outcome.blocked: expected null, got "no"');
    expect(text).toContain('outcome.warnings[1]: expected "y", missing');
  });

  it('a harness that never sets outcome says so', async () => {
    const dir = lessonDir(yaml('      - {id: a, label: A, expect: {outcome: 1}}\n'), { 'm.py': 'def f():\n    return 1\n', 'h.py': 'from m import f\nresult = f()\n' });
    const { lines } = await check(dir);
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([
      'FAIL demo/w#a (cpython): the harness never set `outcome` (assign the result to a variable named outcome)',
      'FAIL demo/w#a (pyodide): the harness never set `outcome` (assign the result to a variable named outcome)',
    ]);
  });

  it('one syntax error is reported once, not once per scenario and runtime', async () => {
    const scenarios = ['a', 'b', 'c', 'd'].map((id) => `      - {id: ${id}, label: ${id}, expect: {outcome: 1}}\n`).join('');
    const dir = lessonDir(yaml(scenarios), { 'm.py': 'def f():\n    return 1\n', 'h.py': 'from m import f\noutcome = f(\n' });
    const { failed, lines } = await check(dir);
    const fails = lines.filter((l) => l.startsWith('FAIL'));
    expect(fails.filter((l) => l.includes('SyntaxError'))).toHaveLength(2); // the first run, and the summary of the rest
    expect(fails[0]).toMatch(/^FAIL demo\/w#a \(cpython\): unexpected error SyntaxError/);
    expect(fails[1]).toBe(`FAIL demo: 7 more runs failed with the same SyntaxError: ${fails[0]!.split('SyntaxError: ')[1]}`);
    expect(failed).toBe(8);
  });

  it('Python\'s own ast is asked where the symbol is, and a syntax error in the source is named with its line', async () => {
    const dir = lessonDir(yaml('      - {id: a, label: A, expect: {outcome: 1}}\n'), { 'm.py': 'def f():\n    return 1\n\ndef g(:\n    pass\n', 'h.py': 'from m import f\noutcome = f()\n' });
    const { lines } = await check(dir);
    expect(lines[0]).toMatch(/^FAIL demo: syntax error in m\.py line 4: \w/); // the message is CPython's own
  });

  it('a scenario without expect passes with a warning', async () => {
    const dir = lessonDir(yaml('      - {id: a, label: A}\n'), { 'm.py': 'def f():\n    return 1\n', 'h.py': 'from m import f\noutcome = f()\n' });
    const { passed, failed, warnings, lines } = await check(dir);
    expect({ passed, failed, warnings }).toEqual({ passed: 2, failed: 0, warnings: 1 });
    expect(lines[0]).toBe('warn demo/w#a: no expect, so the scenario is run but nothing is checked (add expect: {outcome: …})');
  });

  it('fails a lesson whose trace disagrees with the independent reference recorder', async () => {
    const dir = lessonDir(yaml('      - {id: a, label: A, expect: {outcome: 3}}\n'), { 'm.py': 'def f():\n    x = 1\n    return x + 2\n', 'h.py': 'from m import f\noutcome = f()\n' });
    // the real runner, with one recorded line number shifted, as a recorder bug would
    const skewed: NodeRunner = Object.assign(Object.create(pyodide) as NodeRunner, {
      run: (request: Parameters<NodeRunner['run']>[0]) => {
        const trace = pyodide.run(request);
        trace.steps[1] = { ...trace.steps[1]!, line: trace.steps[1]!.line + 1 };
        return trace;
      },
    });
    const lines: string[] = [];
    const result = await checkLessons([dir], skewed, (line) => lines.push(line));
    expect(result.failed).toBe(1);
    expect(lines).toContain('FAIL demo/w#a (pyodide): the trace disagrees with the independent reference recorder: step 2: line 3 in the trace, 2 in the reference (please report this: the recorder is wrong)');
  });
});

describe("Pyodide's reference run", () => {
  it('is skipped when Pyodide recorded exactly what CPython recorded and the reference vouched for, and run when the runtimes differ', async () => {
    const scenarios = `      - {id: same, label: same, inputs: {show: false}, expect: {outcome: 3}}\n      - {id: apart, label: apart, inputs: {show: true}, expect: {outcome: 3}}\n`;
    const dir = lessonDir(yaml(scenarios), {
      'm.py': 'import sys\ndef f(show):\n    x = 1\n    where = sys.platform if show else "-"\n    return x + 2\n',
      'h.py': 'from m import f\noutcome = f(show)\n',
    });
    const asked: string[] = [];
    const counting: NodeRunner = Object.assign(Object.create(pyodide) as NodeRunner, {
      reference: (request: Parameters<NodeRunner['reference']>[0]) => {
        asked.push(request.harness.code.includes('show = True') ? 'apart' : 'same');
        return pyodide.reference(request);
      },
    });
    const lines: string[] = [];
    const result = await checkLessons([dir], counting, (line) => lines.push(line));
    expect(result).toMatchObject({ passed: 4, failed: 0 });
    expect(lines).toContain('ok   demo/w#same (pyodide): 5 steps, the same trace as CPython');
    expect(lines.find((l) => l.startsWith('ok   demo/w#apart (pyodide)'))).not.toContain('the same trace');
    expect(asked).toEqual(['apart']); // sys.platform is 'emscripten' in Pyodide, 'linux' in CPython
  });
});

describe('one CPython for the whole check', () => {
  it('every scenario of every lesson runs in the same CPython process, and the check still passes', async () => {
    const scenarios = ['a', 'b', 'c'].map((id, i) => `      - {id: ${id}, label: ${id}, inputs: {n: ${i}}, expect: {outcome: ${i + 1}}}\n`).join('');
    const one = lessonDir(yaml(scenarios), { 'm.py': 'def f(n):\n    return n + 1\n', 'h.py': 'from m import f\noutcome = f(n)\n' });
    const two = lessonDir(yaml(scenarios), { 'm.py': 'import os\ndef f(n):\n    os.environ["LEFT"] = "x"\n    return n + 1\n', 'h.py': 'from m import f\noutcome = f(n)\n' });
    const host = cpythonHost();
    try {
      const lines: string[] = [];
      const result = await checkLessons([one, two], pyodide, (line) => lines.push(line), host);
      expect(result, lines.join('\n')).toMatchObject({ passed: 12, failed: 0 });
      expect(host.started).toBe(1);
    } finally {
      await host.close();
    }
  });
});

describe('Pyodide in a thread of its own (the script\'s check)', () => {
  it('gives the same lines as Pyodide in this thread, the check starting while it is still starting', async () => {
    const scenarios = ['a', 'b', 'c'].map((id, i) => `      - {id: ${id}, label: ${id}, inputs: {n: ${i}}, expect: {outcome: ${i + 1}}}\n`).join('');
    const files = { 'm.py': 'import sys\ndef f(n):\n    where = sys.platform\n    return n + 1\n', 'h.py': 'from m import f\noutcome = f(n)\n' };
    const dirs = [lessonDir(yaml(scenarios), files, 'l1-right'), lessonDir(yaml(scenarios), { ...files, 'm.py': 'def f(n):\n    return n\n' }, 'l2-wrong')];
    const here: string[] = [];
    const expected = await checkLessons(dirs, pyodide, (line) => here.push(line));
    const there: string[] = [];
    const thread = once(pyodideThread()); // not ready yet: CPython begins meanwhile
    try {
      const result = await checkLessons(dirs, thread, (line) => there.push(line));
      expect(there).toEqual(here);
      expect(result).toMatchObject({ passed: expected.passed, failed: expected.failed, scenarios: 6 });
      expect(expected).toMatchObject({ passed: 6, failed: 6 });
    } finally {
      await thread.close();
    }
    await expect(thread.forget(lessonRoot('l1-right'))).rejects.toThrow('this Pyodide thread was closed');
  });

  it('answers as the runner in this thread does: a run that fails, a request Python throws on, then runs again', async () => {
    const request = (harness: string, files: Record<string, string> | null = { 'm.py': 'def f():\n    return 1\n' }) =>
      ({ root: lessonRoot('thread-demo'), files, target: { file: 'm.py', symbol: 'f' }, harness: { file: 'h.py', code: harness } }) as RunRequest;
    const thread = await pyodideThread();
    try {
      const broken = request('from m import f\noutcome = f(\n');
      const [here, there] = [pyodide.run(broken), await thread.run(broken)];
      expect(there.error).toMatchObject({ type: 'SyntaxError' });
      expect(there.error).toEqual(here.error);
      const unreadable = request('outcome = 1\n', null); // the reference recorder reads request.files: Python raises
      expect(() => pyodide.reference(unreadable)).toThrow(/AttributeError/);
      await expect(thread.reference(unreadable)).rejects.toThrow(/AttributeError/);
      expect((await thread.run(request('from m import f\noutcome = f()\n'))).outcome).toMatchObject({ t: 'int', v: 1 });
    } finally {
      await thread.close();
    }
  });
});

describe('lessons:check --watch', () => {
  it('checks a lesson again when one of its files is saved, with the Pythons already up', async () => {
    const dir = lessonDir(yaml('      - {id: a, label: A, expect: {outcome: 2}}\n'), { 'm.py': 'def f():\n    return 2\n', 'h.py': 'from m import f\noutcome = f()\n' }, 'watched');
    const host = cpythonHost();
    const lines: string[] = [];
    const watching = watchLessons([dir], pyodide, host, (line) => lines.push(line), 50);
    /** Save m.py, then wait for the check that sees it (a save can come as more than one change). */
    const save = async (text: string, expected: RegExp) => {
      const from = lines.length;
      writeFileSync(join(dir, 'm.py'), text);
      for (let waited = 0; !lines.slice(from).some((l) => expected.test(l)); waited += 50) {
        if (waited > 60_000) throw new Error(`no check after the save: ${lines.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await watching.idle();
      return lines.slice(from);
    };
    try {
      expect(lines[0]).toBe('watching 1 lesson: a saved file checks its lesson again (Ctrl-C to stop)');
      const broken = await save('def f():\n    return 3\n', /^lessons:check watched: 0 passed, 2 failed in [\d.]+ s; watching for changes$/);
      expect(broken.filter((l) => l.startsWith('FAIL watched/w#a')).length).toBeGreaterThanOrEqual(2);
      await save('def f():\n    return 2\n', /^lessons:check watched: 2 passed, 0 failed in [\d.]+ s; watching for changes$/);
      expect(host.started).toBe(1); // the same CPython throughout
    } finally {
      watching.close();
      await host.close();
    }
  });
});

describe('a check on several workers', () => {
  it('prints each lesson\'s lines together and in the lessons\' order, whichever worker finished first, and adds up the counts', async () => {
    const scenarios = ['a', 'b'].map((id, i) => `      - {id: ${id}, label: ${id}, inputs: {n: ${i}}, expect: {outcome: ${i + 1}}}\n`).join('');
    const files = { 'm.py': 'def f(n):\n    return n + 1\n', 'h.py': 'from m import f\noutcome = f(n)\n' };
    // the first lesson takes longest (a long loop before each run's call), so another worker finishes first
    const slow = lessonDir(yaml(scenarios), { ...files, 'h.py': 'from m import f\nfor i in range(3_000_000):\n    pass\noutcome = f(n)\n' }, 'l1-slow');
    const fast = lessonDir(yaml(scenarios), files, 'l2-fast');
    const wrong = lessonDir(yaml(scenarios), { ...files, 'm.py': 'def f(n):\n    return n + 2\n' }, 'l3-wrong');
    const lines: string[] = [];
    const result = await checkInParallel([slow, fast, wrong], 2, (line) => lines.push(line));
    expect(result).toMatchObject({ passed: 8, failed: 4, scenarios: 6, workers: 2 });
    const lessons = lines.map((l) => /(l\d)-/.exec(l)?.[1]);
    expect(lessons).toEqual([...Array(4).fill('l1'), ...Array(4).fill('l2'), ...Array(4).fill('l3')]);
    expect(lines.slice(0, 4).every((l) => l.startsWith('ok   l1-slow/w#'))).toBe(true);
    expect(lines.filter((l) => l.startsWith('FAIL l3-wrong/w#'))).toHaveLength(4);
  });

  it('runs a small check in one thread, a large one on a worker per two cores, never more workers than lessons', () => {
    expect(jobsFor(2, () => 30, 0, 8)).toBe(1);
    expect(jobsFor(50, () => 894, 0, 2)).toBe(1); // a worker's Pyodide and CPython already keep two cores busy
    expect(jobsFor(50, () => 894, 0, 8)).toBe(4);
    expect(jobsFor(50, () => 894, 3, 2)).toBe(3); // STEPLIGHT_JOBS
    expect(jobsFor(3, () => 894, 0, 16)).toBe(3);
    // with fewer than four cores or one lesson the answer is one worker, and no lesson is read to count scenarios
    const uncounted = () => {
      throw new Error('scenarios counted');
    };
    expect([jobsFor(50, uncounted, 0, 2), jobsFor(1, uncounted, 0, 16)]).toEqual([1, 1]);
  });
});

describe('the CPython host', () => {
  it('stops an infinite loop at the time limit with a Timeout, keeping the steps before it, as under Pyodide', () => {
    const request = buildRequest(
      { lesson: 'loop', files: { 'm.py': 'def f():\n    return 1\n' }, source: 'm.py', symbol: 'f', harness: { file: 'h.py', code: 'from m import f\noutcome = f()\nwhile True:\n    pass\n' }, inputs: {} },
      { timeoutMs: 300 },
    );
    const root = mkdtempSync(join(tmpdir(), 'steplight-cpython-'));
    made.push(root);
    const cp = cpythonRun(request, root);
    const py = pyodide.run(request);
    for (const trace of [cp, py]) {
      expect(trace.error).toMatchObject({ type: 'Timeout', message: 'stopped after 300 ms (the time limit)' });
      expect(trace.steps.map((s) => s.event)).toEqual(['call', 'line', 'return']);
    }
  });

  it('kills CPython that swallows every interrupt, and says so', () => {
    const harness = 'import m\nwhile True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n';
    const request = buildRequest({ lesson: 'swallow', files: { 'm.py': 'def f():\n    return 1\n' }, source: 'm.py', symbol: 'f', harness: { file: 'h.py', code: harness }, inputs: {} }, { timeoutMs: 200 });
    const root = mkdtempSync(join(tmpdir(), 'steplight-cpython-'));
    made.push(root);
    const trace = cpythonRun(request, root);
    expect(trace.error).toMatchObject({ type: 'Timeout', message: expect.stringContaining('CPython ignored every interrupt and was killed') });
  });
});
