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
