/**
 * Layout features of labels, certificates and long documents: page sizes with units, fixed-size
 * and absolutely positioned boxes, rotation, opacity, rounded corners, template watermarks, text
 * that shrinks to fit, internal links, outlines, tables of contents and page-break variants. Each
 * is read back from the PDF (pdf.js positions, operators, annotations).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTemplate } from '../../engine/template/schema.ts';
import { render } from '../helpers/render.ts';

test('page sizes with units: inches, millimetres, centimetres and points', async () => {
  const cases: [string, number, number][] = [
    ['4x6in', 288, 432],
    ['100x150mm', 283.46, 425.2],
    ['210x297mm', 595.28, 841.89],
    ['8.5x11in', 612, 792],
    ['595x842pt', 595, 842],
    ['10 x 15 cm', 283.46, 425.2],
    ['4X6IN', 288, 432],
  ];
  for (const [size, w, h] of cases) {
    const { doc } = await render({ page: { size }, content: [{ text: 'x' }] });
    assert.ok(Math.abs(doc.pages[0].width - w) < 0.02 && Math.abs(doc.pages[0].height - h) < 0.02, `${size}: ${doc.pages[0].width} x ${doc.pages[0].height}`);
  }
  // Landscape turns a unit size like a named one.
  const { doc } = await render({ page: { size: '4x6in', orientation: 'landscape' }, content: [{ text: 'x' }] });
  assert.deepEqual([doc.pages[0].width, doc.pages[0].height], [432, 288]);
});

test('a bad page size is refused with its path and what is accepted', () => {
  for (const size of ['4x6', '4x6ft', 'x6in', '0.01x6in', '300x6in', 'A7']) {
    const r = parseTemplate({ page: { size }, content: [] });
    assert.equal(r.ok, false, size);
    if (r.ok) continue;
    assert.equal(r.errors[0].path, 'page.size', size);
    assert.match(r.errors[0].message, /4x6in|pt/, size);
  }
});

const pageOf = (doc: { pages: { text: string }[] }, needle: string): number => doc.pages.findIndex((p) => p.text.includes(needle)) + 1;

test('pageBreak "before" and "after" on any node; {"pageBreak": true} still ends the page', async () => {
  const { doc } = await render({
    content: [
      { text: 'Alpha' },
      { text: 'Beta', pageBreak: 'before' },
      { stack: [{ text: 'Gamma' }, { text: 'Delta', pageBreak: 'after' }] },
      { text: 'Epsilon' },
      { pageBreak: true },
      { text: 'Zeta' },
    ],
  });
  assert.deepEqual(['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta'].map((w) => pageOf(doc, w)), [1, 2, 2, 2, 3, 4]);
  // A break after the last node adds no empty page.
  const last = await render({ content: [{ text: 'only', pageBreak: 'after' }] });
  assert.equal(last.pages, 1);
});

test('pageBreak "avoid" keeps a node whole and with the next one', async () => {
  const para = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');
  const filler = { text: para(55) };
  // Without avoid the paragraph is cut; with it, it moves whole to page 2.
  const cut = await render({ content: [filler, { text: `KEEP\n${para(10)}` }] });
  assert.equal(pageOf(cut.doc, 'KEEP'), 1);
  const kept = await render({ content: [filler, { text: `KEEP\n${para(10)}`, pageBreak: 'avoid' }] });
  assert.equal(pageOf(kept.doc, 'KEEP'), 2);
  assert.ok(kept.doc.pages[1].text.includes('line 9'));
  // A heading with avoid goes with the paragraph after it.
  const heading = await render({ content: [{ text: para(57) }, { text: 'HEADING', pageBreak: 'avoid' }, { text: `after\n${para(8)}`, widows: 4, orphans: 4 }] });
  assert.equal(pageOf(heading.doc, 'HEADING'), pageOf(heading.doc, 'after'));
});

test('pageBreak must be before, after or avoid on a node; true is the page break node', () => {
  const r = parseTemplate({ content: [{ text: 'x', pageBreak: 'later' }] });
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.errors[0].path, 'content[0].pageBreak');
  assert.equal(parseTemplate({ content: [{ text: 'x', pageBreak: 'after' }, { pageBreak: true }] }).ok, true);
  assert.equal(parseTemplate({ styles: { chapter: { pageBreak: 'before' } }, content: [{ text: 'x', style: 'chapter' }] }).ok, true);
});
