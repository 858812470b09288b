import type { Json } from '../runtime/request';

export type Locale = 'zh' | 'en';
export const LOCALES: Locale[] = ['zh', 'en'];
export type Localized = Record<Locale, string>;

export interface Expect {
  /** The harness's `outcome`, as plain JSON (see `plain`). */
  outcome?: Json;
  /** The exception type that ended the run, e.g. "ValueError". */
  error?: string;
  /** Text that stdout must contain. */
  stdout?: string;
}

export interface Scenario {
  id: string;
  label: Localized;
  /** The widget's default inputs with this scenario's inputs laid over them. */
  inputs: Record<string, Json>;
  expect: Expect;
}

export type StandinKind = 'host' | 'file' | 'process';

export interface CodeBlock {
  file: string;
  symbol: string;
  firstLine: number;
  lastLine: number;
  code: string;
}

export interface Standin extends CodeBlock {
  kind: StandinKind;
  title: Localized;
}

export interface DiagramStep {
  caption: Localized;
  /** The line of the function whose text the step matches. */
  line: number;
}

/** A widget as the page uses it: everything resolved, nothing left to read from disk. */
export interface Widget extends CodeBlock {
  lesson: string;
  id: string;
  harness: { file: string; code: string };
  scenarios: Scenario[];
  standins: Standin[];
  diagram: DiagramStep[];
  /** Functions of the lesson the reader can step into (traced too, under this one). */
  callees: CodeBlock[];
  /** Prediction questions (lesson.yaml `predict`), asked when the replay pauses on their line. */
  predict?: Question[];
}

export interface Question {
  line: number;
  ask: 'next-line' | 'value';
  variable?: string;
}

export type Segment = { kind: 'html'; html: string } | { kind: 'widget'; id: string };

/** What every page knows of every lesson (the index, links, the embed's error message). */
export interface LessonSummary {
  id: string;
  title: Localized;
  widgets: string[];
  /** `npm start` only: why the lesson could not be read (the build fails instead). */
  error?: string;
}

/** `npm start` only: a lesson that could not be read, with lessons:check's message. */
export interface LessonFailure {
  id: string;
  error: string;
}

export interface Lesson {
  id: string;
  title: Localized;
  /** Every Python file of the lesson, by path relative to the lesson directory. */
  files: Record<string, string>;
  prose: Record<Locale, Segment[]>;
  widgets: Widget[];
}
