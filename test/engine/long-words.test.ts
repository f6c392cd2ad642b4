/**
 * Long unbreakable words: grapheme segmentation in bounded windows gives the same clusters as
 * Intl.Segmenter over the whole string, and words of tens or hundreds of thousands of characters
 * are broken into lines with every character kept, in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { graphemeRanges, segmentRanges } from '../../engine/text/segments.ts';
import { breakLines, prepareParagraph } from '../../engine/text/paragraph.ts';
import { TextStyles, rootStyle } from '../../engine/layout/style.ts';
import { bundledFontLibrary } from '../../engine/index.ts';
import { pdfToText } from '../helpers/pdf.ts';
import { render } from '../helpers/render.ts';

/** Pieces text is made of: letters, digits, spaces, combining marks, surrogate pairs, ZWJ emoji, flags, Thai. */
const PIECES = ['a', 'Z', '7', ' ', 'é', 'e\u0301', 'e\u0301\u0302\u0303', '\u{1F600}', '\u{1F469}\u200D\u{1F4BB}', '\u{1F1E9}\u{1F1EA}', 'ก', 'ข้', '\r\n', '\u0915\u094D\u0937', 'ﬁ'];
const textArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 1200 }).map((parts) => parts.join(''));

function direct(text: string, segmenter: Intl.Segmenter): [number, number][] {
  const out: [number, number][] = [];
  for (const { index, segment } of segmenter.segment(text)) out.push([index, index + segment.length]);
  return out;
}

test('graphemeRanges: the same clusters as Intl.Segmenter over the whole string (property)', () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  fc.assert(
    fc.property(textArb, (text) => {
      assert.deepEqual([...graphemeRanges(text)], direct(text, segmenter));
    }),
    { numRuns: 300 },
  );
});

test('segmentRanges: Thai word boundaries in windows match the whole string for text of short words (property)', () => {
  const segmenter = new Intl.Segmenter('th', { granularity: 'word' });
  const words = ['ภาษา', 'ไทย', 'สวัสดี', 'ครับ', 'โลก', ' ', 'กิน', 'ข้าว'];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...words), { maxLength: 400 }), (parts) => {
      const text = parts.join('');
      const got = [...segmentRanges(text, segmenter)];
      // Ranges cover the text in order, without gaps.
      let at = 0;
      for (const [s, e] of got) {
        assert.equal(s, at);
        assert.ok(e > s);
        at = e;
      }
      assert.equal(at, text.length);
      assert.deepEqual(got, direct(text, segmenter));
    }),
    { numRuns: 100 },
  );
});

test('segmentRanges: a cluster longer than the window is cut, and nothing is lost', () => {
  const text = 'x' + 'e' + '\u0301'.repeat(1000) + 'y';
  const ranges = [...graphemeRanges(text)];
  assert.equal(ranges.map(([s, e]) => text.slice(s, e)).join(''), text);
  assert.ok(ranges.every(([s, e]) => e > s));
});

/**
 * A word of `n` characters in which any two characters in a row tell where they are within 1,225
 * characters, so a lost or repeated stretch shows up. No "f": no ligatures, one glyph per character.
 */
function word(n: number, alphabet = 'abcdeghijklmnopqrstuvwxyz0123456789'): string {
  let s = '';
  for (let i = 0; s.length < n; i++) s += alphabet[i % alphabet.length] + alphabet[Math.floor(i / alphabet.length) % alphabet.length];
  return s.slice(0, n);
}

function lineBreak(text: string, width: number) {
  const fonts = bundledFontLibrary();
  const styles = new TextStyles(fonts);
  const style = styles.of(rootStyle(undefined, fonts.defaultFamily));
  return breakLines(prepareParagraph([{ text, style }]), width, 'start');
}

test('breakLines: a 400,000-character word fills lines of at most the width with every glyph, in order', () => {
  const text = word(400_000);
  const lines = lineBreak(text, 300);
  assert.ok(lines.length > 1000, `${lines.length} lines`);
  let glyphs = 0;
  let joined = '';
  for (const line of lines) {
    assert.ok(line.width <= 300 + 1e-6, `line width ${line.width}`);
    for (const run of line.runs) for (const p of run.pieces) {
      glyphs += p.run.glyphs.length;
      joined += p.text;
    }
  }
  assert.equal(glyphs, text.length);
  assert.equal(joined, text);
});

test('breakLines: a long word shaped with ligatures (fi) is cut between clusters with every character kept', () => {
  const text = 'fi'.repeat(5000) + word(2000);
  const lines = lineBreak(text, 200);
  let joined = '';
  for (const line of lines) {
    assert.ok(line.width <= 200 + 1e-6);
    for (const run of line.runs) for (const p of run.pieces) joined += p.text;
  }
  assert.equal(joined, text);
});

test('a 50,000-character word from a placeholder renders on pages with every character, in order', async () => {
  const text = word(50_000);
  const r = await render({ page: { size: 'A4', margin: 40 }, content: [{ text: '{{t}}' }] }, { t: text });
  assert.ok(r.pages >= 5, `${r.pages} pages`);
  const extracted = r.doc.pages.map((p) => p.text.replace(/\n/g, '')).join('');
  assert.equal(extracted, text);
});

test('a 400,000-character word renders on pages with every character, in order', async () => {
  const text = word(400_000);
  const { renderPdf } = await import('../../engine/index.ts');
  const r = await renderPdf({ page: { size: 'A4', margin: 40 }, content: [{ text: '{{t}}' }] }, { t: text });
  assert.ok(r.pages > 50, `${r.pages} pages`);
  const extracted = pdfToText(r.pdf).replace(/\s/g, '');
  assert.equal(extracted, text);
});

test('a 60,000-letter word in justified, hyphenated text renders whole (no hyphenation of words over 100 letters)', async () => {
  const letters = 'abcdeghijklmnopqrstuvwxyz';
  let text = '';
  for (let i = 0; text.length < 60_000; i++) text += letters[i % 25] + letters[Math.floor(i / 25) % 25];
  const r = await render({ metadata: { language: 'en' }, content: [{ text: `Hyphenated words around it {{t}} remain hyphenatable`, textAlign: 'justify' }] }, { t: text });
  const extracted = r.doc.pages.map((p) => p.text.replace(/\n/g, '')).join('');
  assert.ok(extracted.replace(/\s/g, '').includes(text), 'the long word is whole, without hyphens');
});

test('a word cut across lines ends each line with its last glyph\'s own advance (no kerning against the next line): right-aligned, nothing passes the margin', async () => {
  // "L" before "O" and "Z" before "A" are kerning pairs in Noto Sans: cut there, the kerned advance
  // was counted and the letter drawn 0.6 pt past the right margin.
  const r = await render({ page: { size: [300, 300], margin: 40 }, content: [{ text: 'SANEKAJORUJOFETRIERERYALZANSICHEXHULODALPINEGIL', fontSize: 30, textAlign: 'right' }] });
  const runs = r.doc.pages[0].runs;
  assert.ok(runs.length >= 4, `${runs.length} lines`);
  for (const run of runs) assert.ok(Math.abs(run.x + run.width - 260) < 0.01, `"${run.str}" ends at ${run.x + run.width}, not at the margin (260)`);
  assert.equal(runs.map((x) => x.str).join(''), 'SANEKAJORUJOFETRIERERYALZANSICHEXHULODALPINEGIL');
});
