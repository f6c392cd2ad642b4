/**
 * Typography details: mark positioning from the shaper painted (x offsets in the TJ array, y
 * offsets as text rise), no ligatures in letter-spaced text, per-node `lang` for hyphenation and
 * number formats, baseline alignment of table cells in a row, justified CJK lines stretched
 * between characters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderPdf } from '../../engine/index.ts';
import { pdfOperators } from '../helpers/pdfops.ts';
import { readPdf } from '../helpers/pdf.ts';
import { NOW } from '../helpers/render.ts';
import { flatItems, layout, texts } from './helpers/layout.ts';

test('Arabic harakat are drawn where the shaper puts them: text rise for y offsets, reset after', async () => {
  const r = await renderPdf({ content: [{ text: 'مُحَمَّدٌ', fontFamily: 'Noto Sans Arabic', fontSize: 20 }] }, {}, { now: NOW });
  const [ops] = await pdfOperators(r.pdf);
  const rises = ops.names.filter((n) => n === 'setTextRise').length;
  assert.ok(rises >= 2, `text rise set and reset: ${rises}`);
  const [run] = flatItems(layout({ content: [{ text: 'مُحَمَّدٌ', fontFamily: 'Noto Sans Arabic', fontSize: 20 }] })[0].items).filter((i) => i.kind === 'text');
  assert.ok(run.kind === 'text' && run.run.pieces.some((p) => p.run.offsets?.some(([, dy]) => dy !== 0)), 'the shaper gave y offsets');
  // Extraction is unchanged by the positioning.
  const doc = await readPdf(r.pdf);
  assert.equal(doc.pages[0].runs.map((x) => x.str).join('').replace(/\s/g, ''), 'مُحَمَّدٌ');
});

test('letter-spaced text has no ligatures; without spacing "ffi" is one glyph', () => {
  const glyphs = (def: object) =>
    flatItems(layout({ content: [def] })[0].items)
      .flatMap((i) => (i.kind === 'text' ? i.run.pieces : []))
      .reduce((n, p) => n + (p.space ? 0 : p.run.glyphs.length), 0);
  assert.equal(glyphs({ text: 'office' }), 4, 'o, ffi, c, e');
  assert.equal(glyphs({ text: 'office', letterSpacing: 2 }), 6);
});

const require = createRequire(import.meta.url);
const patterns = (lang: string) => require(`hyphen/${lang}`) as { hyphenateSync(w: string, o?: object): string };

/** Prefixes of `word` at which the patterns of `lang` allow a break. */
function breaks(lang: string, word: string): Set<string> {
  const parts = patterns(lang).hyphenateSync(word, { hyphenChar: '|' }).split('|');
  const out = new Set<string>();
  for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join(''));
  return out;
}

test('lang on a node: its justified text is hyphenated with that language, inside an English document', () => {
  const word = 'Versicherungsgesellschaft';
  const para = (lang?: string) => ({ text: `${word} `.repeat(6), textAlign: 'justify', ...(lang ? { lang } : {}) });
  // A column narrower than "Versicherungs-": English patterns can only break after "Ver".
  const lineEnds = (lang?: string) => {
    const [page] = layout({ metadata: { language: 'en' }, page: { size: [200, 800], margin: 20 }, content: [{ columns: [{ width: 55, content: [para(lang)] }, { content: [] }] }] });
    const lines = new Map<number, string>();
    for (const t of texts(page)) lines.set(t.y, (lines.get(t.y) ?? '') + t.text);
    // The word prefix at each line that ends in a hyphen (a word may run over several lines).
    const prefixes: string[] = [];
    let partial = '';
    for (const line of lines.values()) {
      const words = line.trim().split(' ');
      words[0] = partial + words[0];
      const last = words[words.length - 1];
      partial = last.endsWith('-') ? last.slice(0, -1) : '';
      if (partial) prefixes.push(partial);
    }
    return prefixes;
  };
  const german = lineEnds('de');
  assert.ok(german.length > 0, 'some lines end in a hyphen');
  const de = breaks('de', word);
  const en = breaks('en-us', word);
  for (const prefix of german) assert.ok(de.has(prefix), `"${prefix}-" is a German break of ${word}`);
  assert.ok(german.some((p) => !en.has(p)), `a German-only break is used: ${german.join(', ')}`);
  for (const prefix of lineEnds()) assert.ok(en.has(prefix), `without lang, "${prefix}-" follows the document's English patterns`);
});

