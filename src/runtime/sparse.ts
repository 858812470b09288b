/**
 * A memory snapshot without its empty pages. Half of a started Python's 30 MB heap is zero pages,
 * most of them in a few long runs (the free heap, the unused top of memory), so the stored file is
 * about half as long and a warm start reads half as much. Layout, little-endian 32-bit words:
 * MAGIC, the snapshot's length in bytes, the number of kept runs, then each run's first page and
 * page count; then the kept pages one after another (the last one may be short).
 */
const MAGIC = 0x31534c53; // "SLS1"
const PAGE = 4096;
/** Zero runs shorter than this stay in (fewer, longer copies). */
const MIN_GAP = 16;

function isZeroPage(words: Uint32Array, page: number): boolean {
  const end = Math.min(words.length, (page + 1) * (PAGE / 4));
  for (let i = page * (PAGE / 4); i < end; i++) if (words[i] !== 0) return false;
  return true;
}

/** The snapshot with its long runs of zero pages left out (any length; a copy). */
export function toSparse(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength > 0xffff_ffff || bytes.byteLength % 4 !== 0 || bytes.byteOffset % 4 !== 0) throw new Error('a snapshot is a whole number of 32-bit words, under 4 GB');
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const pages = Math.ceil(bytes.byteLength / PAGE);
  const runs: [number, number][] = []; // [first page, count] of the pages kept
  let page = 0;
  while (page < pages) {
    let zeros = 0;
    while (page + zeros < pages && isZeroPage(words, page + zeros)) zeros++;
    if (zeros >= MIN_GAP || page + zeros === pages) page += zeros;
    else {
      const last = runs.at(-1);
      // the short gap (if any) and this page join the run before when they touch it
      if (last && last[0] + last[1] === page) last[1] += zeros + 1;
      else runs.push([page, zeros + 1]);
      page += zeros + 1;
    }
  }
  const kept = runs.reduce((sum, [first, count]) => sum + Math.min(bytes.byteLength, (first + count) * PAGE) - first * PAGE, 0);
  const head = 3 + 2 * runs.length;
  const out = new Uint8Array(head * 4 + kept);
  const header = new DataView(out.buffer);
  [MAGIC, bytes.byteLength, runs.length, ...runs.flat()].forEach((word, i) => header.setUint32(i * 4, word, true));
  let at = head * 4;
  for (const [first, count] of runs) {
    const part = bytes.subarray(first * PAGE, Math.min(bytes.byteLength, (first + count) * PAGE));
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** The snapshot as it was; throws on anything toSparse did not write. */
export function fromSparse(stored: Uint8Array): Uint8Array {
  const bad = (why: string) => new Error(`not a stored snapshot: ${why}`);
  if (stored.byteLength < 12) throw bad('too short');
  const header = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  if (header.getUint32(0, true) !== MAGIC) throw bad('wrong magic number');
  const length = header.getUint32(4, true);
  const count = header.getUint32(8, true);
  let at = 12 + 8 * count;
  if (at > stored.byteLength) throw bad('header cut short');
  const out = new Uint8Array(length);
  let end = 0;
  for (let k = 0; k < count; k++) {
    const first = header.getUint32(12 + 8 * k, true) * PAGE;
    const size = Math.min(length, first + header.getUint32(16 + 8 * k, true) * PAGE) - first;
    if (first < end || size <= 0 || at + size > stored.byteLength) throw bad('runs out of order or cut short');
    out.set(stored.subarray(at, at + size), first);
    at += size;
    end = first + size;
  }
  if (at !== stored.byteLength) throw bad('bytes left over');
  return out;
}
