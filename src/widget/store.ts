/** One vanilla zustand store per widget: all of its state, and the actions that change it. */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Widget } from '../lessons/types';
import { widgetRequest, scenarioOf } from '../lessons/run';
import * as R from '../replay/replay';
import type { EngineStatus } from '../runtime/client';
import { harnessText } from '../runtime/request';
import { splitBreakpoint } from '../site/deeplink';
import type { RunRequest, Trace } from '../trace/types';

/** What the store needs of the Python engine (the page's worker client, or a test double's real engine). */
export interface EngineLike {
  status: EngineStatus;
  subscribe(listener: (status: EngineStatus) => void): () => void;
  run(request: RunRequest): Promise<Trace>;
  /** Optional: get a lesson ready ahead of its first run. */
  prepare?(request: RunRequest): void;
}

/** An engine that never runs anything: for prerendering pages on the server, and for pages with no widget. */
export const staticEngine: EngineLike = {
  status: { state: 'loading', phase: 'booting' },
  subscribe: () => () => {},
  run: () => Promise.reject(new Error('Python is not available while prerendering')),
};

export type Status = 'idle' | 'loading' | 'running' | 'paused' | 'finished' | 'error';
export type Mode = 'run' | 'debug' | 'step';
/** How long a run goes before its widget shows that it runs (a quicker one shows only its result). */
export const SHOW_RUN_AFTER_MS = 100;

export interface WidgetState {
  scenario: string;
  /** Point keys (R.pointKey): a line of the widget's function is its number, a callee's line is offset by its number. */
  breakpoints: number[];
  /** Which function the code view shows (0 = the widget's, k = its k-th callee): the current frame's, or one the reader picked. */
  shown: number;
  /** A frame of the call stack the reader picked (its code position and locals shown), or null for the current one. */
  frame: number | null;
  status: Status;
  engine: EngineStatus;
  index: R.ReplayIndex | null;
  pos: R.Position;
  /** The cursor of the previous stop (-1 before the first): "changed" means changed since then. */
  since: number;
  error: string | null;
  /** How many runs' results this widget has taken (each new result counts, even one equal to the last). */
  runs: number;
  /** Another scenario of this widget, run for comparison (its own real run). */
  compare: { scenario: string; index: R.ReplayIndex | null; error: string | null } | null;
  /** The variable whose history is shown (in the frame shown). */
  watch: string | null;
  /** The reader's answer to the prediction question at a step. */
  prediction: { cursor: number; answer: string } | null;
}

export interface WidgetActions {
  start(mode: Mode): Promise<void>;
  resume(): void;
  reverseResume(): void;
  stepInto(): void;
  stepOver(): void;
  stepOut(): void;
  stepBack(): void;
  goto(cursor: number): void;
  reset(): void;
  setScenario(id: string): void;
  /** Toggle a breakpoint on a line of the function shown (or of function `fn`). */
  toggleBreakpoint(line: number, fn?: number): void;
  showFunction(fn: number): void;
  selectFrame(frame: number | null): void;
  harnessText(): string;
  /** Run another scenario to compare with this one (null: stop comparing). */
  compareWith(id: string | null): Promise<void>;
  watchVariable(name: string | null): void;
  predict(answer: string): void;
  /** Set the widget up as a link says (scenario, breakpoints) and, with a step, open paused there. */
  applyLink(link: Initial): Promise<void>;
  /** Pause at a step: in the replay there is, or in a new run of the scenario. */
  openAt(cursor: number): Promise<void>;
}

export type WidgetStore = StoreApi<WidgetState & WidgetActions>;

export interface Initial {
  scenario?: string;
  /** Lines of the widget's function, or "callee:line" for a function it can step into. */
  breakpoints?: (number | string)[];
  /** Open paused at this step once the trace is in (a deep link). */
  step?: number;
}

/** A breakpoint as a reader (and a deep link) names it: "98" in the widget's function, "run_hooks:97" in a callee. */
export function pointName(widget: Widget, key: number): string {
  const { fn, line } = R.pointOf(key);
  return fn ? `${widget.callees[fn - 1]?.symbol ?? fn}:${line}` : String(line);
}

/** The function of the step the replay stands on (the widget's own before a run). */
function shownAt(index: R.ReplayIndex, pos: R.Position): number {
  return pos.cursor >= 0 ? (index.trace.steps[pos.cursor]?.fn ?? 0) : 0;
}

function statusFor(pos: R.Position): Status {
  return pos.phase === 'idle' ? 'idle' : pos.phase;
}

