/** Trace format, version 1 (see DESIGN.md "Trace"). Produced by src/runtime/steplight_tracer.py. */

export type Value =
  | { t: 'none' }
  | { t: 'bool'; v: boolean }
  | { t: 'int'; v: number }
  | { t: 'float'; v: number | string }
  | { t: 'str' | 'bytes' | 'bigint'; v: string; len?: number; type?: string; id?: number }
  | { t: 'dict'; id: number; len: number; type?: string; entries?: [Value, Value][]; more?: true }
  | { t: 'list' | 'tuple' | 'set' | 'frozenset'; id: number; len: number; type?: string; items?: Value[]; more?: true }
  | { t: 'ref'; id: number; of: string }
  | { t: 'exc'; type: string; id: number; args: Value[] }
  | { t: 'func'; name: string; id: number }
  | { t: 'class' | 'module'; name: string }
  /** `unreadable`: the object's state could not be read without running its code (the error's type). */
  | { t: 'obj'; type: string; id: number; attrs?: Record<string, Value>; more?: true; unreadable?: string };

export type Locals = Record<string, Value>;

export interface ExceptionInfo {
  type: string;
  message: string;
}

export type StepEvent = 'call' | 'line' | 'return' | 'exception';

export interface Step {
  event: StepEvent;
  /** For `line` events: the line about to run. */
  line: number;
  /** Number of traced frames on the stack, this one included (1 = outermost call). */
  depth: number;
  /** Which traced function this frame runs: absent for the target, k for the request's k-th callee. */
  fn?: number;
  /** Full locals: the first step of a frame. */
  locals?: Locals;
  /** Locals that changed since this frame's previous step. */
  changes?: Locals;
  removed?: string[];
  stdoutLen: number;
  value?: Value;
  exception?: ExceptionInfo | null;
}

export interface RunError extends ExceptionInfo {
  frames?: { file: string; line: number; name: string }[];
}

export interface Trace {
  version: 1;
  target: { file: string; symbol: string; firstLine?: number; lastLine?: number };
  steps: Step[];
  /** For the target (0) and each callee: the lines of its code object that can run (Python's line table, without the def line). */
  lines?: number[][];
  stdout: string;
  stdoutDropped?: number;
  outcome?: Value;
  error?: RunError;
  /** Why the trace stops early: the step cap, the time limit, or lesson code that replaced the recorder. */
  truncated?: 'steps' | 'time' | 'tracer';
  /** `cleanMs` (Node hosts): bringing Python back to its start-up state after the run (see Baseline). */
  /** recorder: which recorder recorded the run, the C fast path's or the one in Python (the same trace). */
  stats: { events: number; durationMs: number; cleanMs?: number; recorder?: 'c' | 'python'; tracing?: string };
}

export interface Limits {
  maxSteps: number;
  timeoutMs: number;
  maxStdout: number;
  strLen: number;
  items: number;
  depth: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 100_000,
  timeoutMs: 5_000,
  maxStdout: 100_000,
  strLen: 200,
  items: 50,
  depth: 4,
};

/** What one run needs: everything is data, so it can cross a worker boundary. */
export interface RunRequest {
  /** Where the lesson's files are written in the Python file system. */
  root: string;
  /** Lesson files by path relative to the lesson directory. */
  files: Record<string, string>;
  /** The function shown: its file, qualified name and (from the lesson) the lines it spans on screen. */
  target: { file: string; symbol: string; firstLine?: number; lastLine?: number };
  /** Harness file name and its full text (scenario inputs already prepended). */
  harness: { file: string; code: string };
  /** Functions of the lesson the reader can step into: traced too, while the target is on the stack. */
  callees?: { file: string; symbol: string; firstLine?: number; lastLine?: number }[];
  limits?: Partial<Limits>;
}

/** A plain JSON view of a typed value, for comparing against a scenario's `expect`. */
export function plain(value: Value): unknown {
  switch (value.t) {
    case 'none':
      return null;
    case 'bool':
    case 'int':
    case 'float':
    case 'str':
    case 'bytes':
    case 'bigint':
      return value.v;
    case 'dict':
      return Object.fromEntries((value.entries ?? []).map(([k, v]) => [String(plain(k)), plain(v)]));
    case 'list':
    case 'tuple':
    case 'set':
    case 'frozenset':
      return (value.items ?? []).map(plain);
    case 'exc':
      return { exception: value.type, args: value.args.map(plain) };
    case 'obj':
      return { type: value.type, ...Object.fromEntries(Object.entries(value.attrs ?? {}).map(([k, v]) => [k, plain(v)])) };
    default:
      return `<${value.t} ${'name' in value ? value.name : ''}>`;
  }
}
