/**
 * Which language a page is in: its path says so. The site's default locale lives at the root
 * (`/lessons/s04-hooks/`), every other one under its own prefix (`/en/lessons/s04-hooks/`); each is
 * prerendered, so the server's HTML and the client always agree.
 */
import { LOCALES, type Locale } from '../lessons/types';

/** The site's default locale: this blog is Chinese first. */
export const DEFAULT_LOCALE: Locale = 'zh';

export const htmlLang = (locale: Locale) => (locale === 'zh' ? 'zh-CN' : 'en');
const prefix = (locale: Locale) => (locale === DEFAULT_LOCALE ? '' : `${locale}/`);

/** The path inside the site (after `base`), without its locale prefix, and the locale. */
export function splitPath(pathname: string, base: string): { locale: Locale; path: string } {
  const rest = pathname.startsWith(base) ? pathname.slice(base.length) : pathname.replace(/^\//, '');
  const locale = LOCALES.find((l) => l !== DEFAULT_LOCALE && (rest === l || rest.startsWith(`${l}/`)));
  return locale ? { locale, path: rest.slice(locale.length + 1) } : { locale: DEFAULT_LOCALE, path: rest };
}

/** A path inside the site without its locale, index.html or trailing slashes ('' for the index). */
export const cleanPath = (pathname: string, base: string) => splitPath(pathname, base).path.replace(/index\.html$/, '').replace(/\/+$/, '');

/** The id of the lesson a path shows, if it is a lesson page. */
export function lessonIdOf(pathname: string, base: string): string | undefined {
  return /^lessons\/([A-Za-z0-9_-]+)$/.exec(cleanPath(pathname, base))?.[1];
}

/** The address of `path` (inside the site) in `locale`. */
export const pathFor = (locale: Locale, path: string, base: string) => `${base}${prefix(locale)}${path}`;

/** The other locale's page when `?lang=` asks for it (the page must be left before it starts anything), else null. */
export function otherLocalePage(location: { pathname: string; search: string; hash: string; href: string }, base: string): string | null {
  const redirect = langRedirect(location, base);
  if (!redirect) return null;
  return splitPath(new URL(redirect, location.href).pathname, base).locale !== splitPath(location.pathname, base).locale ? redirect : null;
}

/** `?lang=` from older links: the address to go to instead, or null when the path already says it. */
export function langRedirect(location: { pathname: string; search: string; hash: string }, base: string): string | null {
  const params = new URLSearchParams(location.search);
  const asked = params.get('lang') as Locale | null;
  if (!asked) return null;
  params.delete('lang');
  const { locale, path } = splitPath(location.pathname, base);
  const query = params.toString() ? `?${params}` : '';
  if (!LOCALES.includes(asked) || asked === locale) return `${location.pathname}${query}${location.hash}`;
  return `${pathFor(asked, path, base)}${query}${location.hash}`;
}
