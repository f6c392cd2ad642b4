/**
 * Tagged PDF and PDF/UA-1: the structure tree read back with pdf-lib matches the template
 * (headings, lists, tables with spans and header scopes, figures with alt, tables of contents
 * nested by level), header and footer
 * are artifacts, right-to-left lines extract in logical order (pdftotext), "tagged": false
 * writes no tree, and what PDF/UA cannot have is refused with the path that causes it. When the
 * PDF/UA checker is installed beside the repository (../shared/tools), every example rendered
 * with pdfUa passes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, PDFHexString, type PDFObject } from 'pdf-lib';
import fc from 'fast-check';
import { renderPdf, RenderError } from '../../engine/index.ts';
import { alphaPngDataUri } from '../helpers/images.ts';

const ROOT = new URL('../../', import.meta.url);
const NOW = new Date('2026-01-15T12:00:00Z');
const CHECKER = new URL('../shared/tools/pdfua-check/pdfua-check', ROOT);

interface El {
  type: string;
  attrs: Record<string, string | number>;
  kids: El[];
  mcids: number;
  objr: number;
}

/** The structure tree of a PDF as plain objects (types, Alt/Lang/Scope/spans, children). */
async function structTree(pdf: Buffer): Promise<{ root: El | null; doc: PDFDocument }> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const get = (o: PDFObject | undefined): PDFObject | undefined => (o instanceof PDFRef ? doc.context.lookup(o) : o);
  const str = (o: PDFObject | undefined): string => {
    const v = get(o);
    return v instanceof PDFString || v instanceof PDFHexString ? v.decodeText() : v instanceof PDFName ? v.decodeText() : String(v);
  };
  const treeRoot = get(doc.catalog.get(PDFName.of('StructTreeRoot')));
  if (!(treeRoot instanceof PDFDict)) return { root: null, doc };
  const walk = (d: PDFDict): El => {
    const el: El = { type: str(d.get(PDFName.of('S'))), attrs: {}, kids: [], mcids: 0, objr: 0 };
    for (const k of ['Alt', 'Lang', 'ActualText', 'ID']) if (d.get(PDFName.of(k))) el.attrs[k] = str(d.get(PDFName.of(k)));
    const a = get(d.get(PDFName.of('A')));
    if (a instanceof PDFDict) {
      for (const k of ['Scope', 'RowSpan', 'ColSpan']) {
        const v = get(a.get(PDFName.of(k)));
        if (v instanceof PDFNumber) el.attrs[k] = v.asNumber();
        else if (v) el.attrs[k] = str(v);
      }
    }
    const k = get(d.get(PDFName.of('K')));
    const items = k instanceof PDFArray ? k.asArray() : k ? [k] : [];
    for (const item of items) {
      const v = get(item);
      if (v instanceof PDFNumber) el.mcids++;
      else if (v instanceof PDFDict) {
        const type = v.get(PDFName.of('Type'));
        if (type && str(type) === 'MCR') el.mcids++;
        else if (type && str(type) === 'OBJR') el.objr++;
        else el.kids.push(walk(v));
      }
    }
    return el;
  };
  const k = get(treeRoot.get(PDFName.of('K')));
  const first = k instanceof PDFArray ? get(k.get(0)) : k;
  return { root: first instanceof PDFDict ? walk(first) : null, doc };
}

/** Every element's type in pre-order. */
function types(el: El): string[] {
  return [el.type, ...el.kids.flatMap(types)];
}

/** An element and its descendants as `Type[Kid Kid[...]]` (MCIDs and OBJRs left out). */
function shape(el: El): string {
  return el.kids.length === 0 ? el.type : `${el.type}[${el.kids.map(shape).join(' ')}]`;
}

function find(el: El, type: string): El[] {
  return [...(el.type === type ? [el] : []), ...el.kids.flatMap((k) => find(k, type))];
}

/** The decoded content streams of every page. */
function contents(doc: PDFDocument): string {
  let out = '';
  for (const page of doc.getPages()) {
    const c = page.node.get(PDFName.of('Contents'));
    const refs = c instanceof PDFArray ? c.asArray() : [c];
    for (const r of refs) {
      const s = doc.context.lookup(r as PDFRef);
      if (s instanceof PDFRawStream) out += inflateSync(Buffer.from(s.contents)).toString('latin1');
    }
  }
  return out;
}

