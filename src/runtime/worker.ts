/// <reference lib="webworker" />
/** The module worker that hosts Pyodide for one page. */
import type { PyodideAPI } from 'pyodide';
import type { FromWorker, Network, ToWorker } from './protocol';
import { createRunner, installTracer, loadFastPath, memorySnapshot, refreshTimeZone, type LocalRunner } from './runner';
import { loadSes, sealRealm } from './realm';
import { dropSnapshot, findSnapshot, toStored, writeSnapshot, type Stored } from './snapshot-store';
import { fromSparse } from './sparse';
import { PYTHON_ENV, WARM_UP, WARM_UP_MORE } from './started';
import tracer from './steplight_tracer.py?raw';
import fastPathUrl from './native/steplight_fast.so?inline';

declare const self: DedicatedWorkerGlobalScope;
type Load = (options: object) => Promise<PyodideAPI>;
// Bound before any lesson code runs: patching prototypes from Python later changes nothing here.
const portPost = MessagePort.prototype.postMessage;
const apply = Reflect.apply;
let port: MessagePort | null = null;
const post = (message: FromWorker, transfer: Transferable[] = []) => port && apply(portPost, port, [message, transfer]);
/** Whether the page unpacks traces (trace/wire.ts): then they are sent packed, their buffer transferred. */
let packed = false;
let runner: Promise<LocalRunner> | null = null;
/** Settled once start-up's work after ready is done (see start): no lesson runs before. */
let settled: Promise<void> = Promise.resolve();

/**
 * Memory snapshots of a started Python, per Pyodide version, tracer text and standard library archive
 * (Python keeps where each module sits in the archive: a snapshot must never meet another archive),
 * kept by snapshot-store.ts.
 */
function snapshotKey(version: string): string {
  let h = 0;
  for (let i = 0; i < tracer.length; i++) h = (Math.imul(31, h) + tracer.charCodeAt(i)) | 0;
  const stdlib = typeof __PYODIDE_SIZES__ === 'object' ? __PYODIDE_SIZES__['python_stdlib.zip'] : 0;
  return `/steplight-snapshot/${version}/${(h >>> 0).toString(16)}-${stdlib ?? 0}`;
}
/** The Pyodide this site was built with (its files are served under pyodide/<version>/). */
const PYODIDE_VERSION = __PYODIDE_PATH__.split('/')[1]!;
/** The snapshot waiting to be stored: the page says when it is quiet (store-snapshot, see quiet.ts). */
let pendingSnapshot: (() => void) | null = null;

/** The site's memory snapshot (scripts/snapshot.ts), where the build made one. */
const SITE_SNAPSHOT = typeof __STEPLIGHT_SNAPSHOT__ === 'object' ? __STEPLIGHT_SNAPSHOT__ : null;

/**
 * Pyodide hangs (after a console warning) when its wasm answers 404: watch every fetch of start-up
 * and fail the start with the file's name and status instead. Every download is counted for the
 * reader's progress bar (a 13 MB download on a phone); `download` is one that may fail without
 * failing the start (the site's snapshot: without it Python starts cold).
 */
