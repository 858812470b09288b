import { describe, expect, it } from 'vitest';
import { compareWithReference, type ReferenceRun } from './reference';
import type { Locals, Trace } from './types';

const trace = (locals: Locals): Trace => ({
  version: 1,
  target: { file: 'm.py', symbol: 'f' },
  steps: [{ event: 'call', line: 1, depth: 1, stdoutLen: 0, locals }],
  stdout: '',
  stats: { events: 1, durationMs: 0 },
});
const run = (locals: Locals): ReferenceRun => ({ steps: [{ event: 'call', line: 1, depth: 1, fn: 0, locals }], outcome: null, stdout: '', error: null });
const list = (id: number, v: number) => ({ t: 'list' as const, id, len: 1, items: [{ t: 'int' as const, v }] });

describe('the differential check compares values, not their layout', () => {
  it('the same keys in another order agree', () => {
    expect(compareWithReference(trace({ a: { t: 'int', v: 1 }, b: list(7, 2) }), run({ b: { items: [{ v: 2, t: 'int' }], len: 1, id: 70, t: 'list' }, a: { v: 1, t: 'int' } }))).toBeNull();
  });

  it('a key on one side only, or a different value, is a difference', () => {
    expect(compareWithReference(trace({ a: { t: 'int', v: 1 } }), run({ a: { t: 'int', v: 1 }, b: { t: 'none' } }))).toMatch(/step 1 .*locals/);
    expect(compareWithReference(trace({ a: { t: 'int', v: 1 }, b: { t: 'none' } }), run({ a: { t: 'int', v: 1 }, c: { t: 'none' } }))).toMatch(/step 1 .*locals/);
    expect(compareWithReference(trace({ a: list(1, 2) }), run({ a: list(1, 3) }))).toMatch(/locals/);
    expect(compareWithReference(trace({ a: { t: 'str', v: 'x' } }), run({ a: { t: 'str', v: 'x', len: 1 } }))).toMatch(/locals/);
  });

  it('object ids must correspond one to one, whatever their numbers', () => {
    expect(compareWithReference(trace({ a: list(1, 2), b: list(1, 2) }), run({ a: list(5, 2), b: list(5, 2) }))).toBeNull();
    expect(compareWithReference(trace({ a: list(1, 2), b: list(1, 2) }), run({ a: list(5, 2), b: list(6, 2) }))).toMatch(/locals/); // one object in the trace, two in the reference
    expect(compareWithReference(trace({ a: list(1, 2), b: list(2, 2) }), run({ a: list(5, 2), b: list(5, 2) }))).toMatch(/locals/);
  });
});
