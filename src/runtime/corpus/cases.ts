/**
 * The differential corpus: functions (in this folder, written for it) with a harness that calls
 * each. Every case runs under the product's recorder and the independent reference recorder, under
 * CPython and Pyodide, and must agree step by step.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { extractSymbol } from '../../lessons/symbols';
import { buildRequest } from '../request';
import type { RunRequest } from '../../trace/types';

const DIR = fileURLToPath(new URL('.', import.meta.url));
export const CORPUS_FILES: Record<string, string> = Object.fromEntries(
  readdirSync(DIR)
    .filter((f) => f.endsWith('.py'))
    .map((f) => [f, readFileSync(`${DIR}/${f}`, 'utf8')]),
);

export interface Case {
  name: string;
  file: string;
  symbol: string;
  /** Harness lines (the module is importable by its file name). */
  harness: string;
  /** For a symbol defined twice (a property's getter and setter): which definition, from 0. */
  occurrence?: number;
  /** Functions of the same file traced too, under the target (the reader can step into them). */
  callees?: string[];
}

const call = (file: string, symbol: string, expr: string, name = `${symbol}: ${expr}`): Case => ({
  name,
  file,
  symbol,
  harness: `import ${file.replace('.py', '')} as m\ntry:\n    outcome = ${expr}\nexcept BaseException as error:\n    outcome = ("raised", type(error).__name__)\n`,
});
const alg = (symbol: string, args: string) => call('algorithms.py', symbol, `m.${symbol}(${args})`);
const ctl = (symbol: string, args = '') => call('control.py', symbol, `m.${symbol}(${args})`);
const gen = (symbol: string, expr: string) => call('generators.py', symbol, expr);
const obj = (symbol: string, expr: string, extra: Partial<Case> = {}) => ({ ...call('objects.py', symbol, expr), ...extra });
const mut = (symbol: string) => call('mutations.py', symbol, `m.${symbol}()`);

