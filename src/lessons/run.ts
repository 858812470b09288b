/** From a lesson widget and a scenario to a run request, and from a trace to a verdict. */
import diff from 'microdiff';
import { buildRequest } from '../runtime/request';
import { plain, type Limits, type RunRequest, type Trace } from '../trace/types';
import { didYouMean } from './suggest';
import type { Expect, Widget } from './types';

export function scenarioOf(widget: Widget, scenarioId?: string) {
  const scenario = scenarioId ? widget.scenarios.find((s) => s.id === scenarioId) : widget.scenarios[0];
  const ids = widget.scenarios.map((s) => s.id);
  if (!scenario) throw new Error(`widget ${widget.lesson}/${widget.id} has no scenario "${scenarioId}"${didYouMean(scenarioId ?? '', ids)} (scenarios: ${ids.join(', ')})`);
  return scenario;
}

export function widgetRequest(files: Record<string, string>, widget: Widget, scenarioId?: string, limits?: Partial<Limits>): RunRequest {
  const scenario = scenarioOf(widget, scenarioId);
  return buildRequest({ lesson: widget.lesson, files, source: widget.file, symbol: widget.symbol, harness: widget.harness, inputs: scenario.inputs, lines: [widget.firstLine, widget.lastLine], callees: widget.callees }, limits);
}

const show = (v: unknown) => (v === undefined ? '(nothing)' : JSON.stringify(v));

/** Where two JSON values differ, one line per difference ("outcome.warnings[0]: expected …, got …"). */
export function jsonDiff(expected: unknown, got: unknown, root = 'outcome'): string[] {
  if (typeof expected !== 'object' || expected === null || typeof got !== 'object' || got === null || Array.isArray(expected) !== Array.isArray(got))
    return JSON.stringify(expected) === JSON.stringify(got) ? [] : [`${root}: expected ${show(expected)}, got ${show(got)}`];
  return diff(expected as Record<string, unknown>, got as Record<string, unknown>).map((d) => {
    const at = root + d.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
    if (d.type === 'CREATE') return `${at}: not expected, got ${show(d.value)}`;
    if (d.type === 'REMOVE') return `${at}: expected ${show(d.oldValue)}, missing`;
    return `${at}: expected ${show(d.oldValue)}, got ${show(d.value)}`;
  });
}

/** What is wrong with a trace against a scenario's expectations (empty when it meets them). */
export function checkExpect(trace: Trace, expect: Expect): string[] {
  const problems: string[] = [];
  if (expect.error !== undefined) {
    if (trace.error?.type !== expect.error) problems.push(`expected error ${expect.error}, got ${trace.error ? `${trace.error.type}: ${trace.error.message}` : 'no error'}`);
  } else if (trace.error) {
    problems.push(`unexpected error ${trace.error.type}: ${trace.error.message}`);
  }
  if (expect.outcome !== undefined) {
    if (trace.outcome === undefined) {
      if (!trace.error) problems.push('the harness never set `outcome` (assign the result to a variable named outcome)');
    } else {
      const lines = jsonDiff(expect.outcome, plain(trace.outcome));
      if (lines.length) problems.push(`outcome differs from expect.outcome:\n    ${lines.join('\n    ')}`);
    }
  }
  if (expect.stdout !== undefined && !trace.stdout.includes(expect.stdout)) problems.push(`stdout ${JSON.stringify(trace.stdout)} does not contain ${JSON.stringify(expect.stdout)}`);
  return problems;
}
