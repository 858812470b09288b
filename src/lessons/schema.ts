/**
 * The schema of lesson.yaml (zod), the source of truth for both validation and the published JSON
 * Schema (`schemas/lesson.schema.json`, which editors use to autocomplete and check lesson files).
 * Node only: used by the build, the CLI and the checks, never shipped to readers.
 */
import { z } from 'zod';
import { didYouMean } from './suggest';

const ID = /^[A-Za-z0-9_-]+$/;
const id = (what: string) => z.string().regex(ID, 'must be letters, digits, "_" or "-"').describe(what);
const text = z.string().min(1, 'must be a non-empty string');
const localized = (what: string) =>
  z.union([text, z.strictObject({ zh: text.describe('Chinese'), en: text.describe('English') })]).describe(`${what}: one text, or {zh, en}`);
const python = (what: string) => text.describe(`${what} (a path relative to the lesson folder)`);
const inputs = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'input names must be Python identifiers'), z.json())
  .describe('inputs: each becomes a Python assignment in front of the harness (JSON values)');

const expectSchema = z
  .strictObject({
    outcome: z.json().optional().describe("the harness's `outcome`, as plain JSON"),
    error: text.optional().describe('the exception type that ends the run, e.g. ValueError'),
    stdout: z.string().optional().describe('text that stdout must contain'),
  })
  .describe('what the run must give; lessons:check verifies it');

const scenario = z.strictObject({
  id: id('scenario id (deep links use it)'),
  label: localized('the label readers see'),
  inputs: inputs.optional(),
  expect: expectSchema.optional(),
});

const standin = z.strictObject({
  kind: z.enum(['host', 'file', 'process']).describe('what the stand-in stands for'),
  title: localized('its title'),
  source: python('the file it is in'),
  symbol: text.describe('a function, a class, or Class.method'),
});

const diagramStep = z.strictObject({
  caption: localized('the caption of the step'),
  match: text.describe('the exact text of one line of the function (surrounding spaces ignored)'),
});

const question = z
  .strictObject({
    at: text.describe('the exact text of the line where the question is asked, when the replay pauses on it'),
    ask: z.enum(['next-line', 'value']).describe('next-line: which line runs next; value: what `variable` holds after the next step'),
    variable: z.string().regex(/^[A-Za-z_]\w*$/, 'must be a Python name').optional().describe('for ask: value, the variable asked about'),
  })
  .refine((q) => (q.ask === 'value') === (q.variable !== undefined), { message: 'ask: value needs `variable`; ask: next-line takes none' });

const widget = z.strictObject({
  id: id('widget id, used in ```debugger blocks and deep links'),
  source: python('the file the function is in'),
  symbol: text.describe('a function, a class, or Class.method'),
  harness: python('the teaching setup and call entry; sets `outcome`'),
  inputs: inputs.optional(),
  scenarios: z.array(scenario).min(1, 'a widget needs at least one scenario'),
  standins: z.array(standin).optional(),
  diagram: z.array(diagramStep).optional(),
  predict: z.array(question).optional().describe('questions for the reader, off unless listed: checked against the trace, revealed by stepping'),
  stepInto: z
    .array(text)
    .optional()
    .describe('functions of the lesson the reader can step into: "name" (searched in the widget\'s file, then core/) or "path.py:name"; default: every module-level function of core/ that the function calls; [] for none'),
});

export const lessonSchema = z
  .strictObject({
    title: localized('the lesson title'),
    widgets: z.array(widget).min(1, 'a lesson needs at least one widget'),
  })
  .describe('A Steplight lesson (lesson.yaml)');

export type LessonSpec = z.infer<typeof lessonSchema>;

/** The JSON Schema of lesson.yaml, as published in schemas/lesson.schema.json. */
export function lessonJsonSchema(): object {
  return { ...z.toJSONSchema(lessonSchema, { io: 'input' }), title: 'Steplight lesson.yaml' };
}

/** The keys an object of the schema allows at `path` (for suggestions on unknown keys). */
function keysAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  let node: z.ZodType | undefined = schema;
  for (const part of path) {
    node = unwrap(node);
    if (node instanceof z.ZodArray) node = node.element as z.ZodType;
    else if (node instanceof z.ZodObject) node = (node.shape as Record<string, z.ZodType>)[String(part)];
    else if (node instanceof z.ZodRecord) node = node.valueType as z.ZodType;
    else return [];
  }
  node = unwrap(node);
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

function unwrap(node: z.ZodType | undefined): z.ZodType | undefined {
  while (node instanceof z.ZodOptional) node = node.unwrap() as z.ZodType;
  if (node instanceof z.ZodUnion) node = (node.options as z.ZodType[]).find((o) => o instanceof z.ZodObject) ?? node;
  return node;
}

/** "widgets[0].scenarios[2].label" */
export function pathText(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

/** Every problem of a parsed lesson.yaml, one line each, with suggestions for misspelt keys. */
export function schemaProblems(raw: unknown): { path: string; message: string }[] | null {
  const result = lessonSchema.safeParse(raw, { reportInput: true });
  if (result.success) return null;
  return result.error.issues.map((issue) => {
    const path = pathText(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const allowed = keysAt(lessonSchema, issue.path);
      const unknown = issue.keys.map((k) => `unknown key "${k}"${didYouMean(k, allowed)}`).join('; ');
      return { path, message: `${unknown} (allowed: ${allowed.join(', ')})` };
    }
    if (issue.code === 'invalid_union') return { path, message: 'must be a non-empty string or a mapping {zh, en} of non-empty strings' };
    if (issue.code === 'invalid_type' && issue.input === undefined) return { path, message: `is required (${issue.expected})` };
    if (issue.code === 'invalid_type') return { path, message: `must be ${issue.expected === 'object' ? 'a mapping' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}` };
    return { path, message: issue.message };
  });
}
