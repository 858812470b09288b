import { resolve } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findWidget, loadLesson } from '../lessons/load';
import { nodeRunner } from '../runtime/node';
import type { RunRequest, Trace } from '../trace/types';
import * as R from '../replay/replay';
import { butEngine, connect, createWidgetStore, pointName, SHOW_RUN_AFTER_MS, type EngineLike } from './store';
import type { EngineStatus } from '../runtime/client';
import { viewOf } from './view';

const lesson = loadLesson(resolve('lessons/s04-hooks'));
const widget = findWidget(lesson, 'run_hooks');
const callbackLine = widget.firstLine + widget.code.split('\n').findIndex((l) => l.trim() === 'answer = callback(view)');
let engine: EngineLike;
let runs = 0;

beforeAll(async () => {
  const runner = await nodeRunner();
  engine = {
    status: { state: 'ready', loadMs: 0, from: 'cold' },
    subscribe: () => () => {},
    run: async (request: RunRequest): Promise<Trace> => {
      runs++;
      return runner.run(request);
    },
  };
});

describe('widget store with the real Pyodide', () => {
  it('debugs to the callback line, re-hits it on continue, and finishes', async () => {
    const store = createWidgetStore(widget, lesson.files, engine);
    const s = () => store.getState();
    s().toggleBreakpoint(callbackLine);
    s().toggleBreakpoint(9999); // outside the function: ignored
    expect(s().breakpoints).toEqual([callbackLine]);
    await s().start('debug');
    expect(s().status).toBe('paused');
    const first = s().pos.cursor;
    s().resume();
    expect(s().status).toBe('paused');
    expect(s().pos.cursor).toBeGreaterThan(first);
    expect(s().index!.trace.steps[s().pos.cursor]!.line).toBe(callbackLine);
    s().resume();
    expect(s().status).toBe('finished');
  });

  it('a run that answers at once shows only its result; one that takes longer shows that it runs, and nothing moves meanwhile', async () => {
    // the real Pyodide engine, its answer held back until released (the clock is the test's: no wall-clock bound)
    let gate: Promise<void> | null = null;
    const held: EngineLike = { ...engine, run: async (request) => {
      const trace = await engine.run(request);
      await gate;
      return trace;
    } };
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const store = createWidgetStore(widget, lesson.files, held);
      const s = () => store.getState();
      const seen: string[] = [];
      store.subscribe((state) => seen.push(state.status));
      await s().start('run');
      expect(seen).toEqual(['finished']); // no "running" render (and layout) before the result
      const finished = s().index!;
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      seen.length = 0;
      const pending = s().start('run');
      s().stepBack(); // a move while a run is in flight: nothing happens, even before it is shown
      expect(s().index).toBe(finished);
      expect(s().pos.cursor).toBe(finished.size - 1);
      vi.advanceTimersByTime(SHOW_RUN_AFTER_MS - 1);
      expect(seen).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(seen).toEqual(['running']);
      release();
      await pending;
      expect(seen).toEqual(['running', 'finished']);
      expect(s().index).not.toBe(finished);
      expect(s().runs).toBe(2); // each result counts (the page shows that a new one came)
    } finally {
      vi.useRealTimers();
    }
  });

  it('a scenario switch clears breakpoints and the replay, and drops a late result', async () => {
    const store = createWidgetStore(widget, lesson.files, engine);
    const s = () => store.getState();
    s().toggleBreakpoint(callbackLine);
    const pending = s().start('run');
    s().setScenario('block');
    await pending;
    expect(s()).toMatchObject({ scenario: 'block', breakpoints: [], status: 'idle', index: null });
    expect(s().harnessText()).toContain('before = ["deny_run_main", "note_call"]');
    expect(() => s().setScenario('nope')).toThrow(/no scenario "nope"/);
  });

  it('Step into when idle starts the run at its first step; deep-link state is validated', async () => {
    const store = createWidgetStore(widget, lesson.files, engine, { scenario: 'mutate', breakpoints: [callbackLine, -3, callbackLine] });
    const s = () => store.getState();
    expect(s().scenario).toBe('mutate');
    expect(s().breakpoints).toEqual([callbackLine]);
    const before = runs;
    s().stepInto();
    await new Promise((r) => setTimeout(r, 0));
    await waitUntil(() => s().status === 'paused');
    expect(runs).toBe(before + 1);
    expect(s().pos.cursor).toBe(0);
    expect(createWidgetStore(widget, lesson.files, engine, { scenario: 'unknown' }).getState().scenario).toBe('pass');
  });
});

