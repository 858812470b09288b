/**
 * The recorder's C fast path (native/steplight_fast.c) against the recorder in Python, in one
 * Pyodide: each request is recorded both ways, one after the other, and the traces must be the
 * same to the byte (only the timings differ). One Python, so that strings hash alike and a set
 * lists its members in the same order both times.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunRequest, Trace } from '../trace/types';
import { CASES, caseRequest } from './corpus/cases';
import { hooksRequests } from './hooks-traces';
import { FAST_PATH, PYODIDE_INDEX_URL, cpythonRun, fastPathLibrary, recorderChoice, tracerSource } from './node';
import { createRunner, loadFastPath, type LocalRunner } from './runner';

let py: PyodideAPI;
let runner: LocalRunner;
/** Chooses the recorder for the next run (after the clean). */
let choose: (fast: boolean) => void;

beforeAll(async () => {
  py = await loadPyodide({ indexURL: PYODIDE_INDEX_URL });
  runner = createRunner(py, tracerSource());
  expect(loadFastPath(py, fastPathLibrary())).toBe(true);
  choose = recorderChoice(py);
});

/** The request's trace recorded in C and in Python, without timings. */
function bothWays(request: RunRequest) {
  return [true, false].map((fast) => {
    runner.clean();
    choose(fast);
    const { stats: _, ...trace } = runner.run(request);
    return JSON.stringify(trace);
  });
}

const lesson = (name: string, code: string, symbol: string, harness: string, limits?: RunRequest['limits']): RunRequest => ({
  root: `/steplight/fast-test/${name}`,
  files: { 'lesson.py': code },
  target: { file: 'lesson.py', symbol },
  harness: { file: 'harness.py', code: harness },
  ...(limits ? { limits } : {}),
});

/** Every kind of value the C side encodes, and its edges: the limits, sharing, cycles, renaming. */
const VALUES = `import sys

def values(n):
    big = 2**53
    edges = [big - 1, big, -(big - 1), -big, True, False, None, 0.5, float("nan"), float("inf")]
    text = "x" * (n + 3)
    same = text
    short = "é" * 2
    nested = [[[[[["deep"]]]]]]
    loop = [1]
    loop.append(loop)
    pair = {"a": loop}
    pair["self"] = pair
    many = list(range(n + 4))
    bag = {"b", "a", "c"}
    frozen = frozenset(bag)
    box = (1, "one", (2, "two"), {3: [3]})
    def inner(v):
        return v
    fn = inner
    inner.__name__ = "renamed"
    inner.__qualname__ = ""
    lam = lambda: None
    built = len
    kind = dict
    module = sys
    raw = b"bytes" * n
    mutable = bytearray(b"ab")
    mutable.extend(b"cd")
    class Sub(dict):
        pass
    sub = Sub(k=1)
    for item in many:
        bag.add(item)
        pair["a"] = item
        nested[0][0].append(item)
        box = box + (item,)
        if item > 3:
            del text
            break
    inner.__qualname__ = "back"
    return edges, same, short, frozen
`;

/**
 * A lesson's audit hook, and values each way of the recorder reads (an instance: in Python from
 * C, with id()): a run without the recorder raises no audit event in these lines, so the hook hears none.
 */
const AUDIT = `import sys

class Thing:
    def __init__(self):
        self.size = 2

def heard():
    events = []
    sys.addaudithook(lambda event, args: events.append(event))
    thing = Thing()
    things = [thing, {"k": thing}]
    thing.size += 1
    return events
`;

/** Lesson code that calls the recorder's trace function itself, as a frame's f_trace shows it. */
const POKES = `import sys

def pokes():
    frame = sys._getframe()
    trace = frame.f_trace
    out = []
    for args, kwargs in [((), {}), ((frame, "line", None), {}), ((frame,), {"event": "line", "arg": None}), ((1, 2, 3), {}), ((frame, "bogus", None), {}), ((frame, "return", 5), {})]:
        try:
            out.append(trace(*args, **kwargs) is trace)
        except BaseException as error:
            out.append(type(error).__name__)
    return out
`;