const STRUCTURED = {
  metadata: { title: 'Structure', language: 'en' },
  styles: { h2: { fontSize: 14, fontWeight: 'bold' } },
  header: [{ text: 'Running header' }],
  footer: [{ text: 'Page {{$page}} of {{$pages}}' }],
  content: [
    { text: 'Annual report', role: 'h1' },
    { text: 'Sales', style: 'h2' },
    { text: 'Body text with a ', lang: 'en' },
    { text: 'Texte en français.', lang: 'fr' },
    { list: [{ text: 'one' }, { text: 'two' }], marker: 'decimal' },
    {
      table: {
        columns: ['*', '*', '*'],
        header: [['Region', { text: 'Totals', colSpan: 2 }, {}]],
        rows: [
          [{ text: 'North', rowSpan: 2 }, '1', '2'],
          [{}, '3', '4'],
        ],
        footer: [['Sum', '4', '6']],
      },
    },
    { image: alphaPngDataUri(8, 8), alt: 'A red square', width: 40 },
    { image: alphaPngDataUri(8, 8), alt: '', width: 10 },
    { text: [{ text: 'see ' }, { text: 'the site', link: 'https://example.com' }] },
    { line: { thickness: 1 } },
  ],
};

test('the structure tree follows the template: headings, paragraphs, list, table with spans and scopes, figure, link', async () => {
  const { pdf } = await renderPdf(STRUCTURED, {}, { now: NOW });
  const { root, doc } = await structTree(pdf);
  assert.ok(root, 'a StructTreeRoot with a Document');
  assert.equal(root.type, 'Document');
  assert.deepEqual(root.kids.map((k) => k.type), ['H1', 'H2', 'P', 'P', 'L', 'Table', 'Figure', 'P']);
  // Language only where it differs from the document's.
  assert.equal(root.kids[2].attrs.Lang, undefined);
  assert.equal(root.kids[3].attrs.Lang, 'fr');
  // List: L > LI > Lbl, LBody.
  const list = root.kids[4];
  assert.deepEqual(list.kids.map((li) => li.kids.map((k) => k.type)), [['Lbl', 'LBody'], ['Lbl', 'LBody']]);
  // Table: THead, TBody, TFoot; header cells TH with Scope Column; spans as attributes.
  const table = root.kids[5];
  assert.deepEqual(table.kids.map((k) => k.type), ['THead', 'TBody', 'TFoot']);
  const ths = find(table, 'TH');
  assert.equal(ths.length, 2);
  assert.ok(ths.every((th) => th.attrs.Scope === 'Column'));
  assert.equal(ths[1].attrs.ColSpan, 2);
  const bodyRows = table.kids[1].kids;
  assert.deepEqual(bodyRows.map((tr) => tr.kids.length), [3, 2]);
  assert.equal(bodyRows[0].kids[0].attrs.RowSpan, 2);
  // Figure with its alt; the decorative image ("alt": "") is no element.
  assert.equal(find(root, 'Figure').length, 1);
  assert.equal(root.kids[6].attrs.Alt, 'A red square');
  // The link: a Link element with its annotation as OBJR.
  const links = find(root, 'Link');
  assert.equal(links.length, 1);
  assert.equal(links[0].objr, 1);
  assert.ok(links[0].mcids >= 1);
  // Marked, with a ParentTree; header, footer and the rule are artifacts.
  const markInfo = doc.context.lookup(doc.catalog.get(PDFName.of('MarkInfo'))) as PDFDict;
  assert.equal(String(markInfo.get(PDFName.of('Marked'))), 'true');
  const stream = contents(doc);
  assert.ok((stream.match(/\/Artifact BMC/g) ?? []).length >= 2, 'header and footer as artifacts');
  assert.match(stream, /\/H1\s*<<\s*\/MCID 0\s*>>\s*BDC/);
  // Paragraphs: two, the two list items' and the link's; table cells hold their text directly.
  assert.equal(types(root).filter((t) => t === 'P').length, 5);
});

