/** One-line Python-like previews of typed trace values (the widget, the text trace, messages). */
import type { Value } from './types';

const ident = (id: number) => `#${id}`;

export function scalar(value: Value): string | null {
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
