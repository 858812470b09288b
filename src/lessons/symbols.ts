/** Find a Python function (or class, or Class.method) in source text, with its real line numbers. */

export interface SymbolRange {
  /** 1-based, first line of the definition (its first decorator, if any). */
  firstLine: number;
  /** 1-based, the `def`/`class` line itself. */
  defLine: number;
  /** 1-based, last non-blank line of the body. */
  lastLine: number;
  code: string;
}

/** For each line: does it start inside a bracket or a triple-quoted string (a continuation line)? */
function continuationLines(lines: string[]): boolean[] {
  const out: boolean[] = [];
  let depth = 0;
  let triple: string | null = null;
  for (const line of lines) {
    out.push(depth > 0 || triple !== null);
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (triple) {
        if (ch === '\\') i++;
        else if (line.startsWith(triple, i)) {
          i += 2;
          triple = null;
        }
      } else if (ch === '#') break;
      else if (ch === '"' || ch === "'") {
        if (line.startsWith(ch.repeat(3), i)) {
          triple = ch.repeat(3);
          i += 2;
        } else {
          for (i++; i < line.length && line[i] !== ch; i++) if (line[i] === '\\') i++;
        }
      } else if ('([{'.includes(ch)) depth++;
      else if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
    }
  }
  return out;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const isCode = (line: string) => line.trim() !== '' && !line.trim().startsWith('#');

/** The block `def|class name` at exactly `indent`, searched in lines [from, to). */
function findBlock(lines: string[], cont: boolean[], name: string, from: number, to: number, indent: number) {
  const pattern = new RegExp(`^(\\s*)(?:async\\s+def|def|class)\\s+${name}\\b`);
  for (let i = from; i < to; i++) {
    const m = cont[i] ? null : pattern.exec(lines[i]!);
    if (!m || m[1]!.length !== indent) continue;
    let end = i;
    for (let j = i + 1; j < to; j++) {
      if (cont[j] || !isCode(lines[j]!)) continue;
      if (indentOf(lines[j]!) <= indent) break;
      end = j;
    }
    // A body's continuation lines (closing brackets, string ends) after the last code line.
    while (end + 1 < to && cont[end + 1] && lines[end + 1]!.trim() !== '') end++;
    let first = i;
    while (first > 0 && !cont[first - 1] && lines[first - 1]!.trim().startsWith('@') && indentOf(lines[first - 1]!) === indent) first--;
    return { first, def: i, end, indent };
  }
  return null;
}

export function extractSymbol(source: string, symbol: string): SymbolRange | null {
  const lines = source.split(/\r?\n/);
  const cont = continuationLines(lines);
  let from = 0;
  let to = lines.length;
  let indent = 0;
  let block: ReturnType<typeof findBlock> = null;
  for (const part of symbol.split('.')) {
    if (!/^[A-Za-z_]\w*$/.test(part)) return null;
    block = findBlock(lines, cont, part, from, to, indent);
    if (!block) return null;
    from = block.def + 1;
    to = block.end + 1;
    const body = lines.slice(from, to).findIndex((line, k) => !cont[from + k] && isCode(line));
    indent = body < 0 ? Infinity : indentOf(lines[from + body]!);
  }
  if (!block) return null;
  return {
    firstLine: block.first + 1,
    defLine: block.def + 1,
    lastLine: block.end + 1,
    code: lines.slice(block.first, block.end + 1).join('\n'),
  };
}
