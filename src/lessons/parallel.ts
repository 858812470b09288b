/**
 * lessons:check on several lessons at once: worker threads, each with a Pyodide and a CPython of its
 * own, take the next lesson as they finish one; each lesson's lines are printed together and in
 * the lessons' order, whichever worker checked it. Node only.
 */
import { availableParallelism } from 'node:os';
import { tsWorker } from '../runtime/ts-worker';
import type { CheckResult } from './check';

/** What a worker says: ready (Python started), or a lesson done (its lines and counts). */
export type WorkerMessage = { ready: true } | { dir: string; lines: string[]; result: CheckResult };

export interface ParallelResult extends CheckResult {
  /** Until every worker's Pythons had started, then the check itself (both wall time). */
  startMs: number;
  workers: number;
}

/**
 * How many workers a check uses. A worker keeps about two cores busy (its Pyodide, and its CPython
 * working on the same scenario meanwhile), so one per two cores; and each starts a Pyodide of its
 * own (3–4 s of a core), which pays off only with more work to share than that: below PARALLEL_FROM
 * scenarios (about 9 s of checking) the check runs in this thread. Never more workers than lessons.
 * STEPLIGHT_JOBS=n chooses.
 */
export const PARALLEL_FROM = 200;

export function jobsFor(lessons: number, scenarios: () => number, asked = Number(process.env.STEPLIGHT_JOBS) || 0, cores = availableParallelism()): number {
  // the scenarios are counted (every lesson read) only when the answer can be more than one worker
  const jobs = asked || (cores >= 4 && lessons > 1 && scenarios() >= PARALLEL_FROM ? Math.floor(cores / 2) : 1);
  return Math.max(1, Math.min(jobs, lessons));
}

const FAILED: CheckResult = { passed: 0, failed: 1, warnings: 0, scenarios: 0, checkMs: 0, runMs: 0 };

export async function checkInParallel(dirs: string[], jobs: number, log: (line: string) => void = console.log): Promise<ParallelResult> {
  const started = performance.now();
  const total: CheckResult = { passed: 0, failed: 0, warnings: 0, scenarios: 0, checkMs: 0, runMs: 0 };
  const done = new Map<number, string[]>();
  let printed = 0;
  let next = 0;
  let ready = 0;
  let checkFrom = 0;
  const finish = (index: number, lines: string[], result: CheckResult) => {
    for (const key of ['passed', 'failed', 'warnings', 'scenarios', 'runMs'] as const) total[key] += result[key];
    done.set(index, lines);
    for (; done.has(printed); printed++) done.get(printed)!.forEach((line) => log(line));
  };
  const work = () =>
    new Promise<void>((resolve) => {
      const worker = tsWorker(new URL('./check-worker.ts', import.meta.url));
      let current = -1; // the lesson this worker is checking
      let stopped = 'it stopped';
      const give = () => {
        current = next < dirs.length ? next++ : -1;
        worker.postMessage(current < 0 ? null : dirs[current]); // null: close CPython and end
      };
      worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message) {
          if (++ready === jobs) checkFrom = performance.now();
        } else finish(current, message.lines, message.result);
        give();
      });
      worker.on('error', (error) => void (stopped = error.message));
      worker.on('exit', () => {
        // a worker that stops mid-lesson (its Python could not start, lesson code ended the
        // process's patience) fails that lesson; the other workers take the rest
        if (current >= 0) finish(current, [`FAIL ${dirs[current]}: the check's worker stopped: ${stopped}`], FAILED);
        else if (!ready) log(`lessons:check: a worker could not start Python: ${stopped}`);
        resolve();
      });
    });
  await Promise.all(Array.from({ length: jobs }, work));
  for (let i = printed; i < dirs.length; i++) if (!done.has(i)) finish(i, [`FAIL ${dirs[i]}: not checked: no worker could start Python`], FAILED);
  const end = performance.now();
  checkFrom ||= end;
  return { ...total, startMs: checkFrom - started, checkMs: end - checkFrom, workers: jobs };
}
