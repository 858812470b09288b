import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { LOCALES, type Lesson, type LessonFailure, type LessonSummary, type Locale } from '../lessons/types';
import { messages } from '../widget/i18n';
import { pointName, type EngineLike, type WidgetState, type WidgetStore } from '../widget/store';
import { Widget } from '../widget/Widget';
import { formatLink, parseLink, type Link } from './deeplink';
import { cleanPath, htmlLang, lessonIdOf, pathFor } from './locale';

export type Route = { page: 'index' } | { page: 'lesson'; lesson: Lesson } | { page: 'broken'; lesson: LessonFailure } | { page: 'missing'; path: string };

/** The page for a path; `lessons` holds at least the lesson the path shows (if any). */
export function route(pathname: string, base: string, lessons: (Lesson | LessonFailure)[]): Route {
  if (cleanPath(pathname, base) === '') return { page: 'index' };
  const id = lessonIdOf(pathname, base);
  const lesson = id !== undefined ? lessons.find((l) => l.id === id) : undefined;
  if (!lesson) return { page: 'missing', path: pathname };
  return 'error' in lesson ? { page: 'broken', lesson } : { page: 'lesson', lesson };
}

interface Props {
  route: Route;
  /** Every lesson, for the index (titles only: a page carries the code of its own lesson only). */
  lessons: LessonSummary[];
  base: string;
  locale: Locale;
  engine: EngineLike;
  /** The deep link the page was opened with, if any. */
  link?: Link | null;
  /** Told the deep link of the widget the reader last changed. */
  onLink?: (hash: string) => void;
}

export function App({ route, lessons, base, locale, engine, link = null, onLink }: Props) {
  const m = messages(locale);
  const href = (path: string) => pathFor(locale, path, base);
  const here = route.page === 'lesson' ? `lessons/${route.lesson.id}/` : '';
  // the other language's page; the reader's place (the deep link in the hash) goes along
  const switchTo = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    location.assign(`${event.currentTarget.getAttribute('href')}${location.hash}`);
  };
  return (
    <div className="sl-page" lang={htmlLang(locale)}>
      <header className="sl-site-head">
        <a className="sl-brand" href={href('')}>
          Steplight
        </a>
        <nav aria-label={m.language}>
          {LOCALES.map((l) =>
            l === locale ? (
              <span key={l} className="sl-lang" aria-current="page" lang={htmlLang(l)}>
                {l === 'zh' ? '中文' : 'English'}
              </span>
            ) : (
              <a key={l} className="sl-lang" href={pathFor(l, here, base)} hrefLang={htmlLang(l)} lang={htmlLang(l)} onClick={switchTo}>
                {l === 'zh' ? '中文' : 'English'}
              </a>
            ),
          )}
        </nav>
      </header>
      <main>
        {route.page === 'index' && (
          <section>
            <h1>{m.lessons}</h1>
            <ul className="sl-lesson-list">
              {lessons.map((l) => (
                <li key={l.id}>
                  <a href={href(`lessons/${l.id}/`)}>{l.title[locale]}</a>
                  {l.error && <span className="sl-error"> — {l.error}</span>}
                </li>
              ))}
            </ul>
          </section>
        )}
        {route.page === 'lesson' && <LessonPage lesson={route.lesson} locale={locale} engine={engine} backHref={href('')} backLabel={m.backToIndex} link={link} onLink={onLink} />}
        {route.page === 'broken' && (
          <p role="alert" className="sl-error sl-broken">
            {route.lesson.id}: {route.lesson.error}
            <br />
            {m.brokenLesson}
          </p>
        )}
        {route.page === 'missing' && (
          <p>
            404 — {route.path} <a href={href('')}>{m.backToIndex}</a>
          </p>
        )}
      </main>
    </div>
  );
}

interface PageProps {
  lesson: Lesson;
  locale: Locale;
  engine: EngineLike;
  backHref: string;
  backLabel: string;
  link: Link | null;
  onLink?: (hash: string) => void;
}

