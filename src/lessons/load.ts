/** Read and validate a lesson directory (Node only: used by the build, the CLI and the checks). */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import MarkdownIt from 'markdown-it';
import { parseDocument, visit, type Document } from 'yaml';
import type { Json } from '../runtime/request';
import { parseLink, splitBreakpoint } from '../site/deeplink';
import { extractSymbol } from './symbols';
import { schemaProblems, type LessonSpec } from './schema';
import { didYouMean } from './suggest';
import { LOCALES, type CodeBlock, type Expect, type Lesson, type LessonSummary, type Localized, type Segment, type Widget } from './types';

export class LessonError extends Error {
  constructor(where: string, message: string) {
    super(`${where}: ${message}`);
    this.name = 'LessonError';
  }
}

const localized = (v: string | Localized): Localized => (typeof v === 'string' ? { zh: v, en: v } : v);

/**
 * YAML as JSON values, except that a float keeps its type: `12.0`, `1e3` or `.inf` would become the
 * JavaScript numbers 12, 1000 and Infinity (and then the Python ints 12 and 1000), so they are kept
 * as {"$float": "<text>"}, which becomes a Python float in the harness.
 */
function readYaml(text: string): unknown {
  const doc: Document = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length) throw doc.errors[0];
  visit(doc, {
    Scalar(_key, node) {
      const number = node.value;
      const source = (node as { source?: string }).source ?? '';
      if (typeof number === 'number' && (!Number.isFinite(number) || (Number.isInteger(number) && /[.eE]|inf|nan/i.test(source))))
        return doc.createNode({ $float: Number.isFinite(number) ? String(number) : String(number).toLowerCase().replace('infinity', 'inf') });
      return undefined;
    },
  });
  return doc.toJS();
}

/** The names a file defines (def/class at any depth), for "did you mean" on a wrong symbol. */
function definedNames(source: string): string[] {
  return [...source.matchAll(/^\s*(?:async\s+def|def|class)\s+([A-Za-z_]\w*)/gm)].map((m) => m[1]!);
}

function pythonFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (name === '__pycache__' || name.startsWith('.')) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.py')) out[relative(dir, path).split(sep).join('/')] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function codeBlock(files: Record<string, string>, path: string, name: string, where: string) {
  const text = files[path];
  if (text === undefined) throw new LessonError(`${where}.source`, `no Python file "${path}" in the lesson${didYouMean(path, Object.keys(files))}`);
  const range = extractSymbol(text, name);
  if (!range) throw new LessonError(`${where}.symbol`, `no function or class "${name}" in ${path}${didYouMean(name.split('.').pop()!, definedNames(text))}`);
  return { file: path, symbol: name, firstLine: range.firstLine, lastLine: range.lastLine, code: range.code };
}

/** The one line of a function whose text is `match` (surrounding spaces ignored). */
function lineReading(block: CodeBlock, match: string, where: string): number {
  const lines = block.code.split('\n');
  const text = match.trim();
  const hits = lines.flatMap((line, k) => (line.trim() === text ? [block.firstLine + k] : []));
  if (hits.length === 1) return hits[0]!;
  const near = didYouMean(text, lines.map((l) => l.trim()).filter(Boolean));
  throw new LessonError(where, hits.length ? `"${text}" matches ${hits.length} lines of ${block.symbol} (lines ${hits.join(', ')}); make it unique` : `no line of ${block.symbol} reads "${text}"${near}`);
}

/** A stepInto entry: "path.py:name", or "name" in the widget's own file, else in exactly one file of core/. */
function calleeBlock(files: Record<string, string>, target: CodeBlock, entry: string, where: string): CodeBlock {
  const colon = entry.lastIndexOf(':');
  if (colon > 0) return codeBlock(files, entry.slice(0, colon), entry.slice(colon + 1), where);
  if (extractSymbol(files[target.file]!, entry)) return codeBlock(files, target.file, entry, where);
  const homes = Object.keys(files).filter((path) => path.startsWith('core/') && extractSymbol(files[path]!, entry));
  if (homes.length === 1) return codeBlock(files, homes[0]!, entry, where);
  const known = Object.keys(files)
    .filter((path) => path === target.file || path.startsWith('core/'))
    .flatMap((path) => definedNames(files[path]!));
  throw new LessonError(where, homes.length ? `"${entry}" is defined in ${homes.join(' and ')}: write "${homes[0]}:${entry}"` : `no function "${entry}" in ${target.file} or core/${didYouMean(entry, known)}`);
}

