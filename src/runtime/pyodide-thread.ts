/**
 * Pyodide in a worker thread of its own (Node only), for lessons:check: this thread stays free for
 * what the check does between runs (loading lessons, reading CPython's answers, comparing traces)
 * while Pyodide runs the next scenario. Requests are answered in the order they were sent, each run
 * cleaned up after as in the page (nodeRunner).
 */
import type { ReferenceRun } from '../trace/reference';
import type { RunRequest, Trace } from '../trace/types';
import { tsWorker } from './ts-worker';

/** What the check asks of a Pyodide: nodeRunner answers at once, this thread's through a promise. */
export interface CheckPyodide {
  run(request: RunRequest): Trace | Promise<Trace>;
  reference(request: RunRequest, traced?: boolean): ReferenceRun | Promise<ReferenceRun>;
  forget(root: string): void | Promise<void>;
}

export interface PyodideThread extends CheckPyodide {
  run(request: RunRequest): Promise<Trace>;
  reference(request: RunRequest, traced?: boolean): Promise<ReferenceRun>;
  forget(root: string): Promise<void>;
  close(): Promise<void>;
}

type Job = { op: 'run'; request: RunRequest } | { op: 'reference'; request: RunRequest; traced: boolean } | { op: 'forget'; root: string };
export type ThreadRequest = Job & { id: number };
export type ThreadAnswer = { ready: true } | { id: number; value: unknown } | { id: number; error: string };

/** Start Pyodide in its thread; resolves once Python is ready (rejects if it cannot start). */
export function pyodideThread(): Promise<PyodideThread> {
  const worker = tsWorker(new URL('./pyodide-thread-worker.ts', import.meta.url));
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let id = 0;
  let stopped: Error | null = null;
  const fail = (error: Error) => {
    stopped ??= error;
    for (const job of pending.values()) job.reject(error);
    pending.clear();
  };
  const ask = <T>(message: Job): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    return new Promise<T>((resolve, reject) => {
      const job: ThreadRequest = { ...message, id: ++id };
      pending.set(job.id, { resolve: resolve as (value: unknown) => void, reject });
      worker.ref(); // the process waits for an answer
      worker.postMessage(job);
    });
  };
  return new Promise((ready, notReady) => {
    worker.on('message', (answer: ThreadAnswer) => {
      if ('ready' in answer) return (worker.unref(), ready(thread));
      const job = pending.get(answer.id);
      pending.delete(answer.id);
      if (!pending.size) worker.unref(); // idle: it does not keep the process alive
      if ('error' in answer) job?.reject(new Error(answer.error));
      else job?.resolve(answer.value);
    });
    worker.on('error', (error) => (fail(error), notReady(error)));
    worker.on('exit', (code) => (fail(new Error(`the Pyodide thread stopped (exit ${code})`)), notReady(stopped)));
    const thread: PyodideThread = {
      run: (request) => ask({ op: 'run', request }),
      reference: (request, traced = true) => ask({ op: 'reference', request, traced }),
      forget: (root) => ask({ op: 'forget', root }),
      close: async () => {
        fail(new Error('this Pyodide thread was closed'));
        await worker.terminate();
      },
    };
  });
}

/**
 * The thread of `starting` as a PyodideThread at once: each request waits until Python is ready
 * (or rejects with why it could not start), so a check can begin on CPython meanwhile.
 */
export function once(starting: Promise<PyodideThread>): PyodideThread {
  return {
    run: async (request) => (await starting).run(request),
    reference: async (request, traced) => (await starting).reference(request, traced),
    forget: async (root) => (await starting).forget(root),
    close: async () => (await starting.catch(() => null))?.close(),
  };
}
