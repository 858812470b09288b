/** The debugger widget: thin components over one store. */
import { startTransition, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import type { Locale, Widget as WidgetSpec } from '../lessons/types';
import { widgetRequest } from '../lessons/run';
import * as R from '../replay/replay';
import { messages, t } from './i18n';
import { butEngine, connect, createWidgetStore, pointName, type EngineLike, type Initial, type WidgetActions, type WidgetState, type WidgetStore } from './store';
import { CodePane } from './CodePane';
import { warmFonts } from './fonts';
import { whenSettled } from '../runtime/quiet';
import { ComparePanel, HistoryPanel, PredictPanel } from './Teach';
import { viewOf } from './view';
import { ValueView } from './ValueView';
import { preview } from '../trace/preview';

type Action = 'run' | 'debug' | 'continue' | 'reverse-continue' | 'step-over' | 'step-into' | 'step-out' | 'step-back' | 'reset';

const ACTIONS: { action: Action; keys?: string; call: (s: WidgetActions) => void }[] = [
  { action: 'run', call: (s) => void s.start('run') },
  { action: 'debug', keys: 'F5', call: (s) => void s.start('debug') },
  { action: 'continue', keys: 'F8', call: (s) => s.resume() },
  { action: 'step-over', keys: 'F10', call: (s) => s.stepOver() },
  { action: 'step-into', keys: 'F11', call: (s) => s.stepInto() },
  { action: 'step-out', keys: 'Shift+F11', call: (s) => s.stepOut() },
  { action: 'step-back', keys: 'Shift+F10', call: (s) => s.stepBack() },
  { action: 'reverse-continue', keys: 'Shift+F8', call: (s) => s.reverseResume() },
  { action: 'reset', call: (s) => s.reset() },
];

function enabled(action: Action, s: WidgetState): boolean {
  const busy = s.status === 'running' || s.status === 'loading';
  if (busy) return false;
  const paused = s.status === 'paused';
  const started = paused || s.status === 'finished';
  switch (action) {
    case 'run':
    case 'debug':
      return true;
    case 'continue':
    case 'step-over':
    case 'step-into':
    case 'step-out':
      return paused || s.status === 'idle' || s.status === 'error';
    case 'step-back':
    case 'reverse-continue':
      return started && s.pos.cursor > 0;
    case 'reset':
      return s.status !== 'idle';
  }
}

/**
 * False in prerendered HTML and while React hydrates it, true once React handles events: until then a
 * click on a prerendered control would do nothing, so the controls are shown disabled. Set in a
 * transition, so the page's widgets re-render in slices (a useSyncExternalStore whose server value
 * differs re-renders them all in one synchronous task after hydration: 54 ms on a 2-core machine).
 */
function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => startTransition(() => setHydrated(true)), []);
  return hydrated;
}

export interface WidgetProps {
  widget: WidgetSpec;
  files: Record<string, string>;
  engine: EngineLike;
  locale: Locale;
  initial?: Initial;
  /** Told of every change that a deep link should record. */
  onState?: (state: WidgetState, previous: WidgetState) => void;
  /** The address that reopens this widget in a state (the page's deep link); enables "copy link". */
  linkTo?: (state: WidgetState) => string;
  /** Given the widget's store once (the page drives it from links in the prose). */
  onStore?: (store: WidgetStore) => void;
}

export function Widget(props: WidgetProps) {
  const [store] = useState(() => createWidgetStore(props.widget, props.files, props.engine, props.initial));
  useEffect(() => connect(store, props.engine, props.initial, widgetRequest(props.files, props.widget)), [store, props.engine]);
  const { onState, onStore } = props;
  useEffect(() => (onState ? store.subscribe(onState) : undefined), [store, onState]);
  useEffect(() => {
    onStore?.(store);
  }, [store, onStore]);
  return <WidgetView {...props} store={store} />;
}

/**
 * The store's state for the parts of a widget that do not show Python's loading (see butEngine):
 * each loading step re-rendered every widget, in tasks of 50-90 ms on a 2-core machine while the
 * page loaded; now only their StatusLine re-renders.
 */
function useStateButEngine(store: WidgetStore): WidgetState & WidgetActions {
  const last = useRef<WidgetState & WidgetActions | null>(null);
  return useStore(store, (now) => (last.current = butEngine(last.current, now)));
}

