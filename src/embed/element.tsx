/**
 * <steplight-widget lesson="s04-hooks" widget="run_hooks" lang="en" scenario="block">: one debugger
 * widget for any page that serves Steplight's built files from its own origin (see README, Embedding).
 */
import { createRoot, type Root } from 'react-dom/client';
import { isFailure, lessonIndex, loadLesson } from '../lessons/bundled';
import { pageEngine } from '../runtime/client';
import css from '../site/styles.css?inline';
import { Widget } from '../widget/Widget';
import type { Locale } from '../lessons/types';

// (a variable, not a template in `new URL(…)`, which Vite would read as a file pattern to bundle)
const PYODIDE_RELATIVE = '../' + __PYODIDE_PATH__;
const pyodideURL = new URL(PYODIDE_RELATIVE, import.meta.url).href;

/**
 * The host page's inherited styles stop at the element (its own rules on <steplight-widget> still
 * apply, so an embedder can set margins or the documented --sl-* colours there); `theme` picks the
 * palette: auto (the reader's OS), light or dark.
 */
const HOST_CSS = `:host { all: initial; display: block; font-size: var(--sl-font-size, 16px); text-align: start; }
:host([theme='light']) { --sl-light: initial; --sl-dark: ; color-scheme: light; }
:host([theme='dark']) { --sl-light: ; --sl-dark: initial; color-scheme: dark; }
:host([hidden]) { display: none; }
`;

class SteplightWidget extends HTMLElement {
  private root: Root | null = null;

  connectedCallback() {
    this.root?.unmount();
    const shadow = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    shadow.innerHTML = '';
    const style = document.createElement('style');
    // rem would follow the blog's <html> font size: sizes are relative to the element's own instead
    style.textContent = HOST_CSS + css.replace(/:root/g, ':host').replace(/(\d*\.?\d+)rem\b/g, 'calc($1 * var(--sl-font-size, 16px))');
    const mount = document.createElement('div');
    shadow.append(style, mount);
    this.root = createRoot(mount);
    const lessonId = this.getAttribute('lesson') ?? '';
    const widgetId = this.getAttribute('widget') ?? '';
    const lang = this.getAttribute('lang') ?? document.documentElement.lang ?? navigator.language;
    const locale: Locale = lang.toLowerCase().startsWith('zh') ? 'zh' : 'en';
    const known = lessonIndex.flatMap((l) => l.widgets.map((w) => `${l.id}/${w}`));
    if (!known.includes(`${lessonId}/${widgetId}`)) {
      this.root.render(
        <p role="alert" className="sl-error">
          steplight-widget: no widget "{lessonId}/{widgetId}". Known widgets: {known.join(', ')}.
        </p>,
      );
      return;
    }
    const scenario = this.getAttribute('scenario') ?? undefined;
    const root = this.root;
    void loadLesson(lessonId).then((lesson) => {
      if (!lesson || this.root !== root) return; // listed in the index; or replaced meanwhile
      if (isFailure(lesson)) return root.render(<p role="alert" className="sl-error">steplight-widget: {lesson.id}: {lesson.error}</p>);
      const widget = lesson.widgets.find((w) => w.id === widgetId);
      if (!widget) return;
      root.render(<Widget widget={widget} files={lesson.files} engine={pageEngine(pyodideURL)} locale={locale} initial={scenario ? { scenario } : undefined} />);
    });
  }

  static observedAttributes = ['lesson', 'widget', 'lang', 'scenario'];

  attributeChangedCallback(_name: string, old: string | null, value: string | null) {
    if (this.root && old !== value) this.connectedCallback(); // a new widget, language or scenario
  }

  disconnectedCallback() {
    this.root?.unmount();
    this.root = null;
  }
}

if (!customElements.get('steplight-widget')) customElements.define('steplight-widget', SteplightWidget);