test('lang on a node: number, currency and date filters inside it use its locale', async () => {
  const definition = {
    metadata: { language: 'en' },
    content: [{ text: '{{n | number:2}}' }, { text: '{{n | number:2}}', lang: 'de' }, { stack: [{ text: ['x ', { text: '{{n | currency:"EUR"}}', lang: 'fr' }] }] }],
  };
  const r = await renderPdf(definition, { n: 1234.5 }, { now: NOW });
  const doc = await readPdf(r.pdf);
  const lines = doc.pages[0].text.split('\n');
  assert.equal(lines[0], '1,234.50');
  assert.equal(lines[1], '1.234,50');
  assert.match(lines[2].replace(/\s/g, ' '), /^x 1 234,50 €$/);
});

test('table cells align their first baselines by default (a small label beside a large value); top keeps them at the top', () => {
  const row = (align?: string) => [
    { text: 'Label', fontSize: 7, ...(align ? { verticalAlign: align } : {}) },
    { text: 'Value', fontSize: 14, ...(align ? { verticalAlign: align } : {}) },
  ];
  const baselines = (align?: string) => {
    const [page] = layout({ content: [{ table: { columns: [80, 80], rows: [row(align)] } }] });
    const t = texts(page);
    return [t.find((x) => x.text === 'Label')!.y, t.find((x) => x.text === 'Value')!.y];
  };
  const [label, value] = baselines();
  assert.ok(Math.abs(label - value) < 0.01, `baseline: ${label} vs ${value}`);
  const [topLabel, topValue] = baselines('top');
  assert.ok(topValue - topLabel > 3, `top: ${topLabel} vs ${topValue}`);
});

test('justified CJK lines are stretched between characters to the full width; the last line is not', () => {
  // (No bundled font has these characters: their missing-glyph boxes are 6 pt wide each.)
  const width = 153;
  const [page] = layout({ page: { size: [width + 40, 400], margin: 20 }, content: [{ text: '漢字仮名交じり文は日本語の表記で用いられる。'.repeat(4), textAlign: 'justify' }] });
  const lines = texts(page);
  assert.ok(lines.length >= 3);
  for (const line of lines.slice(0, -1)) assert.ok(Math.abs(line.x + line.width - (20 + width)) < 0.01, `a line ends at ${line.x + line.width}`);
  const last = lines[lines.length - 1];
  assert.ok(last.x + last.width < 20 + width - 1, 'the last line keeps its natural width');
  const spacing = flatItems(page.items).map((i) => (i.kind === 'text' ? i.run.charSpacing : 0));
  assert.ok(spacing.some((c) => c > 0), 'the spacing goes between characters');
});

test('combining marks placed by x offsets: the TJ numbers around a mark stay apart (e + dot below + circumflex)', async () => {
  const r = await renderPdf({ content: [{ text: 'e\u0323\u0302 x\u0301\u0323 Nguye\u0302\u0303n', fontSize: 16 }] }, {}, { now: NOW });
  const dir = mkdtempSync(join(tmpdir(), 'platen-tj-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), r.pdf);
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    const arrays = [...readFileSync(join(dir, 'out.pdf'), 'latin1').matchAll(/\[([^\]]*)\] TJ/g)].map((m) => m[1]);
    assert.ok(arrays.length > 0);
    for (const a of arrays) {
      // Adjustments are thousandths of an em: a mark's offset is under one em, never a run-together "35281".
      for (const n of a.replace(/<[0-9a-fA-F]*>/g, ' ').trim().split(/\s+/).filter(Boolean)) assert.ok(Math.abs(Number(n)) < 1000, `TJ number ${n} in [${a}]`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
