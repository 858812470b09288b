/** The page's side of the Pyodide worker: start-up, a run queue, and the wall-clock guard. */
import { DEFAULT_LIMITS, type RunRequest, type Trace } from '../trace/types';
import { canUnpack, unpackTrace } from '../trace/wire';
import type { FromWorker, Network, ToWorker } from './protocol';
import { whenQuiet, whenSettled } from './quiet';
import { timeoutTrace } from './runner';

export type EngineStatus =
  | { state: 'loading'; phase: 'booting' | 'fetching' | 'starting' | 'retrying'; loaded?: number; total?: number }
  | { state: 'ready'; loadMs: number; from: 'snapshot' | 'site' | 'cold' }
  | { state: 'error'; message: string; load?: { tries: number; url: string } };

export interface EngineOptions {
  indexURL: string;
  makeWorker: () => Worker;
  /** Extra time the host waits past the tracer's own limit before interrupting Python. */
  interruptAfterMs?: number;
  /** Further time before the worker is terminated and a new one started. */
  terminateAfterMs?: number;
  /** How often Python may fail to start (worker or Python files not loading) before the engine gives up. */
  maxStarts?: number;
  /** The wait before the first retry; it doubles for each further one. */
  retryAfterMs?: number;
  /** Python's first start waits for this (the page's own loading work: `whenSettled`); a restart does not. */
  startWhen?: () => Promise<void>;
}

/**
 * The page's connection as its browser rates it, handed to the worker (which decides on the site's
 * snapshot), copied field by field: a NetworkInformation cannot be posted.
 */
function network(): Network | undefined {
  const connection = (globalThis.navigator as { connection?: Network } | undefined)?.connection;
  return connection ? { saveData: connection.saveData, effectiveType: connection.effectiveType } : undefined;
}

/** What a reader or an embedder should do when Python cannot be loaded at all. */
export function loadFailure(indexURL: string, tries: number, reason: string): string {
  return `Python could not be loaded (${tries} tries): ${reason}. The files under ${indexURL} and the worker script next to the page's scripts must be served by this site (see README, "Embedding"); reload the page to try again.`;
}

interface Job {
  request: RunRequest;
  resolve: (trace: Trace) => void;
  reject: (error: Error) => void;
}

export class Engine {
  private worker!: Worker;
  private port!: MessagePort;
  private interrupt: Int32Array | null = null;
  private queue: Job[] = [];
  private current: { job: Job; id: number; timers: number[] } | null = null;
  /** Stops waiting for a quiet moment to store the snapshot (the worker is replaced). */
  private cancelQuiet: () => void = () => {};
  private nextId = 1;
  private listeners = new Set<(status: EngineStatus) => void>();
  private ready!: Promise<void>;
  /** Failed starts since the last successful one. */
  private failedStarts = 0;
  private isReady = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  status: EngineStatus = { state: 'loading', phase: 'booting' };

  /** What Python's first start waits for (taken by the first spawn: a restart starts at once). */
  private startWhen: (() => Promise<void>) | undefined;

  constructor(private options: EngineOptions) {
    this.startWhen = options.startWhen;
    this.spawn();
  }

