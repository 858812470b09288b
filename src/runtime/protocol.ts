/** Messages between the page and the Pyodide worker. */
import type { RunRequest, Trace } from '../trace/types';

/** What a browser says of its connection (navigator.connection, where it says). */
export interface Network {
  saveData?: boolean;
  effectiveType?: string;
}

/**
 * The first message (on the worker's own port) hands over a private MessagePort; every later
 * message in both directions goes through that port, which lesson code cannot reach.
 */
export type ToWorker =
  /**
   * `packed`: the page unpacks traces (see trace/wire.ts); else they arrive as objects. `network`:
   * the connection as the page's browser rates it (absent where the browser does not say).
   */
  | { type: 'init'; indexURL: string; port: MessagePort; interrupt?: SharedArrayBuffer; packed?: boolean; network?: Network }
  | { type: 'run'; id: number; request: RunRequest }
  /** Write a lesson's files and compile them ahead of its first run (no reply). */
  | { type: 'prepare'; request: RunRequest }
  /** The page is quiet: store the memory snapshot for the next visit now, if one is waiting. */
  | { type: 'store-snapshot' };

export type FromWorker =
  /** `loaded`/`total`: bytes of Python's files so far (total 0 when the server does not say). */
  | { type: 'progress'; phase: 'fetching' | 'starting'; loaded?: number; total?: number }
  /** `from`: the snapshot kept from an earlier visit, the site's (scripts/snapshot.ts), or Python's own start-up. */
  | { type: 'ready'; loadMs: number; from: 'snapshot' | 'site' | 'cold' }
  | { type: 'init-failed'; message: string }
  /** The memory snapshot for the next visit is stored. */
  | { type: 'snapshot-saved' }
  /** Python begins the run now: the page's time limit counts from here. */
  | { type: 'started'; id: number }
  | { type: 'result'; id: number; trace: Trace }
  /** The trace packed (trace/wire.ts), its buffer transferred. */
  | { type: 'result'; id: number; packed: ArrayBuffer }
  /** Python itself broke (a fatal Pyodide error): this worker is no longer usable. */
  | { type: 'crashed'; id: number; message: string };
