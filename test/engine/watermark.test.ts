/** The watermark render option: diagonal text over every page, translucent (opaque under PDF/A). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderPdf } from '../../engine/index.ts';
import { readPdf } from '../helpers/pdf.ts';

const threePages = { content: [{ text: 'one' }, { pageBreak: true }, { text: 'two' }, { pageBreak: true }, { text: 'three' }] };

test('the watermark is drawn on every page and extracts as text; without it there is none', async () => {
  const marked = await readPdf((await renderPdf(threePages, {}, { watermark: 'PREVIEW' })).pdf);
  assert.equal(marked.pages.length, 3);
  for (const page of marked.pages) {
    const run = page.runs.find((r) => r.str.includes('PREVIEW'));
    assert.ok(run, page.text);
    // Drawn large, across the middle of the page.
    assert.ok(run.size > 50, `size ${run.size}`);
    assert.ok(run.y > page.height / 3 && run.y < page.height, `baseline at ${run.y}`);
  }
  const plain = await readPdf((await renderPdf(threePages, {})).pdf);
  assert.ok(plain.pages.every((p) => !p.text.includes('PREVIEW')));
});

test('the watermark is translucent, except under PDF/A (no transparency there)', async () => {
  const text = (pdf: Buffer) => pdf.toString('latin1');
  assert.match(text((await renderPdf(threePages, {}, { watermark: 'PREVIEW' })).pdf), /\/ca 0\.2/);
  const pdfa = (await renderPdf(threePages, {}, { watermark: 'PREVIEW', pdfVariant: 'pdf/a-2b' })).pdf;
  assert.doesNotMatch(text(pdfa), /\/ca /);
  assert.ok((await readPdf(pdfa)).pages.every((p) => p.text.includes('PREVIEW')));
});

test('watermark text is printed as given, and must be 1 to 100 characters', async () => {
  const r = await readPdf((await renderPdf({ content: [{ text: 'x' }] }, { a: 'no' }, { watermark: 'DRAFT {{a}}' })).pdf);
  assert.ok(r.pages[0].runs.some((run) => run.str.includes('DRAFT {{a}}')), r.pages[0].text);
  await assert.rejects(renderPdf({ content: [] }, {}, { watermark: '  ' }), RangeError);
  await assert.rejects(renderPdf({ content: [] }, {}, { watermark: 'x'.repeat(101) }), RangeError);
});
