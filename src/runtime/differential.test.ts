/**
 * The recorder against an independent reference, on the corpus: every step (event, line, depth,
 * every local, how each frame ended) must be equal, under Pyodide and under CPython; and the
 * recorded run must do what the code does with no tracer at all (outcome, output, error). Under
 * Pyodide each case runs twice: the second run loads its harness from the first one's bytecode.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithReference, compareWithUntraced } from '../trace/reference';
import { CASES, caseRequest } from './corpus/cases';
import { cpythonReference, cpythonRun, nodeRunner, type NodeRunner } from './node';

/**
 * A SyntaxWarning is printed when a module is compiled, not when its cached bytecode is loaded, and
 * names the file's path: each side compiles in its own folder, at different times. Only those lines
 * are set aside; every other character of the output is compared.
 */
const withoutCompileWarnings = <T extends { stdout: string }>(run: T): T => ({ ...run, stdout: run.stdout.replace(/^\S+:\d+: SyntaxWarning: .*\n.*\n/gm, '') });

let pyodide: NodeRunner;
const roots: string[] = [];
beforeAll(async () => {
  pyodide = await nodeRunner();
});
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  it('Pyodide: the trace equals the reference, and the run equals an untraced run', () => {
    const request = caseRequest(c);
    const trace = pyodide.run(request);
    expect(trace.steps.length).toBeGreaterThan(0);
    const reference = pyodide.reference(request);
    expect(compareWithReference(trace, reference)).toBeNull();
    // run again: the harness's code now comes from the bytecode its first run compiled
    expect(compareWithReference(pyodide.run(request), reference)).toBeNull();
    expect(compareWithUntraced(withoutCompileWarnings(trace), withoutCompileWarnings(pyodide.reference(request, false)))).toBeNull();
  });

  it('CPython: the trace equals the reference, and the run equals an untraced run', () => {
    const root = mkdtempSync(join(tmpdir(), 'steplight-diff-'));
    roots.push(root);
    const request = caseRequest(c);
    const trace = cpythonRun(request, root);
    expect(trace.steps.length).toBeGreaterThan(0);
    expect(compareWithReference(trace, cpythonReference(request, root))).toBeNull();
    expect(compareWithUntraced(withoutCompileWarnings(trace), withoutCompileWarnings(cpythonReference(request, root, false)))).toBeNull();
  });
});