function watchFetches(): { failed: Promise<never>; hasFailed: () => boolean; download: (url: string, size: number) => Promise<Uint8Array> } {
  let reject!: (error: Error) => void;
  let failedYet = false;
  const failed = new Promise<never>((_, no) => (reject = no));
  const fail = (error: Error) => {
    failedYet = true;
    reject(error);
  };
  const fetch = self.fetch.bind(self);
  // what Pyodide fetches at start, with sizes known from the build: the total is right from the first report
  const known: Record<string, number> = typeof __PYODIDE_SIZES__ === 'object' ? __PYODIDE_SIZES__ : {};
  const sizes = new Map<string, { loaded: number; total: number }>(
    ['pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'].filter((name) => known[name]).map((name) => [name, { loaded: 0, total: known[name]! }]),
  );
  let reported = 0;
  const report = () => {
    const now = performance.now();
    if (now - reported < 100) return;
    reported = now;
    let loaded = 0;
    let total = 0;
    for (const size of sizes.values()) {
      loaded += size.loaded;
      total += size.total;
    }
    post({ type: 'progress', phase: 'fetching', loaded, total });
  };
  const count = (url: string, response: Response) => {
    if (!response.body) return response;
    // the total: the file's size known from the build (the body is counted decompressed, so a
    // compressed Content-Length would undercount), else the header
    const name = new URL(url).pathname.split('/').pop() ?? '';
    const header = response.headers.get('content-encoding') ? 0 : Number(response.headers.get('content-length')) || 0;
    const size = { loaded: 0, total: known[name] ?? header };
    sizes.set(known[name] ? name : url, size);
    // Counted on a clone, and the response itself handed on as the browser made it: one rebuilt
    // from a stream has no link to the HTTP cache, so V8 could neither keep Python's compiled
    // wasm there nor find it on the next visit (a tee keeps that link on both branches)
    const counter = new WritableStream<Uint8Array>({
      write(chunk) {
        size.loaded += chunk.byteLength;
        report();
      },
    });
    response.clone().body!.pipeTo(counter).catch(() => {}); // the response's own reader sees the same failure
    return response;
  };
  self.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const response = await fetch(input, init).catch((error: Error) => {
      fail(new Error(`${url} could not be fetched (${error.message})`));
      throw error;
    });
    if (!response.ok) fail(new Error(`${url} answered HTTP ${response.status}`));
    return count(url, response);
  };
  /**
   * A file of known size read straight into one buffer (no stream of copies, no concatenation:
   * 220-270 ms less for the 16 MB snapshot beside a counted Response's arrayBuffer()), counted for
   * the progress bar. A failure fails this download only; one of another size is refused.
   */
  const download = async (url: string, size: number): Promise<Uint8Array> => {
    const name = new URL(url).pathname.split('/').pop() ?? '';
    const counted = { loaded: 0, total: size };
    sizes.set(name, counted); // in the total from now on
    try {
      const response = await fetch(url);
      if (!response.ok || !response.body) throw new Error(`${url} answered HTTP ${response.status}`);
      const out = new Uint8Array(size);
      const reader = response.body.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        if (counted.loaded + next.value.byteLength > size) throw new Error(`${url} is longer than the ${size} bytes the build wrote`);
        out.set(next.value, counted.loaded);
        counted.loaded += next.value.byteLength;
        report();
      }
      if (counted.loaded !== size) throw new Error(`${url} ended after ${counted.loaded} of ${size} bytes`);
      return out;
    } catch (error) {
      sizes.delete(name); // not coming: out of the total again
      throw error;
    }
  };
  return { failed, hasFailed: () => failedYet, download };
}

/**
 * Whether a first visit downloads the site's snapshot (4.1 MB compressed) rather than run Python's
 * start-up (3-4 s of CPU on a 2-core laptop, more on a phone): not when the reader asked to save
 * data, nor on a connection the browser rates slower than 4G, where the download would cost more
 * than it saves. Browsers that do not say (Safari, Firefox) get it. (Chromium's `downlink` is not
 * used: a fresh profile reports a default 1.45 Mbit/s on any network.)
 */
function siteSnapshotPays(connection: Network | undefined): boolean {
  return !connection?.saveData && (!connection?.effectiveType || connection.effectiveType === '4g');
}