describe('stepping into the functions a widget calls (execute_hooked, real Pyodide)', () => {
  const hooked = findWidget(lesson, 'execute_hooked');
  const lineOf = (block: { firstLine: number; code: string }, text: string) => block.firstLine + block.code.split('\n').findIndex((l) => l.trim().startsWith(text));
  const runHooks = hooked.callees.find((c) => c.symbol === 'run_hooks')!;
  const authorize = hooked.callees.find((c) => c.symbol === 'authorize_call')!;
  const symbolAt = (store: ReturnType<typeof createWidgetStore>) => {
    const { index, pos } = store.getState();
    const fn = index!.trace.steps[pos.cursor]!.fn ?? 0;
    return fn ? hooked.callees[fn - 1]!.symbol : hooked.symbol;
  };

  it('steps into run_hooks and out again, then into execute_guarded and authorize_call', async () => {
    const store = createWidgetStore(hooked, lesson.files, engine, { scenario: 'pass', breakpoints: [lineOf(hooked, 'before = run_hooks(')] });
    const s = () => store.getState();
    await s().start('debug');
    expect(symbolAt(store)).toBe('execute_hooked');
    s().stepInto();
    expect(symbolAt(store)).toBe('run_hooks');
    expect(s().shown).toBe(hooked.callees.indexOf(runHooks) + 1);
    const stack = () => R.callStack(s().index!, s().pos.cursor).map((f) => [f.fn ? hooked.callees[f.fn - 1]!.symbol : hooked.symbol, f.line]);
    expect(stack()).toEqual([['run_hooks', runHooks.firstLine], ['execute_hooked', lineOf(hooked, 'before = run_hooks(')]]);
    // the callee's arguments are its own locals; the caller's `call` is the very object run_hooks got as payload
    s().stepOver();
    const vars = R.variablesAt(s().index!, s().pos.cursor);
    const payload = vars.find((v) => v.name === 'payload')!.value as { id: number };
    const caller = R.variablesAt(s().index!, s().pos.cursor, s().pos.cursor, R.callStack(s().index!, s().pos.cursor)[1]!.frame);
    expect((caller.find((v) => v.name === 'call')!.value as { id: number }).id).toBe(payload.id);
    const shared = R.sharedObjects(s().index!, s().pos.cursor, R.callStack(s().index!, s().pos.cursor)[0]!.frame);
    expect(shared.get('payload')).toEqual([{ fn: 0, name: 'call' }]);
    expect(shared.get('hooks')).toEqual([{ fn: 0, name: 'hooks' }]);
    expect(shared.has('event')).toBe(false);
    // what the widget shows, derived from the state alone
    const v = viewOf(hooked, s());
    expect(v.blocks[s().shown]!.symbol).toBe('run_hooks');
    expect(v.stack.map((f) => f.fn)).toEqual([hooked.callees.indexOf(runHooks) + 1, 0]);
    expect(v.line).toBe(v.stack[0]!.line);
    expect(v.shared?.get('payload')).toEqual([{ fn: 0, name: 'call' }]);
    expect(v.question).toBeUndefined();
    s().stepOut(); // to run_hooks' return
    expect(s().index!.trace.steps[s().pos.cursor]!.event).toBe('return');
    s().stepOut(); // back in execute_hooked
    expect(symbolAt(store)).toBe('execute_hooked');
    expect(s().shown).toBe(0);
    // a breakpoint inside authorize_call, set while execute_hooked is shown: Continue stops there
    s().toggleBreakpoint(lineOf(authorize, 'rule = permission_for('), hooked.callees.indexOf(authorize) + 1);
    s().resume();
    expect(symbolAt(store)).toBe('authorize_call');
    expect(stack().map(([name]) => name)).toEqual(['authorize_call', 'execute_guarded', 'execute_hooked']);
    expect(s().breakpoints.map((k) => pointName(hooked, k))).toEqual([String(lineOf(hooked, 'before = run_hooks(')), `authorize_call:${lineOf(authorize, 'rule = permission_for(')}`]);
    // picking the caller's frame shows its function and position; the next move follows the current frame again
    s().selectFrame(R.callStack(s().index!, s().pos.cursor)[2]!.frame);
    expect(s().shown).toBe(0);
    s().stepOver();
    expect(s().frame).toBeNull();
    expect(symbolAt(store)).toBe('authorize_call');
  });

  it('a deep link names a breakpoint in a callee by function and line; an unknown function is dropped', () => {
    const line = lineOf(runHooks, 'answer = callback(view)');
    const store = createWidgetStore(hooked, lesson.files, engine, { breakpoints: [`run_hooks:${line}`, 'nope:3', `run_hooks:${hooked.firstLine}`] });
    expect(store.getState().breakpoints.map((k) => pointName(hooked, k))).toEqual([`run_hooks:${line}`]);
  });
});

async function waitUntil(ok: () => boolean) {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}

describe("the widget's parts that do not show Python's loading", () => {
  it('keep the state they had while only the engine status changes, and take any other change', async () => {
    // an engine that is still loading, and says so step by step, as the page's worker client does
    const listeners = new Set<(status: EngineStatus) => void>();
    const loading: EngineLike = {
      status: { state: 'loading', phase: 'booting' },
      subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
      run: () => new Promise<Trace>(() => {}),
    };
    const store = createWidgetStore(widget, lesson.files, loading);
    const off = connect(store, loading);
    const tell = async (status: EngineStatus) => {
      loading.status = status;
      for (const listener of listeners) listener(status);
      await new Promise((resolve) => setTimeout(resolve, 5)); // connect passes it on in a task of its own
    };
    let shown = butEngine(null, store.getState());
    const first = shown;
    for (const status of [{ state: 'loading', phase: 'downloading', loaded: 1e6, total: 5e6 }, { state: 'loading', phase: 'downloading', loaded: 4e6, total: 5e6 }, { state: 'ready', loadMs: 900, from: 'site' }] as EngineStatus[]) {
      await tell(status);
      expect(store.getState().engine).toEqual(status); // the store has it (StatusLine shows it) ...
      shown = butEngine(shown, store.getState());
      expect(shown).toBe(first); // ... and the rest of the widget has nothing new to render
    }
    store.getState().toggleBreakpoint(callbackLine);
    shown = butEngine(shown, store.getState());
    expect(shown).not.toBe(first);
    expect(shown).toBe(store.getState());
    expect(shown.breakpoints).toEqual([callbackLine]);
    off();
  });
});