export const CASES: Case[] = [
  alg('binary_search', '[1, 3, 5, 7, 9, 11], 7'),
  alg('binary_search', '[1, 3], 4'),
  alg('bubble_sort', '[5, 1, 4, 2, 8]'),
  alg('insertion_sort', '[3, 1, 2]'),
  alg('merge_sort', '[5, 2, 9, 1, 5, 6]'),
  alg('quicksort', '[3, 6, 1, 8, 2]'),
  alg('gcd', '1071, 462'),
  alg('fib', '6'),
  alg('hanoi', '3, "A", "C", "B", []'),
  alg('sieve', '30'),
  alg('word_counts', '"the cat and the hat. The end!"'),
  alg('matrix_multiply', '[[1, 2], [3, 4]], [[5, 6], [7, 8]]'),
  alg('flatten', '[1, [2, [3, [4, [5, [6]]]]], 7]'),
  alg('permutations', '[1, 2, 3]'),
  alg('bfs', '{"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": []}, "a"'),
  alg('linked_list_reverse', '{"v": 1, "next": {"v": 2, "next": {"v": 3, "next": None}}}'),
  ctl('locals_come_and_go', 'True'), // a local bound after one f_locals lists later; two go on one line
  ctl('finally_reraises'),
  ctl('except_does_not_match'),
  ctl('raise_in_handler'),
  ctl('bare_reraise'),
  ctl('try_else_finally', '0'),
  ctl('try_else_finally', '5'),
  ctl('return_in_finally'),
  ctl('with_exit_reraises', '"out.txt"'),
  ctl('with_suppresses', '[]'),
  ctl('loop_else', '[1, 2, 3], 2'),
  ctl('loop_else', '[1], 5'),
  ctl('while_continue', '7'),
  ctl('match_shapes', '{"kind": "circle", "r": 2}'),
  ctl('match_shapes', '{"kind": "rect", "w": 3, "h": 3}'),
  ctl('match_shapes', '[4, 5]'),
  ctl('match_shapes', '"other"'),
  ctl('nested_exceptions', '3'),
  ctl('exception_group'),
  ctl('assert_fails', '-1'),
  ctl('assert_fails', '1'),
  gen('countdown', 'list(m.countdown(3))'),
  { ...gen('accumulator', ''), name: 'accumulator: finished by send(None)', harness: 'import generators as m\ng = m.accumulator()\nnext(g)\ng.send(4)\ntry:\n    g.send(None)\nexcept StopIteration as stop:\n    outcome = stop.value\n' },
  { ...gen('guarded_stream', ''), name: 'guarded_stream: throw', harness: 'import generators as m\ng = m.guarded_stream([1, 2, 3])\nfirst = next(g)\noutcome = [first, g.throw(ValueError("bad"))]\ng.close()\n' },
  { ...gen('guarded_stream', ''), name: 'guarded_stream: close', harness: 'import generators as m\ng = m.guarded_stream([1, 2])\nnext(g)\ng.close()\noutcome = "closed"\n' },
  gen('delegating', 'list(m.delegating(2))'),
  gen('countdown', 'list(m.delegating(2))'),
  { ...gen('double_later', ''), name: 'double_later: a coroutine driven by send', harness: 'import generators as m\nc = m.double_later(21)\ntry:\n    while True:\n        c.send(None)\nexcept StopIteration as stop:\n    outcome = stop.value\n' },
  gen('pipeline', 'm.pipeline([" a ", "", "b "])'),
  obj('decorated_area', 'm.decorated_area(3, 4)'),
  obj('logged.wrapper', 'm.decorated_area(3, 4)'),
  obj('cached_fib', 'm.cached_fib(6)'),
  obj('Account.balance', '(lambda a: (a.balance, a.deposit(5).balance))(m.Account("ann", 10.123))'),
  obj('Account.balance', '(lambda a: a.deposit(5).balance)(m.Account("ann", 10))', { occurrence: 1, name: 'Account.balance: the setter' }),
  obj('Account.balance', '(lambda a: setattr(a, "balance", -1))(m.Account("ann", 10))', { occurrence: 1, name: 'Account.balance: the setter raises' }),
  obj('Account.parse', 'm.Account.parse("bob:12.5").owner'),
  obj('Account.empty', 'm.Account.empty("cy").owner'),
  obj('Account.deposit', 'm.Account("dee", 1).deposit(2).balance'),
  obj('Account.__init__', 'm.Account("eve", 3).owner'),
  obj('Point.moved', 'm.Point(1, 2).moved(3, 4)'),
  obj('Slotted.total', 'm.Slotted(5).total()'),
  obj('make_counter.increment', '(lambda inc: (inc(), inc(2), inc()))(m.make_counter())'),
  obj('add_to_total', '(m.add_to_total(2), m.add_to_total(3))'),
  obj('varargs', 'm.varargs(1, 2, 3, sep="+", b=1, a=2)'),
  obj('shared_and_copied', 'm.shared_and_copied({"k": [1, 2]})'),
  obj('cycles', 'm.cycles()'),
  obj('recorder_must_not_interfere', 'm.recorder_must_not_interfere()'),
  obj('raise_unprintable', 'm.raise_unprintable()'),
  obj('binary_values', 'm.binary_values()'),
  { ...call('callees.py', 'read_settings', 'm.read_settings(["a = 1", "b", "a=2", "c=3"])'), callees: ['parse_pair', 'check_key', 'depth_of', 'numbered'] },
  { ...call('callees.py', 'read_settings', '(m.helper_alone(), m.read_settings(["x=1"]), m.parse_pair("y=2"))', 'read_settings: a callee called outside the target is not traced'), callees: ['parse_pair', 'numbered'] },
  { ...call('callees.py', 'depth_of', 'm.depth_of([[1, [2]], []])', 'depth_of: its own callee (recursion) beside another'), callees: ['depth_of', 'parse_pair'] },
  mut('nested_changes'),
  mut('past_the_shown_items'),
  mut('same_members_new_order'),
  mut('objects_change'),
  mut('classes_and_names'),
  mut('subclasses_and_errors'),
  { name: 'announce: called while its module is imported', file: 'importtime.py', symbol: 'announce', harness: 'import importtime\noutcome = importtime.GREETING\n' },
];

/** A case as a run request (the corpus is one lesson; the case picks its function and harness). */
export function caseRequest(c: Case, root = 'corpus'): RunRequest {
  const source = CORPUS_FILES[c.file]!;
  let range = extractSymbol(source, c.symbol);
  if (c.occurrence) {
    // the n-th `def name` of the file, from its first decorator to its def line
    const lines = source.split('\n');
    const name = c.symbol.split('.').pop()!;
    const defs = lines.flatMap((l, i) => (new RegExp(`^\\s*def ${name}\\b`).test(l) ? [i] : []));
    const at = defs[c.occurrence]!;
    let first = at;
    while (lines[first - 1]?.trim().startsWith('@')) first--;
    range = { firstLine: first + 1, defLine: at + 1, lastLine: at + 1, code: '' };
  }
  if (!range && !c.symbol.includes('.')) throw new Error(`corpus: no ${c.symbol} in ${c.file}`);
  const callees = (c.callees ?? []).map((symbol) => {
    const r = extractSymbol(source, symbol);
    if (!r) throw new Error(`corpus: no ${symbol} in ${c.file}`);
    return { file: c.file, symbol, firstLine: r.firstLine, lastLine: r.lastLine };
  });
  return buildRequest({
    lesson: root,
    files: CORPUS_FILES,
    source: c.file,
    symbol: c.symbol,
    harness: { file: 'harness.py', code: c.harness },
    inputs: {},
    ...(range ? { lines: [range.firstLine, range.lastLine] as [number, number] } : {}),
    callees,
  });
}