async function start(indexURL: string, interrupt?: SharedArrayBuffer, network?: Network): Promise<LocalRunner> {
  const { failed, hasFailed, download } = watchFetches();
  const started = performance.now();
  post({ type: 'progress', phase: 'fetching' });
  // Side by side: Pyodide's loader and a look into the private file system for the snapshot kept
  // from an earlier visit (its name and size: a few ms, not a read). The site's snapshot is fetched
  // only when none was kept: fetched beside a kept one (and dropped once that was read), its 4 MB
  // from the HTTP cache competed with Python's own files on every revisit
  const pyodide = import(/* @vite-ignore */ `${indexURL}pyodide.mjs`) as Promise<{ loadPyodide: Load; version: string }>;
  const key = snapshotKey(PYODIDE_VERSION);
  const fetchSite = () => {
    // the page's reading: a DevTools (or CDP) throttle of the page's network is not the worker's
    if (!SITE_SNAPSHOT || !siteSnapshotPays(network)) return null;
    const bytes = download(`${indexURL}${SITE_SNAPSHOT.file}`, SITE_SNAPSHOT.size);
    bytes.catch(() => {}); // its failure is handled where it is used
    return bytes;
  };
  const stored = await findSnapshot(key);
  let siteBytes = stored ? null : fetchSite();
  const kept = stored ? stored() : Promise.resolve(null);
  const { loadPyodide, version } = await pyodide;
  if (version !== PYODIDE_VERSION) throw new Error(`${indexURL}pyodide.mjs is Pyodide ${version}, this site was built for ${PYODIDE_VERSION}: serve the files of its build together`);
  const loaded = (options: object) => Promise.race([loadPyodide(options), failed]);
  const base = { indexURL, packageBaseUrl: indexURL, env: PYTHON_ENV, stdout: () => {}, stderr: () => {} };
  /** Python from a snapshot, or null when Pyodide cannot use it (the next way is tried). */
  const fromSnapshot = async (bytes: Promise<Uint8Array>) => {
    try {
      return await loaded({ ...base, _loadSnapshot: bytes });
    } catch (error) {
      if (hasFailed()) throw error; // Pyodide's own files did not load: no other way can work either
      return null;
    }
  };
  let py: PyodideAPI | null = null;
  let takeSnapshot = () => {};
  let from: 'snapshot' | 'site' | 'cold' = 'cold';
  // The kept snapshot if there is one, else the site's, handed to Pyodide as a promise: its own
  // downloads start now, not after the snapshot is read
  type Chosen = { from: 'snapshot' | 'site'; bytes: Uint8Array } | null;
  const first = kept.then((bytes): Chosen | Promise<Chosen> => {
    if (bytes) return { from: 'snapshot', bytes };
    siteBytes ??= fetchSite(); // the kept one could not be read
    return siteBytes?.then((sparse): Chosen => ({ from: 'site', bytes: fromSparse(sparse) })) ?? null;
  });
  if (siteBytes || stored) {
    py = await fromSnapshot(first.then((chosen) => chosen!.bytes));
    const chosen = await first.catch(() => null);
    if (py) from = chosen!.from;
    else if (chosen?.from === 'snapshot') {
      await dropSnapshot(key); // a bad snapshot: forget it, start from the site's (or cold)
      siteBytes = fetchSite();
      py = siteBytes && (await fromSnapshot(siteBytes.then(fromSparse)));
      if (py) from = 'site';
    }
    if (!py && siteBytes) {
      const why = await siteBytes.then(() => 'Pyodide refused it', (error: Error) => error.message);
      console.warn(`Steplight: the site's Python snapshot could not be used (${why}); starting Python from scratch`);
    }
  }
  if (from === 'site') {
    // kept for the next visit as it came (already in the stored form), once the page is quiet
    const bytes = (await siteBytes!) as Stored;
    takeSnapshot = () => (pendingSnapshot = () => void writeSnapshot(key, bytes).then((saved) => saved && post({ type: 'snapshot-saved' })));
  }
  if (!py) {
    py = await loaded({ ...base, _makeSnapshot: true });
    post({ type: 'progress', phase: 'starting' });
    installTracer(py, tracer);
    const cold = py;
    // Taken after the reader can run (not on the way to it: 140-180 ms), once the warm-up run is
    // done and cleaned up, so it holds the started runner (baseline, preloaded modules) and a
    // revisit skips all of it; always before a lesson runs (runs wait for `settled`). Pyodide's
    // snapshot is a copy of the heap (snapshot.test.ts), turned into its stored form at once
    // (15.6 of 30 MB, ~50 ms; no lesson has run yet to patch what that uses) and kept until the
    // page is quiet, so that writing it competes with neither the page's start-up nor the
    // reader's stepping.
    takeSnapshot = () => {
      try {
        const bytes = toStored(memorySnapshot(cold));
        pendingSnapshot = () => void writeSnapshot(key, bytes).then((saved) => saved && post({ type: 'snapshot-saved' }));
      } catch {
        /* snapshots are an optimisation only */
      }
    };
  }
  if (interrupt) py.setInterruptBuffer(new Int32Array(interrupt));
  const python = py;
  if (from !== 'cold') refreshTimeZone(python); // the snapshot's zone is where it was made
  const ses = loadSes(); // evaluated beside the runner's start, not on the way to Python (needed by seal)
  const result = createRunner(python, tracer);
  lockDown(); // Python's files are loaded: from here on nothing leaves this worker
  post({ type: 'ready', loadMs: Math.round(performance.now() - started), from });
  // Once the reader can press Run, and before any lesson runs: seal the worker's JavaScript
  // (realm.ts), then warm the runner up in it, then take the snapshot (after a cold start) or keep
  // the site's for the next visit. A Run pressed by then (it is let in after the seal) goes first
  // after a start from a snapshot: it warms Python up itself. A cold start's snapshot must hold
  // the warmed-up runner, so there the warm-up always runs.
  settled = new Promise<void>((done) =>
    setTimeout(async () => {
      await ses.catch(() => {}); // without SES, seal() says so and lessons still run
      // The recorder's C fast path (the same traces, 2-3x less work a step; 15-25 ms to load), before
      // the seal (loading it adds to Emscripten's tables) and only where no snapshot of this Python is
      // still to be taken: a snapshot cannot hold loaded code, so after a cold start (whose snapshot
      // is taken below) the visit records in Python (README, design notes).
      if (from !== 'cold') useFastPath(python);
      seal(python);
      await new Promise((resolve) => setTimeout(resolve, 0));
      try {
        if (from === 'cold' || !readerRan) {
          result.run(WARM_UP);
          result.clean();
        }
        takeSnapshot();
      } finally {
        done();
      }
      warmInSlices(result);
    }, 0),
  );
  return result;
}

