import { StrictMode, useState } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { lessons } from '../lessons/bundled';
import { pageEngine } from '../runtime/client';
import { App, route } from './App';
import { parseLink } from './deeplink';
import { currentLocale, rememberLocale } from './locale';
import './styles.css';

const engine = pageEngine(); // already started by main.ts
const base = import.meta.env.BASE_URL;
const link = parseLink(location.hash);
const onLink = (hash: string) => history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);

function Root({ initialLocale }: { initialLocale: typeof locale }) {
  const [locale, setLocale] = useState(initialLocale);
  const onLocale = (next: typeof locale) => {
    rememberLocale(next);
    const url = new URL(location.href);
    url.searchParams.set('lang', next);
    history.replaceState(null, '', url);
    document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
    setLocale(next);
  };
  document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
  return <App route={route(location.pathname, base, lessons)} lessons={lessons} base={base} locale={locale} engine={engine} onLocale={onLocale} link={link} onLink={onLink} />;
}

const locale = currentLocale();
const container = document.getElementById('root')!;
const app = (
  <StrictMode>
    <Root initialLocale={locale} />
  </StrictMode>
);
// Hydrate the prerendered HTML when the client would render the same; otherwise render afresh.
if (container.dataset.prerendered === locale && !link) hydrateRoot(container, app);
else {
  container.textContent = '';
  createRoot(container).render(app);
}
