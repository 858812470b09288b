/** From a lesson widget and a scenario to a run request, and from a trace to a verdict. */
import { buildRequest } from '../runtime/request';
import { plain, type Limits, type RunRequest, type Trace } from '../trace/types';
import type { Expect, Widget } from './types';

export function scenarioOf(widget: Widget, scenarioId?: string) {
  const scenario = scenarioId ? widget.scenarios.find((s) => s.id === scenarioId) : widget.scenarios[0];
  if (!scenario) throw new Error(`widget ${widget.lesson}/${widget.id} has no scenario "${scenarioId}" (scenarios: ${widget.scenarios.map((s) => s.id).join(', ')})`);
  return scenario;
}

export function widgetRequest(files: Record<string, string>, widget: Widget, scenarioId?: string, limits?: Partial<Limits>): RunRequest {
  const scenario = scenarioOf(widget, scenarioId);
  return buildRequest({ lesson: widget.lesson, files, source: widget.file, symbol: widget.symbol, harness: widget.harness, inputs: scenario.inputs }, limits);
}

const canonical = (v: unknown): string => JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/** What is wrong with a trace against a scenario's expectations (empty when it meets them). */
export function checkExpect(trace: Trace, expect: Expect): string[] {
  const problems: string[] = [];
  if (expect.error !== undefined) {
    if (trace.error?.type !== expect.error) problems.push(`expected error ${expect.error}, got ${trace.error ? `${trace.error.type}: ${trace.error.message}` : 'no error'}`);
  } else if (trace.error) {
    problems.push(`unexpected error ${trace.error.type}: ${trace.error.message}`);
  }
  if (expect.outcome !== undefined) {
    const got = trace.outcome === undefined ? undefined : plain(trace.outcome);
    if (canonical(got) !== canonical(expect.outcome)) problems.push(`outcome ${canonical(got)} is not the expected ${canonical(expect.outcome)}`);
  }
  if (expect.stdout !== undefined && !trace.stdout.includes(expect.stdout)) problems.push(`stdout ${JSON.stringify(trace.stdout)} does not contain ${JSON.stringify(expect.stdout)}`);
  return problems;
}