/** By default: every module-level function of core/ that the widget's function calls by name (not itself, not a stand-in). */
function defaultCallees(files: Record<string, string>, target: CodeBlock, standins: CodeBlock[]): CodeBlock[] {
  const lines = target.code.split('\n');
  const body = lines.slice(lines.findIndex((l) => /^\s*(async\s+)?def\s/.test(l)) + 1).join('\n');
  const out: CodeBlock[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (!path.startsWith('core/')) continue;
    for (const m of text.matchAll(/^(?:async\s+)?def\s+([A-Za-z_]\w*)/gm)) {
      const name = m[1]!;
      if ((path === target.file && name === target.symbol) || standins.some((s) => s.file === path && s.symbol === name)) continue;
      if (!new RegExp(`(?<![\\w.])${name}\\s*\\(`).test(body)) continue;
      if (!out.some((c) => c.symbol === name)) out.push(codeBlock(files, path, name, `${target.file}:${name}`));
    }
  }
  return out;
}

function pythonFile(files: Record<string, string>, path: string, where: string): string {
  const text = files[path];
  if (text === undefined) throw new LessonError(where, `no Python file "${path}" in the lesson${didYouMean(path, Object.keys(files))}`);
  return text;
}

/**
 * A link in the prose to a state of a widget on the same page (`#widget=…&scenario=…&breakpoints=…&step=…`,
 * the deep-link form): its widget, scenario and breakpoint lines must exist.
 */
