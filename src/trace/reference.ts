/**
 * The differential check: a product trace against the independent reference recorder
 * (src/runtime/reference_recorder.py), step by step — event, line, depth, every local, and how
 * each frame ended (its value, or the exception it raised).
 */
import type { Locals, Trace, Value } from './types';

export interface ReferenceStep {
  event: 'call' | 'line' | 'return' | 'exception';
  line: number;
  depth: number;
  /** Which traced function: 0 the target, k the request's k-th callee. */
  fn: number;
  locals: Locals;
  value?: Value;
  /** The exception type, for an `exception` step and for a frame that ended by raising. */
  raised?: string;
}

/** What the reference recorder gives for one run (`steps` is empty for an untraced run). */
export interface ReferenceRun {
  steps: ReferenceStep[];
  outcome: Value | null;
  stdout: string;
  /** The type of the exception that ended the harness, if any. */
  error: string | null;
}

/** Object ids are numbered independently on each side: they must correspond one to one. */
class IdMap {
  private ab = new Map<number, number>();
  private ba = new Map<number, number>();
  same(a: number, b: number): boolean {
    const x = this.ab.get(a);
    const y = this.ba.get(b);
    if (x === undefined && y === undefined) {
      this.ab.set(a, b);
      this.ba.set(b, a);
      return true;
    }
    return x === b && y === a;
  }
}

function equal(a: unknown, b: unknown, ids: IdMap): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => equal(x, (b as unknown[])[i], ids));
  // the same keys (in any order), each with an equal value
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && (k === 'id' ? ids.same((a as Record<string, number>)[k]!, (b as Record<string, number>)[k]!) : equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], ids)));
}

/** Full locals at every step of a product trace (it stores only what changed). */
export function fullLocals(trace: Trace): Locals[] {
  const stack: Locals[] = [];
  return trace.steps.map((step) => {
    let frame: Locals;
    if (step.locals) frame = { ...step.locals };
    else {
      frame = { ...(stack[step.depth - 1] ?? {}), ...step.changes };
      for (const name of step.removed ?? []) delete frame[name];
    }
    stack.length = step.depth - 1;
    stack.push(frame);
    return frame;
  });
}

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200);

/** The first difference between a product trace and the reference, or null when they agree. */
export function compareWithReference(trace: Trace, run: ReferenceRun): string | null {
  const reference = run.steps;
  const ids = new IdMap();
  const locals = fullLocals(trace);
  const cut = trace.truncated !== undefined;
  const n = cut ? Math.min(trace.steps.length, reference.length) : Math.max(trace.steps.length, reference.length);
  for (let i = 0; i < n; i++) {
    const p = trace.steps[i];
    const r = reference[i];
    const at = `step ${i + 1}`;
    if (!p || !r) return `${at}: ${p ? 'the reference has no more steps' : 'the trace has no more steps'} (trace ${trace.steps.length}, reference ${reference.length})`;
    for (const key of ['event', 'line', 'depth'] as const) if (p[key] !== r[key]) return `${at}: ${key} ${p[key]} in the trace, ${r[key]} in the reference`;
    if ((p.fn ?? 0) !== r.fn) return `${at}: function ${p.fn ?? 0} in the trace, ${r.fn} in the reference`;
    if (!equal(locals[i], r.locals, ids)) return `${at} (line ${p.line}): locals ${show(locals[i])} in the trace, ${show(r.locals)} in the reference`;
    if (p.event === 'exception' && p.exception?.type !== r.raised) return `${at}: exception ${p.exception?.type} in the trace, ${r.raised} in the reference`;
    if (p.event === 'return') {
      const pr = p.value === undefined ? `raises ${p.exception?.type}` : 'returns';
      const rr = r.value === undefined ? `raises ${r.raised}` : 'returns';
      if (pr !== rr) return `${at} (line ${p.line}): the frame ${pr} in the trace, ${rr} in the reference`;
      if (p.value !== undefined && !equal(p.value, r.value, ids)) return `${at}: returns ${show(p.value)} in the trace, ${show(r.value)} in the reference`;
    }
  }
  return null;
}

/** Whether the recorded run did what the code does with no tracer: the same outcome, output and error. */
export function compareWithUntraced(trace: Trace, untraced: ReferenceRun): string | null {
  if (trace.truncated) return null;
  if (!equal(trace.outcome ?? null, untraced.outcome, new IdMap())) return `outcome ${show(trace.outcome)} with the recorder, ${show(untraced.outcome)} without it`;
  if (trace.stdout !== untraced.stdout.slice(0, trace.stdout.length) || (!trace.stdoutDropped && trace.stdout !== untraced.stdout)) return `stdout ${show(trace.stdout)} with the recorder, ${show(untraced.stdout)} without it`;
  if ((trace.error?.type ?? null) !== untraced.error) return `error ${trace.error?.type ?? 'none'} with the recorder, ${untraced.error ?? 'none'} without it`;
  return null;
}
