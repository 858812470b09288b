/**
 * After `vite build`: write every page as static HTML (index and one per lesson), with the prose and
 * the code already in it, so it reads before JavaScript or Python load; the client then hydrates.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { renderToString } from 'react-dom/server';
import { buildLessons } from '../src/lessons/load';
import { App, route } from '../src/site/App';
import { staticEngine } from '../src/widget/store';

const PRERENDER_LOCALE = 'en' as const;
const base = process.env.STEPLIGHT_BASE ?? '/';
const dist = resolve(process.env.STEPLIGHT_OUT ?? 'dist');
const template = readFileSync(join(dist, 'index.html'), 'utf8');
const lessons = buildLessons();
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

const pages = [{ path: '', title: 'Steplight' }, ...lessons.map((l) => ({ path: `lessons/${l.id}/`, title: `${l.title[PRERENDER_LOCALE]} · Steplight` }))];
for (const page of pages) {
  const html = renderToString(<App route={route(`${base}${page.path}`, base, lessons)} lessons={lessons} base={base} locale={PRERENDER_LOCALE} engine={staticEngine} onLocale={() => {}} />);
  const out = template
    .replace('<div id="root"><!--app--></div>', `<div id="root" data-prerendered="${PRERENDER_LOCALE}">${html}</div>`)
    .replace('<title>Steplight</title>', `<title>${escape(page.title)}</title>`);
  const file = join(dist, page.path, 'index.html');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, out);
  console.log(`prerendered ${base}${page.path}`);
}