function WidgetView({ widget, locale, store, linkTo }: WidgetProps & { store: WidgetStore }) {
  const s = useStateButEngine(store);
  const live = useHydrated();
  const m = messages(locale);
  const ix = s.index;
  const cursor = s.pos.cursor;
  const v = useMemo(() => viewOf(widget, s), [widget, s]);
  const { active, blocks, stack, viewed, current, step, line, previous, variables, counts, comparison, shared, question, diagramLine } = v;
  const shown = blocks[s.shown] ?? widget;
  const actions = store.getState();
  const steps = ix?.size ?? 0;
  const controls = useRef<HTMLDivElement>(null);
  const section = useRef<HTMLElement>(null);
  // the fonts a run shows, made while the page is idle (see fonts.ts)
  useEffect(() => void whenSettled().then(() => section.current && warmFonts(section.current, locale)), [locale]);
  const coveredTop = useCallback(() => Math.max(0, controls.current?.getBoundingClientRect().bottom ?? 0), []);

  const onKeyDown = (event: KeyboardEvent) => {
    const combo = `${event.shiftKey ? 'Shift+' : ''}${event.key}`;
    const hit = ACTIONS.find((a) => a.keys === combo);
    if (combo === 'F5') {
      event.preventDefault();
      if (s.status === 'paused') actions.resume();
      else if (enabled('debug', s)) void actions.start('debug');
      return;
    }
    if (hit && enabled(hit.action, s)) {
      event.preventDefault();
      hit.call(actions);
    }
  };

  return (
    <section
      ref={section}
      className="sl-widget"
      data-widget={`${widget.lesson}/${widget.id}`}
      aria-label={`${widget.file} · ${widget.symbol}`}
      data-status={s.status}
      data-step={active ? cursor + 1 : 0}
      data-steps={steps}
      data-runs={s.runs}
      data-line={line ?? ''}
      data-fn={active && stack[0] ? blocks[stack[0].fn]?.symbol : ''}
      data-shown={shown.symbol}
      data-depth={stack.length}
      data-breakpoints={s.breakpoints.map((k) => pointName(widget, k)).join(',')}
      data-scenario={s.scenario}
      data-recorder={s.index?.trace.stats.recorder ?? ''}
      data-tracing={s.index?.trace.stats.tracing ?? ''}
      onKeyDown={onKeyDown}
    >
      <header className="sl-head">
        <h3 className="sl-title">
          <span className="sl-file">
            {widget.lesson.split('-')[0]}/{widget.file}
          </span>{' '}
          · <code>{widget.symbol}</code>
        </h3>
        <fieldset className="sl-scenarios">
          <legend>{m.scenarios}</legend>
          {widget.scenarios.map((sc) => (
            <label key={sc.id}>
              <input type="radio" name={`${widget.lesson}-${widget.id}-scenario`} value={sc.id} checked={s.scenario === sc.id} disabled={!live} onChange={() => actions.setScenario(sc.id)} />
              {sc.label[locale]}
            </label>
          ))}
        </fieldset>
      </header>

      <div className="sl-controls" ref={controls}>
        <div className="sl-toolbar" role="toolbar" aria-label={m.controls}>
          {ACTIONS.map(({ action, keys, call }) => (
            <button key={action} type="button" data-action={action} disabled={!live || !enabled(action, s)} aria-keyshortcuts={keys} title={keys ? `${m[action]} (${keys})` : m[action]} aria-label={m.short[action] ? m[action] : undefined} onClick={() => call(actions)}>
              {m.short[action] ? (
                <>
                  <span className="sl-long">{m[action]}</span>
                  <span className="sl-short">{m.short[action]}</span>
                </>
              ) : (
                m[action]
              )}
            </button>
          ))}
        </div>

        <StatusLine store={store} locale={locale} widget={widget} />
      </div>
      <p className="sl-hint">
        {m.hint} <span className="sl-readonly">{m.readOnly}</span>
      </p>

      {widget.scenarios.length > 1 && <ComparePanel s={s} widget={widget} locale={locale} actions={actions} comparison={comparison} live={live} />}

      <div className="sl-main">
        <div className="sl-code-col">
          {blocks.length > 1 && (
            <div className="sl-tabs" role="tablist" aria-label={m.functions}>
              {blocks.map((b, fn) => (
                <button key={b.symbol} type="button" role="tab" data-fn={b.symbol} aria-selected={s.shown === fn} disabled={!live} onClick={() => actions.showFunction(fn)} className={stack.some((f) => f.fn === fn) ? 'sl-on-stack' : undefined}>
                  <code>{b.symbol}</code>
                </button>
              ))}
            </div>
          )}
          <CodePane code={shown.code} firstLine={shown.firstLine} label={`${shown.file} · ${shown.symbol}. ${m.code}`} marks={{ breakpoints: v.breakpoints, current: line, previous, atBreakpoint: current && s.pos.reason === 'breakpoint', counts, onlyHere: v.onlyHere, onlyThere: v.onlyThere }} toggle={(l) => actions.toggleBreakpoint(l)} coveredTop={coveredTop} />
          <div className="sl-scrub">
            <label>
              <span>{steps ? t(locale, 'stepOf', { step: active ? cursor + 1 : 0, steps }) : m.step}</span>
              <input type="range" min={0} max={Math.max(0, steps - 1)} value={Math.max(0, cursor)} disabled={!active || steps < 2} onChange={(e) => actions.goto(Number(e.target.value))} aria-valuetext={t(locale, 'stepOf', { step: cursor + 1, steps })} />
            </label>
            {linkTo && <CopyLink url={active ? linkTo(s) : null} locale={locale} />}
            {counts && <span className="sl-note sl-counts-note">{m.countsNote}</span>}
            <span className="sl-bps">
              {m.breakpoints}: {s.breakpoints.length ? s.breakpoints.map((k) => pointName(widget, k)).join(', ') : m.none}
            </span>
          </div>
        </div>
        <div className="sl-side">
          {question && <PredictPanel key={cursor} s={s} widget={widget} locale={locale} actions={actions} question={question} />}
          <div className="sl-panel" data-panel="variables">
            <h4>{m.variables}</h4>
            {variables.length === 0 && !step?.value && !step?.exception ? <p className="sl-empty">{m.noVariables}</p> : null}
            <ul className="sl-vars">
              {variables.map((v) => (
                <li key={v.name} data-var={v.name} data-changed={v.changed ? 'true' : 'false'} className={v.changed ? 'sl-changed' : undefined}>
                  <ValueView value={v.value} locale={locale} name={v.name} />
                  {v.changed && <span className="sl-badge">{m.changed}</span>}
                  {shared?.get(v.name) && (
                    <span className="sl-shared" data-shared={shared.get(v.name)!.map((h) => `${blocks[h.fn]?.symbol}.${h.name}`).join(' ')}>
                      {t(locale, 'sharedWith', { where: shared.get(v.name)!.map((h) => t(locale, 'sharedIn', { name: h.name, symbol: blocks[h.fn]?.symbol ?? '' })).join(m.sep) })}
                    </span>
                  )}
                  <button type="button" className="sl-var-history" data-history={v.name} aria-pressed={s.watch === v.name} aria-label={t(locale, 'history.show', { name: v.name })} title={t(locale, 'history.show', { name: v.name })} onClick={() => actions.watchVariable(s.watch === v.name ? null : v.name)}>
                    ⟲
                  </button>
                </li>
              ))}
              {step?.event === 'return' && step.value && (
                <li data-var="(return)" data-changed="true" className="sl-changed sl-return">
                  <ValueView value={step.value} locale={locale} name={m.returnValue} />
                </li>
              )}
              {step?.exception && (
                <li data-var="(exception)" data-changed="true" className="sl-changed sl-exception">
                  <span className="sl-name">{m.raised}</span> = {step.exception.type}: {step.exception.message}
                </li>
              )}
            </ul>
          </div>
          {active && <HistoryPanel s={s} locale={locale} actions={actions} frame={viewed?.frame} />}
          {blocks.length > 1 && (
            <div className="sl-panel" data-panel="stack">
              <h4>{m.callStack}</h4>
              {stack.length > 0 ? (
                <ol className="sl-stack" aria-label={m.callStackNote}>
                  {stack.map((f) => {
                    const b = blocks[f.fn]!;
                    return (
                      <li key={f.frame}>
                        <button type="button" data-frame={b.symbol} aria-current={f === viewed ? 'true' : undefined} onClick={() => actions.selectFrame(f === stack[0] ? null : f.frame)}>
                          <code>
                            {b.symbol}({f.args.map((arg) => `${arg.name}=${preview(arg.value, 18)}`).join(', ')})
                          </code>{' '}
                          <span className="sl-where">
                            {b.file}:{f.line}
                          </span>
                        </button>
                      </li>
                    );
                  })}
                </ol>
              ) : (
                <p className="sl-empty">{m.none}</p>
              )}
            </div>
          )}
          <OutputPanel s={s} locale={locale} />
        </div>
      </div>

      <p className="sl-caption">{m.replayCaption}</p>

      <div className="sl-panel" data-panel="diagram">
        <h4>{m.diagram}</h4>
        <ol className="sl-diagram">
          {widget.diagram.map((d) => {
            const hits = ix?.lineHits.get(d.line);
            // current (paused here), visited (ran before this step), not reached (the finished run never ran it), or still ahead
            const state = !ix || !active ? 'ahead' : d.line === diagramLine ? 'current' : (hits?.[0] ?? Infinity) <= cursor ? 'visited' : s.status === 'finished' && !hits?.length ? 'not-reached' : 'ahead';
            return (
              <li key={d.line} aria-current={state === 'current' ? 'step' : undefined} data-line={d.line} data-state={state} className={state === 'visited' ? 'sl-visited' : undefined}>
                <span className="sl-step">
                  <span className="sl-diagram-line">{d.line}</span> {d.caption[locale]}
                  {state === 'not-reached' && <span className="sl-diagram-note"> ({m.notReached})</span>}
                </span>
              </li>
            );
          })}
        </ol>
      </div>

      <details className="sl-panel" data-panel="harness">
        <summary>
          {m.harness} <code>{widget.harness.file}</code>
        </summary>
        <p className="sl-note">{t(locale, 'harnessNote', { file: widget.harness.file })}</p>
        <NumberedCode text={actions.harnessText()} first={1} />
      </details>

      {widget.standins.length > 0 && (
        <div className="sl-standins">
          <h4>{m.standins}</h4>
          {widget.standins.map((st) => (
            <details key={`${st.kind}-${st.symbol}`} data-standin={st.kind} className="sl-panel">
              <summary>
                <span className="sl-kind">{st.kind}</span> {st.title[locale]} <code>{st.file}</code>
              </summary>
              <NumberedCode text={st.code} first={st.firstLine} />
            </details>
          ))}
        </div>
      )}
    </section>
  );
}