function useFastPath(py: PyodideAPI) {
  try {
    const base64 = fastPathUrl.slice(fastPathUrl.indexOf(',') + 1);
    if (!loadFastPath(py, Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)))) console.warn('Steplight: the recorder\'s C fast path does not fit this Python; recording in Python');
  } catch (error) {
    console.warn('Steplight: the recorder\'s C fast path could not be loaded; recording in Python', error);
  }
}

/** Whether the reader has asked for a run: from then on their runs warm Python up themselves. */
let readerRan = false;

/**
 * Warm-up runs one at a time while the reader has not run anything (each 5-50 ms, so a run asked
 * for meanwhile waits at most that long), until V8 has optimised what runs use. Probe, 25 runs 3 s
 * after ready, twice each: after a start from the site's snapshot the runs took 128-135, 94-106,
 * 56-94 ms... and ~55 ms from the 4th-7th on, beside 217/200, 88/162, 117/108 ms... and ~45 ms
 * from the 16th without it; after a cold start 85-92 ms first, ~50 from the 2nd on.
 */
function warmInSlices(runner: LocalRunner, slices = 12) {
  if (slices <= 0 || readerRan) return;
  setTimeout(() => {
    if (readerRan) return;
    runner.runPacked(WARM_UP_MORE);
    runner.clean();
    warmInSlices(runner, slices - 1);
  }, 50);
}

function seal(py: PyodideAPI) {
  try {
    const begun = performance.now();
    sealRealm(py);
    performance.measure('steplight: seal', { start: begun }); // read by bench/browser.ts
  } catch (error) {
    // a browser SES cannot lock down: lessons still run, without that guard against hostile ones
    console.warn('Steplight: the worker could not be sealed', error);
  }
}

/**
 * Once Python is loaded, lesson code must not reach the network, the page's origin or the page:
 * every way out of a worker is replaced by a function that throws a clear error (on the global
 * object and on its prototypes, not configurable, so it cannot be put back).
 */
function lockDown() {
  const blocked = (what: string) =>
    function blockedCall(): never {
      throw new TypeError(`${what} is blocked: lesson code in Steplight runs offline, without network or access to the page`);
    };
  const names = ['fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'importScripts', 'Worker', 'SharedWorker', 'BroadcastChannel', 'WebTransport', 'caches', 'indexedDB', 'postMessage', 'close', 'Request'];
  block(self, names, blocked);
  block(self.navigator, ['storage'], blocked); // the origin's private file system (snapshot-store.ts keeps its own reference)
  self.onmessage = null; // requests come only through the private port
}

/** Replaces each named property of the object, and of its prototypes, by a blocked function for good. */
function block(root: object, names: string[], blocked: (what: string) => () => never) {
  for (let target: object | null = root; target && target !== Object.prototype; target = Object.getPrototypeOf(target)) {
    for (const name of names) {
      const own = Object.getOwnPropertyDescriptor(target, name);
      if (own && !own.configurable) continue;
      if (own || target === root) Object.defineProperty(target, name, { value: blocked(name), writable: false, configurable: false, enumerable: false });
    }
  }
}

/** Requests from the page, through the private port. */
async function onRequest(event: MessageEvent<ToWorker>) {
  const message = event.data;
  if (message.type === 'store-snapshot') {
    pendingSnapshot?.();
    pendingSnapshot = null;
    return;
  }
  if (message.type === 'prepare') {
    const ready = await runner;
    await settled; // like a run: after the seal, the warm-up and the snapshot, in the order asked
    ready?.prepare(message.request);
    return;
  }
  if (message.type !== 'run') return;
  readerRan = true;
  try {
    if (!runner) throw new Error('the Python worker was not started');
    const ready = await runner;
    await settled;
    post({ type: 'started', id: message.id });
    if (packed) {
      const bytes = ready.runPacked(message.request);
      const buffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
      post({ type: 'result', id: message.id, packed: buffer as ArrayBuffer }, [buffer]);
    } else post({ type: 'result', id: message.id, trace: ready.run(message.request) });
    setTimeout(() => ready.clean(), 0); // back to the start-up state, after the reader has the result
  } catch (error) {
    // The tracer turns every Python exception into trace data, so anything thrown here means the
    // Python runtime itself broke (a fatal Pyodide error, a JS stack overflow): this worker is done.
    const e = error as Error;
    post({ type: 'crashed', id: message.id, message: `${e.name}: ${e.message.split('\n')[0]}` });
  }
}

/** The one message on the worker's own port: the private port and where Python is. */
self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type !== 'init' || port) return;
  port = message.port;
  packed = message.packed === true;
  port.onmessage = onRequest;
  runner = start(message.indexURL, message.interrupt, message.network);
  runner.catch((error: Error) => post({ type: 'init-failed', message: error.message }));
};