describe('the C fast path', () => {
  it('is built from the C file beside it (scripts/build-native.sh writes its hash)', () => {
    const source = readFileSync(FAST_PATH.replace(/\.so$/, '.c'));
    expect(readFileSync(`${FAST_PATH}.source-sha256`, 'utf8').trim()).toBe(createHash('sha256').update(source).digest('hex'));
  });

  it('records: the recorder traces through C functions once it is loaded, and not with limits C cannot read', () => {
    runner.clean();
    const kinds = (maxSteps: number) =>
      py.runPython(`import steplight_tracer as t\nr = t.Recorder({}, dict(t.DEFAULT_LIMITS, maxSteps=${maxSteps}), t.Output(10))\n(type(r.global_trace).__name__, type(r.trace).__name__)`).toJs() as string[];
    expect(kinds(100)).toEqual(['builtin_function_or_method', 'builtin_function_or_method']);
    expect(kinds(2 ** 40)).toEqual(['method', 'method']);
  });

  it('keeps a memory snapshot from being taken (it cannot hold the loaded code)', () => {
    expect(() => py.runPython('steplight_tracer.before_snapshot()')).toThrow(/fast path is loaded/);
  });

  it.each([
    ['every kind of value, the default limits', lesson('values', VALUES, 'values', 'from lesson import values\noutcome = values(3)\n')],
    ['every kind of value, tight limits', lesson('tight', VALUES, 'values', 'from lesson import values\noutcome = values(2)\n', { strLen: 2, items: 2, depth: 1 })],
    ['the step limit', lesson('steps', VALUES, 'values', 'from lesson import values\noutcome = values(3)\n', { maxSteps: 7 })],
    ['lesson code calling the trace function', lesson('pokes', POKES, 'pokes', 'from lesson import pokes\noutcome = pokes()\n')],
    ["a lesson's audit hook", lesson('audit', AUDIT, 'heard', 'from lesson import heard\noutcome = heard()\n')],
  ])('the same trace both ways: %s', (_name, request) => {
    const [fast, python] = bothWays(request);
    expect(JSON.parse(fast!).steps.length).toBeGreaterThan(3);
    expect(fast).toBe(python);
  });

  it("leaves a lesson's audit hook hearing only the lesson's events, as the recorder in Python now does, in CPython too", () => {
    const request = lesson('audit', AUDIT, 'heard', 'from lesson import heard\noutcome = heard()\n');
    const root = mkdtempSync(join(tmpdir(), 'steplight-fast-'));
    try {
      const traces = [...bothWays(request).map((t) => JSON.parse(t) as Trace), cpythonRun(request, root)];
      for (const trace of traces) expect(trace.outcome).toMatchObject({ t: "list", len: 0 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.each(CASES.map((c) => [c.name, c] as const))('the same trace both ways, corpus: %s', (_name, c) => {
    const [fast, python] = bothWays(caseRequest(c));
    expect(fast).toBe(python);
  });

  it.each(hooksRequests.map((r, k) => [`${r.target.symbol} #${k}`, r] as const))('the same trace both ways, the hooks lesson: %s', (_name, request) => {
    const [fast, python] = bothWays(request);
    expect(fast).toBe(python);
  });
});

/**
 * Lesson code that does what the C side's sys.monitoring callbacks must copy from sys.settrace, or
 * hand over to it: generators (resume, throw, close), exceptions through untraced frames, a frame
 * that turns its line events off, opcode events, a tracer of its own, the interpreter's own
 * sys.settrace reached behind the runner's back, a sys.monitoring tool of its own.
 */
const EVENTS = `import sys

def gen(n):
    total = 0
    try:
        for i in range(n):
            got = yield i
            total += got or i
    except KeyError as error:
        total = -1
        yield str(error)
    finally:
        total += 100
    return total

def helper(x):
    if x > 2:
        raise ValueError(x)
    return [x] * 2

def events(n):
    g = gen(n)
    first = next(g)
    second = g.send(5)
    thrown = g.throw(KeyError("k"))
    g.close()
    done = list(gen(2))
    try:
        helper(n)
    except ValueError as error:
        caught = error.args
    pairs = [helper(i) for i in range(2)]
    while n > 0: n -= 1
    return first, second, thrown, done, caught, pairs

def quiet(n):
    frame = sys._getframe()
    frame.f_trace_lines = False
    a = n + 1
    b = a * 2
    frame.f_trace_lines = True
    return a + b

def opcodes(n):
    frame = sys._getframe()
    frame.f_trace_opcodes = True
    a = n + 1
    b = helper(1)
    return a, b

def own_tracer(n):
    seen = []
    def mine(frame, event, arg):
        seen.append((frame.f_code.co_name, event))
        return mine
    sys.settrace(mine)
    x = helper(1)
    sys.settrace(None)
    y = helper(2)
    return seen, x, y

def real_tracer(n):
    seen = []
    def mine(frame, event, arg):
        seen.append((frame.f_code.co_name, event))
        return None
    real = sys.settrace.__self__.real_settrace
    real(mine)
    x = helper(1)
    a = n + 1
    real(None)
    return seen, x, a

def real_off(n):
    real = sys.settrace.__self__.real_settrace
    real(None)
    a = n + 1
    b = helper(a - 3)
    return a, b

def take_tool(n):
    try:
        sys.monitoring.use_tool_id(5, "lesson")
    except ValueError as error:
        return str(error)
    sys.monitoring.free_tool_id(5)
    return "free"

def own_tool(n):
    mon = sys.monitoring
    seen = []
    mon.use_tool_id(3, "lesson")
    mon.register_callback(3, mon.events.LINE, lambda code, line: seen.append((code.co_name, line)))
    mon.set_events(3, mon.events.LINE)
    x = helper(1)
    mon.set_events(3, 0)
    mon.free_tool_id(3)
    return seen, x
`;

describe("the C fast path's events from sys.monitoring, as sys.settrace gives them", () => {
  const run = (symbol: string, harness: string, limits?: RunRequest['limits']) => lesson(`events-${symbol}`, EVENTS, symbol, `from lesson import ${symbol}\n${harness}`, limits);
  /** How the C run's events came (stats.tracing), and whether its trace is the Python recorder's under sys.settrace. */
  const compared = (request: RunRequest): [string | undefined, boolean] => {
    runner.clean();
    choose(true);
    const { stats, ...fast } = runner.run(request);
    const [, python] = bothWays(request);
    return [stats.tracing, JSON.stringify(fast) === python];
  };

  it('a run that asks nothing of tracing comes from sys.monitoring to its end, the same trace', () => {
    const [request] = hooksRequests;
    expect(compared(request!)).toEqual(['monitoring', true]);
    expect(compared(run('events', 'outcome = events(3)\n'))).toEqual(['monitoring', true]);
    expect(compared(run('quiet', 'outcome = quiet(3)\n'))).toEqual(['monitoring', true]);
    const resumed = 'g = gen(3)\nout = [next(g), g.send(2), g.throw(KeyError("k"))]\ng.close()\nh = gen(2)\nnext(h)\ntry:\n    h.throw(ValueError("v"))\nexcept ValueError:\n    pass\noutcome = out + list(gen(2))\n';
    expect(compared(run('gen', resumed))).toEqual(['monitoring', true]);
  });

  it('a trace function that raises (the step limit) turns it off as settrace does', () => {
    expect(compared(run('events', 'outcome = events(3)\n', { maxSteps: 9 }))).toEqual(['monitoring, then settrace (error)', true]);
  });

  it('hands over to sys.settrace what it does not copy, and the trace stays the same', () => {
    expect(compared(run('opcodes', 'outcome = opcodes(3)\n'))).toEqual(['monitoring, then settrace (quiet)', true]);
    expect(compared(run('own_tracer', 'outcome = own_tracer(3)\n'))).toEqual(['monitoring, then settrace (settrace)', true]);
    expect(compared(run('real_tracer', 'outcome = real_tracer(3)\n'))).toEqual(['monitoring, then settrace (legacy)', true]);
  });

  it("a lesson's own sys.monitoring tool sees what it sees without the recorder", () => {
    expect(compared(run('own_tool', 'outcome = own_tool(3)\n'))).toEqual(['monitoring', true]);
  });

  it('what differs (README, "Events from sys.monitoring"): the interpreter\'s own settrace(None) behind the runner\'s back no longer ends the recording, and tool 5 is taken', () => {
    const off = run('real_off', 'outcome = real_off(3)\n');
    runner.clean();
    choose(true);
    const monitored = runner.run(off);
    runner.clean();
    choose(false);
    const settraced = runner.run(off);
    expect(monitored.stats.tracing).toBe('monitoring');
    expect(monitored.truncated).toBeUndefined();
    expect(settraced.truncated).toBe('tracer'); // settrace lost the steps after it
    expect(monitored.steps.slice(0, settraced.steps.length)).toEqual(settraced.steps);
    expect(monitored.steps.map((s) => s.line)).toEqual([74, 75, 76, 77, 78, 79, 79]); // the call, every line, the return
    runner.clean();
    choose(true);
    expect(runner.run(run('take_tool', 'outcome = take_tool(3)\n')).outcome).toMatchObject({ t: 'str', v: expect.stringMatching(/already in use/) });
    runner.clean();
    choose(false);
    expect(runner.run(run('take_tool', 'outcome = take_tool(3)\n')).outcome).toMatchObject({ t: 'str', v: 'free' });
  });

  it('the next run starts from sys.monitoring again; a function switched off in one run (never traced there) is traced when the next targets it', () => {
    expect(compared(run('own_tracer', 'outcome = own_tracer(3)\n'))[0]).toMatch(/then settrace/);
    expect(compared(run('events', 'outcome = events(3)\n'))).toEqual(['monitoring', true]);
    expect(compared(run('events', 'outcome = events(4)\n'))).toEqual(['monitoring', true]);
    // one lesson folder, two targets: helper's events were switched off while events was traced
    const same = (symbol: string, harness: string) => lesson('events-same', EVENTS, symbol, `from lesson import ${symbol}\n${harness}`);
    expect(compared(same('events', 'outcome = events(3)\n'))).toEqual(['monitoring', true]);
    const helped = same('helper', 'outcome = [helper(1), helper(2)]\n');
    expect(compared(helped)).toEqual(['monitoring', true]);
    runner.clean();
    choose(true);
    expect(runner.run(helped).steps.filter((s) => s.event === 'call')).toHaveLength(2);
  });
});

/**
 * The C side's JSON writer (`dump`, what write_trace uses when it is loaded) against json_dumps,
 * the writer it stands for: a trace written by it must be the text json_dumps writes for the same
 * values, byte for byte, and what it does not write it must leave to json_dumps.
 */
describe("the C fast path's JSON writer", () => {
  /** The raw JSON text of a run (recorded in C), and whether json_dumps writes that same text again. */
  const written = (request: RunRequest) => {
    runner.clean();
    choose(true);
    return py.runPython(`import steplight_tracer as t\ntext = t.run(${JSON.stringify(JSON.stringify(request))})\n(text == t.json_dumps(t.json_loads(text), True), t.DUMP is not None)`).toJs() as [boolean, boolean];
  };

  it.each([...CASES.map((c) => [`corpus: ${c.name}`, caseRequest(c)] as const), ...hooksRequests.map((r, k) => [`hooks lesson: ${r.target.symbol} #${k}`, r] as const)])(
    'writes the trace as json_dumps does: %s',
    (_name, request) => {
      expect(written(request)).toEqual([true, true]);
    },
  );

  it('writes every escape, number and nesting as json_dumps does, and leaves the rest to it', () => {
    runner.clean();
    const result = py.runPython(`
import steplight_tracer as t
texts = ["", "plain", 'quote " backslash \\\\ slash /', "\\b\\f\\n\\r\\t\\x00\\x1f\\x7f\\x80", "é中文🙂", "\\ud800 lone \\udfff", "\\U0010ffff", "x" * 70000]
numbers = [0, -1, 2**53, -(2**63), 2**64 + 1, 10**40, -(10**40), 0.1, -0.0, 1e300, 5e-324, 1e16, 123456789.125]
values = [texts, numbers, None, True, False, [], {}, (), {"a": [1, (2, {"b": None})], "": {}}, [[[[["deep"]]]]], {"k": "v" * 3}, [texts] * 3]
same = [t.DUMP(v) == t.json_dumps(v, True) for v in values]

class Sub(dict):
    pass

class Text(str):
    pass

others = [float("nan"), [float("inf")], {1: "int key"}, Sub(a=1), [Text("s")], b"bytes", {"s": {1, 2}}, object()]
nested = []
for _ in range(300):
    nested = [nested]
others.append(nested)
left = [t.DUMP(v) is None for v in others]
(same, left)
`).toJs() as [boolean[], boolean[]];
    expect(result[0].every(Boolean)).toBe(true);
    expect(result[1].every(Boolean)).toBe(true);
  });

  it('writes an object met again as it wrote it the first time, and still leaves too deep a nesting to json_dumps', () => {
    runner.clean();
    const result = py.runPython(`
import steplight_tracer as t
word, pair = "shared", {"t": "str", "v": "shared"}
chain = []
for _ in range(150):
    chain = [chain]
shallow = {"a": [word, pair, word, pair, [pair, (pair,)]], word: pair, "chain": chain}
deep = [chain, [[[[[[[[[[chain]]]]]]]]]], {"x": [[chain] * 3] * 2}]
deeper = [chain]
for _ in range(60):
    deeper = [deeper, chain]  # the chain first written at depth 61 after it fits at 1
same = [t.DUMP(v) == t.json_dumps(v, True) for v in (shallow, deep, [shallow] * 5, {"k": [pair] * 4000})]
(same, t.DUMP([chain, deeper]) is None, t.DUMP([deeper, chain]) is None)
`).toJs() as [boolean[], boolean, boolean];
    expect(result[0]).toEqual([true, true, true, true]);
    expect(result[1]).toBe(true); // 61 + 150 levels: json_dumps's to write, though the chain was written whole just before
    expect(result[2]).toBe(true);
  });

  it('falls back to json_dumps, which writes or refuses what it always did', () => {
    runner.clean();
    const out = py.runPython(`
import steplight_tracer as t
nested = []
for _ in range(300):
    nested = [nested]
try:
    t.write_trace({"v": float("nan")})
    refused = None
except ValueError as error:
    refused = str(error)
(t.write_trace({"deep": nested}) == t.json_dumps({"deep": nested}, True), t.write_trace({1: "a"}), refused)
`).toJs() as [boolean, string, string];
    expect(out[0]).toBe(true);
    expect(out[1]).toBe('{"1":"a"}');
    expect(out[2]).toMatch(/not JSON compliant/);
  });
});