test('a table header repeated on a later page is an artifact: its cells appear once in the tree', async () => {
  const rows = Array.from({ length: 120 }, (_, i) => [`row ${i}`, `${i}`]);
  const { pdf, pages } = await renderPdf({ content: [{ table: { header: [['Name', 'Value']], rows } }] }, {}, { now: NOW });
  assert.ok(pages >= 2);
  const { root } = await structTree(pdf);
  assert.ok(root);
  assert.equal(find(root, 'TH').length, 2);
  assert.equal(find(root, 'TR').length, 121);
});

test('text in a turned, translucent or turned-stack box is content of its element, not an artifact', async () => {
  const { pdf } = await renderPdf({ metadata: { title: 'T', language: 'en' }, content: [{ text: 'Turned', rotate: 30 }, { text: 'Faint', opacity: 0.5 }, { stack: [{ text: 'inside' }], rotate: 10 }] }, {}, { now: NOW });
  const { root, doc } = await structTree(pdf);
  assert.ok(root);
  const ps = find(root, 'P');
  assert.equal(ps.length, 3);
  assert.ok(ps.every((p) => p.mcids === 1), 'each paragraph owns its text');
  assert.doesNotMatch(contents(doc), /\/Artifact/);
});

test('"tagged": false writes no structure tree, and a smaller file', async () => {
  const tagged = await renderPdf(STRUCTURED, {}, { now: NOW });
  const plain = await renderPdf({ ...STRUCTURED, tagged: false }, {}, { now: NOW });
  assert.equal((await structTree(plain.pdf)).root, null);
  assert.ok(plain.pdf.length < tagged.pdf.length);
});

