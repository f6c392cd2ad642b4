/**
 * PDF/A-1b, 2b, 3b: every example in every variant meets the requirements its objects show (read
 * back with pdf-lib by test/helpers/pdfa-structure.ts) and passes `qpdf --check`, including a
 * transparent PNG, a link, a title with & and <, and accented text in A-1b (composite glyphs in
 * the CIDSet); what cannot conform is refused with PDFA_CONFLICT. CI also runs an external
 * PDF/A checker over the examples when one is installed beside the repository.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderPdf, RenderError, PDF_VARIANTS, type PdfVariant } from '../../engine/index.ts';
import { alphaPngDataUri } from '../helpers/images.ts';
import { readPdf } from '../helpers/pdf.ts';
import { checkPdfa } from '../helpers/pdfa-structure.ts';

const ROOT = new URL('../../', import.meta.url);
const NOW = new Date('2026-01-15T12:00:00Z');

/** `qpdf --check` on a PDF: true when qpdf finds no damage. */
function qpdfCheck(pdf: Buffer): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'platen-pdfa-'));
  try {
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    return spawnSync('qpdf', ['--check', join(dir, 'doc.pdf')], { encoding: 'utf8' }).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function assertConformant(pdf: Buffer, variant: PdfVariant, what: string): Promise<void> {
  assert.ok(qpdfCheck(pdf), `${what}: qpdf --check failed`);
  const part = Number(variant.charAt(6)) as 1 | 2 | 3;
  const report = await checkPdfa(pdf, part);
  assert.equal(report.part, part, `${what}: declared part`);
  assert.equal(report.conformance, 'B', `${what}: declared conformance`);
  assert.deepEqual(report.faults, [], `${what} as ${variant}`);
}

const example = (name: string) => ({
  definition: JSON.parse(readFileSync(new URL(`examples/${name}/template.json`, ROOT), 'utf8')),
  data: JSON.parse(readFileSync(new URL(`examples/${name}/data.json`, ROOT), 'utf8')),
});

for (const name of ['invoice', 'report', 'letter', 'multilingual', 'shipping-label']) {
  test(`examples/${name} conforms in every variant`, async () => {
    const { definition, data } = example(name);
    for (const variant of PDF_VARIANTS) {
      const { pdf } = await renderPdf(definition, data, { now: NOW, pdfVariant: variant });
      await assertConformant(pdf, variant, `examples/${name}`);
    }
  });
}

test('layout features conform in every variant: rotation, clips, rounded corners, watermark, outline, toc, internal links (opacity where allowed)', async () => {
  const content = [
    { text: 'turned', rotate: 10, borderRadius: 4, backgroundColor: '#ffdddd', width: 120, height: 20 },
    { toc: {} },
    { text: 'Heading', role: 'h1', id: 'x' },
    { text: 'go', link: '#x' },
  ];
  for (const variant of PDF_VARIANTS) {
    const translucent = variant !== 'pdf/a-1b';
    const definition = {
      metadata: { title: 'Features', language: 'en' },
      watermark: translucent ? { text: 'DRAFT' } : { text: 'DRAFT', opacity: 1, color: '#eeeeee' },
      content: translucent ? [...content, { text: 'faint', opacity: 0.3 }] : content,
    };
    const { pdf } = await renderPdf(definition, {}, { now: NOW, pdfVariant: variant });
    await assertConformant(pdf, variant, 'layout features');
  }
});

const HARD = {
  metadata: { title: 'Müller & Söhne <GmbH> "Q"', author: 'Zoë & Co', subject: 'Ärger < Ökonomie', keywords: 'a & b, <c>', language: 'de' },
  content: [
    { text: 'Öl, Übung, Éclair, façade, naïve, Ångström, Żółć — “quotes” € ½' },
    { text: [{ text: 'a link', link: 'https://example.com/?a=1&b=2' }] },
    { image: '{{logo}}', width: 60 },
  ],
};

test('a transparent PNG, a link, a title with & and < and accented text conform in every variant', async () => {
  const data = { logo: alphaPngDataUri(16, 16) };
  for (const variant of PDF_VARIANTS) {
    const { pdf } = await renderPdf(HARD, data, { now: NOW, pdfVariant: variant });
    await assertConformant(pdf, variant, 'the hard case');
  }
});

test('the hard case round-trips: text extracts, Info keeps & and <, the header names the version', async () => {
  const { pdf } = await renderPdf(HARD, { logo: alphaPngDataUri(16, 16) }, { now: NOW, pdfVariant: 'pdf/a-1b' });
  assert.equal(pdf.subarray(0, 8).toString('latin1'), '%PDF-1.4');
  const doc = await readPdf(pdf);
  assert.match(doc.pages[0].text, /Öl, Übung, Éclair, façade, naïve, Ångström, Żółć/);
  assert.equal(doc.info.Title, HARD.metadata.title);
  assert.equal(doc.info.Author, HARD.metadata.author);
  const a2 = await renderPdf(HARD, { logo: alphaPngDataUri(16, 16) }, { now: NOW, pdfVariant: 'pdf/a-2b' });
  assert.equal(a2.pdf.subarray(0, 8).toString('latin1'), '%PDF-1.7');
});

test('PDF/A-1b flattens alpha (no SMask) while a plain PDF keeps it', async () => {
  const doc = { content: [{ image: alphaPngDataUri(8, 8), width: 40 }] };
  const smasks = (pdf: Buffer) => {
    const dir = mkdtempSync(join(tmpdir(), 'platen-qdf-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), pdf);
      execFileSync('qpdf', ['--qdf', '--object-streams=disable', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
      return (readFileSync(join(dir, 'out.pdf')).toString('latin1').match(/\/SMask/g) ?? []).length;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  assert.equal(smasks((await renderPdf(doc, {}, { now: NOW, pdfVariant: 'pdf/a-1b' })).pdf), 0);
  assert.ok(smasks((await renderPdf(doc, {}, { now: NOW })).pdf) > 0, 'the plain PDF keeps its soft mask');
});

test('a character no bundled font has is refused with PDFA_CONFLICT naming it, and renders with a warning without PDF/A', async () => {
  // No bundled font has CJK ideographs (they come from PLATEN_FONT_DIRS).
  const doc = { content: [{ text: 'kanji 漢 here' }] };
  await assert.rejects(renderPdf(doc, {}, { now: NOW, pdfVariant: 'pdf/a-2b' }), (e: unknown) => {
    assert.ok(e instanceof RenderError);
    assert.equal(e.code, 'PDFA_CONFLICT');
    assert.match(e.message, /U\+6F22/);
    return true;
  });
  const plain = await renderPdf(doc, {}, { now: NOW });
  assert.equal(plain.pages, 1);
  assert.deepEqual(plain.warnings, [{ code: 'GLYPH_MISSING', message: 'no font has the character "漢" (U+6F22): drawn as an empty box', path: 'content[0]' }]);
});

test('plain PDFs carry well-formed XMP too: escaped title, ModifyDate, no pdfaid', async () => {
  const { pdf } = await renderPdf(HARD, { logo: alphaPngDataUri(4, 4) }, { now: NOW });
  const raw = pdf.toString('latin1');
  const start = raw.indexOf('<?xpacket begin');
  const end = raw.indexOf('<?xpacket end="w"?>');
  assert.ok(start > 0 && end > start, 'an uncompressed XMP packet');
  const xmp = Buffer.from(raw.slice(start, end), 'latin1').toString('utf8');
  assert.match(xmp, /<rdf:li xml:lang="x-default">Müller &amp; Söhne &lt;GmbH&gt; "Q"<\/rdf:li>/);
  assert.match(xmp, /<xmp:ModifyDate>2026-01-15T12:00:00Z<\/xmp:ModifyDate>/);
  assert.doesNotMatch(xmp, /pdfaid/);
});

test('the structure check finds what a plain PDF lacks, so a conformant answer means something', async () => {
  const { pdf } = await renderPdf(HARD, { logo: alphaPngDataUri(8, 8) }, { now: NOW });
  const report = await checkPdfa(pdf, 1);
  for (const rule of ['header', 'metadata: pdfaid:part', 'colour: no GTS_PDFA1 output intent', 'transparency: SMask', 'without a CIDSet']) {
    assert.ok(report.faults.some((f) => f.includes(rule)), `a plain PDF is reported for "${rule}": ${report.faults.join('; ')}`);
  }
});
