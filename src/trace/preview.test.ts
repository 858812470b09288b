import { describe, expect, it } from 'vitest';
import { clip, preview } from './preview';

describe('value previews', () => {
  it('are cut at a boundary, never inside a name', () => {
    expect(clip('short', 20)).toBe('short');
    expect(clip('<function note_call>, <function check_program>', 30)).toBe('<function note_call>, <…');
    expect(clip('abcdefghijklmnopqrstuvwxyz', 10)).toBe('abcdefghi…'); // one long word: cut where it must
    const text = preview({ t: 'dict', id: 1, len: 2, entries: [[{ t: 'str', v: 'before' }, { t: 'list', id: 2, len: 1, items: [{ t: 'func', name: 'note_call', id: 3 }] }], [{ t: 'str', v: 'after' }, { t: 'list', id: 4, len: 0, items: [] }]] });
    expect(text).not.toMatch(/note_ca…|note_cal…/);
  });
});
