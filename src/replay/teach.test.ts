/** The teaching layer on real runs of the hooks lesson (Pyodide in Node). */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findWidget, loadLesson } from '../lessons/load';
import { widgetRequest } from '../lessons/run';
import { nodeRunner, type NodeRunner } from '../runtime/node';
import * as R from './replay';
import * as T from './teach';

const lesson = loadLesson(resolve('lessons/s04-hooks'));
const hooked = findWidget(lesson, 'execute_hooked');
const runHooks = findWidget(lesson, 'run_hooks');
const lineOf = (block: { firstLine: number; code: string }, text: string) => block.firstLine + block.code.split('\n').findIndex((l) => l.trim().startsWith(text));
let py: NodeRunner;
const index = (widget: typeof hooked, scenario: string) => R.indexTrace(py.run(widgetRequest(lesson.files, widget, scenario)));

beforeAll(async () => {
  py = await nodeRunner();
});

describe('teaching over real runs', () => {
  it('counts how often each line ran; a line that never ran has no count', () => {
    const ix = index(runHooks, 'pass');
    const counts = T.lineCounts(ix);
    // two before-callbacks: the loop header runs three times, the callback line twice
    expect(counts.get(lineOf(runHooks, 'for callback in tuple('))).toBe(3);
    expect(counts.get(lineOf(runHooks, 'answer = callback(view)'))).toBe(2);
    expect(counts.has(lineOf(runHooks, 'blocked = answer'))).toBe(false);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(ix.trace.steps.filter((s) => s.event === 'line' && !s.fn).length);
  });

  it('compares two scenarios: lines reached in only one, and where they part', () => {
    const block = index(hooked, 'block');
    const refused = index(hooked, 'refused');
    const c = T.compareRuns(block, refused);
    const guarded = lineOf(hooked, 'result = execute_guarded(');
    const notExecuted = lineOf(hooked, 'result = tool_result(call.get("id", "?")');
    expect(c.onlyThere).toContain(guarded);
    expect(c.onlyHere).toContain(notExecuted);
    expect(c.onlyHere).not.toContain(guarded);
    // they part inside run_hooks, where the maintenance check answers: the same steps until then
    const d = c.divergence!;
    const inner = hooked.callees.find((f) => f.symbol === 'run_hooks')!;
    expect(d).toMatchObject({ fn: hooked.callees.indexOf(inner) + 1, line: lineOf(inner, 'if answer is None:') });
    expect(block.trace.steps.slice(0, d.step).map((s) => [s.event, s.line, s.fn ?? 0])).toEqual(refused.trace.steps.slice(0, d.step).map((s) => [s.event, s.line, s.fn ?? 0]));
    expect(block.trace.steps[d.step]!.line).not.toBe(refused.trace.steps[d.step]!.line);
    expect(T.compareRuns(block, index(hooked, 'block')).divergence).toBeNull();
    // worked out once per pair (the view asks on every move), and per pair: the other way round differs
    expect(T.compareRuns(block, refused)).toBe(c);
    expect(T.compareRuns(refused, block).onlyHere).toEqual(c.onlyThere);
  });

  it("lists a variable's changes and moves between them", () => {
    const ix = index(runHooks, 'pass');
    const frame = ix.frameOf[0]!;
    const history = T.valueHistory(ix, frame, 'callback');
    expect(history.map((h) => (h.value as { name: string }).name)).toEqual(['build_hooks.<locals>.note_call', 'build_hooks.<locals>.check_program'].map((n) => expect.stringContaining(n.split('.').pop()!)));
    expect(history.every((h) => ix.trace.steps[h.step]!.line === h.line)).toBe(true);
    expect(T.nextChange(ix, frame, 'callback', -1)).toBe(history[0]!.step);
    expect(T.nextChange(ix, frame, 'callback', history[0]!.step)).toBe(history[1]!.step);
    expect(T.nextChange(ix, frame, 'callback', history[1]!.step)).toBe(-1);
    expect(T.previousChange(ix, frame, 'callback', history[1]!.step)).toBe(history[0]!.step);
    expect(T.previousChange(ix, frame, 'callback', history[0]!.step)).toBe(-1);
    expect(T.valueHistory(ix, frame, 'nope')).toEqual([]);
  });

  it('answers a prediction from the trace: the next line of the frame, and a value after it', () => {
    const ix = index(runHooks, 'block');
    const callback = lineOf(runHooks, 'answer = callback(view)');
    const pos = R.debug(ix, [callback]);
    const after = T.afterNextStep(ix, pos);
    const lines = runHooks.code.split('\n');
    expect(after.line).toBe(runHooks.firstLine + lines.findIndex((l, k) => k > callback - runHooks.firstLine && l === '        if event == "before":'));
    expect(T.valueAfterNextStep(ix, pos, 'answer')).toEqual({ t: 'str', v: 'run_main is switched off in this demo' });
    // a line that raises: the next line is the handler's, not "it returns"
    const crash = index(runHooks, 'pre_error');
    const raising = R.debug(crash, [callback]);
    expect(crash.trace.steps.slice(raising.cursor).some((st) => st.event === 'exception')).toBe(true);
    expect(T.afterNextStep(crash, raising).line).toBe(lineOf(runHooks, 'except Exception as error:'));
    // at the return statement the frame ends: no next line
    const last = R.debug(ix, [lineOf(runHooks, 'return {"blocked": blocked')]);
    expect(T.afterNextStep(ix, last).line).toBeNull();
  });
});
