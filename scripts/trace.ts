/** npm run trace -- <lessonDir> <widgetId> [--scenario ID] [--cpython] [--format json|text]: print a widget's trace. */
import { resolve } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { findWidget, loadLesson } from '../src/lessons/load';
import { widgetRequest } from '../src/lessons/run';
import { cpythonRun, nodeRunner } from '../src/runtime/node';
import { traceText } from '../src/trace/text';

const usage = 'usage: npm run trace -- <lessonDir> <widgetId> [--scenario ID] [--cpython] [--format json|text]';
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, value] = args.splice(i, 2);
  if (!value) throw new Error(`${name} needs a value\n${usage}`);
  return value;
};

async function main() {
  const scenario = flag('--scenario');
  const format = flag('--format') ?? 'json';
  if (format !== 'json' && format !== 'text') throw new Error(`--format must be json or text, not "${format}"\n${usage}`);
  const cpython = args.includes('--cpython');
  const [dir, widgetId, ...rest] = args.filter((a) => a !== '--cpython');
  if (!dir || !widgetId || rest.length) throw new Error(usage);
  const lesson = loadLesson(resolve(dir));
  const widget = findWidget(lesson, widgetId);
  const request = widgetRequest(lesson.files, widget, scenario);
  let trace;
  if (cpython) {
    const root = mkdtempSync(`${tmpdir()}/steplight-`);
    try {
      trace = cpythonRun(request, root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  } else {
    trace = (await nodeRunner()).run(request);
  }
  process.stdout.write(format === 'text' ? `${traceText(trace, lesson.files[widget.file])}\n` : `${JSON.stringify(trace, null, 2)}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
});
