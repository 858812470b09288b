/**
 * What a started Python is, the same wherever it is started: in the page's worker (cold) and in the
 * build, which makes the site's memory snapshot from it (scripts/snapshot.ts) for a first visit.
 */

/**
 * Python's environment, fixed: without it Emscripten takes LANG from the browser's language (a zh and
 * an en reader would see different os.environ) and `_` from the script that started it (in the
 * build: a path on the build machine).
 */
export const PYTHON_ENV = { LANG: 'C.UTF-8', _: './this.program' };

/** One tiny traced run right after start-up, so the reader's first run does not pay for warming up. */
export const WARM_UP = {
  root: '/steplight/warm-up',
  files: { 'warm.py': 'import copy\n\ndef warm(items):\n    out = []\n    for item in items:\n        out.append(copy.deepcopy(item))\n    return out\n' },
  target: { file: 'warm.py', symbol: 'warm' },
  harness: { file: 'harness.py', code: 'from warm import warm\noutcome = warm([{"a": [1]}, "b"])\nprint(outcome)\n' },
};

/**
 * More of the same, run in slices while the page is idle after ready (worker.ts): V8 optimises
 * Python's wasm only once it has run enough, which a start from a snapshot skips, so until then
 * the reader's first runs took twice as long (70-200 ms instead of 40-60).
 */
export const WARM_UP_MORE = {
  ...WARM_UP,
  harness: { file: 'harness.py', code: 'from warm import warm\nfor i in range(40):\n    outcome = warm([{"a": [1, {"b": i}]}, "b" * i, (i, 2.5), {i, -i}])\nprint(outcome)\n' },
};

/** The site's snapshot as the build describes it to the worker: its file (beside Pyodide's) and its size as stored. */
export interface SiteSnapshot {
  file: string;
  size: number;
}
