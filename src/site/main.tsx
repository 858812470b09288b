import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import lessons from 'virtual:steplight/lessons';
import { pageEngine } from '../runtime/client';
import { App, route } from './App';
import { currentLocale, rememberLocale } from './locale';
import './styles.css';

const engine = pageEngine(); // Pyodide starts loading with the page
const base = import.meta.env.BASE_URL;

function Root() {
  const [locale, setLocale] = useState(currentLocale);
  const onLocale = (next: typeof locale) => {
    rememberLocale(next);
    const url = new URL(location.href);
    url.searchParams.set('lang', next);
    history.replaceState(null, '', url);
    document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
    setLocale(next);
  };
  document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
  return <App route={route(location.pathname, base, lessons)} lessons={lessons} base={base} locale={locale} engine={engine} onLocale={onLocale} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
