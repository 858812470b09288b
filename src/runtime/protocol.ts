/** Messages between the page and the Pyodide worker. */
import type { RunRequest, Trace } from '../trace/types';

export type ToWorker =
  | { type: 'init'; indexURL: string; interrupt?: SharedArrayBuffer }
  | { type: 'run'; id: number; request: RunRequest }
  /** Write a lesson's files and compile them ahead of its first run (no reply). */
  | { type: 'prepare'; request: RunRequest };

export type FromWorker =
  | { type: 'progress'; phase: 'fetching' | 'starting' }
  | { type: 'ready'; loadMs: number; from: 'snapshot' | 'cold' }
  | { type: 'init-failed'; message: string }
  /** The memory snapshot for the next visit is stored. */
  | { type: 'snapshot-saved' }
  | { type: 'result'; id: number; trace: Trace }
  /** Python itself broke (a fatal Pyodide error): this worker is no longer usable. */
  | { type: 'crashed'; id: number; message: string };