export function createWidgetStore(widget: Widget, files: Record<string, string>, engine: EngineLike, initial: Initial = {}): WidgetStore {
  const blocks = [widget, ...(widget.callees ?? [])];
  const valid = (key: number) => {
    const { fn, line } = R.pointOf(key);
    const block = blocks[fn];
    return Number.isInteger(key) && key > 0 && !!block && line >= block.firstLine && line <= block.lastLine;
  };
  /** A link's breakpoints as point keys: the valid ones, once each, in order. */
  const keysOf = (bps: (number | string)[] = []) => {
    const keys = bps.map((bp) => {
      const { symbol, line } = splitBreakpoint(bp);
      const fn = symbol === null ? 0 : blocks.findIndex((b) => b.symbol === symbol);
      return fn < 0 ? NaN : R.pointKey(fn, line);
    });
    return [...new Set(keys.filter(valid))].sort((a, b) => a - b);
  };
  const scenario = widget.scenarios.some((s) => s.id === initial.scenario) ? initial.scenario! : widget.scenarios[0]!.id;
  let compareRuns = 0; // bumped by every comparison asked for and every scenario switch
  /** Bumped by every start, reset and scenario switch; late results of older runs are dropped. */
  let generation = 0;
  /** A run of this generation is in flight (shown as running or loading, or not yet shown). */
  let busy = false;
  let showRun: ReturnType<typeof setTimeout> | undefined;
  const store = createStore<WidgetState & WidgetActions>()((set, get) => {
    /** Apply a pure replay move to the current trace. */
    const move = (f: (ix: R.ReplayIndex, pos: R.Position, bps: number[]) => R.Position, startMode?: Mode) => {
      const { index, pos, breakpoints } = get();
      if (busy) return;
      if (!index || pos.phase === 'idle') {
        if (startMode) void get().start(startMode);
        return;
      }
      const next = f(index, pos, breakpoints);
      if (next !== pos) set({ pos: next, since: pos.cursor, status: statusFor(next), frame: null, shown: shownAt(index, next) });
    };
    /** No replay: what a reset, a scenario switch and a link start from. */
    const cleared = () => {
      generation++;
      busy = false;
      clearTimeout(showRun);
      return { index: null, pos: R.IDLE, status: 'idle' as const, error: null, frame: null, shown: 0, prediction: null };
    };
    /** Another scenario (or the same one afresh): no replay, no comparison, no watched variable. */
    const switchTo = (id: string, breakpoints: number[]) => {
      compareRuns++;
      set({ ...cleared(), scenario: id, breakpoints, compare: null, watch: null });
    };
    return {
      scenario,
      breakpoints: keysOf(initial.breakpoints),
      shown: 0,
      frame: null,
      status: 'idle',
      // as prerendered: the live status arrives in connect(), after hydration, so both render alike
      engine: staticEngine.status,
      index: null,
      pos: R.IDLE,
      since: -1,
      error: null,
      runs: 0,
      compare: null,
      watch: null,
      prediction: null,

      async start(mode) {
        const run = ++generation;
        busy = true;
        clearTimeout(showRun);
        const waiting = { error: null, index: null, pos: R.IDLE, frame: null };
        // A run that answers at once goes from what the widget showed straight to its result, in one
        // render (clearing the widget first cost a render and a layout of its own, and a flash);
        // one that takes longer, or waits for Python, says so.
        if (engine.status.state !== 'ready') set({ ...waiting, status: 'loading' });
        else showRun = setTimeout(() => set({ ...waiting, status: 'running' }), SHOW_RUN_AFTER_MS); // cleared by the next start, reset or switch
        let trace: Trace | null = null;
        let failure = '';
        try {
          trace = await engine.run(widgetRequest(files, widget, get().scenario));
        } catch (error) {
          failure = (error as Error).message;
        }
        if (run !== generation) return; // a later start, a reset or a scenario switch took over
        busy = false;
        clearTimeout(showRun);
        const runs = get().runs + 1;
        if (!trace) return set({ ...waiting, status: 'error', error: failure, runs });
        const index = R.indexTrace(trace);
        if (!trace.steps.length && trace.error) return set({ ...waiting, index, status: 'error', error: `${trace.error.type}: ${trace.error.message}`, runs });
        const pos = mode === 'run' ? R.run(index) : mode === 'step' ? R.goto(index, 0) : R.debug(index, get().breakpoints);
        set({ ...waiting, index, pos, since: -1, status: statusFor(pos), shown: shownAt(index, pos), runs });
      },
      resume: () => move((ix, pos, bps) => R.resume(ix, pos, bps), 'debug'),
      reverseResume: () => move((ix, pos, bps) => R.reverseResume(ix, pos, bps)),
      stepInto: () => move((ix, pos) => R.stepInto(ix, pos), 'step'),
      stepOver: () => move((ix, pos) => R.stepOver(ix, pos), 'step'),
      stepOut: () => move((ix, pos) => R.stepOut(ix, pos), 'step'),
      stepBack: () => move((ix, pos) => R.stepBack(ix, pos)),
      goto: (cursor) => move((ix) => R.goto(ix, cursor)),
      reset: () => set(cleared()),
      setScenario(id) {
        scenarioOf(widget, id);
        if (id !== get().scenario) switchTo(id, []);
      },
      async compareWith(id) {
        if (id === null || id === get().scenario) return set({ compare: null });
        scenarioOf(widget, id);
        const token = ++compareRuns;
        set({ compare: { scenario: id, index: null, error: null } });
        if (!get().index && !busy) void get().start('run');
        let index: R.ReplayIndex | null = null;
        let error: string | null = null;
        try {
          index = R.indexTrace(await engine.run(widgetRequest(files, widget, id)));
        } catch (e) {
          error = (e as Error).message;
        }
        // another choice or a scenario switch since: this result is not wanted
        if (token === compareRuns) set({ compare: { scenario: id, index, error } });
      },
      watchVariable: (name) => set({ watch: name }),
      predict(answer) {
        if (get().status === 'paused') set({ prediction: { cursor: get().pos.cursor, answer } });
      },
      async applyLink(link) {
        switchTo(widget.scenarios.some((sc) => sc.id === link.scenario) ? link.scenario! : get().scenario, keysOf(link.breakpoints));
        if (link.step !== undefined) await get().openAt(link.step);
      },
      async openAt(cursor) {
        const { index, pos } = get();
        if (!index || pos.phase === 'idle') await get().start('step');
        get().goto(cursor);
      },
      toggleBreakpoint(line, fn = get().shown) {
        const key = R.pointKey(fn, line);
        if (!valid(key)) return;
        const { breakpoints } = get();
        set({ breakpoints: breakpoints.includes(key) ? breakpoints.filter((k) => k !== key) : [...breakpoints, key].sort((a, b) => a - b) });
      },
      showFunction(fn) {
        if (blocks[fn]) set({ shown: fn, frame: null });
      },
      selectFrame(frame) {
        const { index } = get();
        const info = frame === null || !index ? undefined : index.frames[frame];
        if (frame === null || !index) set({ frame: null, shown: index ? shownAt(index, get().pos) : get().shown });
        else if (info) set({ frame, shown: info.fn });
      },
      harnessText: () => harnessText(scenarioOf(widget, get().scenario).inputs, widget.harness.code),
    };
  });
  return store;
}