function LessonPage({ lesson, locale, engine, backHref, backLabel, link, onLink }: PageProps) {
  const widgets = useMemo(() => new Map(lesson.widgets.map((w) => [w.id, w])), [lesson]);
  // each widget's store, so a link in the prose can drive its widget on this page
  const stores = useRef(new Map<string, WidgetStore>());
  const onProseClick = (event: MouseEvent) => {
    const anchor = (event.target as Element).closest?.('a');
    const target = anchor ? parseLink(anchor.getAttribute('href') ?? '') : null;
    const store = target ? stores.current.get(target.widget) : undefined;
    if (!target || !store || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    document.querySelector(`section[data-widget="${lesson.id}/${target.widget}"]`)?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    void store.getState().applyLink(target);
  };
  const keys = useWidgetKeys(lesson);
  useEffect(() => {
    if (link && widgets.has(link.widget)) document.querySelector(`section[data-widget="${lesson.id}/${link.widget}"]`)?.scrollIntoView({ block: 'start' });
  }, [link, lesson.id, widgets]);
  return (
    <article className="sl-lesson" onClick={onProseClick}>
      <p>
        <a href={backHref}>← {backLabel}</a>
      </p>
      <h1>{lesson.title[locale]}</h1>
      {lesson.prose[locale].map((segment, i) =>
        segment.kind === 'html' ? (
          <div key={i} className="sl-prose" dangerouslySetInnerHTML={{ __html: segment.html }} />
        ) : (
          <LinkedWidget key={`${segment.id}-${i}-${keys.get(segment.id)}`} id={segment.id} lesson={lesson} widgets={widgets} engine={engine} locale={locale} link={link?.widget === segment.id ? link : null} onLink={onLink} onStore={(store) => stores.current.set(segment.id, store)} />
        ),
      )}
    </article>
  );
}

function LinkedWidget({ id, lesson, widgets, engine, locale, link, onLink, onStore }: { id: string; lesson: Lesson; widgets: Map<string, Lesson['widgets'][number]>; engine: EngineLike; locale: Locale; link: Link | null; onLink?: (hash: string) => void; onStore: (store: WidgetStore) => void }) {
  const widget = widgets.get(id)!;
  /** The deep link of a widget state; `step` only when the replay stands somewhere. */
  const hashOf = useCallback(
    (state: WidgetState, withStep: boolean) => formatLink({ widget: id, scenario: state.scenario, breakpoints: state.breakpoints.map((k) => pointName(widget, k)), ...(withStep ? { step: state.pos.cursor } : {}) }),
    [id, widget],
  );
  const onState = useCallback(
    (state: WidgetState, previous: WidgetState) => {
      if (!onLink) return;
      const touched = state.scenario !== previous.scenario || state.breakpoints !== previous.breakpoints || state.pos !== previous.pos;
      if (touched) onLink(hashOf(state, state.status === 'paused' || state.status === 'finished'));
    },
    [onLink, hashOf],
  );
  const linkTo = useCallback((state: WidgetState) => `${location.origin}${location.pathname}${hashOf(state, true)}`, [hashOf]);
  return <Widget widget={widget} files={lesson.files} engine={engine} locale={locale} initial={link ?? undefined} onState={onState} linkTo={linkTo} onStore={onStore} />;
}

/**
 * A key per widget that changes when what its run depends on changes (its own spec, the lesson's
 * files), so an edited lesson (npm start) keeps the reader's place in every other widget. Compared
 * only when a new version of the lesson arrives: a page load reads nothing (hashing the files on
 * every load took 19-26 ms of one hydration slice on a 2-core machine).
 */
function useWidgetKeys(lesson: Lesson): Map<string, number> {
  const [seen, setSeen] = useState(() => ({ lesson, keys: new Map(lesson.widgets.map((w) => [w.id, 0])) }));
  if (seen.lesson === lesson) return seen.keys;
  const sameFiles = JSON.stringify(seen.lesson.files) === JSON.stringify(lesson.files);
  const before = new Map(seen.lesson.widgets.map((w) => [w.id, JSON.stringify(w)]));
  const keys = new Map(lesson.widgets.map((w) => {
    const key = seen.keys.get(w.id) ?? 0;
    return [w.id, sameFiles && before.get(w.id) === JSON.stringify(w) ? key : key + 1];
  }));
  setSeen({ lesson, keys }); // React's pattern for state that follows a prop: it renders again at once
  return keys;
}
