/**
 * Replay: pure functions over (trace, cursor, breakpoints).
 * `indexTrace` builds lookup tables once, in O(n); every move is then O(log n)
 * (times the number of breakpoints), and reading a step's locals is O(v log n).
 */
import type { Step, Trace, Value } from '../trace/types';

/**
 * A line of one traced function, as one number: a line of the widget's own function (0) is its line
 * number; a line of its k-th callee is k × LINE_SPAN + line. Breakpoints and line hits use these keys.
 */
export const LINE_SPAN = 1_000_000;
export const pointKey = (fn: number, line: number) => fn * LINE_SPAN + line;
export const pointOf = (key: number) => ({ fn: Math.floor(key / LINE_SPAN), line: key % LINE_SPAN });

export interface ReplayIndex {
  trace: Trace;
  size: number;
  /** point key (function and line) -> indices of `line` events on it, ascending. */
  lineHits: Map<number, number[]>;
  /** step -> its frame. */
  frameOf: Int32Array;
  frames: FrameInfo[];
}

interface FrameInfo {
  /** Which traced function the frame runs (0 = the widget's own). */
  fn: number;
  /** This frame's steps, ascending (child frames' steps are not in it). */
  steps: number[];
  /** name -> the steps where it got a value (or lost it: undefined), ascending. */
  vars: Map<string, { at: number[]; values: (Value | undefined)[] }>;
  parent: number;
}

export function indexTrace(trace: Trace): ReplayIndex {
  const steps = trace.steps;
  const frameOf = new Int32Array(steps.length);
  const frames: FrameInfo[] = [];
  const lineHits = new Map<number, number[]>();
  const stack: number[] = [];
  steps.forEach((step, i) => {
    // stack[k] is the open frame at depth k + 1
    stack.length = Math.min(stack.length, step.event === 'call' ? step.depth - 1 : step.depth);
    while (stack.length < step.depth) {
      frames.push({ fn: step.fn ?? 0, steps: [], vars: new Map(), parent: stack.length ? stack[stack.length - 1]! : -1 });
      stack.push(frames.length - 1);
    }
    const f = stack[stack.length - 1]!;
    const frame = frames[f]!;
    frameOf[i] = f;
    frame.steps.push(i);
    const set = (name: string, value: Value | undefined) => {
      let history = frame.vars.get(name);
      if (!history) frame.vars.set(name, (history = { at: [], values: [] }));
      history.at.push(i);
      history.values.push(value);
    };
    for (const [name, value] of Object.entries(step.locals ?? step.changes ?? {})) set(name, value);
    for (const name of step.removed ?? []) set(name, undefined);
    if (step.event === 'line') {
      const key = pointKey(step.fn ?? 0, step.line);
      let hits = lineHits.get(key);
      if (!hits) lineHits.set(key, (hits = []));
      hits.push(i);
    }
    if (step.event === 'return') stack.pop();
  });
  return { trace, size: steps.length, lineHits, frameOf, frames };
}

