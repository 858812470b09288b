/** npm run lessons:check [lessonDir...]: validate every lesson and run every scenario under CPython and Pyodide. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { lessonDirs, loadLesson } from '../src/lessons/load';
import { checkExpect, widgetRequest } from '../src/lessons/run';
import type { CodeBlock, Lesson } from '../src/lessons/types';
import { cpythonRun, nodeRunner } from '../src/runtime/node';

/** Python's own ast says where each symbol starts and ends; the extractor must agree. */
function astRanges(lesson: Lesson, blocks: CodeBlock[]): string[] {
  const script = `
import ast, json, sys
req = json.load(sys.stdin)
out = []
for b in req:
    try:
        node = ast.parse(b["text"])
    except SyntaxError as e:
        out.append("%s line %s: %s" % (b["file"], e.lineno, e.msg))
        continue
    for part in b["symbol"].split("."):
        body = node.body
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part), None)
        if node is None: break
    if node is None:
        out.append(None)
    else:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        out.append([first, node.end_lineno])
print(json.dumps(out))
`;
  const input = blocks.map((b) => ({ file: b.file, symbol: b.symbol, text: lesson.files[b.file] }));
  const run = spawnSync(process.env.PYTHON ?? 'python3', ['-c', script], { input: JSON.stringify(input), encoding: 'utf8' });
  if (run.status !== 0) return [`ast check failed: ${run.stderr}`];
  const ranges = JSON.parse(run.stdout) as ([number, number] | string | null)[];
  return blocks.flatMap((b, i) => {
    const r = ranges[i];
    if (typeof r === 'string') return [`syntax error in ${r}`];
    if (!r) return [`${b.file}: Python finds no symbol ${b.symbol}`];
    return r[0] === b.firstLine && r[1] === b.lastLine ? [] : [`${b.file} ${b.symbol}: extracted lines ${b.firstLine}-${b.lastLine}, Python's ast says ${r[0]}-${r[1]}`];
  });
}

async function main() {
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : lessonDirs(resolve('lessons'));
  const pyodide = await nodeRunner();
  let failures = 0;
  let passed = 0;
  const fail = (where: string, problem: string) => {
    failures++;
    console.log(`FAIL ${where}: ${problem}`);
  };
  for (const dir of dirs) {
    let lesson: Lesson;
    try {
      lesson = loadLesson(dir);
    } catch (error) {
      fail(dir, (error as Error).message);
      continue;
    }
    const blocks = lesson.widgets.flatMap((w) => [w, ...w.standins]);
    for (const problem of astRanges(lesson, blocks)) fail(lesson.id, problem);
    const root = mkdtempSync(`${tmpdir()}/steplight-check-`);
    try {
      for (const widget of lesson.widgets) {
        for (const scenario of widget.scenarios) {
          const request = widgetRequest(lesson.files, widget, scenario.id);
          for (const [engine, run] of [
            ['cpython', () => cpythonRun(request, root)],
            ['pyodide', () => pyodide.run(request)],
          ] as const) {
            const where = `${lesson.id}/${widget.id}#${scenario.id} (${engine})`;
            let trace;
            try {
              trace = run();
            } catch (error) {
              fail(where, `the run itself failed: ${(error as Error).message}`);
              continue;
            }
            const problems = checkExpect(trace, scenario.expect);
            if (!trace.steps.some((s) => s.event === 'call') && !scenario.expect.error) problems.push(`${widget.symbol} was never called`);
            if (trace.target.firstLine !== undefined && trace.target.firstLine !== widget.firstLine) problems.push(`code object starts at line ${trace.target.firstLine}, widget at ${widget.firstLine}`);
            if (problems.length) problems.forEach((p) => fail(where, p));
            else {
              passed++;
              console.log(`ok   ${where}: ${trace.steps.length} steps`);
            }
          }
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  console.log(`lessons:check: ${passed} passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(2);
});
