import type { RunRequest } from '../trace/types';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An input that must stay a Python float although its value is whole (see the lesson loader). */
export const isFloat = (value: Json): value is { $float: string } =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && typeof value.$float === 'string';

function floatLiteral(text: string): string {
  if (/^-?inf$|^nan$/.test(text)) return `float("${text}")`;
  if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)) throw new Error(`input float "${text}" is not a number`);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** A JSON value as Python source text: JSON strings are valid Python string literals. */
export function toPython(value: Json): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`input number ${value} has no Python literal`);
    return String(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (isFloat(value)) return floatLiteral(value.$float);
  if (Array.isArray(value)) return `[${value.map(toPython).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}: ${toPython(v)}`)
    .join(', ')}}`;
}

/** The harness as it runs: one assignment per input, then the harness file's text. */
export function harnessText(inputs: Record<string, Json>, code: string): string {
  const lines = Object.entries(inputs).map(([name, value]) => {
    if (!IDENTIFIER.test(name)) throw new Error(`input name "${name}" is not a Python identifier`);
    return `${name} = ${toPython(value)}`;
  });
  return [...lines, code].join('\n');
}

export interface WidgetRunSpec {
  lesson: string;
  files: Record<string, string>;
  source: string;
  symbol: string;
  harness: { file: string; code: string };
  inputs: Record<string, Json>;
  /** The lines the function spans in its file, when known (they pick the code object on screen). */
  lines?: [number, number];
  /** Functions the reader can step into (each with its file and, when known, its lines). */
  callees?: { file: string; symbol: string; firstLine?: number; lastLine?: number }[];
}

/** Where a lesson's files are written for its runs (in the page's Python; hosts may nest it). */
export const lessonRoot = (lesson: string) => `/steplight/lessons/${lesson}`;

export function buildRequest(spec: WidgetRunSpec, limits?: RunRequest['limits']): RunRequest {
  return {
    root: lessonRoot(spec.lesson),
    files: spec.files,
    target: { file: spec.source, symbol: spec.symbol, ...(spec.lines ? { firstLine: spec.lines[0], lastLine: spec.lines[1] } : {}) },
    harness: { file: spec.harness.file, code: harnessText(spec.inputs, spec.harness.code) },
    ...(spec.callees?.length ? { callees: spec.callees.map(({ file, symbol, firstLine, lastLine }) => ({ file, symbol, firstLine, lastLine })) } : {}),
    ...(limits ? { limits } : {}),
  };
}