/** First index in ascending `xs` with xs[i] > x. */
export function upperBound(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export type Phase = 'idle' | 'paused' | 'finished';

/** Where the replay stands. `cursor` is -1 before the first step. */
export interface Position {
  cursor: number;
  phase: Phase;
  /** Why it stopped here. */
  reason?: 'breakpoint' | 'step' | 'start' | 'end' | 'goto';
}

export const IDLE: Position = { cursor: -1, phase: 'idle' };

const last = (ix: ReplayIndex) => ix.size - 1;
const end = (ix: ReplayIndex): Position => ({ cursor: last(ix), phase: 'finished', reason: 'end' });
const at = (ix: ReplayIndex, cursor: number, reason: Position['reason']): Position =>
  cursor < 0 || cursor >= last(ix) ? end(ix) : { cursor, phase: 'paused', reason };

/** The next breakpoint hit after `from`, or -1. */
export function nextHit(ix: ReplayIndex, breakpoints: Iterable<number>, from: number): number {
  let best = -1;
  for (const line of breakpoints) {
    const hits = ix.lineHits.get(line);
    if (!hits) continue;
    const k = upperBound(hits, from);
    if (k < hits.length && (best < 0 || hits[k]! < best)) best = hits[k]!;
  }
  return best;
}

/** The last breakpoint hit before `from`, or -1. */
export function previousHit(ix: ReplayIndex, breakpoints: Iterable<number>, from: number): number {
  let best = -1;
  for (const line of breakpoints) {
    const hits = ix.lineHits.get(line);
    if (!hits) continue;
    const k = upperBound(hits, from - 1) - 1;
    if (k >= 0 && hits[k]! > best) best = hits[k]!;
  }
  return best;
}

export const run = (ix: ReplayIndex): Position => end(ix);

export function debug(ix: ReplayIndex, breakpoints: Iterable<number>): Position {
  const hit = nextHit(ix, breakpoints, -1);
  return hit < 0 ? end(ix) : at(ix, hit, 'breakpoint');
}

export function resume(ix: ReplayIndex, pos: Position, breakpoints: Iterable<number>): Position {
  if (pos.phase === 'finished') return pos;
  const hit = nextHit(ix, breakpoints, pos.cursor);
  return hit < 0 ? end(ix) : at(ix, hit, 'breakpoint');
}

export function reverseResume(ix: ReplayIndex, pos: Position, breakpoints: Iterable<number>): Position {
  if (pos.phase === 'idle') return pos;
  const hit = previousHit(ix, breakpoints, pos.cursor);
  return hit < 0 ? at(ix, 0, 'start') : at(ix, hit, 'breakpoint');
}

export function stepInto(ix: ReplayIndex, pos: Position): Position {
  if (pos.phase === 'finished') return pos;
  return at(ix, pos.cursor + 1, 'step');
}

/** The next step of the same frame; past the frame's end, whatever follows it. */
export function stepOver(ix: ReplayIndex, pos: Position): Position {
  if (pos.phase !== 'paused') return pos.phase === 'idle' ? stepInto(ix, pos) : pos;
  const own = ix.frames[ix.frameOf[pos.cursor]!]!.steps;
  const k = upperBound(own, pos.cursor);
  if (k < own.length) return at(ix, own[k]!, 'step');
  return at(ix, own[own.length - 1]! + 1, 'step');
}

/** To the frame's return step (its value shown); from there, to what follows. */
export function stepOut(ix: ReplayIndex, pos: Position): Position {
  if (pos.phase !== 'paused') return pos.phase === 'idle' ? stepInto(ix, pos) : pos;
  const own = ix.frames[ix.frameOf[pos.cursor]!]!.steps;
  const final = own[own.length - 1]!;
  return at(ix, final > pos.cursor ? final : final + 1, 'step');
}

export function stepBack(ix: ReplayIndex, pos: Position): Position {
  if (pos.phase === 'idle' || pos.cursor <= 0) return pos.phase === 'idle' ? pos : at(ix, 0, 'start');
  return at(ix, pos.cursor - 1, 'step');
}

export function goto(ix: ReplayIndex, cursor: number): Position {
  if (ix.size === 0) return end(ix);
  const c = Math.max(0, Math.min(last(ix), Math.round(cursor)));
  return at(ix, c, 'goto');
}

export const reset = (): Position => IDLE;

export interface Variable {
  name: string;
  value: Value;
  /** Set by the line that just ran (this step's change). */
  changed: boolean;
}

/** The locals of the frame at `cursor`, as they are at that step. */
/**
 * The variables of the current frame at `cursor`; `changed` marks those assigned after step `since`
 * (the previous stop: after a Continue, everything that changed since the last pause), or, moving
 * backwards, at this very step. A frame's arguments are not "changed" at its first step.
 */
export function variablesAt(ix: ReplayIndex, cursor: number, since = cursor - 1, frameIndex?: number): Variable[] {
  if (cursor < 0 || cursor >= ix.size) return [];
  const frame = ix.frames[frameIndex ?? ix.frameOf[cursor]!]!;
  const after = since < cursor ? since : cursor - 1;
  const out: Variable[] = [];
  for (const [name, history] of frame.vars) {
    const k = upperBound(history.at, cursor) - 1;
    if (k < 0) continue;
    const value = history.values[k];
    if (value === undefined) continue;
    out.push({ name, value, changed: history.at[k]! > after && history.at[k] !== frame.steps[0] });
  }
  return out;
}

/** One frame of the call stack at a step: its function, and the line it is on (a caller: the line of the call). */
export interface StackFrame {
  frame: number;
  fn: number;
  line: number;
  /** The frame's latest step at or before the cursor. */
  at: number;
  /** Its arguments as they were passed (its locals at its first step). */
  args: { name: string; value: Value }[];
}

/** The traced frames on the stack at `cursor`, innermost first. */
export function callStack(ix: ReplayIndex, cursor: number): StackFrame[] {
  if (cursor < 0 || cursor >= ix.size) return [];
  const out: StackFrame[] = [];
  for (let f = ix.frameOf[cursor]!; f >= 0; f = ix.frames[f]!.parent) {
    const frame = ix.frames[f]!;
    const at = frame.steps[upperBound(frame.steps, cursor) - 1]!;
    out.push({ frame: f, fn: frame.fn, line: ix.trace.steps[at]!.line, at, args: Object.entries(ix.trace.steps[frame.steps[0]!]!.locals ?? {}).map(([name, value]) => ({ name, value })) });
  }
  return out;
}

/** For each variable of a frame at `cursor`: the variables of the other frames on the stack that hold the very same object (same id). */
export function sharedObjects(ix: ReplayIndex, cursor: number, frameIndex: number): Map<string, { fn: number; name: string }[]> {
  const idOf = (v: Value) => ('id' in v && typeof v.id === 'number' ? v.id : undefined);
  const holders = new Map<number, { fn: number; name: string }[]>();
  for (const f of callStack(ix, cursor)) {
    if (f.frame === frameIndex) continue;
    for (const v of variablesAt(ix, cursor, cursor, f.frame)) {
      const id = idOf(v.value);
      if (id !== undefined) holders.set(id, [...(holders.get(id) ?? []), { fn: f.fn, name: v.name }]);
    }
  }
  const out = new Map<string, { fn: number; name: string }[]>();
  for (const v of variablesAt(ix, cursor, cursor, frameIndex)) {
    const id = idOf(v.value);
    const found = id === undefined ? undefined : holders.get(id);
    if (found) out.set(v.name, found);
  }
  return out;
}

export function stepAt(ix: ReplayIndex, cursor: number): Step | undefined {
  return cursor >= 0 ? ix.trace.steps[cursor] : undefined;
}

/** The line that ran just before this step, in the same frame. */
export function previousLine(ix: ReplayIndex, cursor: number): number | undefined {
  if (cursor <= 0 || cursor >= ix.size) return undefined;
  const own = ix.frames[ix.frameOf[cursor]!]!.steps;
  const k = upperBound(own, cursor - 1) - 1;
  return k >= 0 ? ix.trace.steps[own[k]!]!.line : undefined;
}

export function stdoutAt(ix: ReplayIndex, pos: Position): string {
  if (pos.phase === 'finished') return ix.trace.stdout;
  const step = stepAt(ix, pos.cursor);
  return step ? ix.trace.stdout.slice(0, step.stdoutLen) : '';
}

/** Of the given lines, the one whose latest `line` event is at or before `cursor` (-1 if none). */
export function latestLine(ix: ReplayIndex, lines: number[], cursor: number): number {
  let best = -1;
  let bestAt = -1;
  for (const line of lines) {
    const hits = ix.lineHits.get(line);
    if (!hits) continue;
    const k = upperBound(hits, cursor) - 1;
    if (k >= 0 && hits[k]! > bestAt) {
      bestAt = hits[k]!;
      best = line;
    }
  }
  return best;
}
