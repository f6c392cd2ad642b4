/**
 * Typography (font stacks and fallback, bidi, word breaks without spaces, hyphenation, letter
 * spacing, OpenType features, start/end alignment), checked by reading the PDFs back: text runs
 * with positions from pdfjs, embedded fonts from poppler's pdffonts.
 * Pagination rules (widows, orphans, keepWithNext) are in pagination-rules.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bidiModule from 'bidi-js';
import { BUNDLED_FONT_DIR, FontLibrary, renderPdf, validateTemplate, type RenderOptions, type RenderWarning } from '../../engine/index.ts';
import { pdfFonts, pdfToText, readPdf, type ReadPdf, type TextRun } from '../helpers/pdf.ts';
import { pdfOperators, textLines, unionBox } from '../helpers/pdfops.ts';
import { example, NOW, renderError } from '../helpers/render.ts';

// bidi-js is CommonJS: its default import is the factory (as in engine/text/paragraph.ts).
const bidi = (bidiModule as unknown as typeof import('bidi-js').default)();
const require = createRequire(import.meta.url);
const hyphenEn = require('hyphen/en') as { hyphenateSync(text: string, options?: object): string };

/** Strong right-to-left letters (Hebrew, Arabic and their presentation forms). */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;
const SOFT_HYPHEN = '\u00ad';

interface Rendered {
  pdf: Buffer;
  pages: number;
  warnings: RenderWarning[];
  doc: ReadPdf;
}

async function render(definition: unknown, options: RenderOptions = {}): Promise<Rendered> {
  const r = await renderPdf(definition, {}, { now: NOW, ...options });
  return { ...r, doc: await readPdf(r.pdf) };
}

