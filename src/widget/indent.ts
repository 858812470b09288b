/**
 * A code line's indentation in columns, a tab as four: the hanging indent of a wrapped line (the
 * editor's, in codeview.ts, and its listing's before it is made, in CodePane.tsx) starts from it.
 */
export const indentColumns = (text: string) => /^[ \t]*/.exec(text)![0].replace(/\t/g, '    ').length;
