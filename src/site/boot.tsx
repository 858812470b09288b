import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { LESSON_EDITED } from '../lessons/edited';
import { lessonIndex, loadLesson } from '../lessons/bundled';
import { pageEngine } from '../runtime/client';
import { staticEngine } from '../widget/store';
import { App, route } from './App';
import { parseLink } from './deeplink';
import { htmlLang, langRedirect, lessonIdOf, splitPath } from './locale';
import './styles.css';

const base = import.meta.env.BASE_URL;
const redirect = langRedirect(location, base); // to another locale's page main.ts went already
if (redirect) history.replaceState(null, '', redirect); // a ?lang= that the path already says
const link = parseLink(location.hash);
// The address follows the widgets (a deep link to where the reader is), written once the reader
// pauses for a moment: written on every step it took 1.4 ms of each Step click.
let pending: string | null = null;
let timer = 0;
const writeLink = () => {
  clearTimeout(timer);
  if (pending !== null) history.replaceState(null, '', `${location.pathname}${location.search}${pending}`);
  pending = null;
};
const onLink = (hash: string) => {
  pending = hash;
  clearTimeout(timer);
  timer = window.setTimeout(writeLink, 200);
};
addEventListener('pagehide', writeLink);
const { locale } = splitPath(location.pathname, base);
document.documentElement.lang = htmlLang(locale);
const container = document.getElementById('root')!;
const id = lessonIdOf(location.pathname, base);
// Python runs on lesson pages only (started by main.ts): the index never downloads it
const engine = id !== undefined ? pageEngine() : staticEngine;
const lesson = id !== undefined ? await loadLesson(id) : undefined; // this page's lesson only
const app = (shown: typeof lesson) => (
  <StrictMode>
    <App route={route(location.pathname, base, shown ? [shown] : [])} lessons={lessonIndex} base={base} locale={locale} engine={engine} link={link} onLink={onLink} />
  </StrictMode>
);
// Hydrate the prerendered HTML when the client would render the same; otherwise render afresh.
// In a transition, so React works in slices and the main thread is never held for long (a click
// meanwhile hydrates its own part first).
let root: Root;
if (container.dataset.prerendered === locale && !link) startTransition(() => void (root = hydrateRoot(container, app(lesson))));
else {
  container.textContent = '';
  root = createRoot(container);
  startTransition(() => root.render(app(lesson)));
}
// npm start: the lesson's files were edited and saved
if (import.meta.hot) addEventListener(LESSON_EDITED, (event) => {
  const edited = (event as CustomEvent<NonNullable<typeof lesson>>).detail;
  if (edited.id === id) root.render(app(edited));
});
