import { LOCALES, type Locale } from '../lessons/types';

const KEY = 'steplight.lang';

/** ?lang= wins and is remembered; then what was remembered; then the browser's language. */
export function pickLocale(search: string, stored: string | null, languages: readonly string[]): Locale {
  const asked = new URLSearchParams(search).get('lang');
  for (const candidate of [asked, stored]) if (LOCALES.includes(candidate as Locale)) return candidate as Locale;
  return languages.some((l) => l.toLowerCase().startsWith('zh')) ? 'zh' : 'en';
}

export function currentLocale(): Locale {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {
    /* storage may be blocked */
  }
  const locale = pickLocale(location.search, stored, navigator.languages ?? [navigator.language]);
  rememberLocale(locale);
  return locale;
}

export function rememberLocale(locale: Locale) {
  try {
    localStorage.setItem(KEY, locale);
  } catch {
    /* storage may be blocked */
  }
}
