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
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

const pages = [{ path: '', title: () => 'Steplight' }, ...lessons.map((l) => ({ path: `lessons/${l.id}/`, title: (locale: (typeof LOCALES)[number]) => `${l.title[locale]} · Steplight` }))];
for (const locale of LOCALES) {
  for (const page of pages) {
    const url = pathFor(locale, page.path, base);
    const html = renderToString(<App route={route(url, base, lessons)} lessons={index} base={base} locale={locale} engine={staticEngine} />);
    const alternates = LOCALES.map((l) => `<link rel="alternate" hreflang="${htmlLang(l)}" href="${pathFor(l, page.path, base)}" />`).join('') + `<link rel="alternate" hreflang="x-default" href="${pathFor(DEFAULT_LOCALE, page.path, base)}" />`;
    const out = template
      .replace(/<html lang="[^"]*">/, `<html lang="${htmlLang(locale)}">`)
      .replace('<div id="root"><!--app--></div>', `<div id="root" data-prerendered="${locale}">${html}</div>`)
      .replace('<title>Steplight</title>', `<title>${escape(page.title(locale))}</title>${alternates}`);
    const file = join(dist, url.slice(base.length), 'index.html');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, out);
    console.log(`prerendered ${url}`);
  }
}
