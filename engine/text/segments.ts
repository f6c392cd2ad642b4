/**
 * Intl.Segmenter in time linear in the text's length.
 *
 * V8's segment iterator costs time proportional to the whole string at every step, so iterating a
 * long string is quadratic (a 160,000-character word took seconds to split into lines). The text
 * is segmented in windows of {@link WINDOW} code units instead: every segment of a window but its
 * last is final (a boundary depends only on the characters around it), and the last one is
 * segmented again at the start of the next window, where it may continue. A single segment longer
 * than a window (a base character with thousands of combining marks) is cut at the window's end.
 */

/** Code units segmented at once: long enough for any real grapheme cluster or dictionary word. */
const WINDOW = 256;

/**
 * The segments of `text` as [start, end) offsets in UTF-16 code units, in order, covering the text.
 * Same boundaries as `segmenter.segment(text)` except inside a segment longer than 256 code units.
 */
export function* segmentRanges(text: string, segmenter: Intl.Segmenter): Generator<[number, number]> {
  let pos = 0;
  while (pos < text.length) {
    const end = Math.min(text.length, pos + WINDOW);
    const window = end === text.length && pos === 0 ? text : text.slice(pos, end);
    let last = 0;
    for (const { index } of segmenter.segment(window)) {
      if (index > last) yield [pos + last, pos + index];
      last = index;
    }
    if (end === text.length || last === 0) {
      // The text's end, or one segment fills the whole window: it ends here.
      yield [pos + last, end];
      pos = end;
    } else {
      pos += last; // the window's last segment may go on: segment it again with what follows
    }
  }
}

const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The grapheme clusters of `text` as [start, end) offsets, in order (see {@link segmentRanges}). */
export function graphemeRanges(text: string): Generator<[number, number]> {
  return segmentRanges(text, graphemeSegmenter);
}
