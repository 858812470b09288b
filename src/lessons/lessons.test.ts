import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findWidget, lessonDirs, loadLesson } from './load';
import { lessonJsonSchema } from './schema';
import { checkExpect } from './run';
import { extractSymbol } from './symbols';
import type { Trace } from '../trace/types';

describe('extractSymbol', () => {
  const source = [
    'import x', // 1
    '', // 2
    '@decorate', // 3
    'def f(a,', // 4
    '      b):', // 5
    '    text = """', // 6
    'def not_a_function():', // 7
    '"""', // 8
    '    return a', // 9
    '', // 10
    '# a comment at column 0 ends nothing', // 11
    'class C:', // 12
    '    def f(self):', // 13
    '        return (', // 14
    '1)', // 15
    '', // 16
    '    def g(self):', // 17
    '        pass', // 18
  ].join('\n');

  it('finds functions with decorators, continuation lines and strings', () => {
    expect(extractSymbol(source, 'f')).toMatchObject({ firstLine: 3, defLine: 4, lastLine: 9 });
    expect(extractSymbol(source, 'C.f')).toMatchObject({ firstLine: 13, lastLine: 15 });
    expect(extractSymbol(source, 'C.g')).toMatchObject({ firstLine: 17, lastLine: 18 });
    expect(extractSymbol(source, 'C')).toMatchObject({ firstLine: 12, lastLine: 18 });
    expect(extractSymbol(source, 'C.f')!.code).toBe('    def f(self):\n        return (\n1)');
  });

  it('finds nothing for names inside strings, nested names or missing names', () => {
    expect(extractSymbol(source, 'not_a_function')).toBeNull();
    expect(extractSymbol(source, 'g')).toBeNull();
    expect(extractSymbol(source, 'missing')).toBeNull();
    expect(extractSymbol(source, 'bad name')).toBeNull();
  });
});

