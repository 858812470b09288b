/// <reference types="vite/client" />

declare module 'virtual:steplight/lessons' {
  import type { Lesson } from './lessons/types';
  const lessons: Lesson[];
  export default lessons;
}

declare module '*.py?raw' {
  const text: string;
  export default text;
}
