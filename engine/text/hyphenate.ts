/**
 * Hyphenation for justified text: Liang patterns from the `hyphen` package, loaded on first use
 * for each language and kept for the process. Words get soft hyphens (U+00AD) where they may
 * break; the paragraph code shows a hyphen only where a line actually ends there. Hyphenated words
 * are kept in the engine's `hyphenation` cache (caches.ts).
 */
import { createRequire } from 'node:module';
import { caches } from '../caches.ts';

type Hyphenator = (word: string) => string;

const require = createRequire(import.meta.url);
const byLanguage = new Map<string, Hyphenator | null>();
/**
 * Longer words are left whole: no dictionary word is this long, and the patterns take time
 * quadratic in a word's length (a 80,000-letter word took 20 s).
 */
const MAX_WORD_LENGTH = 100;

/** Pattern module names to try for a BCP 47 tag: "de-AT" -> de-at, de. */
function candidates(language: string): string[] {
  const tag = language.toLowerCase();
  const primary = tag.split('-')[0];
  return tag === primary ? [tag] : [tag, primary];
}

/**
 * A hyphenator for `language`, or undefined when the package has no patterns for it. Words longer
 * than 100 characters come back unchanged.
 */
export function hyphenatorFor(language: string | undefined): Hyphenator | undefined {
  if (!language || !/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(language)) return undefined;
  const hit = byLanguage.get(language);
  if (hit !== undefined) return hit ?? undefined;
  let hyphenator: Hyphenator | null = null;
  for (const name of candidates(language)) {
    let mod: { hyphenateSync(text: string, options?: object): string };
    try {
      mod = require(`hyphen/${name}`);
    } catch {
      continue;
    }
    const prefix = `${language}\u0000`;
    hyphenator = (word) => {
      if (word.length > MAX_WORD_LENGTH) return word;
      return caches.hyphenation.getOrCompute(prefix + word, () => mod.hyphenateSync(word, { minWordLength: 5 }));
    };
    break;
  }
  byLanguage.set(language, hyphenator);
  return hyphenator ?? undefined;
}
