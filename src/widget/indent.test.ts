import { describe, expect, it } from 'vitest';
import { indentColumns } from './indent';

describe('indentColumns: where a line starts, as the editor draws it (a tab as four columns)', () => {
  it('counts spaces and tabs before the first character', () => {
    expect(indentColumns('return x')).toBe(0);
    expect(indentColumns('        return x')).toBe(8);
    expect(indentColumns('\t\treturn x')).toBe(8);
    expect(indentColumns('\t  x = 1  # \t')).toBe(6);
    expect(indentColumns('   ')).toBe(3);
  });
});
