/**
 * Teaching over traces: pure functions for line hits, comparing two real runs, a variable's history
 * and prediction questions. Like replay.ts, they read a ReplayIndex and change nothing.
 */
import { preview } from '../trace/preview';
import type { Value } from '../trace/types';
import { pointOf, upperBound, type Position, type ReplayIndex } from './replay';

/** How many times each line of function `fn` ran in the whole run (its `line` events). */
export function lineCounts(ix: ReplayIndex, fn = 0): Map<number, number> {
  const out = new Map<number, number>();
  for (const [key, hits] of ix.lineHits) {
    const p = pointOf(key);
    if (p.fn === fn) out.set(p.line, hits.length);
  }
  return out;
}

export interface Comparison {
  /** Point keys of the lines this run reached and the other did not, ascending. */
  onlyHere: number[];
  /** Point keys of the lines the other run reached and this one did not, ascending. */
  onlyThere: number[];
  /**
   * The first step (0-based) where the two runs differ in where they are (event, function, line,
   * depth), with the line both had just run — where they part; null when they take the same path.
   */
  divergence: { step: number; fn: number; line: number } | null;
}

const place = (ix: ReplayIndex, i: number) => {
  const s = ix.trace.steps[i];
  return s ? `${s.event} ${s.fn ?? 0} ${s.line} ${s.depth}` : 'end';
};

/** Two indexes never change: a comparison is worked out once per pair, not once per move. */
const compared = new WeakMap<ReplayIndex, WeakMap<ReplayIndex, Comparison>>();

export function compareRuns(here: ReplayIndex, there: ReplayIndex): Comparison {
  let pairs = compared.get(here);
  if (!pairs) compared.set(here, (pairs = new WeakMap()));
  let comparison = pairs.get(there);
  if (!comparison) pairs.set(there, (comparison = compareOnce(here, there)));
  return comparison;
}

function compareOnce(here: ReplayIndex, there: ReplayIndex): Comparison {
  const only = (a: ReplayIndex, b: ReplayIndex) => [...a.lineHits.keys()].filter((k) => !b.lineHits.has(k)).sort((x, y) => x - y);
  let k = 0;
  const n = Math.max(here.size, there.size);
  while (k < n && place(here, k) === place(there, k)) k++;
  let divergence: Comparison['divergence'] = null;
  if (k < n) {
    const before = here.trace.steps[Math.max(0, k - 1)]!;
    divergence = { step: k, fn: before.fn ?? 0, line: before.line };
  }
  return { onlyHere: only(here, there), onlyThere: only(there, here), divergence };
}

export interface Change {
  step: number;
  line: number;
  /** undefined: the name was deleted at this step. */
  value: Value | undefined;
}

/** Each step where a variable of a frame got a new value (its first value included), in order. */
export function valueHistory(ix: ReplayIndex, frame: number, name: string): Change[] {
  const history = ix.frames[frame]?.vars.get(name);
  if (!history) return [];
  return history.at.map((step, k) => ({ step, line: ix.trace.steps[step]!.line, value: history.values[k] }));
}

/** The next step after `cursor` where the variable changes (-1 if none). */
export function nextChange(ix: ReplayIndex, frame: number, name: string, cursor: number): number {
  const at = ix.frames[frame]?.vars.get(name)?.at ?? [];
  const k = upperBound(at, cursor);
  return k < at.length ? at[k]! : -1;
}

/** The last step before `cursor` where the variable changed (-1 if none). */
export function previousChange(ix: ReplayIndex, frame: number, name: string, cursor: number): number {
  const at = ix.frames[frame]?.vars.get(name)?.at ?? [];
  const k = upperBound(at, cursor - 1) - 1;
  return k >= 0 ? at[k]! : -1;
}

/**
 * What a prediction question is checked against: after the statement at the paused step runs (a
 * Step over), the line the same frame is on (null: the frame returned), and each variable's value.
 */
export function afterNextStep(ix: ReplayIndex, pos: Position): { line: number | null } {
  // the frame's next `line` step; an exception raised on the way is passed over (a handler's line
  // comes next), a `return` first means the frame ends here
  const own = ix.frames[ix.frameOf[pos.cursor]!]!.steps;
  for (let k = upperBound(own, pos.cursor); k < own.length; k++) {
    const step = ix.trace.steps[own[k]!]!;
    if (step.event === 'line') return { line: step.line };
    if (step.event === 'return') break;
  }
  return { line: null };
}

/** A variable's value in the paused frame once the statement at `pos` has run (undefined: it has none). */
export function valueAfterNextStep(ix: ReplayIndex, pos: Position, name: string): Value | undefined {
  const frame = ix.frames[ix.frameOf[pos.cursor]!]!;
  const k = upperBound(frame.steps, pos.cursor);
  const at = frame.steps[Math.min(k, frame.steps.length - 1)]!;
  const history = frame.vars.get(name);
  if (!history) return undefined;
  const j = upperBound(history.at, at) - 1;
  return j >= 0 ? history.values[j] : undefined;
}

const normal = (text: string) => text.trim().replace(/"/g, "'").replace(/\s+/g, ' ').replace(/\s*([,:])\s*/g, '$1 ').trim();

/**
 * Whether a typed answer names the value: its Python text (quotes ' or ", spacing free); a string
 * may be given without quotes. `undefined` (no value) matches only an empty answer.
 */
export function answerMatches(answer: string, value: Value | undefined): boolean {
  if (value === undefined) return answer.trim() === '';
  const shown = normal(preview(value, 10_000).replace(/ #\d+/g, ''));
  const given = normal(answer);
  return given === shown || (value.t === 'str' && given === normal(value.v));
}
