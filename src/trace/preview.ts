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

/**
 * At most `budget` characters, ending in "…" when cut — and never in the middle of a name or a
 * number: the cut moves back to the last boundary (space, punctuation, bracket) when one is near.
 */
export function clip(s: string, budget: number): string {
  if (s.length <= budget) return s;
  let cut = budget - 1;
  const word = /[\p{L}\p{N}_]/u;
  if (word.test(s[cut - 1] ?? '') && word.test(s[cut] ?? '')) {
    let k = cut - 1;
    while (k > 0 && word.test(s[k - 1]!)) k--;
    if (k > budget / 3) cut = k;
  }
  return `${s.slice(0, cut).trimEnd()}…`;
}

/**
 * Items joined by ", " between `open` and `close`, built only as far as a cut to `budget` reads:
 * clip() reads the first `budget` characters and whether there are more, so the rest of a big
 * value (a list of 50 dicts, each previewed in turn) is never built.
 */
function joined(open: string, parts: Iterable<string>, tail: string, close: string, budget: number): string {
  let text = open;
  let first = true;
  for (const part of parts) {
    text += first ? part : `, ${part}`;
    first = false;
    if (text.length > budget) return text;
  }
  return `${text}${tail}${close}`;
}

function* map<T>(items: T[], f: (item: T) => string) {
  for (const item of items) yield f(item);
}

/** A one-line preview, for summaries. */
export function preview(value: Value, budget = 60): string {
  const s = scalar(value);
  if (s !== null) return clip(s, budget);
  switch (value.t) {
    case 'dict': {
      const entries = value.entries ?? [];
      const tail = value.more || entries.length < value.len ? ', …' : '';
      return clip(joined('{', map(entries, ([k, v]) => `${preview(k, 20)}: ${preview(v, 20)}`), tail, '}', budget), budget);
    }
    case 'list':
    case 'tuple':
    case 'set':
    case 'frozenset': {
      const [open, close] = value.t === 'list' ? ['[', ']'] : value.t === 'tuple' ? ['(', ')'] : ['{', '}'];
      const items = value.items ?? [];
      const tail = value.more || items.length < value.len ? ', …' : '';
      return clip(joined(open, map(items, (v) => preview(v, 20)), tail, close, budget), budget);
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
