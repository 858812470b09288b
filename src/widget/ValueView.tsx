/** A typed trace value as an expandable tree. Everything is rendered as text, never as HTML. */
import { useState, type ReactNode } from 'react';
import { preview, scalar } from '../trace/preview';
import type { Value } from '../trace/types';
import { t } from './i18n';
import type { Locale } from '../lessons/types';

const ident = (id: number) => `#${id}`;

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
  return <Branches value={value} tree={tree} locale={locale} label={label} />;
}

/**
 * A container or object: its summary, and its items once the reader opens it. Closed, its items
 * are not made at all: after a first run of run_hooks 122 of the variables panel's 184 elements
 * were inside closed values, made (and rendered by React) in the frame that drew the result.
 */
function Branches({ value, tree, locale, label }: { value: Value; tree: Tree; locale: Locale; label: ReactNode }) {
  const [open, setOpen] = useState(false);
  const { kind, id, count, children, more } = tree;
  const hidden = count - children.length;
  return (
    <details className={`sl-value sl-t-${value.t}`} open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        {label}
        {label && ' = '}
        <span className="sl-kind">{kind}</span> <span className="sl-id">{ident(id)}</span>{' '}
        <span className="sl-preview">{preview(value)}</span>
        {tree.sized && <span className="sl-note"> ({t(locale, count === 1 ? 'item' : 'items', { n: count })})</span>}
      </summary>
      {open && (
        <ul>
          {children.map(([key, child], i) => (
            <li key={i}>
              <ValueView value={child} locale={locale} name={key} />
            </li>
          ))}
          {(hidden > 0 || more) && <li className="sl-note">{t(locale, 'more')}</li>}
        </ul>
      )}
    </details>
  );
}
