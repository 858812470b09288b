/// <reference types="vite/client" />

declare module 'virtual:steplight/lessons' {
  export const index: unknown;
  export const loaders: Record<string, () => Promise<{ default: unknown }>>;
}

declare module '*.py?raw' {
  const text: string;
  export default text;
}

declare module '*.css?inline' {
  const css: string;
  export default css;
}

/** The byte size of each self-hosted Pyodide file, by name (from vite.config.ts). */
declare const __PYODIDE_SIZES__: Record<string, number>;
/** Where the site serves Pyodide, relative to its base: `pyodide/<version>/` (from vite.config.ts). */
declare const __PYODIDE_PATH__: string;
/** The site's memory snapshot beside Pyodide's files (scripts/snapshot.ts); null under `npm start`. */
declare const __STEPLIGHT_SNAPSHOT__: import('./runtime/started').SiteSnapshot | null;
