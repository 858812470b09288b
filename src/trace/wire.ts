/**
 * A trace on its way from the worker to the page: the run's JSON, ASCII (every other character
 * escaped, so a lone surrogate arrives as it was), raw deflate, in an ArrayBuffer that is
 * transferred, not cloned (packed by the tracer, `pack` in steplight_tracer.py). A trace repeats
 * itself step after step: 160-280 bytes a step as JSON, 4-9 packed from 1k steps on.
 */
import type { Trace } from './types';

/** Whether this browser can unpack (DecompressionStream: Chromium 80, Firefox 113, Safari 16.4). */
export const canUnpack = (): boolean => typeof DecompressionStream === 'function';

export async function unpackTrace(packed: ArrayBuffer | Uint8Array): Promise<Trace> {
  const stream = new Blob([packed as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return JSON.parse(await new Response(stream).text()) as Trace;
}
