import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findWidget, loadLesson } from '../lessons/load';
import { nodeRunner } from '../runtime/node';
import type { RunRequest, Trace } from '../trace/types';
import { createWidgetStore, type EngineLike } from './store';

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

async function waitUntil(ok: () => boolean) {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}
