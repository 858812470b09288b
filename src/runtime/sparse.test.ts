/** The stored form of a memory snapshot gives back the same bytes, and refuses anything else. */
import { loadPyodide } from 'pyodide';
import { describe, expect, it } from 'vitest';
import { tracerSource } from './node';
import { createRunner, memorySnapshot } from './runner';
import { fromSparse, toSparse } from './sparse';

const PAGE = 4096;
/** Byte for byte (vitest's toEqual on megabytes of typed array takes seconds to minutes). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
/** A deterministic heap: pages of noise, lone zero pages, short and long zero runs, a ragged end. */
function heap(pages: number, seed: number, tail = 0): Uint8Array {
  const out = new Uint8Array(pages * PAGE + tail);
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  for (let p = 0; p < pages; p++) {
    const kind = next() % 10;
    if (kind < 3) continue; // a zero page (runs of them happen)
    if (kind === 3) p += next() % 40; // a longer zero run
    else for (let i = p * PAGE; i < Math.min(out.length, (p + 1) * PAGE); i += 1 + (next() % 700)) out[i] = 1 + (next() % 255);
  }
  for (let i = pages * PAGE; i < out.length; i++) out[i] = i % 7;
  return out;
}

describe('sparse snapshots', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7])('give back the same bytes (heap %i)', (seed) => {
    const bytes = heap(300 + seed * 37, seed + 1, seed % 2 ? 0 : 4 * (seed + 1));
    const stored = toSparse(bytes);
    expect(same(fromSparse(stored), bytes)).toBe(true);
  });

  it('all zeros, all noise, one page, nothing', () => {
    for (const bytes of [new Uint8Array(64 * PAGE), heap(64, 9).map((b, i) => b || (i % 251) + 1), new Uint8Array(PAGE).fill(3), new Uint8Array(0)]) {
      expect(same(fromSparse(toSparse(bytes)), bytes)).toBe(true);
    }
    expect(toSparse(new Uint8Array(64 * PAGE)).byteLength).toBe(12); // a header and no pages
  });

  it('a real started Python: the same bytes, about half as many stored', async () => {
    const py = (await loadPyodide({ _makeSnapshot: true } as object)) as Parameters<typeof memorySnapshot>[0];
    createRunner(py, tracerSource());
    const snapshot = memorySnapshot(py);
    const stored = toSparse(snapshot);
    expect(same(fromSparse(stored), snapshot)).toBe(true);
    expect(stored.byteLength).toBeLessThan(snapshot.byteLength * 0.7);
  }, 120_000);

  it('refuses what it did not write: another format, a cut, bytes added, runs out of order', () => {
    const stored = toSparse(heap(200, 42));
    const words = (s: Uint8Array) => new DataView(s.buffer, s.byteOffset, s.byteLength);
    expect(() => fromSparse(new Uint8Array(1024))).toThrow(/magic/);
    expect(() => fromSparse(stored.subarray(0, 8))).toThrow(/too short/);
    expect(() => fromSparse(stored.subarray(0, stored.byteLength - 1))).toThrow(/cut short/);
    const longer = new Uint8Array(stored.byteLength + 4);
    longer.set(stored);
    expect(() => fromSparse(longer)).toThrow(/left over/);
    const swapped = stored.slice();
    const count = words(swapped).getUint32(8, true);
    expect(count).toBeGreaterThan(1);
    words(swapped).setUint32(20, 0, true); // the second run starts where the first does
    expect(() => fromSparse(swapped)).toThrow(/order/);
  });
});
