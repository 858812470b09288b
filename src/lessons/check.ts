/** lessons:check as a function (Node only): the script, the unit tests and the bench call it. */
import { cpythonHost, type CpythonHost } from '../runtime/node';
import type { CheckPyodide } from '../runtime/pyodide-thread';
import { lessonRoot } from '../runtime/request';
import { compareWithReference, type ReferenceRun } from '../trace/reference';
import type { RunRequest, Trace } from '../trace/types';
import { loadLesson } from './load';
import { checkExpect, widgetRequest } from './run';
import type { CodeBlock, Lesson, Widget } from './types';

/** Python's own ast says where each symbol starts and ends (asked of the check's CPython); the extractor must agree. */
async function astRanges(lesson: Lesson, blocks: CodeBlock[], cpython: CpythonHost): Promise<string[]> {
  let ranges: Awaited<ReturnType<CpythonHost['symbols']>>;
  try {
    ranges = await cpython.symbols(blocks.map((b) => ({ file: b.file, symbol: b.symbol, text: lesson.files[b.file] ?? '' })));
  } catch (error) {
    return [`ast check failed: ${(error as Error).message}`];
  }
  return blocks.flatMap((b, i) => {
    const r = ranges[i];
    if (typeof r === 'string') return [`syntax error in ${r}`];
    if (!r) return [`${b.file}: Python finds no symbol ${b.symbol}`];
    return r[0] === b.firstLine && r[1] === b.lastLine ? [] : [`${b.file} ${b.symbol}: extracted lines ${b.firstLine}-${b.lastLine}, Python's ast says ${r[0]}-${r[1]}`];
  });
}

export interface CheckResult {
  passed: number;
  failed: number;
  warnings: number;
  /** Scenarios run (each under CPython and Pyodide), the check's wall time, and of it the time Pyodide spent in the traced runs themselves. */
  scenarios: number;
  checkMs: number;
  runMs: number;
}

/**
 * Check lessons: schema, files, symbols (against Python's own ast), and every scenario under CPython
 * and Pyodide against its expect and the independent reference recorder. Prints one line per
 * scenario run (`log`); an error that every run of a lesson shares (a syntax error, a bad import) is
 * reported once. One CPython serves every run (given, or started here and closed at the end); it
 * works on a lesson's scenarios while Pyodide (in this thread, or in a thread of its own) runs them.
 */
export async function checkLessons(dirs: string[], pyodide: CheckPyodide, log: (line: string) => void = console.log, cpython?: CpythonHost): Promise<CheckResult> {
  const host = cpython ?? cpythonHost();
  try {
    return await checkWith(dirs, pyodide, host, log);
  } finally {
    if (!cpython) await host.close();
  }
}

/** A lesson loaded, with what CPython was asked about it (answered in the background, in order). */
interface Asked {
  lesson: Lesson;
  problems: Promise<string[]>;
  runs: { widget: Widget; scenario: Widget['scenarios'][number]; request: RunRequest; onCpython: Promise<Settled<Ran>> }[];
}

/**
 * Load a lesson and ask CPython everything about it at once: where its symbols are, all its runs,
 * then to forget it. CPython takes them one after another, while Pyodide works on a lesson before
 * (so CPython never waits between lessons) and then on this one.
 */
function ask(dir: string, cpython: CpythonHost): Asked | { dir: string; error: Error } {
  let lesson: Lesson;
  try {
    lesson = loadLesson(dir);
  } catch (error) {
    return { dir, error: error as Error };
  }
  const blocks = lesson.widgets.flatMap((w) => [w, ...w.standins]);
  const problems = astRanges(lesson, blocks, cpython);
  const runs = lesson.widgets.flatMap((widget) =>
    widget.scenarios.map((scenario) => {
      const request = widgetRequest(lesson.files, widget, scenario.id);
      return { widget, scenario, request, onCpython: settle(cpython.both(request).then(({ trace, reference }) => ({ trace, reference: () => reference }))) };
    }),
  );
  // done with it once its runs are: each clean walks every lesson folder, so they must not pile up
  void cpython.forget(lessonRoot(lesson.id)).catch(() => {});
  return { lesson, problems, runs };
}

/** How many scenarios CPython may run ahead of the comparisons (their traces wait in memory). */
const AHEAD = 160;

/** A run's trace, and how to get the reference recorder's run of the same request in that runtime. */
type Ran = { trace: Trace; reference: () => ReferenceRun | Promise<ReferenceRun> };