describe('loadLesson', () => {
  let dir = '';
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  function lesson(files: Record<string, string>) {
    dir = join(mkdtempSync(join(tmpdir(), 'steplight-lesson-')), 'demo');
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return () => loadLesson(dir);
  }
  const good = {
    'lesson.yaml': 'title: {zh: 演示, en: Demo}\nwidgets:\n  - id: w\n    source: m.py\n    symbol: f\n    harness: h.py\n    inputs: {x: 1}\n    scenarios:\n      - {id: one, label: One, inputs: {x: 2}, expect: {outcome: 2}}\n    diagram:\n      - {caption: Return, match: return x}\n',
    'm.py': 'def f(x):\n    return x\n',
    'h.py': 'from m import f\noutcome = f(x)\n',
    'en.md': '# Demo\n\nText <script>alert(1)</script>\n\n```debugger\nw\n```\n\nAfter.\n',
    'zh.md': '# 演示\n\n```debugger\nw\n```\n',
  };

  it('loads a valid lesson: widget code with real lines, merged inputs, prose split at debugger fences', () => {
    const l = lesson(good)();
    const w = findWidget(l, 'w');
    expect(w).toMatchObject({ firstLine: 1, lastLine: 2, code: 'def f(x):\n    return x', diagram: [{ line: 2 }] });
    expect(w.scenarios[0]!.inputs).toEqual({ x: 2 });
    expect(l.prose.en.map((s) => s.kind)).toEqual(['html', 'widget', 'html']);
    expect(l.prose.en[0]).toMatchObject({ kind: 'html' });
    expect((l.prose.en[0] as { html: string }).html).toContain('&lt;script&gt;');
  });

  it.each([
    ['a missing source file', { 'lesson.yaml': good['lesson.yaml'].replace('source: m.py', 'source: nope.py') }, /no Python file "nope.py"/],
    ['a missing symbol', { 'lesson.yaml': good['lesson.yaml'].replace('symbol: f', 'symbol: g') }, /no function or class "g" in m.py/],
    ['an unknown widget in the prose', { 'en.md': '```debugger\nother\n```\n' }, /unknown widget "other"/],
    ['a diagram line that is not in the function', { 'lesson.yaml': good['lesson.yaml'].replace('match: return x', 'match: return y') }, /no line of f reads "return y"/],
    ['an unknown key, with the closest valid one', { 'lesson.yaml': good['lesson.yaml'].replace('    inputs: {x: 1}', '    input: {x: 1}') }, /widgets\[0\]: unknown key "input"; did you mean "inputs"\?/],
    ['a misspelt scenario key', { 'lesson.yaml': good['lesson.yaml'].replace('expect: {outcome: 2}', 'expcet: {outcome: 2}') }, /widgets\[0\]\.scenarios\[0\]: unknown key "expcet"; did you mean "expect"\?/],
    ['a misspelt symbol, with the closest one in the file', { 'lesson.yaml': good['lesson.yaml'].replace('symbol: f', 'symbol: ff') }, /no function or class "ff" in m.py; did you mean "f"\?/],
    ['a misspelt file', { 'lesson.yaml': good['lesson.yaml'].replace('harness: h.py', 'harness: hh.py') }, /no Python file "hh.py" in the lesson; did you mean "h.py"\?/],
    ['a misspelt widget in the prose', { 'en.md': '```debugger\nww\n```\n' }, /unknown widget "ww" in a debugger block; did you mean "w"\?/],
    ['a wrong type', { 'lesson.yaml': good['lesson.yaml'].replace('    scenarios:\n', '    scenarios: 3\n    x_scenarios:\n') }, /widgets\[0\]\.scenarios: must be a list/],
    ['a missing required key', { 'lesson.yaml': good['lesson.yaml'].replace('    harness: h.py\n', '') }, /widgets\[0\]\.harness: is required/],
    ['broken YAML', { 'lesson.yaml': 'title: [' }, /invalid YAML/],
    ['a missing locale', { 'zh.md': undefined }, /no zh.md/],
    ['a prose link to a widget that is not there', { 'en.md': 'See [this](#widget=ww&step=2).\n\n```debugger\nw\n```\n' }, /en.md:1: a link to widget "ww", which is not in this lesson; did you mean "w"\?/],
    ['a prose link to a scenario that is not there', { 'en.md': '```debugger\nw\n```\n\nSee [this](#widget=w&scenario=onne).\n' }, /en.md:5: a link to scenario "onne" of w, which has none such; did you mean "one"\?/],
    ['a prose link with a breakpoint outside the function', { 'en.md': '```debugger\nw\n```\n\n[here](#widget=w&breakpoints=9)\n' }, /breakpoint "9" is not a line of f \(lines 1-2\)/],
    ['a question on a line the function does not have', { 'lesson.yaml': good['lesson.yaml'].replace('    diagram:', '    predict: [{at: return y, ask: next-line}]\n    diagram:') }, /widgets\[0\]\.predict\[0\]\.at: no line of f reads "return y"; did you mean "return x"\?/],
    ['a value question without its variable', { 'lesson.yaml': good['lesson.yaml'].replace('    diagram:', '    predict: [{at: return x, ask: value}]\n    diagram:') }, /predict\[0\].*ask: value needs `variable`/],
    ['a stepInto name that is nowhere, with the closest one', { 'lesson.yaml': good['lesson.yaml'].replace('    harness: h.py\n', '    harness: h.py\n    stepInto: [helpr]\n'), 'core/util.py': 'def helper(x):\n    return x\n' }, /widgets\[0\]\.stepInto\[0\]: no function "helpr" in m.py or core\/; did you mean "helper"\?/],
    ['a stepInto name defined in two core files', { 'lesson.yaml': good['lesson.yaml'].replace('    harness: h.py\n', '    harness: h.py\n    stepInto: [helper]\n'), 'core/a.py': 'def helper():\n    pass\n', 'core/b.py': 'def helper():\n    pass\n' }, /"helper" is defined in core\/a.py and core\/b.py: write "core\/a.py:helper"/],
  ])('rejects %s with a clear error', (_name, change, message) => {
    const files: Record<string, string> = { ...good };
    for (const [k, v] of Object.entries(change)) {
      if (v === undefined) delete files[k];
      else files[k] = v;
    }
    expect(lesson(files)).toThrow(message);
  });

  it('steps into the core/ functions the widget calls by default; stepInto names them, [] turns it off', () => {
    const files = { ...good, 'lesson.yaml': good['lesson.yaml'].replace('match: return x', 'match: y = helper(x) + f2(x)'), 'm.py': 'from core.util import helper, unused\n\ndef f(x):\n    y = helper(x) + f2(x)\n    return x\n\ndef f2(x):\n    return x\n', 'core/util.py': 'def helper(x):\n    return x\n\ndef unused():\n    pass\n' };
    expect(findWidget(lesson(files)(), 'w').callees.map((c) => `${c.file}:${c.symbol}:${c.firstLine}-${c.lastLine}`)).toEqual(['core/util.py:helper:1-2']);
    const named = files['lesson.yaml'].replace('    harness: h.py\n', '    harness: h.py\n    stepInto: [f2, "core/util.py:unused"]\n');
    expect(findWidget(lesson({ ...files, 'lesson.yaml': named })(), 'w').callees.map((c) => c.symbol)).toEqual(['f2', 'unused']);
    const none = files['lesson.yaml'].replace('    harness: h.py\n', '    harness: h.py\n    stepInto: []\n');
    expect(findWidget(lesson({ ...files, 'lesson.yaml': none })(), 'w').callees).toEqual([]);
  });

  it('keeps prose links to widget states and questions for the reader', () => {
    const yaml = good['lesson.yaml'].replace('    diagram:', '    predict: [{at: return x, ask: value, variable: x}]\n    diagram:');
    const l = lesson({ ...good, 'lesson.yaml': yaml, 'en.md': '```debugger\nw\n```\n\n[Pause here](#widget=w&scenario=one&breakpoints=2&step=2).\n' })();
    expect(findWidget(l, 'w').predict).toEqual([{ line: 2, ask: 'value', variable: 'x' }]);
    expect((l.prose.en[1] as { html: string }).html).toContain('href="#widget=w&amp;scenario=one&amp;breakpoints=2&amp;step=2"');
  });

  it('names every problem of a lesson.yaml at once', () => {
    const broken = good['lesson.yaml'].replace('    harness: h.py\n', '').replace('label: One', 'label: ""').replace('  - id: w', '  - id: w w');
    let message = '';
    try {
      lesson({ ...good, 'lesson.yaml': broken })();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/widgets\[0\]\.id: must be letters/);
    expect(message).toMatch(/widgets\[0\]\.harness: is required/);
    expect(message).toMatch(/widgets\[0\]\.scenarios\[0\]\.label: must be a non-empty string/);
  });

  it('loads the hooks lesson with its three widgets', () => {
    const l = loadLesson(resolve('lessons/s04-hooks'));
    expect(l.widgets.map((w) => w.id)).toEqual(['run_hooks', 'execute_hooked', 'audit_event']);
    expect(findWidget(l, 'run_hooks').scenarios.map((s) => s.id)).toEqual(expect.arrayContaining(['pass', 'block', 'pre_error', 'post_error', 'mutate', 'bad_return', 'says_allow']));
    expect(findWidget(l, 'execute_hooked').standins.map((s) => s.kind).sort()).toEqual(['file', 'host', 'process']);
  });

  it('loads the permissions lesson: the format is not specific to hooks', () => {
    const l = loadLesson(resolve('lessons/s03-permissions'));
    expect(findWidget(l, 'execute_guarded').scenarios.map((s) => s.id)).toEqual(['allow', 'ask-allowed', 'ask-refused', 'yes-string', 'host-blocked', 'unknown-tool', 'bad-params']);
    expect(l.prose.zh.filter((s) => s.kind === 'widget')).toHaveLength(2);
  });
});

