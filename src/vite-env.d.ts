/// <reference types="vite/client" />

declare module 'virtual:steplight/lessons' {
  const lessons: unknown;
  export default lessons;
}

declare module '*.py?raw' {
  const text: string;
  export default text;
}

declare module '*.css?inline' {
  const css: string;
  export default css;
}