/** A page of `width` x 400 pt with 30 pt margins: the content box is [30, width - 30]. */
function page(width: number, content: unknown[]) {
  return { page: { size: [width, 400], margin: 30 }, content };
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Text of a right-to-left line in logical order: its runs from right to left (pdfjs gives each run's own text in logical order). */
function logicalRtl(runs: TextRun[]): string {
  return collapse([...runs].sort((a, b) => b.x - a.x).map((r) => r.str).join(''));
}

/** Text of a line in visual (left-to-right) order: runs by x, right-to-left runs turned back to the order their glyphs are drawn. */
function visualText(runs: TextRun[]): string {
  return collapse([...runs].sort((a, b) => a.x - b.x).map((r) => (RTL.test(r.str) ? [...r.str].reverse().join('') : r.str)).join(''));
}

/** Family names (without subset tags) that pdffonts lists. */
function embeddedFamilies(pdf: Buffer): string[] {
  const rows = pdfFonts(pdf);
  for (const f of rows) assert.ok(f.embedded && f.subset, `font ${f.name} is not an embedded subset`);
  return rows.map((f) => f.name.replace(/^[A-Z]{6}\+/, '')).sort();
}

/** The runs that draw something (not only white space). */
const inked = (runs: TextRun[]) => runs.filter((r) => r.str.trim() !== '');

// ---------------------------------------------------------------------------------------------
// Bidi

test('an Arabic paragraph extracts in logical order, its words run right to left and it is right-aligned', async () => {
  const text = 'السلام عليكم، يتحدث الناس اللغة العربية في بلدان كثيرة من المغرب إلى العراق ويكتبونها من اليمين إلى اليسار بحروف متصلة.';
  const r = await render(page(360, [{ text, direction: 'rtl', fontSize: 12 }]));
  assert.deepEqual(r.warnings, []);
  const lines = textLines(r.doc.pages[0]);
  assert.ok(lines.length >= 2, `expected the paragraph to wrap, got ${lines.length} line(s)`);
  // Runs read from right to left give the input back, line after line.
  const logical = lines.map((l) => logicalRtl(l.runs)).join(' ');
  assert.equal(logical.normalize('NFKC'), text.normalize('NFKC'));
  const letters = (s: string) => s.replace(/[^\p{L}]+/gu, '');
  const inputWords = text.split(' ').map(letters);
  let next = 0;
  for (const line of lines) {
    // The line's words from right to left are the input's next words: each sits left of the one before.
    const words = inked(line.runs).filter((run) => RTL.test(run.str)).sort((a, b) => b.x - a.x).flatMap((run) => run.str.trim().split(/\s+/).map(letters));
    assert.deepEqual(words, inputWords.slice(next, next + words.length));
    next += words.length;
    // Start alignment in a right-to-left paragraph: flush with the content box's right edge (330).
    assert.ok(Math.abs(line.right - 330) < 0.5, `line right edge ${line.right}, expected 330`);
  }
  assert.equal(next, inputWords.length);
  assert.ok(lines[lines.length - 1].left > 30 + 20, 'the last line is short and starts away from the left edge');
});

test('Arabic ligatures (lam-alef) extract as written', async () => {
  const text = 'لا سلام ولا كلام';
  const r = await render(page(360, [{ text, direction: 'rtl' }]));
  assert.equal(logicalRtl(r.doc.pages[0].runs).normalize('NFKC'), text);
});

test('a Latin + Hebrew + digits line is in the visual order UAX #9 gives (bidi-js reference)', async () => {
  const texts = ['abc אבג 123 def', 'abc אבג דהו 123 def ghi', 'Order 42 for יוסף כהן paid 1500 today', 'ab (גד) ef'];
  const r = await render(page(500, texts.map((text) => ({ text }))));
  const lines = textLines(r.doc.pages[0]);
  assert.equal(lines.length, texts.length);
  texts.forEach((text, i) => {
    const reference = collapse(bidi.getReorderedString(text, bidi.getEmbeddingLevels(text, 'ltr')));
    assert.equal(visualText(lines[i].runs), reference, `"${text}"`);
    assert.ok(Math.abs(lines[i].left - 30) < 0.5, `"${text}" starts at the left edge (ltr paragraph)`);
  });
  // The words, left to right, for the issue's example.
  const words = visualText(lines[0].runs).split(' ').map((w) => (RTL.test(w) ? [...w].reverse().join('') : w));
  assert.deepEqual(words, ['abc', '123', 'אבג', 'def']);
});

test('mirrored brackets: "(abc)" inside a right-to-left paragraph extracts with its brackets in place', async () => {
  for (const text of ['שלום (abc) עולם', 'مرحبا (abc) بكم']) {
    const r = await render(page(360, [{ text, direction: 'rtl' }]));
    const runs = r.doc.pages[0].runs;
    assert.equal(logicalRtl(runs), text);
    // Drawn between the two words, reading "(abc)" left to right.
    const latin = runs.find((run) => run.str.includes('abc'))!;
    assert.equal(latin.str.trim(), '(abc)');
    const [first, last] = [runs.find((run) => run.str === text.split(' ')[0])!, runs.find((run) => run.str === text.split(' ')[2])!];
    assert.ok(last.x < latin.x && latin.x < first.x, 'first word right, "(abc)" in the middle, last word left');
  }
});

test('direction "auto" takes the first strong character; start/end alignment follow the direction', async () => {
  const r = await render(
    page(360, [
      { text: 'שלום עולם, hello', direction: 'auto' },
      { text: 'hello, שלום עולם', direction: 'auto' },
      { text: 'שלום עולם', direction: 'rtl', textAlign: 'start' },
      { text: 'שלום עולם', direction: 'rtl', textAlign: 'end' },
      { text: 'hello world', textAlign: 'start' },
      { text: 'hello world', textAlign: 'end' },
      { text: 'שלום עולם', direction: 'rtl', textAlign: 'left' },
    ]),
  );
  const lines = textLines(r.doc.pages[0]);
  const side = lines.map((l) => (Math.abs(l.right - 330) < 0.5 ? 'right' : Math.abs(l.left - 30) < 0.5 ? 'left' : `? ${l.left}-${l.right}`));
  assert.deepEqual(side, ['right', 'left', 'right', 'left', 'left', 'right', 'left']);
});

test('blocks without an explicit align sit at the start side: a QR code in an rtl flow is on the right', async () => {
  const r = await renderPdf(page(360, [{ qrcode: 'https://example.com', size: 60, direction: 'rtl' }, { qrcode: 'https://example.com', size: 60, textAlign: 'end', margin: [10, 0, 0, 0] }]), {}, { now: NOW });
  const boxes = (await pdfOperators(r.pdf))[0].filledBoxes;
  const top = unionBox(boxes.filter((b) => b.y < 30 + 60));
  const bottom = unionBox(boxes.filter((b) => b.y > 30 + 60 + 5));
  assert.ok(Math.abs(top.x + top.width - 330) < 1, `rtl start: right edge ${top.x + top.width}`);
  assert.ok(Math.abs(bottom.x + bottom.width - 330) < 1, `ltr end: right edge ${bottom.x + bottom.width}`);
});

test('a table with direction "rtl" puts its first column on the right', async () => {
  const table = (columns: unknown[]) => ({
    table: { columns, header: [['first', 'second', 'third']], rows: [['a1', 'b1', 'c1'], [{ text: 'span', colSpan: 2 }, 'c2']] },
    direction: 'rtl',
    margin: [0, 0, 10, 0],
  });
  const r = await render(page(400, [table(['*', '*', '*']), table([60, 60, 60])]));
  const runs = r.doc.pages[0].runs;
  for (const nth of [0, 1]) {
    const at = (s: string) => runs.filter((run) => run.str.trim() === s)[nth];
    const [first, second, third] = ['first', 'second', 'third'].map(at);
    assert.ok(first.x > second.x && second.x > third.x, `table ${nth + 1}: header cells run right to left`);
    // Cells are right-aligned (start) within their padding: the first column touches the right edge.
    assert.ok(Math.abs(first.x + first.width - (370 - 4)) < 0.5, `table ${nth + 1}: first cell ends at ${first.x + first.width}, expected 366`);
    assert.ok(Math.abs(at('a1').x + at('a1').width - (370 - 4)) < 0.5);
    // The spanning cell covers the first two columns: on the right, across both.
    assert.ok(at('span').x > at('c2').x, `table ${nth + 1}: the colSpan cell is right of the third column`);
  }
});

test('a list with direction "rtl" has its markers and indent on the right', async () => {
  const r = await renderPdf(
    page(360, [
      { list: ['שלום עולם', 'עוד פריט'], marker: 'decimal', direction: 'rtl' },
      { list: ['שלום עולם', 'עוד פריט'], direction: 'rtl', margin: [10, 0, 0, 0] },
    ]),
    {},
    { now: NOW },
  );
  const doc = await readPdf(r.pdf);
  const lines = textLines(doc.pages[0]);
  assert.equal(lines.length, 4);
  for (const [i, line] of lines.slice(0, 2).entries()) {
    const marker = line.runs.find((run) => /\d/.test(run.str))!;
    const item = inked(line.runs).filter((run) => run !== marker);
    assert.equal(marker.str.replace('.', ''), String(i + 1));
    assert.ok(Math.abs(marker.x + marker.width - 330) < 0.5, `marker ${marker.str} ends at ${marker.x + marker.width}`);
    assert.ok(Math.max(...item.map((run) => run.x + run.width)) < marker.x, 'the item is left of its marker');
  }
  // Bullets (drawn shapes) sit right of their items, in the indent.
  const bullets = (await pdfOperators(r.pdf))[0].filledBoxes.filter((b) => b.y > lines[2].y - 12);
  assert.equal(bullets.length, 2);
  for (const [k, b] of bullets.entries()) {
    assert.ok(b.x > lines[2 + k].right && b.x + b.width <= 330 + 0.5, `bullet at ${b.x}, item ends at ${lines[2 + k].right}`);
  }
});

// ---------------------------------------------------------------------------------------------
// Fonts: stacks, fallback, scanned directories

test('Latin, Greek, Arabic, Devanagari and symbols embed the fallback fonts, without missing glyphs (also as PDF/A-2b)', async () => {
  const text = 'Latin Ελληνικά مرحبا नमस्ते ✓ ☃';
  const r = await render({ content: [{ text }] });
  assert.deepEqual(r.warnings, []);
  const families = embeddedFamilies(r.pdf);
  for (const name of ['NotoSans-Regular', 'NotoSansArabic-Regular', 'NotoSansDevanagari-Regular']) {
    assert.ok(families.includes(name), `${name} is not embedded: ${families.join(', ')}`);
  }
  assert.ok(families.some((f) => /^NotoSansSymbols2?-Regular$/.test(f)), `no Noto Sans Symbols font: ${families.join(', ')}`);
  // Nothing else (no standard-14 font, no font left unused).
  assert.equal(families.length, 4, families.join(', '));
  const words = textLines(r.doc.pages[0])[0].text.split(' ');
  assert.deepEqual(words.slice(0, 2), ['Latin', 'Ελληνικά']);
  assert.deepEqual(words.slice(-2), ['✓', '☃']);

  const a = await renderPdf({ content: [{ text }] }, {}, { now: NOW, pdfVariant: 'pdf/a-2b' });
  assert.deepEqual(a.warnings, []);
  assert.equal(a.pages, 1);
});

test('mathematical operators (price terms, specifications) are drawn from Noto Sans Math, without missing glyphs, also as PDF/A-1b', async () => {
  const text = 'x ≤ 5, y ≥ 2, a ≠ b ≈ c, √2, ∞, ∑ ∫ ∈ ⇒ ⇔';
  const r = await render({ content: [{ text }, { text, fontWeight: 'bold', fontFamily: 'serif' }] });
  assert.deepEqual(r.warnings, []);
  const families = embeddedFamilies(r.pdf);
  assert.ok(families.includes('NotoSansMath-Regular'), families.join(', '));
  assert.equal(textLines(r.doc.pages[0])[0].text, text);
  for (const pdfVariant of ['pdf/a-1b', 'pdf/a-2b'] as const) {
    const a = await renderPdf({ content: [{ text }] }, {}, { now: NOW, pdfVariant });
    assert.deepEqual(a.warnings, [], pdfVariant);
  }
});

test('a font stack ["Noto Serif", "Noto Sans Arabic"] draws Latin in Noto Serif and Arabic from the stack', async () => {
  const r = await render({ content: [{ text: 'Serif text مرحبا بالعالم 2024', fontFamily: ['Noto Serif', 'Noto Sans Arabic'] }] });
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(embeddedFamilies(r.pdf), ['NotoSansArabic-Regular', 'NotoSerif-Regular']);
  // The stack applies to bold too.
  const b = await render({ content: [{ text: 'Bold مرحبا', fontFamily: ['serif', 'Noto Sans Arabic'], fontWeight: 'bold' }] });
  assert.deepEqual(embeddedFamilies(b.pdf), ['NotoSansArabic-Bold', 'NotoSerif-Bold']);
});

test('an unknown family in a stack is refused with its path', async () => {
  const definition = { content: [{ text: 'x', fontFamily: ['Noto Serif', 'Comic Sans'] }] };
  const v = validateTemplate(definition);
  assert.equal(v.ok, false);
  assert.equal(!v.ok && v.errors[0].path, 'content[0].fontFamily[1]');
  assert.match(!v.ok ? v.errors[0].message : '', /Comic Sans/);
  const e = await renderError(definition);
  assert.equal(e.code, 'TEMPLATE_INVALID');
  assert.equal(e.issues[0].path, 'content[0].fontFamily[1]');
});

test('a character no font has (CJK) renders with a warning naming its code point', async () => {
  const r = await render({ content: [{ text: 'Kanji 漢 here' }] });
  assert.equal(r.pages, 1);
  assert.equal(r.warnings.length, 1);
  assert.equal(r.warnings[0].code, 'GLYPH_MISSING');
  assert.equal(r.warnings[0].path, 'content[0]');
  assert.match(r.warnings[0].message, /U\+6F22/);
});

/** A copy of a bundled font whose family and PostScript names are changed (same lengths), so it is a family no manifest lists. */
function renamedFont(): Buffer {
  let bytes = readFileSync(join(BUNDLED_FONT_DIR, 'NotoSansHebrew-Regular.ttf'));
  const utf16 = (s: string) => Buffer.from(s, 'utf16le').swap16();
  for (const [from, to] of [['Noto Sans Hebrew', 'Scan Test Hebrew'], ['NotoSansHebrew-Regular', 'ScanTestHebrew-Regular']]) {
    const [a, b] = [utf16(from), utf16(to)];
    let found = 0;
    for (let i = bytes.indexOf(a); i >= 0; i = bytes.indexOf(a, i + 1)) {
      b.copy(bytes, i);
      found++;
    }
    assert.ok(found > 0, `"${from}" not found in the font's name table`);
  }
  return bytes;
}

test('a font directory without a manifest is scanned: its family is usable and a fallback', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platen-fonts-'));
  try {
    writeFileSync(join(dir, 'some-file-name.ttf'), renamedFont());
    writeFileSync(join(dir, 'broken.ttf'), 'not a font');
    writeFileSync(join(dir, 'readme.txt'), 'ignored');
    const fonts = new FontLibrary([BUNDLED_FONT_DIR, dir]);
    assert.ok(fonts.hasFamily('Scan Test Hebrew'));
    assert.ok(fonts.hasFamily('scan test hebrew'), 'family names are case-insensitive');
    assert.equal(fonts.resolveStack(['Noto Sans']).at(-1)?.family, 'Scan Test Hebrew', 'scanned families end every stack');
    const definition = { content: [{ text: 'שלום עולם', fontFamily: 'Scan Test Hebrew', direction: 'rtl' }] };
    assert.equal(validateTemplate(definition, fonts).ok, true);
    assert.equal(validateTemplate(definition).ok, false, 'the bundled library does not know the family');
    const r = await renderPdf(definition, {}, { now: NOW, fonts });
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(embeddedFamilies(r.pdf), ['ScanTestHebrew-Regular']);
    assert.equal(logicalRtl((await readPdf(r.pdf)).pages[0].runs), 'שלום עולם');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// Line breaking

test('Thai text without spaces wraps at word boundaries (Intl.Segmenter), no line wider than the column', async () => {
  const text = 'ประเทศไทยมีประชากรมากกว่าหกสิบล้านคนและภาษาไทยเป็นภาษาราชการของประเทศ';
  const width = 100;
  const r = await render({ page: { size: [400, 400], margin: 30 }, content: [{ columns: [{ width, content: [{ text }] }, { width: '*', content: [] }] }] });
  assert.deepEqual(r.warnings, []);
  const lines = textLines(r.doc.pages[0]);
  assert.ok(lines.length >= 3, `expected several lines, got ${lines.length}`);
  assert.equal(lines.map((l) => l.text).join(''), text);
  const boundaries = new Set([...new Intl.Segmenter('th', { granularity: 'word' }).segment(text)].map((s) => s.index));
  let at = 0;
  for (const line of lines.slice(0, -1)) {
    at += line.text.length;
    assert.ok(boundaries.has(at), `line "${line.text}" ends inside a word (offset ${at})`);
    assert.ok(line.right - line.left <= width + 0.5, `line "${line.text}" is ${line.right - line.left} pt wide`);
  }
});

/** Where the `hyphen` package's English patterns allow `word` to break (offsets). */
function breakPoints(word: string): number[] {
  const parts = hyphenEn.hyphenateSync(word, { minWordLength: 5 }).split(SOFT_HYPHEN);
  const out: number[] = [];
  let at = 0;
  for (const p of parts.slice(0, -1)) out.push((at += p.length));
  return out;
}

const ENGLISH =
  'Internationalization and localization considerations fundamentally complicate typographical implementations, notwithstanding extraordinarily sophisticated algorithms. Characteristically, comprehensive documentation accompanies these remarkable undertakings.';

function narrowJustified(extra: Record<string, unknown>, language: string | null = 'en') {
  return {
    page: { size: [400, 600], margin: 30 },
    ...(language ? { metadata: { language } } : {}),
    content: [{ columns: [{ width: 130, content: [{ text: ENGLISH, textAlign: 'justify', ...extra }] }, { width: '*', content: [] }] }],
  };
}

test('hyphenation: a justified English paragraph breaks words where the hyphen patterns allow, with a visible hyphen', async () => {
  const r = await render(narrowJustified({}));
  const lines = textLines(r.doc.pages[0]);
  const words = new Set(ENGLISH.split(/[^\p{L}]+/u).filter(Boolean));
  let hyphenated = 0;
  lines.forEach((line, i) => {
    if (!line.text.endsWith('-')) return;
    hyphenated++;
    const head = line.text.slice(0, -1).split(' ').pop()!;
    const tail = lines[i + 1].text.split(' ')[0].replace(/[^\p{L}]+$/u, '');
    const word = head + tail;
    assert.ok(words.has(word), `"${head}-" + "${tail}" is not a word of the text`);
    assert.ok(breakPoints(word).includes(head.length), `"${word}" broken after "${head}", not at a pattern position (${breakPoints(word)})`);
  });
  assert.ok(hyphenated >= 2, `expected hyphenated lines, got ${lines.map((l) => l.text).join(' | ')}`);
  // Justified: every line but the last that has a space reaches the column's right edge.
  for (const line of lines.slice(0, -1)) {
    if (line.text.includes(' ')) assert.ok(Math.abs(line.right - 160) < 0.5, `"${line.text}" ends at ${line.right}`);
  }
  // Nothing is lost: the lines joined (hyphens removed) are the text.
  assert.equal(lines.map((l) => (l.text.endsWith('-') ? l.text.slice(0, -1) : `${l.text} `)).join('').trim(), ENGLISH);
});

test('a hyphen breaking an English word in a right-to-left paragraph stays with its word, not at the line\'s far end', async () => {
  const text = 'שלום עולם internationalization considerations fundamentally complicate typographical implementations';
  const r = await render({ page: { size: [260, 200], margin: 20 }, metadata: { language: 'en' }, content: [{ text, direction: 'rtl', textAlign: 'justify', fontSize: 12 }] });
  const lines = textLines(r.doc.pages[0]);
  let hyphens = 0;
  for (const line of lines) {
    const runs = [...line.runs].sort((a, b) => a.x - b.x);
    runs.forEach((run, k) => {
      if (!run.str.includes('-')) return;
      hyphens++;
      // Drawn right after Latin letters (its word), never beside Hebrew or alone at an edge.
      const before = run.str.startsWith('-') ? runs[k - 1]?.str ?? '' : run.str.slice(0, run.str.indexOf('-'));
      assert.match(before, /[a-z]$/, `line "${visualText(line.runs)}": the hyphen follows "${before}"`);
    });
  }
  assert.ok(hyphens >= 1, `expected a hyphenated line: ${lines.map((l) => visualText(l.runs)).join(' | ')}`);
});

test('no hyphenation with hyphenate: false, without a language, or in text that is not justified', async () => {
  for (const [extra, language] of [[{ hyphenate: false }, 'en'], [{}, null], [{ textAlign: 'left' }, 'en'], [{}, 'xx']] as const) {
    const r = await render(narrowJustified(extra, language));
    const lines = textLines(r.doc.pages[0]);
    assert.ok(lines.length > 5);
    assert.ok(!lines.some((l) => l.text.endsWith('-')), `${JSON.stringify(extra)} ${language}: ${lines.map((l) => l.text).join(' | ')}`);
  }
});

test('a soft hyphen breaks a word there with a visible hyphen at a line end, and is invisible mid-line', async () => {
  const text = `Some extra${SOFT_HYPHEN}ordinary super${SOFT_HYPHEN}cali${SOFT_HYPHEN}fragi${SOFT_HYPHEN}listic words`;
  const plain = text.replaceAll(SOFT_HYPHEN, '');
  const narrow = await render({ page: { size: [400, 400], margin: 30 }, content: [{ columns: [{ width: 75, content: [{ text }] }, { width: '*', content: [] }] }] });
  const lines = textLines(narrow.doc.pages[0]).map((l) => l.text);
  assert.ok(lines.filter((l) => l.endsWith('-')).length >= 2, lines.join(' | '));
  // Each hyphen is at a soft hyphen of the input; joined without them, the lines are the text.
  const softAt = new Set<number>();
  let visible = 0;
  for (const ch of text) ch === SOFT_HYPHEN ? softAt.add(visible) : visible++;
  let logical = '';
  for (const l of lines) {
    if (l.endsWith('-')) {
      logical += l.slice(0, -1);
      assert.ok(softAt.has(logical.length), `"${l}" breaks where no soft hyphen is`);
    } else logical += `${l} `;
  }
  assert.equal(logical.trim(), plain);
  assert.ok(!lines.join('').includes(SOFT_HYPHEN));

  // On one line: no hyphen, no gap.
  const wide = await render({ content: [{ text }, { text: plain }] });
  const [a, b] = textLines(wide.doc.pages[0]);
  assert.equal(a.text, plain);
  assert.ok(Math.abs(a.right - a.left - (b.right - b.left)) < 0.5, `${a.right - a.left} vs ${b.right - b.left}`);
});

test('a soft hyphen that starts the text or a line renders (it threw a TypeError) and is invisible', async () => {
  for (const text of [`${SOFT_HYPHEN}Name`, `x\n${SOFT_HYPHEN}Name`, `one two three four five six seven ${SOFT_HYPHEN}eight nine`]) {
    const r = await render({ page: { size: [200, 200], margin: 20 }, content: [{ text, width: 60 }] });
    const lines = textLines(r.doc.pages[0]).map((l) => l.text);
    assert.equal(lines.join(' ').replace(/\s+/g, ' '), text.replaceAll(SOFT_HYPHEN, '').replace(/\s+/g, ' '), JSON.stringify(lines));
  }
});

test('a soft hyphen before a space shows no hyphen when the line breaks at that space', async () => {
  for (const text of [`alpha${SOFT_HYPHEN} beta gamma delta epsilon`, `alpha beta${SOFT_HYPHEN}  gamma delta`, `alpha${SOFT_HYPHEN}\nbeta`]) {
    const r = await render({ page: { size: [200, 300], margin: 20 }, content: [{ text, width: 40 }] });
    const lines = textLines(r.doc.pages[0]).map((l) => l.text);
    assert.ok(lines.length > 1, JSON.stringify(lines));
    assert.ok(lines.every((l) => !l.includes('-')), `no hyphen drawn: ${JSON.stringify(lines)}`);
    assert.equal(lines.join(' ').replace(/\s+/g, ' '), text.replaceAll(SOFT_HYPHEN, '').replace(/\s+/g, ' '));
  }
});

test('a soft hyphen mid-line keeps the kerning across it (the word is drawn as if it had none)', async () => {
  // Noto Sans kerns "r" + "c" (-20/1000 em).
  const r = await render({ content: [{ text: `super${SOFT_HYPHEN}cali`, fontSize: 50 }, { text: 'supercali', fontSize: 50 }] });
  const [a, b] = textLines(r.doc.pages[0]);
  assert.equal(a.text, 'supercali');
  assert.ok(Math.abs(a.right - a.left - (b.right - b.left)) < 0.01, `with a soft hyphen ${a.right - a.left} pt, without ${b.right - b.left} pt`);
});

// ---------------------------------------------------------------------------------------------
// Letter spacing and OpenType features

test('letterSpacing adds its value after every character', async () => {
  const line = (ls: number) => ({ text: [{ text: 'Wide', letterSpacing: ls }, { text: '|', fontFamily: 'Noto Sans Mono' }] });
  const r = await render({ content: [line(0), line(5), line(-0.5)] });
  const bars = r.doc.pages[0].runs.filter((run) => run.str === '|').sort((a, b) => a.y - b.y);
  assert.equal(bars.length, 3);
  assert.ok(Math.abs(bars[1].x - bars[0].x - 5 * 4) < 0.5, `letterSpacing 5: "Wide" is ${bars[1].x - bars[0].x} pt wider, expected 20`);
  assert.ok(Math.abs(bars[2].x - bars[0].x + 0.5 * 4) < 0.5, `letterSpacing -0.5: ${bars[2].x - bars[0].x}`);
  // The letters still extract in order (pdfjs may put spaces between spaced-out letters).
  assert.equal(r.doc.pages[0].runs.filter((run) => run.y === bars[1].y && run.str !== '|').map((run) => run.str).join('').replace(/ /g, ''), 'Wide');
});

test('negative letterSpacing tightens a glyph to no advance and never further: the text stays in its box', async () => {
  const line = (ls: number) => ({ text: [{ text: 'Wide', letterSpacing: ls }, { text: '|', fontFamily: 'Noto Sans Mono' }] });
  const words = 'tightened words run on and on '.repeat(40);
  const r = await render({ page: { size: 'A4', margin: 40 }, content: [line(0), line(-20), line(-100), { text: words, letterSpacing: -100 }, { text: 'after' }] });
  const page = r.doc.pages[0];
  const bars = page.runs.filter((run) => run.str === '|').sort((a, b) => a.y - b.y);
  // Every glyph of "Wide" at -20 or -100 pt advances 0: the bar sits where the word starts.
  assert.ok(bars[0].x > 60, `unspaced bar at ${bars[0].x}`);
  for (const bar of bars.slice(1)) assert.ok(Math.abs(bar.x - 40) < 0.5, `bar at ${bar.x}, expected 40 (the margin)`);
  for (const l of textLines(page)) assert.ok(l.left >= 39.5 && l.right <= 595.28 - 39.5, `"${l.text.slice(0, 20)}" spans ${l.left}..${l.right}`);
  assert.ok(page.runs.some((run) => run.str === 'after'));
});

test('negative letterSpacing: a line counts its last glyph whole, so right-aligned text and a word cut between letters end in the box', async () => {
  // Each advance is shortened, the last one too, but the last glyph's ink takes its own width:
  // right-aligned "WWWW" at -100 ran 55.8 pt past the margin (15.8 off the paper), unwarned.
  const r = await render({ page: { size: [300, 300], margin: 40 }, content: [
    { text: 'WWWW', fontSize: 60, letterSpacing: -100, textAlign: 'right' },
    { text: 'Right aligned MW', fontSize: 20, letterSpacing: -4, textAlign: 'end' },
    { text: 'Justified words in a line of their own and more of them', fontSize: 20, letterSpacing: -3, textAlign: 'justify' },
    { text: 'MWMWMWMWMWMWMWMWMWMWMWMWMWMW', fontSize: 20, letterSpacing: -4 },
  ] });
  const page = r.doc.pages[0];
  for (const run of page.runs) assert.ok(run.x >= 40 - 0.01 && run.x + run.width <= 260 + 0.01, `"${run.str}" spans ${run.x}..${run.x + run.width}`);
  // Right-aligned: the last glyph ends on the margin, not short of it.
  const mw = page.runs.filter((run) => run.str.endsWith('MW') && run.str.startsWith('Right')).concat(page.runs.filter((run) => run.str === 'MW'));
  assert.ok(mw.length > 0 && Math.abs(mw[0].x + mw[0].width - 260) < 0.01, `ends at ${mw[0] && mw[0].x + mw[0].width}`);
});

test('letterSpacing leaves the joined letters of Arabic together and still spaces the Latin beside them', async () => {
  const arabic = 'مرحبا';
  const line = (ls: number) => ({ text: [{ text: arabic, letterSpacing: ls }, { text: '|', fontFamily: 'Noto Sans Mono' }, { text: 'Wide', letterSpacing: ls }, { text: '|', fontFamily: 'Noto Sans Mono' }], direction: 'ltr' });
  const r = await render({ content: [line(0), line(5)] });
  const bars = r.doc.pages[0].runs.filter((run) => run.str === '|').sort((a, b) => a.y - b.y || a.x - b.x);
  assert.equal(bars.length, 4);
  // The Arabic word is as wide spaced as unspaced: the first bar does not move.
  assert.ok(Math.abs(bars[2].x - bars[0].x) < 0.5, `the Arabic word grew by ${bars[2].x - bars[0].x} pt`);
  // "Wide" grows by 4 x 5 pt.
  const grown = bars[3].x - bars[2].x - (bars[1].x - bars[0].x);
  assert.ok(Math.abs(grown - 20) < 0.5, `"Wide" grew by ${grown} pt, expected 20`);
});

test('fontFeatures: tnum keeps digits tabular, pnum makes them proportional', async () => {
  const r = await render({
    content: [
      { text: '1111', fontFeatures: ['tnum'] },
      { text: '8888', fontFeatures: ['tnum'] },
      { text: '1111', fontFeatures: ['pnum'] },
      { text: '8888', fontFeatures: ['pnum'] },
      { text: 'Small Caps', fontFeatures: ['smcp'] },
      { text: 'Small Caps' },
    ],
  });
  const [t1, t8, p1, , sc, plain] = textLines(r.doc.pages[0]).map((l) => l.right - l.left);
  // Noto Sans's default digits are already tabular: tnum renders and keeps them equal.
  assert.ok(Math.abs(t1 - t8) < 0.01, `tnum: 1111 is ${t1}, 8888 is ${t8}`);
  assert.ok(p1 < t1 - 1, `pnum: 1111 is ${p1}, tabular ${t1}`);
  assert.ok(Math.abs(sc - plain) > 0.1, `smcp changes the glyphs: ${sc} vs ${plain}`);
});

// ---------------------------------------------------------------------------------------------
// Text extraction of scripts whose glyphs are reordered or decomposed

// These two rely on /ActualText marked content (the glyphs alone cannot spell the text). pdfjs
// ignores ActualText, so they read the text back with poppler's pdftotext, as viewers do.
const popplerLines = (pdf: Buffer) => pdfToText(pdf).split('\n').map((l) => l.trim()).filter(Boolean);

test('Thai with SARA AM (ำ) extracts as written, and so does SARA AA (า) later in the same document', async () => {
  // The font draws ำ as two glyphs, the second being า's: neither may change what the other extracts as.
  const texts = ['น้ำดื่มสำหรับทุกคน', 'มาเลย'];
  const r = await render({ content: texts.map((text) => ({ text })) });
  assert.deepEqual(popplerLines(r.pdf), texts);
});

test('Devanagari with a pre-base vowel sign (ि) extracts in logical order', async () => {
  const text = 'हिन्दी किताब';
  const r = await render({ content: [{ text }] });
  assert.equal(popplerLines(r.pdf)[0], text);
});

// ---------------------------------------------------------------------------------------------
// The example

test('examples/multilingual: one page, every script in its font, no warnings, also as PDF/A-2b', async () => {
  const { template, data } = example('multilingual');
  const r = await renderPdf(template, data, { now: NOW });
  assert.equal(r.pages, 1);
  assert.deepEqual(r.warnings, []);
  const families = embeddedFamilies(r.pdf);
  for (const f of ['NotoSans-Regular', 'NotoSans-Bold', 'NotoSerif-Regular', 'NotoSansMono-Regular', 'NotoSansArabic-Regular', 'NotoSansHebrew-Regular', 'NotoSansHebrew-Bold', 'NotoSansDevanagari-Regular', 'NotoSansThai-Regular', 'NotoSansSymbols-Regular', 'NotoSansSymbols2-Regular']) {
    assert.ok(families.includes(f), `${f} missing: ${families.join(', ')}`);
  }
  const a = await renderPdf(template, data, { now: NOW, pdfVariant: 'pdf/a-2b' });
  assert.equal(a.pages, 1);
  // The rtl table: its first column (item names) is right of the amounts.
  const runs = (await readPdf(r.pdf)).pages[0].runs;
  const item = runs.find((run) => run.str.includes('Platen Pro license'))!;
  const amount = runs.filter((run) => Math.abs(run.y - item.y) < 1 && run.str.includes('249.00'));
  assert.ok(amount.length === 2 && amount.every((run) => run.x + run.width < item.x), 'amounts are left of the item name');
});
