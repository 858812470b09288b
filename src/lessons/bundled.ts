/** The lessons as the Vite plugin read and validated them at build time. */
import data from 'virtual:steplight/lessons';
import type { Lesson } from './types';

export const lessons = data as Lesson[];
