/**
 * A legitimate document that takes a render thread seconds and a few hundred MiB of heap: many
 * paragraphs of words that never repeat (nothing comes from the shaping cache). About 4 pages and
 * 40 ms of a warm thread per 16 paragraphs on a 2-core machine (800 paragraphs: 200 pages, ~8 s,
 * ~330 MiB of heap). For tests and benches of render deadlines, memory limits and fairness.
 */

/** The template: one paragraph per item of `paragraphs`. */
export const SLOW_DEFINITION = {
  content: [{ text: 'Slow document {{n}}', fontSize: 14 }, { each: 'paragraphs', as: 'p', content: [{ text: '{{p}}' }] }],
};

/** Data for SLOW_DEFINITION: `count` paragraphs of 300 distinct words; `seed` varies the words. */
export function slowDocumentData(count: number, seed = 0): { n: number; paragraphs: string[] } {
  const paragraphs = Array.from({ length: count }, (_, p) =>
    Array.from({ length: 300 }, (_, w) => ((w * 7919 + (p + seed * count) * 104_729) % 1_000_003).toString(36)).join(' '),
  );
  return { n: seed, paragraphs };
}
