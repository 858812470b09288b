/**
 * The packed trace (what the page's worker posts): unpacked, it is the trace the runner records,
 * value for value, for every scenario of the hooks lesson, for strings JSON and UTF-8 handle
 * differently, and after lesson code patched zlib.
 */
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLesson } from '../lessons/load';
import { widgetRequest } from '../lessons/run';
import { tracerSource } from '../runtime/node';
import { buildRequest } from '../runtime/request';
import { createRunner, type LocalRunner } from '../runtime/runner';
import type { RunRequest, Trace } from './types';
import { unpackTrace } from './wire';

let runner: LocalRunner;
beforeAll(async () => {
  runner = createRunner(await loadPyodide(), tracerSource());
}, 60_000);

/** A trace without its timing, which differs from run to run. */
const untimed = ({ stats: { durationMs: _, ...stats }, ...trace }: Trace) => ({ ...trace, stats });
/** The same request run as an object and packed (each run cleaned up after, as in the page). */
function both(request: RunRequest) {
  const object = runner.run(request);
  runner.clean();
  const packed = runner.runPacked(request);
  runner.clean();
  return { object, packed };
}

const request = (module: string, harness: string, symbol = 'f') =>
  buildRequest({ lesson: 'x-wire', files: { 'm.py': module }, source: 'm.py', symbol, harness: { file: 'harness.py', code: harness }, inputs: {} });

describe('a packed trace unpacks to the recorded one', () => {
  const lesson = loadLesson('lessons/s04-hooks');
  const scenarios = lesson.widgets.flatMap((w) => w.scenarios.map((s) => ({ name: `${w.id}#${s.id}`, request: widgetRequest(lesson.files, w, s.id) })));

  it.each(scenarios)('s04-hooks $name', async ({ request }) => {
    const { object, packed } = both(request);
    expect(object.steps.length).toBeGreaterThan(0);
    expect(untimed(await unpackTrace(packed))).toEqual(untimed(object));
  });

  it('strings that JSON and UTF-8 carry differently: Chinese, emoji, a lone surrogate, NUL, escapes', async () => {
    const module = 'def f(items):\n    text = "钩子 ✓ 🪝"\n    lone = "a\\udc80b"\n    odd = "\\x00\\n\\t\\"\\\\ \\u2028"\n    items.append(text + lone + odd)\n    return items\n';
    const { object, packed } = both(request(module, 'from m import f\noutcome = f(["第一"])\nprint("完成", outcome)\n'));
    const unpacked = await unpackTrace(packed);
    expect(untimed(unpacked)).toEqual(untimed(object));
    const last = JSON.stringify(unpacked.steps.at(-1));
    expect(last).toContain('钩子 ✓ 🪝');
    expect(last).toContain('a\\udc80b'); // the lone surrogate itself, not U+FFFD
    expect(unpacked.stdout).toContain('完成');
  });

  it('lesson code that replaces zlib changes nothing in its own packed trace or the next', async () => {
    const module = 'import zlib\n\ndef f():\n    zlib.compressobj = lambda *a, **k: None\n    zlib.compress = lambda data, *a: b"forged"\n    return "patched"\n';
    const patched = both(request(module, 'from m import f\noutcome = f()\n'));
    expect(untimed(await unpackTrace(patched.packed))).toEqual(untimed(patched.object));
    const calm = both(request('def f(x):\n    return x * 2\n', 'from m import f\noutcome = f(21)\n'));
    const unpacked = await unpackTrace(calm.packed);
    expect(untimed(unpacked)).toEqual(untimed(calm.object));
    expect(unpacked.steps.at(-1)?.value).toEqual({ t: 'int', v: 42 });
  });

  it('packs a long trace to a few bytes a step (figures: npm run bench)', async () => {
    const module = 'def f(n):\n    total = 0\n    seen = []\n    for i in range(n):\n        total += i\n        seen.append(i % 7)\n    return total\n';
    const { object, packed } = both(request(module, 'from m import f\noutcome = f(3000)\n'));
    expect(untimed(await unpackTrace(packed))).toEqual(untimed(object));
    expect(packed.byteLength).toBeLessThan(JSON.stringify(object).length / 5);
  });
});
