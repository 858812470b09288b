/**
 * npm run lessons:check [--watch] [lessonDir...]: validate every lesson and run every scenario under
 * CPython and Pyodide. A large check on a machine with cores to spare runs on several workers (see
 * jobsFor; STEPLIGHT_JOBS=n). --watch: then check a lesson again whenever one of its files is saved.
 */
import { resolve } from 'node:path';
import { checkLessons } from '../src/lessons/check';
import { lessonDirs, loadLesson } from '../src/lessons/load';
import { checkInParallel, jobsFor, type ParallelResult } from '../src/lessons/parallel';
import { watchLessons } from '../src/lessons/watch';
import { cpythonHost } from '../src/runtime/node';
import { once, pyodideThread } from '../src/runtime/pyodide-thread';

/**
 * A check's lines, written together once this turn of the event loop is over: one write to stdout
 * for a scenario's lines, not one per line (Pyodide's runs keep the turns long). flush() writes
 * what is left now.
 */
function batched() {
  let lines: string[] = [];
  const flush = () => {
    if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
    lines = [];
  };
  return {
    log: (line: string) => {
      if (!lines.length) setImmediate(flush);
      lines.push(line);
    },
    flush,
  };
}

/**
 * The check driven from this thread, with Pyodide in a thread of its own (this one compares a
 * scenario while Pyodide runs the next). The check starts at once: CPython works through the
 * first lessons while Pyodide is still starting. `keep`: the Pythons stay up afterwards, to watch
 * the lessons. startMs: until Pyodide was ready; the check's time is what came after.
 */
async function inThisThread(dirs: string[], keep: boolean) {
  const started = performance.now();
  let startMs = 0;
  const starting = pyodideThread().then((thread) => ((startMs = performance.now() - started), thread));
  const pyodide = once(starting);
  const cpython = cpythonHost();
  const out = batched();
  // if Pyodide cannot start, that is the one error to report (not a failed run per scenario)
  const result = await Promise.race([checkLessons(dirs, pyodide, out.log, cpython), starting.then(() => new Promise<never>(() => {}))]);
  out.flush();
  if (!keep) await Promise.all([cpython.close(), pyodide.close()]);
  return { ...result, startMs, checkMs: performance.now() - started - startMs, workers: 1, watch: () => watchLessons(dirs, pyodide, cpython) };
}

/** Scenarios to check (a lesson that does not load counts none: the check reports it). */
function countScenarios(dirs: string[]): number {
  return dirs.reduce((sum, dir) => {
    try {
      return sum + loadLesson(dir).widgets.reduce((n, w) => n + w.scenarios.length, 0);
    } catch {
      return sum;
    }
  }, 0);
}

async function main() {
  process.exitCode = 2; // unless the check gets to its summary
  const args = process.argv.slice(2);
  const keep = args.includes('--watch');
  const named = args.filter((a) => a !== '--watch');
  const dirs = named.length ? named.map((d) => resolve(d)) : lessonDirs(resolve('lessons'));
  const jobs = keep ? 1 : jobsFor(dirs.length, () => countScenarios(dirs));
  const r: ParallelResult & { watch?: () => void } = jobs > 1 ? await checkInParallel(dirs, jobs) : await inThisThread(dirs, keep);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`lessons:check: ${r.passed} passed, ${r.failed} failed${r.warnings ? `, ${r.warnings} warnings` : ''}`);
  // the bench reads this line
  console.log(
    `time: ${s(r.startMs + r.checkMs)} (Python start ${s(r.startMs)}; ${r.scenarios} scenarios × 2 runtimes in ${s(r.checkMs)}, ${(r.checkMs / Math.max(1, r.scenarios)).toFixed(1)} ms each, of which the traced run ${(r.runMs / Math.max(1, r.scenarios)).toFixed(1)} ms; ${r.workers} worker${r.workers > 1 ? 's' : ''})`,
  );
  process.exitCode = r.failed ? 1 : 0;
  if (keep) r.watch?.(); // until Ctrl-C
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(2);
});