test('a table of contents is a TOC: one TOCI per line, its title and page number each a Link with its annotation', async () => {
  const template = {
    metadata: { title: 'Contents', language: 'en' },
    content: [
      { text: 'Handbook', role: 'h1' },
      { toc: { levels: 2 } },
      { text: 'Start', role: 'h2' },
      { text: 'First steps.' },
      { text: 'Later', role: 'h2', breakBefore: 'page' },
      { text: 'More steps.' },
    ],
  };
  // Object streams (PDF 1.7) and objects one by one (PDF/A-1b, PDF 1.4).
  for (const pdfVariant of [undefined, 'pdf/a-1b'] as const) {
    const { pdf } = await renderPdf(template, {}, { now: NOW, pdfVariant });
    const { root, doc } = await structTree(pdf);
    assert.ok(root);
    assert.deepEqual(root.kids.map((k) => k.type), ['H1', 'TOC', 'H2', 'P', 'H2', 'P']);
    const toc = root.kids[1];
    // A line per heading; the h2 lines in a TOC of their own inside the h1 line's TOCI.
    assert.equal(shape(toc), 'TOC[TOCI[Link Link TOC[TOCI[Link Link] TOCI[Link Link]]]]');
    for (const link of find(toc, 'Link')) assert.ok(link.mcids === 1 && link.objr === 1, 'each link holds its text and its annotation');
    assert.equal(find(root, 'Table').length, 0);
    assert.doesNotMatch(contents(doc), /\/Artifact/, 'the toc is content, not an artifact');
  }
  if (existsSync(CHECKER)) {
    const dir = mkdtempSync(join(tmpdir(), 'platen-toc-'));
    try {
      const file = join(dir, 'toc.pdf');
      writeFileSync(file, (await renderPdf(template, {}, { now: NOW, pdfUa: true })).pdf);
      const r = spawnSync(CHECKER.pathname, [file, '--no-warnings'], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a table of contents nests by level: the lines of a lower level in a TOC inside the TOCI of the line they come under', async () => {
  const h = (text: string, level: number) => ({ text, role: `h${level}` });
  const template = {
    metadata: { title: 'Nested contents', language: 'en' },
    header: [{ text: 'Running header' }],
    content: [
      h('Handbook', 1),
      { toc: {} },
      h('Start', 2), { text: 'First steps.' },
      h('Detail', 3), { text: 'Fine print.' },
      { ...h('Later', 2), breakBefore: 'page' }, { text: 'More steps.' },
      h('Appendix', 1), { text: 'The end.' },
    ],
  };
  const line = 'Link Link';
  for (const pdfVariant of [undefined, 'pdf/a-1b'] as const) {
    const { pdf } = await renderPdf(template, {}, { now: NOW, pdfVariant });
    const { root, doc } = await structTree(pdf);
    assert.ok(root);
    assert.deepEqual(root.kids.map((k) => k.type), ['H1', 'TOC', 'H2', 'P', 'H3', 'P', 'H2', 'P', 'H1', 'P']);
    // Handbook > (Start > (Detail), Later), Appendix: each TOCI its two Links first, then its lines' TOC.
    assert.equal(shape(root.kids[1]), `TOC[TOCI[${line} TOC[TOCI[${line} TOC[TOCI[${line}]]] TOCI[${line}]]] TOCI[${line}]]`);
    const links = find(root.kids[1], 'Link');
    assert.equal(links.length, 10, 'a title and a page number for each of the five lines');
    assert.ok(links.every((link) => link.mcids === 1 && link.objr === 1), 'each link holds its text and its annotation');
    // The header is still the one artifact of each page; the toc is content.
    assert.equal((contents(doc).match(/\/Artifact BMC/g) ?? []).length, 2);
  }
  // A line with no line of a higher level above it stays at the outer level (h3 then h2; h2 first).
  const lower = await renderPdf({ content: [{ toc: {} }, h('Foreword', 3), h('Preface', 2), h('Aside', 3), h('One', 1), h('Two', 2)] }, {}, { now: NOW });
  const { root } = await structTree(lower.pdf);
  assert.ok(root);
  assert.equal(shape(root.kids[0]), `TOC[TOCI[${line}] TOCI[${line} TOC[TOCI[${line}]]] TOCI[${line} TOC[TOCI[${line}]]]]`);
  if (existsSync(CHECKER)) {
    const dir = mkdtempSync(join(tmpdir(), 'platen-toc-'));
    try {
      const file = join(dir, 'toc.pdf');
      writeFileSync(file, (await renderPdf(template, {}, { now: NOW, pdfUa: true })).pdf);
      const r = spawnSync(CHECKER.pathname, [file, '--no-warnings'], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

/** Whether every marked-content sequence of a content stream ends at the q ... Q depth it began at. */
function nestsWithSaves(stream: string): boolean {
  const opened: number[] = [];
  let depth = 0;
  for (const token of stream.split(/\s+/)) {
    if (token === 'q') depth++;
    else if (token === 'Q') {
      if (opened.length > 0 && opened[opened.length - 1] === depth) return false;
      depth--;
    } else if (token === 'BMC' || token === 'BDC' || token.endsWith('>>BDC')) opened.push(depth);
    else if (token === 'EMC' && opened.pop() !== depth) return false;
  }
  return opened.length === 0;
}

test('a preview watermark is one artifact around its group, and marked content inside a turned box ends before its Q', async () => {
  const { pdf } = await renderPdf({ metadata: { title: 'T', language: 'en' }, content: [{ text: 'Plain' }, { text: 'Turned', rotate: 30 }] }, {}, { now: NOW, watermark: 'PREVIEW' });
  const { root, doc } = await structTree(pdf);
  assert.ok(root);
  assert.deepEqual(find(root, 'P').map((p) => p.mcids), [1, 1]);
  const stream = contents(doc);
  assert.match(stream, /\/Artifact BMC\s+q\b/, 'the watermark group inside one artifact');
  assert.equal((stream.match(/\/Artifact BMC/g) ?? []).length, 1);
  assert.ok(nestsWithSaves(stream), stream);
});

const pdftotext = spawnSync('pdftotext', ['-v']).error === undefined;

/** pdftotext's lines of a document of one paragraph per line, without bidi control characters. */
async function extracted(lines: readonly string[]): Promise<string[]> {
  const { pdf } = await renderPdf({ content: lines.map((text) => ({ text, direction: 'auto' })) }, {}, { now: NOW });
  const dir = mkdtempSync(join(tmpdir(), 'platen-rtl-'));
  try {
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    const out = execFileSync('pdftotext', [join(dir, 'doc.pdf'), '-'], { encoding: 'utf8' });
    return out.replace(/[\u202a-\u202e]/g, '').split('\n').filter((l) => l.trim() !== '' && l !== '\f');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('right-to-left lines extract in logical order, brackets the right way round (Hebrew, Arabic, mixed)', { skip: !pdftotext && 'pdftotext is not installed' }, async () => {
  // Right-to-left paragraphs: exactly as written.
  const rtl = ['שלום [עולם] טוב', 'الفاتورة (رقم) مدفوعة', 'שלום (עולם) טוב'];
  assert.deepEqual(await extracted(rtl), rtl);
  // Mixed lines: the words in logical order (pdftotext's own bidi pass moves the space at a
  // change of direction, so spaces are left out of the comparison).
  const mixed = ['The word שלום means peace', 'עברית עם English בתוך'];
  const bare = (s: string) => s.replace(/\s+/g, '');
  for (const line of mixed) assert.deepEqual((await extracted([line])).map(bare), [bare(line)]);
});

test('PDF/UA: pdfuaid in the XMP; an image without alt names its path; title, language and PDF/A-1b are refused', async () => {
  const { pdf } = await renderPdf(STRUCTURED, {}, { now: NOW, pdfUa: true });
  assert.match(pdf.toString('latin1'), /<pdfuaid:part>1<\/pdfuaid:part>/);
  const noAlt = { ...STRUCTURED, content: [{ text: 'x' }, { stack: [{ qrcode: 'https://example.com' }] }] };
  await assert.rejects(renderPdf(noAlt, {}, { now: NOW, pdfUa: true }), (e: unknown) => e instanceof RenderError && e.code === 'TEMPLATE_INVALID' && e.path === 'content[1].stack[0].alt');
  // Without pdfUa the same template renders (the figure has no Alt).
  await renderPdf(noAlt, {}, { now: NOW });
  await assert.rejects(renderPdf({ ...STRUCTURED, metadata: { language: 'en' } }, {}, { now: NOW, pdfUa: true }), (e: unknown) => e instanceof RenderError && e.path === 'metadata.title');
  await assert.rejects(renderPdf({ ...STRUCTURED, metadata: { title: 'T' } }, {}, { now: NOW, pdfUa: true }), (e: unknown) => e instanceof RenderError && e.path === 'metadata.language');
  await assert.rejects(renderPdf(STRUCTURED, {}, { now: NOW, pdfUa: true, pdfVariant: 'pdf/a-1b' }), (e: unknown) => e instanceof RenderError && e.code === 'PDFA_CONFLICT' && e.path === 'pdf_ua');
  // Headings: the first is h1, and none skips a level going down (role or a style named hN).
  const headed = (content: unknown[]) => ({ ...STRUCTURED, content });
  await assert.rejects(renderPdf(headed([{ text: 'Intro', role: 'h2' }]), {}, { now: NOW, pdfUa: true }), (e: unknown) => e instanceof RenderError && e.code === 'TEMPLATE_INVALID' && e.path === 'content[0]');
  await assert.rejects(renderPdf(headed([{ text: 'A', role: 'h1' }, { stack: [{ text: 'B', style: 'h2' }, { text: 'C', role: 'h4' }] }]), {}, { now: NOW, pdfUa: true }), (e: unknown) => e instanceof RenderError && e.path === 'content[1].stack[1]');
  await renderPdf(headed([{ text: 'A', role: 'h1' }, { text: 'B', style: 'h2' }, { text: 'C', role: 'h3' }, { text: 'D', role: 'h2' }]), {}, { now: NOW, pdfUa: true });
  // Notes carry IDs of their own.
  const noted = await renderPdf(headed([{ text: 'A', role: 'h1' }, { text: 'n', role: 'note' }, { text: 'm', role: 'note' }]), {}, { now: NOW, pdfUa: true });
  const notes = find((await structTree(noted.pdf)).root!, 'Note');
  assert.equal(new Set(notes.map((n) => n.attrs.ID)).size, 2);
  assert.ok(notes.every((n) => typeof n.attrs.ID === 'string' && n.attrs.ID !== ''));
  // A figure role on a node without alt.
  await assert.rejects(renderPdf(headed([{ stack: [{ text: 'chart' }], role: 'figure' }]), {}, { now: NOW, pdfUa: true }), (e: unknown) => e instanceof RenderError && e.path === 'content[0].role');
  // The template's pdfUa is the default; the option overrides it.
  await assert.rejects(renderPdf({ ...noAlt, pdfUa: true }, {}, { now: NOW }), (e: unknown) => e instanceof RenderError && e.code === 'TEMPLATE_INVALID');
  await renderPdf({ ...noAlt, pdfUa: true }, {}, { now: NOW, pdfUa: false });
});

test('property: a table of any shape is tagged whole: one TR per row, its cells (with ColSpan) cover every column, header cells TH', async () => {
  // A row: cells with column spans that add up to the table's width.
  const row = (width: number) =>
    fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: width }).map((spans) => {
      const cells: { text: string; colSpan?: number }[] = [];
      let left = width;
      for (const s of spans) {
        if (left === 0) break;
        const span = Math.min(s, left);
        cells.push(span > 1 ? { text: `c${cells.length}`, colSpan: span } : { text: `c${cells.length}` });
        left -= span;
      }
      return cells; // a short row is filled with empty cells
    });
  const table = fc.integer({ min: 1, max: 5 }).chain((width) =>
    fc.record({ width: fc.constant(width), header: fc.array(row(width), { maxLength: 2 }), rows: fc.array(row(width), { minLength: 1, maxLength: 6 }) }),
  );
  await fc.assert(
    fc.asyncProperty(table, async (t) => {
      const { pdf } = await renderPdf({ content: [{ table: { columns: Array(t.width).fill('*'), header: t.header, rows: t.rows } }] }, {}, { now: NOW });
      const { root } = await structTree(pdf);
      assert.ok(root);
      const [tbl] = find(root, 'Table');
      const sections = tbl.kids.map((k) => k.type);
      assert.deepEqual(sections, [...(t.header.length > 0 ? ['THead'] : []), 'TBody']);
      const rowsOf = (i: number) => tbl.kids[i].kids;
      const all = [...(t.header.length > 0 ? rowsOf(0) : []), ...rowsOf(sections.length - 1)];
      assert.equal(all.length, t.header.length + t.rows.length);
      all.forEach((tr, r) => {
        assert.equal(tr.type, 'TR');
        const width = tr.kids.reduce((n, cell) => n + Number(cell.attrs.ColSpan ?? 1), 0);
        assert.equal(width, t.width, `row ${r} covers every column`);
        for (const cell of tr.kids) assert.equal(cell.type, r < t.header.length ? 'TH' : 'TD');
      });
    }),
    { numRuns: 12 },
  );
});

const example = (name: string) => ({
  definition: JSON.parse(readFileSync(new URL(`examples/${name}/template.json`, ROOT), 'utf8')),
  data: JSON.parse(readFileSync(new URL(`examples/${name}/data.json`, ROOT), 'utf8')),
});

test('every example rendered with pdfUa (alone, with PDF/A-2b and -3b) passes pdfua-check', { skip: !existsSync(CHECKER) && 'no ../shared/tools/pdfua-check beside the repository' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platen-ua-'));
  try {
    for (const name of readdirSync(new URL('examples/', ROOT)).sort()) {
      const { definition, data } = example(name);
      for (const pdfVariant of [undefined, 'pdf/a-2b', 'pdf/a-3b'] as const) {
        const { pdf } = await renderPdf(definition, data, { now: NOW, pdfUa: true, pdfVariant });
        const file = join(dir, `${name}.pdf`);
        writeFileSync(file, pdf);
        const r = spawnSync(CHECKER.pathname, [file, '--no-warnings'], { encoding: 'utf8' });
        assert.equal(r.status, 0, `${name} ${pdfVariant ?? ''}: ${r.stdout}${r.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
