import { describe, expect, it } from 'vitest';
import type { Step, Trace } from '../trace/types';
import * as R from './replay';

function trace(steps: Step[]): Trace {
  return { version: 1, target: { file: 'm.py', symbol: 'f' }, steps, stdout: 'abcdef', stats: { events: steps.length, durationMs: 0 } };
}
const s = (event: Step['event'], line: number, depth = 1, extra: Partial<Step> = {}): Step => ({ event, line, depth, stdoutLen: 0, ...extra });
const int = (v: number) => ({ t: 'int' as const, v });

/** def f(): for i in range(3): hook(i) -- line 2 is the loop, line 3 the call. */
const loop = trace([
  s('call', 1, 1, { locals: {} }),
  s('line', 2),
  s('line', 3, 1, { changes: { i: int(0) } }),
  s('line', 2, 1, { stdoutLen: 2 }),
  s('line', 3, 1, { changes: { i: int(1) } }),
  s('line', 2, 1, { stdoutLen: 4 }),
  s('line', 3, 1, { changes: { i: int(2) } }),
  s('line', 4, 1, { stdoutLen: 6 }),
  s('return', 4, 1, { value: { t: 'none' } }),
]);

describe('replay', () => {
  it('Debug stops at the first hit and Continue re-hits the same line in a loop', () => {
    const ix = R.indexTrace(loop);
    let pos = R.debug(ix, [3]);
    expect(pos).toMatchObject({ cursor: 2, phase: 'paused', reason: 'breakpoint' });
    pos = R.resume(ix, pos, [3]);
    expect(pos.cursor).toBe(4);
    pos = R.resume(ix, pos, [3]);
    expect(pos.cursor).toBe(6);
    pos = R.resume(ix, pos, [3]);
    expect(pos).toMatchObject({ cursor: 8, phase: 'finished' });
    expect(R.resume(ix, pos, [3])).toBe(pos);
    expect(R.stepInto(ix, R.goto(ix, 7))).toMatchObject({ cursor: 8, phase: "finished" });
  });

  it('Run goes to the end; Debug with no hit finishes', () => {
    const ix = R.indexTrace(loop);
    expect(R.run(ix)).toMatchObject({ cursor: 8, phase: 'finished' });
    expect(R.debug(ix, [99])).toMatchObject({ phase: 'finished' });
    expect(R.debug(ix, [])).toMatchObject({ phase: 'finished' });
  });

  it('steps back, reverse-continues and resets', () => {
    const ix = R.indexTrace(loop);
    let pos = R.goto(ix, 6);
    pos = R.stepBack(ix, pos);
    expect(pos.cursor).toBe(5);
    pos = R.reverseResume(ix, pos, [3]);
    expect(pos.cursor).toBe(4);
    pos = R.reverseResume(ix, pos, [3]);
    expect(pos.cursor).toBe(2);
    pos = R.reverseResume(ix, pos, [3]);
    expect(pos).toMatchObject({ cursor: 0, reason: 'start' });
    expect(R.stepBack(ix, pos).cursor).toBe(0);
    expect(R.reset()).toEqual(R.IDLE);
  });

  it('shows locals as of the cursor and marks what just changed', () => {
    const ix = R.indexTrace(loop);
    expect(R.variablesAt(ix, 1)).toEqual([]);
    expect(R.variablesAt(ix, 4)).toEqual([{ name: 'i', value: int(1), changed: true }]);
    expect(R.variablesAt(ix, 5)).toEqual([{ name: 'i', value: int(1), changed: false }]);
    // after a Continue from step 3 to step 5, `i` changed in between (at step 4): it is marked
    expect(R.variablesAt(ix, 5, 3)).toEqual([{ name: 'i', value: int(1), changed: true }]);
    expect(R.variablesAt(ix, 5, 4)).toEqual([{ name: 'i', value: int(1), changed: false }]);
    // moving backwards marks only what changed at the step itself
    expect(R.variablesAt(ix, 4, 7)).toEqual([{ name: 'i', value: int(1), changed: true }]);
    expect(R.variablesAt(ix, 5, 7)).toEqual([{ name: 'i', value: int(1), changed: false }]);
    expect(R.stdoutAt(ix, R.goto(ix, 3))).toBe('ab');
    expect(R.stdoutAt(ix, R.run(ix))).toBe('abcdef');
    expect(R.previousLine(ix, 3)).toBe(3);
  });

  it('steps over and out of nested (recursive) frames', () => {
    // f(1) calls f(0) from line 2
    const ix = R.indexTrace(
      trace([
        s('call', 1, 1, { locals: { n: int(1) } }), // 0
        s('line', 2, 1), // 1
        s('call', 1, 2, { locals: { n: int(0) } }), // 2
        s('line', 2, 2), // 3
        s('line', 3, 2), // 4
        s('return', 3, 2, { value: int(0) }), // 5
        s('line', 3, 1), // 6
        s('return', 3, 1, { value: int(1) }), // 7
      ]),
    );
    expect(R.stepOver(ix, R.goto(ix, 1)).cursor).toBe(6);
    expect(R.stepInto(ix, R.goto(ix, 1)).cursor).toBe(2);
    expect(R.stepOut(ix, R.goto(ix, 3)).cursor).toBe(5);
    expect(R.stepOut(ix, R.goto(ix, 5)).cursor).toBe(6);
    expect(R.stepOver(ix, R.goto(ix, 5)).cursor).toBe(6);
    expect(R.variablesAt(ix, 4)).toEqual([{ name: 'n', value: int(0), changed: false }]);
    expect(R.variablesAt(ix, 6)).toEqual([{ name: 'n', value: int(1), changed: false }]);
    expect(R.stepOut(ix, R.goto(ix, 6))).toMatchObject({ cursor: 7, phase: 'finished' });
  });

  it('handles an empty trace', () => {
    const ix = R.indexTrace(trace([]));
    expect(R.run(ix)).toMatchObject({ cursor: -1, phase: 'finished' });
    expect(R.variablesAt(ix, 0)).toEqual([]);
  });

  it('moves in O(log n) over a 1,000,000-step trace', () => {
    const n = 1_000_000;
    const steps: Step[] = new Array(n);
    steps[0] = s('call', 1, 1, { locals: { i: int(0) } });
    for (let k = 1; k < n; k++) steps[k] = s('line', 2 + (k % 5), 1, k % 5 === 0 ? { changes: { i: int(k) } } : {});
    const ix = R.indexTrace(trace(steps));
    let pos = R.debug(ix, [4]);
    expect(pos.cursor).toBe(2);
    for (let k = 0; k < 1000; k++) pos = R.resume(ix, pos, [4]);
    expect(pos.cursor).toBe(2 + 5 * 1000);
    pos = R.goto(ix, 999_998);
    expect(R.variablesAt(ix, pos.cursor)).toEqual([{ name: 'i', value: int(999_995), changed: false }]);
    expect(R.reverseResume(ix, pos, [4]).cursor).toBe(999_997);
    expect(R.latestLine(ix, [2, 3], 999_998)).toBe(3);
  });
});