describe('the published JSON Schema of lesson.yaml', () => {
  it('is the schema the loader validates with (run `npm run schema` after changing it)', () => {
    expect(JSON.parse(readFileSync('schemas/lesson.schema.json', 'utf8'))).toEqual(lessonJsonSchema());
  });
  it('is named by every lesson.yaml, so editors use it', () => {
    for (const dir of lessonDirs(resolve('lessons'))) expect(readFileSync(join(dir, 'lesson.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=\.\.\/\.\.\/schemas\/lesson\.schema\.json\n/);
  });
});

describe('checkExpect', () => {
  const base: Trace = { version: 1, target: { file: 'm.py', symbol: 'f' }, steps: [], stdout: 'hello', stats: { events: 0, durationMs: 0 } };
  it('passes a matching trace and names each mismatch', () => {
    const t = { ...base, outcome: { t: 'dict' as const, id: 1, len: 1, entries: [[{ t: 'str' as const, v: 'a' }, { t: 'none' as const }]] as never } };
    expect(checkExpect(t, { outcome: { a: null }, stdout: 'ell' })).toEqual([]);
    expect(checkExpect(t, { outcome: { a: 1 } })).toEqual(['outcome differs from expect.outcome:\n    outcome.a: expected 1, got null']);
    expect(checkExpect(t, { outcome: { a: null, b: [1] } })[0]).toContain('outcome.b: expected [1], missing');
    expect(checkExpect({ ...base }, { outcome: 1 })).toEqual(['the harness never set `outcome` (assign the result to a variable named outcome)']);
    expect(checkExpect(t, { stdout: 'bye' })[0]).toMatch(/stdout/);
    expect(checkExpect(t, { error: 'ValueError' })[0]).toMatch(/expected error ValueError/);
    expect(checkExpect({ ...base, error: { type: 'KeyError', message: 'x' } }, {})[0]).toMatch(/unexpected error KeyError/);
  });
});
