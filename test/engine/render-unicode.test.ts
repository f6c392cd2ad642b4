/**
 * Text extraction (the PDF's ToUnicode maps) must not depend on what earlier renders in the same
 * process drew: the service renders many documents in one process.
 * Kept in its own file (its own process) because a failure here leaves process-wide state behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linesOf } from '../helpers/pdf.ts';
import { render } from '../helpers/render.ts';

test('accented letters, Greek and Cyrillic extract as written', async () => {
  const lines = ['Grüße aus Österreich, Straße', 'Ελληνικά κείμενα', 'Кириллица и текст', 'naïve façade — “quotes” – €'];
  const r = await render({ content: lines.map((text) => ({ text })) });
  assert.deepEqual(linesOf(r.doc.pages[0].runs), lines);
});

test('a letter extracts correctly after an earlier render used only its accented form', async () => {
  // Document 1 uses Ö (a composite glyph built from O and the dieresis) but never a plain O.
  const first = await render({ content: [{ text: 'Öl' }] });
  assert.deepEqual(linesOf(first.doc.pages[0].runs), ['Öl']);
  // Document 2 uses a plain O.
  const second = await render({ content: [{ text: 'Oase' }] });
  assert.deepEqual(linesOf(second.doc.pages[0].runs), ['Oase']);
});

test('the same holds in bold and for several letters', async () => {
  await render({ content: [{ text: 'Äpfel Übung Éclair', fontWeight: 'bold' }] });
  const r = await render({ content: [{ text: 'Apfel Ubung Eclair', fontWeight: 'bold' }] });
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['Apfel Ubung Eclair']);
});
