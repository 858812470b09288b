/**
 * What the widget shows, derived from its state: a pure function (no React), so the components
 * only render it. Everything here is read from the replay and teaching layers.
 */
import type { Question, Widget } from '../lessons/types';
import * as R from '../replay/replay';
import * as T from '../replay/teach';
import type { Step } from '../trace/types';
import type { WidgetState } from './store';

export interface View {
  /** Whether a replay stands somewhere (paused, or finished). */
  active: boolean;
  /** The widget's function, then the functions it steps into (a step's `fn` indexes this). */
  blocks: Widget['callees'];
  stack: R.StackFrame[];
  /** The frame whose position and variables are shown: the current one, or one picked in the call stack. */
  viewed: R.StackFrame | undefined;
  /** Whether the viewed frame is the current (innermost) one. */
  current: boolean;
  /** The current step, when the current frame is viewed. */
  step: Step | undefined;
  /** The viewed frame's line, when the code view shows its function. */
  line: number | undefined;
  /** The line that ran just before, in the current frame. */
  previous: number | undefined;
  variables: R.Variable[];
  /** Breakpoint lines in the function shown. */
  breakpoints: number[];
  /** After a run: [line, times it ran] for each line of the shown function that can run. */
  counts: [number, number][] | undefined;
  comparison: T.Comparison | null;
  /** Of the comparison: lines of the shown function reached only in this run / only in the other. */
  onlyHere: number[] | undefined;
  onlyThere: number[] | undefined;
  /** Variables that hold the very object another frame on the stack holds. */
  shared: Map<string, { fn: number; name: string }[]> | null;
  question: Question | undefined;
  /** The diagram's current line (-1: none; nothing is current once the run has finished). */
  diagramLine: number;
}

export function viewOf(widget: Widget, s: WidgetState): View {
  const ix = s.index;
  const cursor = s.pos.cursor;
  const active = !!ix && (s.status === 'paused' || s.status === 'finished');
  const blocks = [widget, ...(widget.callees ?? [])];
  const stack = ix && active ? R.callStack(ix, cursor) : [];
  const viewed = stack.find((f) => f.frame === s.frame) ?? stack[0];
  const current = viewed === stack[0];
  const inShown = (keys: number[] | undefined) => keys?.filter((k) => R.pointOf(k).fn === s.shown).map((k) => R.pointOf(k).line);
  const line = viewed && viewed.fn === s.shown ? viewed.line : undefined;
  let counts: View['counts'];
  if (ix && s.status === 'finished') {
    const hits = T.lineCounts(ix, s.shown);
    counts = (ix.trace.lines?.[s.shown] ?? [...hits.keys()]).map((l): [number, number] => [l, hits.get(l) ?? 0]);
  }
  const comparison = ix && s.compare?.index ? T.compareRuns(ix, s.compare.index) : null;
  return {
    active,
    blocks,
    stack,
    viewed,
    current,
    step: ix && current ? R.stepAt(ix, cursor) : undefined,
    line,
    previous: current && line !== undefined && ix && s.status === 'paused' ? R.previousLine(ix, cursor) : undefined,
    variables: ix && viewed ? R.variablesAt(ix, cursor, current ? s.since : cursor, viewed.frame) : [],
    breakpoints: inShown(s.breakpoints)!,
    counts,
    comparison,
    onlyHere: inShown(comparison?.onlyHere),
    onlyThere: inShown(comparison?.onlyThere),
    shared: ix && viewed && stack.length > 1 ? R.sharedObjects(ix, cursor, viewed.frame) : null,
    question: questionAt(widget, s),
    diagramLine: ix && s.status === 'paused' ? R.latestLine(ix, widget.diagram.map((d) => d.line), cursor) : -1,
  };
}

/** The question for where the replay stands, if the author asked one there (the widget's own function). */
export function questionAt(widget: Widget, s: WidgetState): Question | undefined {
  if (s.status !== 'paused' || !s.index || !widget.predict?.length) return undefined;
  const step = s.index.trace.steps[s.pos.cursor];
  if (!step || step.event !== 'line' || (step.fn ?? 0) !== 0) return undefined;
  return widget.predict.find((q) => q.line === step.line);
}