async function checkWith(dirs: string[], pyodide: CheckPyodide, cpython: CpythonHost, log: (line: string) => void): Promise<CheckResult> {
  let failures = 0;
  let passed = 0;
  let warnings = 0;
  let scenarios = 0;
  let runMs = 0;
  const started = performance.now();
  const fail = (where: string, problem: string) => {
    failures++;
    log(`FAIL ${where}: ${problem}`);
  };
  // lessons asked of CPython and not compared yet: always the next one, and more while few
  // scenarios wait (so CPython keeps working while Pyodide starts, or runs a long lesson)
  const ahead: ReturnType<typeof ask>[] = [];
  let toAsk = 0;
  const waiting = () => ahead.reduce((n, a) => n + ('runs' in a ? a.runs.length : 0), 0);
  for (let i = 0; i < dirs.length; i++) {
    while (toAsk < dirs.length && (ahead.length < 2 || waiting() < AHEAD)) ahead.push(ask(dirs[toAsk++]!, cpython));
    const asked = ahead.shift()!;
    if ('error' in asked) {
      fail(asked.dir, asked.error.message);
      continue;
    }
    const { lesson, runs } = asked;
    for (const problem of await asked.problems) fail(lesson.id, problem);
    const repeated = new Map<string, number>(); // a shared error -> how many more runs hit it
    // every run asked at once: a Pyodide in a thread of its own works through them while this
    // thread compares the ones before (in this thread, they run one after another right here)
    const onPyodide = runs.map(({ request }) => settle(Promise.resolve().then(async (): Promise<Ran> => ({ trace: await pyodide.run(request), reference: () => pyodide.reference(request) }))));
    for (const [k, { widget, scenario, onCpython }] of runs.entries()) {
      if (!Object.keys(scenario.expect).length) {
        warnings++;
        log(`warn ${lesson.id}/${widget.id}#${scenario.id}: no expect, so the scenario is run but nothing is checked (add expect: {outcome: …})`);
      }
      // a reference run is only compared when the trace has steps
      const onThisPyodide = await onPyodide[k]!;
      scenarios++;
      if ('value' in onThisPyodide) runMs += onThisPyodide.value.trace.stats.durationMs;
      /** CPython's trace, once it has agreed with the reference recorder there. */
      let vouched: Trace | null = null;
      for (const [engine, outcome] of [
        ['cpython', await onCpython],
        ['pyodide', onThisPyodide],
      ] as const) {
        const where = `${lesson.id}/${widget.id}#${scenario.id} (${engine})`;
        if ('error' in outcome) {
          fail(where, `the run itself failed: ${outcome.error.message}`);
          continue;
        }
        const { trace } = outcome.value;
        const shared = sharedError(trace, lesson);
        if (shared && repeated.has(shared)) {
          repeated.set(shared, repeated.get(shared)! + 1);
          failures++;
          continue;
        }
        const problems = checkExpect(trace, scenario.expect).map((p) => p + asyncHint(p, widget));
        let agreed = '';
        if (!trace.truncated && trace.steps.length) {
          // Pyodide's trace identical to CPython's, which the reference recorder vouched for: the
          // reference run in Pyodide could only disagree if Pyodide ran the code differently, and
          // then the traces would differ too (README, design notes)
          if (engine === 'pyodide' && vouched && sameRun(trace, vouched)) agreed = ', the same trace as CPython';
          else {
            const mismatch = compareWithReference(trace, await outcome.value.reference());
            if (mismatch) problems.push(`the trace disagrees with the independent reference recorder: ${mismatch} (please report this: the recorder is wrong)`);
            else if (engine === 'cpython') vouched = trace;
          }
        }
        if (shared && problems.length) repeated.set(shared, 0);
        if (!trace.steps.some((s) => s.event === 'call') && !scenario.expect.error && !shared) problems.push(`${widget.symbol} was never called`);
        if (trace.target.firstLine !== undefined && trace.target.firstLine !== widget.firstLine) problems.push(`code object starts at line ${trace.target.firstLine}, widget at ${widget.firstLine}`);
        if (problems.length) problems.forEach((p) => fail(where, p));
        else {
          passed++;
          log(`ok   ${where}: ${trace.steps.length} steps${agreed}`);
        }
      }
    }
    for (const [error, more] of repeated) if (more) log(`FAIL ${lesson.id}: ${more} more runs failed with the same ${error}`);
    await pyodide.forget(lessonRoot(lesson.id)); // as CPython was asked to
  }
  return { passed, failed: failures, warnings, scenarios, checkMs: performance.now() - started, runMs };
}

/** Two runs recorded alike: every step, value, output, outcome and error (not their timings). */
function sameRun(a: Trace, b: Trace): boolean {
  const { stats: _a, ...left } = a;
  const { stats: _b, ...right } = b;
  return JSON.stringify(left) === JSON.stringify(right);
}

type Settled<T> = { value: T } | { error: Error };

/** A promise's value or its error, never a rejection (so a failed run is reported, not thrown). */
function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
}

/** asyncio.run needs WebAssembly stack switching, which Node and some browsers lack: say what to do. */
function asyncHint(problem: string, widget: Widget): string {
  if (!problem.includes('stack switching') || !/^\s*async\s+def\b/m.test(widget.code)) return '';
  return '. An async target cannot be run with asyncio.run() in every reader\'s browser: drive the coroutine in the harness instead (c = f(...); then c.send(None) until StopIteration; see README, "Writing a lesson")';
}

/** An error in the lesson's own files before the target ran (every scenario would hit it), as a key. */
function sharedError(trace: Trace, lesson: Lesson): string | null {
  const error = trace.error;
  if (!error || trace.steps.length) return null;
  const inLesson = error.type === 'SyntaxError' || error.type === 'IndentationError' || error.type === 'ImportError' || error.type === 'ModuleNotFoundError' || error.type === 'AttributeError';
  return inLesson && Object.keys(lesson.files).length ? `${error.type}: ${error.message}` : null;
}
