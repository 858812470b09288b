import { describe, expect, it } from 'vitest';
import { clip, preview, scalar } from './preview';
import type { Value } from './types';

describe('value previews', () => {
  it('are cut at a boundary, never inside a name', () => {
    expect(clip('short', 20)).toBe('short');
    expect(clip('<function note_call>, <function check_program>', 30)).toBe('<function note_call>, <…');
    expect(clip('abcdefghijklmnopqrstuvwxyz', 10)).toBe('abcdefghi…'); // one long word: cut where it must
    const text = preview({ t: 'dict', id: 1, len: 2, entries: [[{ t: 'str', v: 'before' }, { t: 'list', id: 2, len: 1, items: [{ t: 'func', name: 'note_call', id: 3 }] }], [{ t: 'str', v: 'after' }, { t: 'list', id: 4, len: 0, items: [] }]] });
    expect(text).not.toMatch(/note_ca…|note_cal…/);
  });
});

/** The preview as it was first written: the whole text built, then cut (the reference). */
function whole(value: Value, budget = 60): string {
  const s = scalar(value);
  if (s !== null) return clip(s, budget);
  switch (value.t) {
    case 'dict':
      return clip(`{${(value.entries ?? []).map(([k, v]) => `${whole(k, 20)}: ${whole(v, 20)}`).join(', ')}${value.more || (value.entries?.length ?? 0) < value.len ? ', …' : ''}}`, budget);
    case 'list':
    case 'tuple':
    case 'set':
    case 'frozenset': {
      const [open, close] = value.t === 'list' ? ['[', ']'] : value.t === 'tuple' ? ['(', ')'] : ['{', '}'];
      return clip(`${open}${(value.items ?? []).map((v) => whole(v, 20)).join(', ')}${value.more || (value.items?.length ?? 0) < value.len ? ', …' : ''}${close}`, budget);
    }
    case 'ref':
      return `↺ #${value.id}`;
    case 'exc':
      return `${value.type}(${value.args.map((a) => whole(a, 30)).join(', ')})`;
    case 'obj':
      return `<${value.type} #${value.id}>`;
  }
  return '';
}

describe('a preview built only as far as its cut reads', () => {
  it('is the whole text cut, for 5,000 random values and budgets', () => {
    let seed = 12345;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const words = ['a', 'note_call', 'x y', '变量', 'run_main', '', 'é', '1234567890123456789012345'];
    const value = (depth: number): Value => {
      const pick = rand(depth > 3 ? 6 : 10);
      switch (pick) {
        case 0: return { t: 'none' };
        case 1: return { t: 'int', v: rand(100000) - 500 };
        case 2: return { t: 'str', v: Array.from({ length: rand(4) }, () => words[rand(words.length)]).join(' ') };
        case 3: return { t: 'func', name: words[rand(words.length)]!, id: rand(50) };
        case 4: return { t: 'float', v: rand(1000) / 8 };
        case 5: return { t: 'ref', id: rand(9), of: 'dict' };
        case 6: case 7: {
          const items = Array.from({ length: rand(8) }, () => value(depth + 1));
          return { t: (['list', 'tuple', 'set'] as const)[rand(3)]!, id: rand(99), len: items.length + rand(2), items, ...(rand(5) ? {} : { more: true as const }) };
        }
        default: {
          const entries = Array.from({ length: rand(6) }, () => [value(depth + 1), value(depth + 1)] as [Value, Value]);
          return { t: 'dict', id: rand(99), len: entries.length + rand(2), entries };
        }
      }
    };
    for (let k = 0; k < 5000; k++) {
      const v = value(0);
      const budget = [10, 20, 40, 60, 200][rand(5)]!;
      expect(preview(v, budget)).toBe(whole(v, budget));
    }
  });
});