  subscribe(listener: (status: EngineStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setStatus(status: EngineStatus) {
    this.status = status;
    for (const listener of this.listeners) listener(status);
  }

  private spawn() {
    const worker = this.options.makeWorker();
    this.worker = worker;
    const shared = typeof SharedArrayBuffer !== 'undefined' && globalThis.crossOriginIsolated === true;
    const buffer = shared ? new SharedArrayBuffer(4) : undefined;
    this.interrupt = buffer ? new Int32Array(buffer) : null;
    let markReady!: () => void;
    this.ready = new Promise((resolve) => (markReady = resolve));
    this.isReady = false;
    // only the private port carries results: lesson code can post on the worker's own port, never on this one
    const channel = new MessageChannel();
    this.port = channel.port1;
    channel.port1.onmessage = (event: MessageEvent<FromWorker>) => {
      if (worker !== this.worker) return;
      const message = event.data;
      if (message.type === 'progress') {
        // only while loading: a report that arrives after a failure must not hide the failure
        if (this.status.state === 'loading') this.setStatus({ state: 'loading', phase: message.phase, ...(message.loaded !== undefined ? { loaded: message.loaded, total: message.total ?? 0 } : {}) });
      } else if (message.type === 'ready') {
        this.failedStarts = 0;
        this.isReady = true;
        this.setStatus({ state: 'ready', loadMs: message.loadMs, from: message.from });
        markReady();
        // read by bench/browser.ts from a page it attaches to only after the load
        performance.mark('steplight: python ready', { detail: { from: message.from } });
        keepSnapshotNote(message.from === 'snapshot');
        if (message.from !== 'snapshot') {
          // the snapshot for the next visit (this Python's, or the site's as it came) is stored at the page's first quiet moment
          this.cancelQuiet();
          this.cancelQuiet = whenQuiet(() => this.port.postMessage({ type: 'store-snapshot' } satisfies ToWorker), () => this.current !== null || this.queue.length > 0);
        }
      } else if (message.type === 'init-failed') this.startFailed(message.message);
      else if (message.type === 'snapshot-saved') {
        document.documentElement.dataset.snapshot = 'saved'; // the next visit can start warm
        keepSnapshotNote(true);
      } else if (message.type === 'crashed') this.crashed(`Python crashed (${message.message}); a fresh Python was started, so the next run works`);
      else if (message.type === 'started') this.started(message.id);
      else if (message.type === 'result' && message.id === this.current?.id) {
        if ('trace' in message) this.finish(message.trace);
        else
          unpackTrace(message.packed).then(
            (trace) => message.id === this.current?.id && this.finish(trace),
            (error: Error) => message.id === this.current?.id && this.crashed(`the trace could not be read (${error.message}); a fresh Python was started, so the next run works`),
          );
      }
    };
    worker.onerror = (event) => {
      if (worker !== this.worker) return;
      event.preventDefault?.();
      if (!this.isReady) this.startFailed(event.message || `the worker script did not load`);
      else this.crashed(`the Python worker crashed${event.message ? `: ${event.message}` : ''}`);
    };
    const init: ToWorker = { type: 'init', indexURL: this.options.indexURL, port: channel.port2, packed: canUnpack(), ...(buffer ? { interrupt: buffer } : {}) };
    // the worker and its script are made at once; Python starts (init) once the page has settled
    // (or at once when the reader asks for a run before that)
    const start = () => worker === this.worker && worker.postMessage({ ...init, network: network() }, [channel.port2]);
    const startWhen = this.startWhen;
    this.startWhen = undefined;
    if (!startWhen) return void start();
    this.held = start;
    void startWhen().then(() => this.release());
  }

  /** Python's start, held until the page settles. */
  private held: (() => void) | null = null;

  private release() {
    const start = this.held;
    this.held = null;
    start?.();
  }

  private fail(message: string, load?: { tries: number; url: string }) {
    this.setStatus({ state: 'error', message, ...(load ? { load } : {}) });
    const jobs = [...(this.current ? [this.current.job] : []), ...this.queue];
    this.clearCurrent();
    this.queue = [];
    for (const job of jobs) job.reject(new Error(message));
  }

  /** The worker or Python did not start: try again after a growing pause, a few times, then give up clearly. */
  private startFailed(reason: string) {
    this.failedStarts++;
    this.worker.terminate();
    this.port.close(); // a late message of this worker (a progress report) must not undo the failure
    const max = this.options.maxStarts ?? 3;
    if (this.failedStarts >= max) {
      this.fail(loadFailure(this.options.indexURL, this.failedStarts, reason), { tries: this.failedStarts, url: this.options.indexURL });
      return;
    }
    this.setStatus({ state: 'loading', phase: 'retrying' });
    const wait = (this.options.retryAfterMs ?? 1000) * 2 ** (this.failedStarts - 1);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.restart(), wait);
  }

  /** The worker died: the current run fails, a fresh worker takes the queue. */
  private crashed(message: string) {
    const job = this.current?.job;
    this.clearCurrent();
    this.restart();
    job?.reject(new Error(message));
  }

  private restart() {
    this.cancelQuiet();
    this.worker.terminate();
    this.port.close(); // closing twice is harmless
    this.prepared.clear();
    this.setStatus({ state: 'loading', phase: 'booting' });
    this.spawn();
    void this.pump();
  }

  /** Python has begun the current run: the host's interrupt and, should Python not stop, the worker's end are timed from now. */
  private started(id: number) {
    const current = this.current;
    if (!current || current.id !== id) return;
    for (const timer of current.timers) clearTimeout(timer);
    const limit = current.job.request.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
    const interruptAt = limit + (this.options.interruptAfterMs ?? 500);
    const terminateAt = interruptAt + (this.options.terminateAfterMs ?? 1500);
    current.timers = [window.setTimeout(() => this.overdue(current.job, terminateAt), terminateAt)];
    if (this.interrupt) {
      const buffer = this.interrupt;
      current.timers.push(window.setTimeout(() => Atomics.store(buffer, 0, 2), interruptAt));
    }
  }

  /** The run did not end in time even after the interrupt (or never began): a fresh worker; the run ends with the time limit. */
  private overdue(job: Job, ms: number) {
    const how = 'the Python worker did not stop, so it was restarted';
    this.clearCurrent();
    this.restart();
    job.resolve(timeoutTrace(job.request, ms, how));
  }

  private clearCurrent() {
    for (const timer of this.current?.timers ?? []) clearTimeout(timer);
    this.current = null;
  }

  private finish(trace: Trace) {
    const job = this.current?.job;
    this.clearCurrent();
    job?.resolve(trace);
    void this.pump();
  }

  private prepared = new Set<string>();

  /** Ahead of a lesson's first run: have its files written and compiled (once per lesson and worker). */
  prepare(request: RunRequest) {
    if (this.prepared.has(request.root)) return;
    this.prepared.add(request.root);
    void this.ready.then(() => {
      const message: ToWorker = { type: 'prepare', request };
      this.port.postMessage(message);
    });
  }

  run(request: RunRequest): Promise<Trace> {
    if (this.status.state === 'error') return Promise.reject(new Error(this.status.message));
    this.release(); // a reader waiting for a run: Python starts now, settled or not
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      void this.pump();
    });
  }

  private async pump() {
    if (this.current || !this.queue.length) return;
    await this.ready;
    if (this.current || !this.queue.length) return;
    const job = this.queue.shift()!;
    const id = this.nextId++;
    // The time limit counts from the moment Python begins the run (the worker says 'started'): the
    // worker may first finish its start-up work (sealing, warm-up), and Python's own clock, which
    // tells the host's interrupt from a KeyboardInterrupt the lesson raises, starts there too.
    // Until then only a backstop, should the worker never begin.
    if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
    const timers = [window.setTimeout(() => this.overdue(job, START_BACKSTOP_MS), START_BACKSTOP_MS)];
    this.current = { job, id, timers };
    const message: ToWorker = { type: 'run', id, request: job.request };
    this.port.postMessage(message);
  }
}

