/** Thin panels over the pure teaching layer: comparing scenarios, a variable's history, predicting. */
import { useMemo, useState } from 'react';
import type { Locale, Question, Widget as WidgetSpec } from '../lessons/types';
import * as T from '../replay/teach';
import { preview } from '../trace/preview';
import { messages, t } from './i18n';
import { pointName, type WidgetActions, type WidgetState } from './store';

const label = (widget: WidgetSpec, id: string, locale: Locale) => widget.scenarios.find((sc) => sc.id === id)?.label[locale] ?? id;

/** "Compare with …": the choice, and what the two real runs say. */
export function ComparePanel({ s, widget, locale, actions, comparison, live }: { s: WidgetState; widget: WidgetSpec; locale: Locale; actions: WidgetActions; comparison: T.Comparison | null; live: boolean }) {
  const m = messages(locale);
  const other = s.compare?.scenario;
  const a = label(widget, s.scenario, locale);
  const b = other ? label(widget, other, locale) : '';
  const lines = (keys: number[]) => keys.map((k) => pointName(widget, k)).join(m.sep);
  let summary = '';
  if (other && s.compare?.error) summary = t(locale, 'compare.failed', { message: s.compare.error });
  else if (other && !comparison) summary = t(locale, 'compare.running', { scenario: b });
  const d = comparison?.divergence;
  const callee = d && d.fn ? widget.callees[d.fn - 1] : undefined;
  return (
    <div className="sl-compare" data-panel="compare">
      <label>
        {m.compareWith}{' '}
        <select data-action="compare" value={other ?? ''} disabled={!live} onChange={(e) => void actions.compareWith(e.target.value || null)}>
          <option value="">{m.compareNone}</option>
          {widget.scenarios
            .filter((sc) => sc.id !== s.scenario)
            .map((sc) => (
              <option key={sc.id} value={sc.id}>
                {sc.label[locale]}
              </option>
            ))}
        </select>
      </label>
      {summary && <span aria-live="polite">{summary}</span>}
      {comparison && (
        <div className="sl-compare-result" aria-live="polite" data-compare={other}>
          {d ? (
            <span>
              <span data-parted={`${callee ? `${callee.symbol}:` : ''}${d.line}`}>{callee ? t(locale, 'compare.partedIn', { a, b, symbol: callee.symbol, line: d.line, step: d.step + 1 }) : t(locale, 'compare.parted', { a, b, line: d.line, step: d.step + 1 })}</span>{' '}
              {d.step < (s.index?.size ?? 0) && (
                <button type="button" data-action="goto-divergence" onClick={() => void actions.openAt(d.step)}>
                  {t(locale, 'compare.goto', { step: d.step + 1 })}
                </button>
              )}
            </span>
          ) : (
            <span>{t(locale, 'compare.same', { a, b })}</span>
          )}
          {comparison.onlyHere.length > 0 && (
            <span className="sl-legend-here" data-only-in="here">
              {t(locale, 'compare.only', { scenario: a, lines: lines(comparison.onlyHere) })}
            </span>
          )}
          {comparison.onlyThere.length > 0 && (
            <span className="sl-legend-there" data-only-in="there">
              {t(locale, 'compare.only', { scenario: b, lines: lines(comparison.onlyThere) })}
            </span>
          )}
        </div>
      )}
    </div>
  );
}

/** Every step where the watched variable of the shown frame got a new value; click one to go there. */
export function HistoryPanel({ s, locale, actions, frame }: { s: WidgetState; locale: Locale; actions: WidgetActions; frame: number | undefined }) {
  const m = messages(locale);
  const ix = s.index;
  const name = s.watch;
  const history = useMemo(() => (ix && name && frame !== undefined ? T.valueHistory(ix, frame, name) : []), [ix, name, frame]);
  if (!ix || !name || frame === undefined) return null;
  const cursor = s.pos.cursor;
  const previous = T.previousChange(ix, frame, name, cursor);
  const next = T.nextChange(ix, frame, name, cursor);
  const current = history.filter((h) => h.step <= cursor).pop();
  return (
    <div className="sl-panel" data-panel="history" data-name={name}>
      <h4>{t(locale, 'history.title', { name })}</h4>
      <button type="button" data-action="previous-change" disabled={previous < 0} onClick={() => actions.goto(previous)}>
        {m['history.previous']}
      </button>{' '}
      <button type="button" data-action="next-change" disabled={next < 0} onClick={() => actions.goto(next)}>
        {m['history.next']}
      </button>{' '}
      <button type="button" data-action="close-history" onClick={() => actions.watchVariable(null)}>
        {m.close}
      </button>
      <ol className="sl-history">
        {history.map((h) => (
          <li key={h.step}>
            <button type="button" data-history-step={h.step + 1} aria-current={h === current ? 'true' : undefined} onClick={() => actions.goto(h.step)}>
              {t(locale, 'history.row', { step: h.step + 1, line: h.line })} · <code>{h.value ? preview(h.value, 60) : m['history.deleted']}</code>
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The author's question for the line the replay is paused on: answered against the real trace. */
export function PredictPanel({ s, widget, locale, actions, question }: { s: WidgetState; widget: WidgetSpec; locale: Locale; actions: WidgetActions; question: Question }) {
  const m = messages(locale);
  const ix = s.index!;
  const [draft, setDraft] = useState('');
  const answered = s.prediction?.cursor === s.pos.cursor ? s.prediction.answer : null;
  const runnable = ix.trace.lines?.[0] ?? widget.code.split('\n').map((_, k) => widget.firstLine + k);
  const text = (line: number) => widget.code.split('\n')[line - widget.firstLine]?.trim() ?? '';
  let right: boolean | null = null;
  if (answered !== null) {
    if (question.ask === 'next-line') {
      const next = T.afterNextStep(ix, s.pos).line;
      right = answered === (next === null ? 'return' : String(next));
    } else right = T.answerMatches(answered, T.valueAfterNextStep(ix, s.pos, question.variable!));
  }
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    actions.predict(question.ask === 'next-line' ? draft || String(runnable[0]) : draft);
  };
  return (
    <form className="sl-panel sl-predict" data-panel="predict" onSubmit={submit}>
      <h4>{m.predict}</h4>
      <label>
        {question.ask === 'next-line' ? m['predict.nextLine'] : t(locale, 'predict.value', { name: question.variable! })}{' '}
        {question.ask === 'next-line' ? (
          <select data-predict="line" value={draft} onChange={(e) => setDraft(e.target.value)}>
            {runnable.map((line) => (
              <option key={line} value={String(line)}>
                {line}: {text(line)}
              </option>
            ))}
            <option value="return">{m['predict.returns']}</option>
          </select>
        ) : (
          <input data-predict="value" value={draft} placeholder={m['predict.placeholder']} onChange={(e) => setDraft(e.target.value)} />
        )}
      </label>{' '}
      <button type="submit" data-action="check-prediction">
        {m['predict.check']}
      </button>
      {right !== null && (
        <p aria-live="polite" data-right={String(right)} className={right ? 'sl-right' : 'sl-wrong'}>
          {right ? m['predict.right'] : m['predict.wrong']}
        </p>
      )}
    </form>
  );
}
