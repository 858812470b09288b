/** A trace as readable text, one line per step (`npm run trace -- … --format text`). */
import { preview } from './preview';
import type { Locals, Trace } from './types';

const pad = (s: string | number, n: number) => String(s).padStart(n);

/** `source` is the text of the traced file, so each line step can show the line it is about to run. */
export function traceText(trace: Trace, source?: string): string {
  const lines = source?.split('\n') ?? [];
  const { file, symbol, firstLine, lastLine } = trace.target;
  const out = [`${file} · ${symbol}${firstLine ? ` (lines ${firstLine}-${lastLine})` : ''}: ${trace.steps.length} steps`];
  const width = String(trace.steps.length).length;
  const vars = (locals: Locals | undefined) =>
    Object.entries(locals ?? {})
      .map(([name, value]) => `${name}=${preview(value, 40)}`)
      .join(', ');
  trace.steps.forEach((step, i) => {
    const indent = '  '.repeat(step.depth - 1);
    let detail = '';
    if (step.event === 'call') detail = `(${vars(step.locals)})`;
    else if (step.event === 'line') detail = (lines[step.line - 1] ?? '').trim();
    else if (step.event === 'return') detail = step.exception ? `raises ${step.exception.type}: ${step.exception.message}` : `→ ${preview(step.value!, 60)}`;
    else if (step.event === 'exception') detail = `${step.exception?.type}: ${step.exception?.message}`;
    const changed = step.event !== 'call' && step.changes ? `   [${vars(step.changes)}]` : '';
    out.push(`${pad(i + 1, width)}  ${indent}${step.event.padEnd(9)} ${pad(step.line, 4)}  ${detail}${changed}`);
  });
  if (trace.stdout) out.push(`stdout:\n${trace.stdout.replace(/^/gm, '  ')}`);
  if (trace.stdoutDropped) out.push(`(stdout: ${trace.stdoutDropped} more characters dropped)`);
  if (trace.outcome) out.push(`outcome: ${preview(trace.outcome, 200)}`);
  if (trace.truncated) out.push(`truncated: ${trace.truncated}`);
  if (trace.error) out.push(`error: ${trace.error.type}: ${trace.error.message}`);
  return out.join('\n');
}
