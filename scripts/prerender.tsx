/**
 * After `vite build`: write every page as static HTML, once per locale (the default locale at the
 * root, the others under their prefix), with the prose and the code already in it, so it reads
 * before JavaScript or Python load; the client then hydrates the same markup.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { renderToString } from 'react-dom/server';
import { buildLessons, summarize } from '../src/lessons/load';
import { LOCALES } from '../src/lessons/types';
import { App, route } from '../src/site/App';
import { DEFAULT_LOCALE, htmlLang, pathFor } from '../src/site/locale';
import { staticEngine } from '../src/widget/store';

const base = process.env.STEPLIGHT_BASE ?? '/';
const dist = resolve(process.env.STEPLIGHT_OUT ?? 'dist');
const template = readFileSync(join(dist, 'index.html'), 'utf8');
const lessons = buildLessons();
const index = lessons.map(summarize);
const manifest: Record<string, { file: string; imports?: string[]; css?: string[] }> = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));

/**
 * What a page fetches before it can hydrate (boot, its imports, the page's lesson; a lesson page also
 * the code view its panes load right after), announced in the
 * head so the downloads start at once rather than one after the other; and its stylesheet, so the
 * prerendered page is styled from its first paint.
 */
function preloads(lessonId?: string): string {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  const visit = (key: string) => {
    const entry = manifest[key];
    if (!entry || scripts.has(entry.file)) return;
    scripts.add(entry.file);
    entry.css?.forEach((file) => styles.add(file));
    entry.imports?.forEach(visit);
  };
  visit('node_modules/react-dom/client.js'); // main.ts imports React DOM, then boot
  visit('src/site/boot.tsx');
  if (lessonId) visit('src/runtime/client.ts'); // and on a lesson page the engine first
  if (lessonId) visit(`virtual:steplight/lesson/${lessonId}`);
  if (lessonId) visit('node_modules/@codemirror/view/dist/index.js'); // its panes load CodeMirror's view, then
  if (lessonId) visit('src/widget/codeview.ts'); // the code view: fetched now, evaluated when they mount
  if (!scripts.size) throw new Error('prerender: the build manifest does not list src/site/boot.tsx; run `vite build` first');
  const missing = (file: string) => !template.includes(`href="${base}${file}"`); // the template's own preloads stay as they are
  return [...[...styles].filter(missing).map((file) => `<link rel="stylesheet" crossorigin href="${base}${file}">`), ...[...scripts].filter(missing).map((file) => `<link rel="modulepreload" crossorigin href="${base}${file}">`)].join('');
}
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

const pages = [{ path: '', lesson: undefined, title: () => 'Steplight' }, ...lessons.map((l) => ({ path: `lessons/${l.id}/`, lesson: l.id, title: (locale: (typeof LOCALES)[number]) => `${l.title[locale]} · Steplight` }))];
for (const locale of LOCALES) {
  for (const page of pages) {
    const url = pathFor(locale, page.path, base);
    const html = renderToString(<App route={route(url, base, lessons)} lessons={index} base={base} locale={locale} engine={staticEngine} />);
    const alternates = LOCALES.map((l) => `<link rel="alternate" hreflang="${htmlLang(l)}" href="${pathFor(l, page.path, base)}" />`).join('') + `<link rel="alternate" hreflang="x-default" href="${pathFor(DEFAULT_LOCALE, page.path, base)}" />`;
    const out = template
      .replace(/<html lang="[^"]*">/, `<html lang="${htmlLang(locale)}">`)
      .replace('<div id="root"><!--app--></div>', `<div id="root" data-prerendered="${locale}">${html}</div>`)
      .replace('<title>Steplight</title>', `<title>${escape(page.title(locale))}</title>${alternates}${preloads(page.lesson)}`);
    const file = join(dist, url.slice(base.length), 'index.html');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, out);
    console.log(`prerendered ${url}`);
  }
}
