/**
 * The lessons as the Vite plugin read and validated them at build time: an index for every page,
 * and each lesson loaded on demand (a chunk of its own), so a page carries only what it shows.
 */
import { index, loaders } from 'virtual:steplight/lessons';
import type { Lesson, LessonFailure, LessonSummary } from './types';

export const lessonIndex = index as LessonSummary[];

export async function loadLesson(id: string): Promise<Lesson | LessonFailure | undefined> {
  const load = Object.hasOwn(loaders, id) ? loaders[id] : undefined;
  return load ? ((await load()).default as Lesson | LessonFailure) : undefined;
}

export const isFailure = (lesson: Lesson | LessonFailure): lesson is LessonFailure => 'error' in lesson;
