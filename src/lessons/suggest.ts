/** "Did you mean …?" for names an author or embedder typed (lesson keys, files, symbols, widget ids). */
import { closest, distance } from 'fastest-levenshtein';

/** `name`'s nearest neighbour among `known`, when it is near enough to be a likely typo. */
export function suggest(name: string, known: readonly string[]): string | undefined {
  if (!known.length) return undefined;
  const best = closest(name, known as string[]);
  return distance(name, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** ", did you mean "x"?" or nothing. */
export const didYouMean = (name: string, known: readonly string[]) => {
  const best = suggest(name, known);
  return best ? `; did you mean "${best}"?` : '';
};
