/** Read and validate a lesson directory (Node only: used by the build, the CLI and the checks). */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import MarkdownIt from 'markdown-it';
import { parse as parseYaml } from 'yaml';
import type { Json } from '../runtime/request';
import { extractSymbol } from './symbols';
import { LOCALES, type Lesson, type Localized, type Segment, type Widget } from './types';

export class LessonError extends Error {
  constructor(where: string, message: string) {
    super(`${where}: ${message}`);
    this.name = 'LessonError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const ID = /^[A-Za-z0-9_-]+$/;

function need<T>(ok: boolean, where: string, message: string, value: T): T {
  if (!ok) throw new LessonError(where, message);
  return value;
}
const str = (v: unknown, where: string) => need(typeof v === 'string' && v !== '', where, 'must be a non-empty string', v as string);
const id = (v: unknown, where: string) => need(ID.test(str(v, where)), where, 'must be letters, digits, "_" or "-"', v as string);
const obj = (v: unknown, where: string) => need(isObj(v), where, 'must be a mapping', v as Obj);
const list = (v: unknown, where: string) => need(Array.isArray(v), where, 'must be a list', v as unknown[]);
function localized(v: unknown, where: string): Localized {
  if (typeof v === 'string' && v) return { zh: v, en: v };
  const o = obj(v, where);
  return { zh: str(o.zh, `${where}.zh`), en: str(o.en, `${where}.en`) };
}
function only(o: Obj, keys: string[], where: string) {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new LessonError(where, `unknown key "${k}" (allowed: ${keys.join(', ')})`);
}
function inputs(v: unknown, where: string): Record<string, Json> {
  if (v === undefined) return {};
  const o = obj(v, where);
  for (const k of Object.keys(o)) need(/^[A-Za-z_]\w*$/.test(k), `${where}.${k}`, 'input names must be Python identifiers', 0);
  return o as Record<string, Json>;
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

function codeBlock(files: Record<string, string>, file: unknown, symbol: unknown, where: string) {
  const path = str(file, `${where}.source`);
  const text = need(path in files, `${where}.source`, `no Python file "${path}" in the lesson`, files[path]!);
  const name = str(symbol, `${where}.symbol`);
  const range = extractSymbol(text, name);
  if (!range) throw new LessonError(`${where}.symbol`, `no function or class "${name}" in ${path}`);
  return { file: path, symbol: name, firstLine: range.firstLine, lastLine: range.lastLine, code: range.code };
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Markdown prose split at ```debugger fences; raw HTML in the prose is escaped, not rendered. */
export function parseProse(text: string, widgetIds: Set<string>, where: string): Segment[] {
  const tokens = md.parse(text, {});
  const out: Segment[] = [];
  let start = 0;
  const flush = (end: number) => {
    const html = md.renderer.render(tokens.slice(start, end), md.options, {}).trim();
    if (html) out.push({ kind: 'html', html });
  };
  tokens.forEach((token, i) => {
    if (token.type !== 'fence' || token.info.trim() !== 'debugger') return;
    const widget = token.content.trim();
    if (!widgetIds.has(widget)) throw new LessonError(`${where}:${(token.map?.[0] ?? 0) + 1}`, `unknown widget "${widget}" in a debugger block`);
    flush(i);
    out.push({ kind: 'widget', id: widget });
    start = i + 1;
  });
  flush(tokens.length);
  return out;
}

export function loadLesson(dir: string): Lesson {
  const lessonId = dir.split(/[\\/]/).filter(Boolean).pop()!;
  id(lessonId, dir);
  const yamlPath = join(dir, 'lesson.yaml');
  if (!existsSync(yamlPath)) throw new LessonError(dir, 'no lesson.yaml');
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(yamlPath, 'utf8'));
  } catch (error) {
    throw new LessonError(yamlPath, `invalid YAML: ${(error as Error).message}`);
  }
  const spec = obj(raw, yamlPath);
  only(spec, ['title', 'widgets'], yamlPath);
  const files = pythonFiles(dir);
  const seen = new Set<string>();
  const widgets = list(spec.widgets, `${yamlPath} widgets`).map((w, i): Widget => {
    const where = `${yamlPath} widgets[${i}]`;
    const o = obj(w, where);
    only(o, ['id', 'source', 'symbol', 'harness', 'inputs', 'scenarios', 'standins', 'diagram'], where);
    const widgetId = id(o.id, `${where}.id`);
    need(!seen.has(widgetId), `${where}.id`, `duplicate widget id "${widgetId}"`, 0);
    seen.add(widgetId);
    const block = codeBlock(files, o.source, o.symbol, where);
    const harnessFile = str(o.harness, `${where}.harness`);
    const harness = { file: harnessFile, code: need(harnessFile in files, `${where}.harness`, `no Python file "${harnessFile}" in the lesson`, files[harnessFile]!) };
    const defaults = inputs(o.inputs, `${where}.inputs`);
    const scenarioIds = new Set<string>();
    const scenarios = list(o.scenarios, `${where}.scenarios`).map((s, j) => {
      const at = `${where}.scenarios[${j}]`;
      const so = obj(s, at);
      only(so, ['id', 'label', 'inputs', 'expect'], at);
      const scenarioId = id(so.id, `${at}.id`);
      need(!scenarioIds.has(scenarioId), `${at}.id`, `duplicate scenario id "${scenarioId}"`, 0);
      scenarioIds.add(scenarioId);
      const expect = so.expect === undefined ? {} : obj(so.expect, `${at}.expect`);
      only(expect, ['outcome', 'error', 'stdout'], `${at}.expect`);
      return { id: scenarioId, label: localized(so.label, `${at}.label`), inputs: { ...defaults, ...inputs(so.inputs, `${at}.inputs`) }, expect };
    });
    need(scenarios.length > 0, `${where}.scenarios`, 'a widget needs at least one scenario', 0);
    const standins = list(o.standins ?? [], `${where}.standins`).map((s, j) => {
      const at = `${where}.standins[${j}]`;
      const so = obj(s, at);
      only(so, ['kind', 'title', 'source', 'symbol'], at);
      const kind = need(['host', 'file', 'process'].includes(so.kind as string), `${at}.kind`, 'must be host, file or process', so.kind as 'host' | 'file' | 'process');
      return { kind, title: localized(so.title, `${at}.title`), ...codeBlock(files, so.source, so.symbol, at) };
    });
    const lines = block.code.split('\n');
    const diagram = list(o.diagram ?? [], `${where}.diagram`).map((d, j) => {
      const at = `${where}.diagram[${j}]`;
      const step = obj(d, at);
      only(step, ['caption', 'match'], at);
      const match = str(step.match, `${at}.match`).trim();
      const hits = lines.flatMap((line, k) => (line.trim() === match ? [block.firstLine + k] : []));
      need(hits.length === 1, `${at}.match`, hits.length ? `"${match}" matches ${hits.length} lines of ${block.symbol} (lines ${hits.join(', ')}); make it unique` : `no line of ${block.symbol} reads "${match}"`, 0);
      return { caption: localized(step.caption, `${at}.caption`), line: hits[0]! };
    });
    return { lesson: lessonId, id: widgetId, ...block, harness, scenarios, standins, diagram };
  });
  need(widgets.length > 0, `${yamlPath} widgets`, 'a lesson needs at least one widget', 0);
  const prose = Object.fromEntries(
    LOCALES.map((locale) => {
      const path = join(dir, `${locale}.md`);
      if (!existsSync(path)) throw new LessonError(dir, `no ${locale}.md`);
      return [locale, parseProse(readFileSync(path, 'utf8'), seen, path)];
    }),
  ) as Lesson['prose'];
  return { id: lessonId, title: localized(spec.title, `${yamlPath} title`), files, prose, widgets };
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
  if (!widget) throw new LessonError(lesson.id, `no widget "${widgetId}" (widgets: ${lesson.widgets.map((w) => w.id).join(', ')})`);
  return widget;
}
