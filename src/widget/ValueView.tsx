/** A typed trace value as an expandable tree. Everything is rendered as text, never as HTML. */
import type { Value } from '../trace/types';
import { t } from './i18n';
import type { Locale } from '../lessons/types';

const ident = (id: number) => `#${id}`;

function scalar(value: Value): string | null {
  switch (value.t) {
    case 'none':
      return 'None';
    case 'bool':
      return value.v ? 'True' : 'False';
    case 'int':
      return String(value.v);
    case 'float':
      return typeof value.v === 'number' ? (Number.isInteger(value.v) ? value.v.toFixed(1) : String(value.v)) : value.v;
    case 'str':
      return JSON.stringify(value.v).replace(/^"|"$/g, "'").replace(/\\"/g, '"');
    case 'bytes':
    case 'bigint':
      return value.v;
    case 'func':
      return `<function ${value.name}> ${ident(value.id)}`;
    case 'class':
      return `<class ${value.name}>`;
    case 'module':
      return `<module ${value.name}>`;
    default:
      return null;
  }
}

const clip = (s: string, budget: number) => (s.length > budget ? `${s.slice(0, budget - 1)}…` : s);

/** A one-line preview, for summaries. */
export function preview(value: Value, budget = 60): string {
  const s = scalar(value);
  if (s !== null) return clip(s, budget);
  switch (value.t) {
    case 'dict': {
      const text = `{${(value.entries ?? []).map(([k, v]) => `${preview(k, 20)}: ${preview(v, 20)}`).join(', ')}${value.more || (value.entries?.length ?? 0) < value.len ? ', …' : ''}}`;
      return clip(text, budget);
    }
    case 'list':
    case 'tuple':
    case 'set':
    case 'frozenset': {
      const [open, close] = value.t === 'list' ? ['[', ']'] : value.t === 'tuple' ? ['(', ')'] : ['{', '}'];
      return clip(`${open}${(value.items ?? []).map((v) => preview(v, 20)).join(', ')}${value.more || (value.items?.length ?? 0) < value.len ? ', …' : ''}${close}`, budget);
    }
    case 'ref':
      return `↺ ${ident(value.id)}`;
    case 'exc':
      return `${value.type}(${value.args.map((a) => preview(a, 30)).join(', ')})`;
    case 'obj':
      return `<${value.type} ${ident(value.id)}>`;
  }
  return '';
}

interface Tree {
  kind: string;
  id: number;
  count: number;
  sized: boolean;
  more: boolean;
  children: [string, Value][];
}

/** The expandable parts of a container, object or exception value. */
function branches(value: Value): Tree | null {
  switch (value.t) {
    case 'dict':
      return { kind: value.type ?? 'dict', id: value.id, count: value.len, sized: true, more: !!value.more, children: (value.entries ?? []).map(([k, v]) => [preview(k, 40), v]) };
    case 'list':
    case 'tuple':
    case 'set':
    case 'frozenset':
      return { kind: value.type ?? value.t, id: value.id, count: value.len, sized: true, more: !!value.more, children: (value.items ?? []).map((v, i) => [String(i), v]) };
    case 'obj': {
      const children = Object.entries(value.attrs ?? {});
      return { kind: value.type, id: value.id, count: children.length, sized: false, more: !!value.more, children };
    }
    case 'exc':
      return { kind: value.type, id: value.id, count: value.args.length, sized: false, more: false, children: value.args.map((v, i) => [`args[${i}]`, v]) };
    default:
      return null;
  }
}

interface Props {
  value: Value;
  locale: Locale;
  name?: string;
}

export function ValueView({ value, locale, name }: Props) {
  const label = name !== undefined ? <span className="sl-name">{name}</span> : null;
  const s = scalar(value);
  if (s !== null) {
    const long = 'len' in value && value.len !== undefined ? <span className="sl-note"> ({t(locale, 'chars', { n: value.len })})</span> : null;
    return (
      <span className={`sl-value sl-t-${value.t}`}>
        {label}
        {label && ' = '}
        <span className="sl-scalar">{s}</span>
        {long}
      </span>
    );
  }
  if (value.t === 'ref') {
    return (
      <span className="sl-value sl-t-ref" title={t(locale, 'ref', { id: ident(value.id) })}>
        {label}
        {label && ' = '}↺ {value.of} {ident(value.id)}
      </span>
    );
  }
  const tree = branches(value);
  if (!tree) return null;
  const { kind, id, count, children, more } = tree;
  const hidden = count - children.length;
  return (
    <details className={`sl-value sl-t-${value.t}`}>
      <summary>
        {label}
        {label && ' = '}
        <span className="sl-kind">{kind}</span> <span className="sl-id">{ident(id)}</span>{' '}
        <span className="sl-preview">{preview(value)}</span>
        {tree.sized && <span className="sl-note"> ({t(locale, 'items', { n: count })})</span>}
      </summary>
      <ul>
        {children.map(([key, child], i) => (
          <li key={i}>
            <ValueView value={child} locale={locale} name={key} />
          </li>
        ))}
        {(hidden > 0 || more) && <li className="sl-note">{t(locale, 'more')}</li>}
      </ul>
    </details>
  );
}