/** "Copy link to this step": the clipboard when the browser allows it, else the address to copy by hand. */
function CopyLink({ url, locale }: { url: string | null; locale: Locale }) {
  const m = messages(locale);
  const [shown, setShown] = useState<{ url: string; copied: boolean } | null>(null);
  const copy = () => {
    if (!url) return;
    const done = (copied: boolean) => setShown({ url, copied });
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(url).then(() => done(true), () => done(false));
    else done(false);
  };
  return (
    <span className="sl-copy">
      <button type="button" data-action="copy-link" disabled={!url} onClick={copy}>
        {m.copyLink}
      </button>
      <span aria-live="polite">
        {shown?.copied && shown.url === url && <span className="sl-note"> {m.copied}</span>}
        {shown && !shown.copied && <input className="sl-link" readOnly value={shown.url} aria-label={m.copyLink} onFocus={(e) => e.currentTarget.select()} />}
      </span>
    </span>
  );
}

function NumberedCode({ text, first }: { text: string; first: number }) {
  return (
    <pre className="sl-listing">
      {text.split('\n').map((l, i) => (
        <span key={i} className="sl-listing-line">
          <span className="sl-ln" aria-hidden="true">
            {i + first}
          </span>
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

const mb = (n: number) => (n / 1048576).toFixed(1);
/** "3.1 / 9.6 MB (32 %)", or "3.1 MB" when the total is not known. */
const bytes = (loaded: number, total: number) => (total ? `${mb(loaded)} / ${mb(total)} MB (${Math.min(100, Math.round((loaded / total) * 100))} %)` : `${mb(loaded)} MB`);

function StatusLine({ store, locale, widget }: { store: WidgetStore; locale: Locale; widget: WidgetSpec }) {
  const s = useStore(store);
  const symbol = widget.symbol;
  const ix = s.index;
  let text: string;
  const load = s.engine.state === 'error' ? s.engine.load : undefined;
  if (load && (s.status === 'error' || s.status === 'idle')) text = t(locale, 'status.loadFailed', { tries: load.tries, url: load.url });
  else if (s.status === 'error') text = t(locale, 'status.error', { message: s.error ?? '' });
  else if (s.status === 'running') text = t(locale, 'status.running', { symbol });
  else if (s.status === 'loading') text = s.engine.state === 'loading' ? messages(locale).queued : t(locale, 'status.running', { symbol });
  else if (s.status === 'idle') text = s.engine.state === 'error' ? t(locale, 'status.error', { message: s.engine.message }) : t(locale, 'status.idle');
  else if (s.status === 'paused' && ix) {
    const step = ix.trace.steps[s.pos.cursor]!;
    const why = s.pos.reason === 'breakpoint' ? t(locale, 'status.paused.breakpoint') : `${messages(locale).sep}${messages(locale).event[step.event]}`;
    const callee = step.fn ? widget.callees[step.fn - 1] : undefined;
    text = callee ? t(locale, 'status.pausedIn', { symbol: callee.symbol, line: step.line, step: s.pos.cursor + 1, steps: ix.size, why }) : t(locale, 'status.paused', { line: step.line, step: s.pos.cursor + 1, steps: ix.size, why });
  } else {
    const error = ix?.trace.error;
    text = error ? t(locale, 'status.finishedError', { error: error.type, steps: ix?.size ?? 0 }) : t(locale, 'status.finished', { steps: ix?.size ?? 0 });
  }
  const truncated = ix?.trace.truncated && (s.status === 'paused' || s.status === 'finished') ? t(locale, `status.truncated.${ix.trace.truncated}`) : '';
  // a breakpoint the run never reached: say so, instead of just ending
  const unreached = ix && s.status === 'finished' ? s.breakpoints.filter((key) => !ix.lineHits.get(key)?.length).map((key) => pointName(widget, key)) : [];
  // Python's loading progress is shown apart from the run's status, on a line that stays once
  // Python is ready (saying so), so the page below does not move up when loading ends
  const engine = s.engine.state === 'loading' ? `${t(locale, `status.loading.${s.engine.phase}`)}${s.engine.loaded ? ` ${bytes(s.engine.loaded, s.engine.total ?? 0)}` : ''}` : s.engine.state === 'ready' ? t(locale, 'status.engineReady') : '';
  return (
    <>
      <p className="sl-status" role="status" aria-live="polite" data-fresh={s.runs ? s.runs % 2 : undefined} data-engine={s.engine.state} data-engine-start={s.engine.state === 'ready' ? s.engine.from : undefined} data-engine-ms={s.engine.state === 'ready' ? s.engine.loadMs : undefined}>
        {text}
        {truncated && <span className="sl-warning"> {truncated}</span>}
        {unreached.length > 0 && <span className="sl-unreached"> {t(locale, 'status.unreached', { lines: unreached.join(messages(locale).sep) })}</span>}
      </p>
      <p className="sl-engine" data-engine={s.engine.state} aria-hidden={engine ? undefined : true}>
        {engine || '\u00a0'}
      </p>
    </>
  );
}

function OutputPanel({ s, locale }: { s: WidgetState; locale: Locale }) {
  const m = messages(locale);
  const ix = s.index;
  const out = ix && (s.status === 'paused' || s.status === 'finished') ? R.stdoutAt(ix, s.pos) : '';
  const trace = ix?.trace;
  const finished = s.status === 'finished';
  return (
    <div className="sl-panel" data-panel="output">
      <h4>{m.output}</h4>
      <pre className="sl-stdout">{out || (finished ? m.noOutputFinished : m.noOutput)}</pre>
      {finished && trace?.outcome && (
        <div className="sl-outcome" data-outcome="">
          <strong>{m.outcome}</strong> <ValueView value={trace.outcome} locale={locale} name="outcome" />
        </div>
      )}
      {finished && trace?.error && (
        <p className="sl-error" data-error={trace.error.type}>
          {trace.error.type}: {trace.error.message}
          {trace.error.frames?.length ? ` (${trace.error.frames.map((f) => `${f.file}:${f.line}`).join(' → ')})` : ''}
        </p>
      )}
      {s.status === 'error' && s.error && (
        <p className="sl-error" data-error="run">
          {s.error}
        </p>
      )}
    </div>
  );
}
