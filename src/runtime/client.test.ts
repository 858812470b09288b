/**
 * The page's engine holds Python's first start until the page has settled (`startWhen`), and a
 * reader's run starts it at once. The worker here is a stand-in that only records what the engine
 * posts to it: what is tested is when the engine sends `init`, not Python.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from './client';
import type { FromWorker, ToWorker } from './protocol';
import type { RunRequest } from '../trace/types';

function engineWith(startWhen?: () => Promise<void>) {
  const posted: ToWorker['type'][] = [];
  const ports: MessagePort[] = [];
  const worker = {
    onerror: null,
    postMessage: (message: ToWorker) => (posted.push(message.type), message.type === 'init' && ports.push(message.port)),
    terminate: () => {},
  };
  const engine = new Engine({ indexURL: 'http://localhost/pyodide/', makeWorker: () => worker as unknown as Worker, ...(startWhen ? { startWhen } : {}) });
  return { engine, posted, ports };
}

const request: RunRequest = { root: '/steplight/lessons/x', files: { 'x.py': 'def f():\n    pass\n' }, target: { file: 'x.py', symbol: 'f' }, harness: { file: 'h.py', code: 'from x import f\nf()\n' } };
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('when the engine starts Python', () => {
  it('at once when nothing holds it', async () => {
    const { posted } = engineWith();
    expect(posted).toEqual(['init']);
  });

  it('once the page has settled, not before', async () => {
    let settle!: () => void;
    const { posted } = engineWith(() => new Promise<void>((resolve) => (settle = resolve)));
    await tick();
    expect(posted).toEqual([]);
    settle();
    await tick();
    expect(posted).toEqual(['init']);
  });

  it('at once when a run is asked for before the page settles, and only once', async () => {
    let settle!: () => void;
    const { engine, posted } = engineWith(() => new Promise<void>((resolve) => (settle = resolve)));
    await tick();
    void engine.run(request);
    expect(posted).toEqual(['init']);
    settle();
    await tick();
    expect(posted).toEqual(['init']); // the run waits for Python to be ready; no second start
  });

  it('preparing a lesson (what each widget does when it mounts) does not start it', async () => {
    const { engine, posted } = engineWith(() => new Promise<void>(() => {}));
    engine.prepare(request);
    await tick();
    expect(posted).toEqual([]);
  });
});

it("marks Python's ready on the page's timeline, once, saying where it started from (bench/browser.ts reads it)", async () => {
  performance.clearMarks('steplight: python ready');
  const { engine, ports } = engineWith();
  expect(performance.getEntriesByName('steplight: python ready')).toEqual([]);
  const ready = new Promise<void>((resolve) => engine.subscribe((status) => status.state === 'ready' && resolve()));
  ports[0]!.postMessage({ type: 'ready', loadMs: 12, from: 'site' } satisfies FromWorker);
  await ready;
  const marks = performance.getEntriesByName('steplight: python ready') as PerformanceMark[];
  expect(marks.map((m) => m.detail)).toEqual([{ from: 'site' }]);
  ports[0]!.close();
});
