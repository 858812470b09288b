/**
 * What a started Python is, the same wherever it is started: in the page's worker (cold) and in the
 * build, which makes the site's memory snapshot from it (scripts/snapshot.ts) for a first visit.
 */
import type { Runner } from './runner';

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
 * The warm-up of the site's snapshot (scripts/snapshot.ts): WARM_UP run and cleaned twice. The
 * second clean learns which of the baseline's namespaces every run changes and puts back (the
 * runner's own patches of sys, os, time...), so that runs from the snapshot have nothing left to
 * learn (each such clean checks every namespace one by one). Throws if a warm-up run fails.
 */
export function warmUpForSnapshot(runner: Runner) {
  for (let k = 0; k < 2; k++) {
    const warm = runner.run(WARM_UP);
    if (warm.error || !warm.steps.length) throw new Error(`the warm-up run failed (${warm.error?.type ?? 'no steps'}: ${warm.error?.message ?? ''})`);
    runner.clean();
  }
}

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
