/**
 * A legitimate document that takes a render thread seconds and a few hundred MiB of heap: many
 * paragraphs of words that never repeat (nothing comes from the shaping cache). About 4 pages and
 * 40-50 ms of a warm thread per 16 paragraphs on a 2-core machine (800 paragraphs: 200 pages,
 * 2-2.5 s, ~330 MiB of heap; 1,200 paragraphs: 3-3.5 s). A test that needs a render to outlast a
 * deadline keeps a wide margin: engine speed-ups shorten these times. At most ~1,300 paragraphs
 * (1,500 characters each) stay under the default 2 million characters of text.
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