/**
 * The state a part of a widget that does not show Python's loading renders from: `now`, unless it
 * differs from `was` in the engine's status alone, then `was` (the same object: nothing to re-render).
 */
export function butEngine<S extends Pick<WidgetState, 'engine'>>(was: S | null, now: S): S {
  if (!was || was === now || was.engine === now.engine) return now;
  return (Object.keys(now) as (keyof S)[]).every((key) => key === 'engine' || was[key] === now[key]) ? was : now;
}

/** Follow the engine's status; for a deep link, open paused at the recorded step. Returns the disconnect. */
export function connect(store: WidgetStore, engine: EngineLike, initial: Initial = {}, prepare?: RunRequest): () => void {
  if (prepare) engine.prepare?.(prepare);
  // Each widget takes the engine's status (the first one too) in a task of its own: React renders a
  // store's update at once, and a page's widgets all re-rendered in one task, the one that said Python
  // was ready (50 ms on a 2-core machine), or the one that ran the page's effects after hydration
  // (57-85 ms on a slower one).
  let pending: ReturnType<typeof setTimeout> | undefined;
  let latest = engine.status;
  const take = (status: EngineStatus) => {
    latest = status;
    pending ??= setTimeout(() => {
      pending = undefined;
      if (store.getState().engine !== latest) store.setState({ engine: latest });
    });
  };
  take(engine.status);
  const off = engine.subscribe(take);
  if (initial.step !== undefined && store.getState().status === 'idle') void store.getState().openAt(initial.step);
  return () => {
    off();
    clearTimeout(pending);
  };
}