/** How long a run may wait for the worker to begin it (its start-up work after ready takes well under a second). */
const START_BACKSTOP_MS = 30_000;

let shared: Engine | null = null;

/**
 * A note, in this site's localStorage, that the worker kept Python's memory snapshot for the next
 * visit (set when it is stored, cleared when a start did not find it). Only a hint: a stale note
 * makes Python start at once, as it did before pages waited to settle.
 */
const SNAPSHOT_NOTE = 'steplight:snapshot-kept';
function keepSnapshotNote(kept: boolean) {
  try {
    if (kept) localStorage.setItem(SNAPSHOT_NOTE, '1');
    else localStorage.removeItem(SNAPSHOT_NOTE);
  } catch {
    // no storage (a sandboxed frame, storage turned off): every visit waits to settle
  }
}
function snapshotNoted(): boolean {
  try {
    return localStorage.getItem(SNAPSHOT_NOTE) === '1';
  } catch {
    return false;
  }
}

/** One engine per page, started as soon as something asks for it. */
export function pageEngine(indexURL = new URL(`${import.meta.env.BASE_URL}${__PYODIDE_PATH__}`, location.href).href): Engine {
  shared ??= new Engine({
    indexURL,
    makeWorker: () => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'steplight-python' }),
    // a first visit (Python's start is seconds of CPU) waits for the page to settle; a revisit with
    // a kept snapshot (a start of well under a second) does not wait
    ...(snapshotNoted() ? {} : { startWhen: whenSettled }),
  });
  return shared;
}
