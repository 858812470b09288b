import { useState } from 'react';
import type { Lesson, Locale } from '../lessons/types';
import { messages } from '../widget/i18n';
import type { EngineLike } from '../widget/store';
import { Widget } from '../widget/Widget';

export type Route = { page: 'index' } | { page: 'lesson'; lesson: Lesson } | { page: 'missing'; path: string };

export function route(pathname: string, base: string, lessons: Lesson[]): Route {
  const rest = pathname.startsWith(base) ? pathname.slice(base.length) : pathname.replace(/^\//, '');
  const clean = rest.replace(/index\.html$/, '').replace(/\/+$/, '');
  if (clean === '') return { page: 'index' };
  const m = /^lessons\/([A-Za-z0-9_-]+)$/.exec(clean);
  const lesson = m && lessons.find((l) => l.id === m[1]);
  return lesson ? { page: 'lesson', lesson } : { page: 'missing', path: pathname };
}

interface Props {
  route: Route;
  lessons: Lesson[];
  base: string;
  locale: Locale;
  engine: EngineLike;
  onLocale: (locale: Locale) => void;
}

export function App({ route, lessons, base, locale, engine, onLocale }: Props) {
  const m = messages(locale);
  const href = (path: string) => `${base}${path}?lang=${locale}`;
  return (
    <div className="sl-page" lang={locale === 'zh' ? 'zh-CN' : 'en'}>
      <header className="sl-site-head">
        <a className="sl-brand" href={href('')}>
          Steplight
        </a>
        <nav aria-label={m.language}>
          {(['zh', 'en'] as const).map((l) => (
            <button key={l} type="button" className="sl-lang" aria-pressed={l === locale} onClick={() => onLocale(l)} lang={l}>
              {l === 'zh' ? '中文' : 'English'}
            </button>
          ))}
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
                </li>
              ))}
            </ul>
          </section>
        )}
        {route.page === 'lesson' && <LessonPage lesson={route.lesson} locale={locale} engine={engine} backHref={href('')} backLabel={m.backToIndex} />}
        {route.page === 'missing' && (
          <p>
            404 — {route.path} <a href={href('')}>{m.backToIndex}</a>
          </p>
        )}
      </main>
    </div>
  );
}

function LessonPage({ lesson, locale, engine, backHref, backLabel }: { lesson: Lesson; locale: Locale; engine: EngineLike; backHref: string; backLabel: string }) {
  const [widgets] = useState(() => new Map(lesson.widgets.map((w) => [w.id, w])));
  return (
    <article className="sl-lesson">
      <p>
        <a href={backHref}>← {backLabel}</a>
      </p>
      <h1>{lesson.title[locale]}</h1>
      {lesson.prose[locale].map((segment, i) =>
        segment.kind === 'html' ? (
          <div key={i} className="sl-prose" dangerouslySetInnerHTML={{ __html: segment.html }} />
        ) : (
          <Widget key={`${segment.id}-${i}`} widget={widgets.get(segment.id)!} files={lesson.files} engine={engine} locale={locale} />
        ),
      )}
    </article>
  );
}
