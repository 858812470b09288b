/** bench/million.ts, in the page: unpack the packed trace it was handed, then index it (kept on window). */
import { indexTrace } from '../src/replay/replay';
import type { Trace } from '../src/trace/types';
import { unpackTrace } from '../src/trace/wire';

const w = window as unknown as { packed: Uint8Array; trace?: Trace; index?: unknown };
export async function unpack(): Promise<number> {
  const t = performance.now();
  w.trace = await unpackTrace(w.packed);
  return performance.now() - t;
}
export function index(): number {
  const t = performance.now();
  w.index = indexTrace(w.trace!);
  return performance.now() - t;
}