function checkProseLink(href: string, widgets: Widget[], where: string) {
  if (!href.startsWith('#')) return;
  const params = new URLSearchParams(href.slice(1));
  if (!params.has('widget')) return;
  const link = parseLink(href);
  const id = params.get('widget')!;
  const widget = widgets.find((w) => w.id === id);
  if (!widget || !link) throw new LessonError(where, `a link to widget "${id}", which is not in this lesson${didYouMean(id, widgets.map((w) => w.id))}`);
  const scenarios = widget.scenarios.map((sc) => sc.id);
  if (link.scenario !== undefined && !scenarios.includes(link.scenario)) throw new LessonError(where, `a link to scenario "${link.scenario}" of ${id}, which has none such${didYouMean(link.scenario, scenarios)} (scenarios: ${scenarios.join(', ')})`);
  const given = (params.get('breakpoints') ?? '').split(',').filter(Boolean);
  const blocks = [widget, ...widget.callees];
  for (const bp of given) {
    const { symbol, line } = splitBreakpoint(bp);
    const block = symbol === null ? widget : widget.callees.find((b) => b.symbol === symbol);
    if (!block) throw new LessonError(where, `a breakpoint in "${symbol}", which ${id} does not step into${didYouMean(symbol!, blocks.map((b) => b.symbol))}`);
    if (!Number.isInteger(line) || line < block.firstLine || line > block.lastLine) throw new LessonError(where, `breakpoint "${bp}" is not a line of ${block.symbol} (lines ${block.firstLine}-${block.lastLine})`);
  }
  const step = params.get('step');
  if (step !== null && !(Number.isInteger(Number(step)) && Number(step) > 0)) throw new LessonError(where, `step "${step}" must be a whole number from 1`);
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Markdown prose split at ```debugger fences; raw HTML in the prose is escaped, not rendered. */
export function parseProse(text: string, widgets: Widget[], where: string): Segment[] {
  const widgetIds = new Set(widgets.map((w) => w.id));
  const tokens = md.parse(text, {});
  for (const token of tokens) for (const child of token.children ?? []) if (child.type === 'link_open') checkProseLink(String(child.attrGet('href') ?? ''), widgets, `${where}:${(token.map?.[0] ?? 0) + 1}`);
  const out: Segment[] = [];
  let start = 0;
  const flush = (end: number) => {
    const html = md.renderer.render(tokens.slice(start, end), md.options, {}).trim();
    if (html) out.push({ kind: 'html', html });
  };
  tokens.forEach((token, i) => {
    if (token.type !== 'fence' || token.info.trim() !== 'debugger') return;
    const widget = token.content.trim();
    if (!widgetIds.has(widget)) throw new LessonError(`${where}:${(token.map?.[0] ?? 0) + 1}`, `unknown widget "${widget}" in a debugger block${didYouMean(widget, [...widgetIds])}`);
    flush(i);
    out.push({ kind: 'widget', id: widget });
    start = i + 1;
  });
  flush(tokens.length);
  return out;
}

export function loadLesson(dir: string): Lesson {
  const lessonId = dir.split(/[\\/]/).filter(Boolean).pop()!;
  if (!/^[A-Za-z0-9_-]+$/.test(lessonId)) throw new LessonError(dir, 'a lesson folder name must be letters, digits, "_" or "-"');
  const yamlPath = join(dir, 'lesson.yaml');
  if (!existsSync(yamlPath)) throw new LessonError(dir, 'no lesson.yaml');
  let raw: unknown;
  try {
    raw = readYaml(readFileSync(yamlPath, 'utf8'));
  } catch (error) {
    throw new LessonError(yamlPath, `invalid YAML: ${(error as Error).message}`);
  }
  const problems = schemaProblems(raw);
  if (problems) throw new LessonError(yamlPath, problems.map((p) => `${p.path || '(top)'}: ${p.message}`).join('\n  '));
  const spec = raw as LessonSpec;
  const files = pythonFiles(dir);
  const seen = new Set<string>();
  const widgets = spec.widgets.map((o, i): Widget => {
    const where = `${yamlPath} widgets[${i}]`;
    if (seen.has(o.id)) throw new LessonError(`${where}.id`, `duplicate widget id "${o.id}"`);
    seen.add(o.id);
    const block = codeBlock(files, o.source, o.symbol, where);
    const harness = { file: o.harness, code: pythonFile(files, o.harness, `${where}.harness`) };
    const defaults = o.inputs ?? {};
    const scenarioIds = new Set<string>();
    const scenarios = o.scenarios.map((so, j) => {
      if (scenarioIds.has(so.id)) throw new LessonError(`${where}.scenarios[${j}].id`, `duplicate scenario id "${so.id}"`);
      scenarioIds.add(so.id);
      return { id: so.id, label: localized(so.label), inputs: { ...defaults, ...(so.inputs ?? {}) } as Record<string, Json>, expect: (so.expect ?? {}) as Expect };
    });
    const standins = (o.standins ?? []).map((so, j) => ({ kind: so.kind, title: localized(so.title), ...codeBlock(files, so.source, so.symbol, `${where}.standins[${j}]`) }));
    const diagram = (o.diagram ?? []).map((step, j) => ({ caption: localized(step.caption), line: lineReading(block, step.match, `${where}.diagram[${j}].match`) }));
    const predict = (o.predict ?? []).map((q, j) => ({ line: lineReading(block, q.at, `${where}.predict[${j}].at`), ask: q.ask, ...(q.variable ? { variable: q.variable } : {}) }));
    const callees = o.stepInto ? o.stepInto.map((name, j) => calleeBlock(files, block, name, `${where}.stepInto[${j}]`)) : defaultCallees(files, block, standins);
    return { lesson: lessonId, id: o.id, ...block, harness, scenarios, standins, diagram, callees, ...(predict.length ? { predict } : {}) };
  });
  const prose = Object.fromEntries(
    LOCALES.map((locale) => {
      const path = join(dir, `${locale}.md`);
      if (!existsSync(path)) throw new LessonError(dir, `no ${locale}.md`);
      return [locale, parseProse(readFileSync(path, 'utf8'), widgets, path)];
    }),
  ) as Lesson['prose'];
  return { id: lessonId, title: localized(spec.title), files, prose, widgets };
}

/** The lesson roots a build uses: `lessons/`, or STEPLIGHT_LESSONS (':'-separated; e2e and bench add fixtures). */
export const LESSON_ROOTS = (process.env.STEPLIGHT_LESSONS ?? 'lessons').split(':').map((r) => resolve(r));

/** Every lesson of the build's lesson roots, read and validated. */
export function buildLessons(): Lesson[] {
  return LESSON_ROOTS.flatMap((root) => (existsSync(root) ? lessonDirs(root) : [])).map(loadLesson);
}

export function lessonDirs(root: string): string[] {
  return readdirSync(root)
    .filter((name) => !name.startsWith('.') && existsSync(join(root, name, 'lesson.yaml')))
    .sort()
    .map((name) => join(root, name));
}

export function findWidget(lesson: Lesson, widgetId: string): Widget {
  const widget = lesson.widgets.find((w) => w.id === widgetId);
  const ids = lesson.widgets.map((w) => w.id);
  if (!widget) throw new LessonError(lesson.id, `no widget "${widgetId}"${didYouMean(widgetId, ids)} (widgets: ${ids.join(', ')})`);
  return widget;
}

/** What every page knows of a lesson (see LessonSummary). */
export const summarize = (lesson: Lesson): LessonSummary => ({ id: lesson.id, title: lesson.title, widgets: lesson.widgets.map((w) => w.id) });
