/**
 * Child process of barcode-lazy.test.ts: `invoice` renders the invoice (a QR code, no barcode),
 * `barcode` renders a code128 through renderPdf, `layout` lays one out through layoutDocument
 * directly (no renderPdf before it). Prints the page count, or the number of bar draw items.
 */
import { readFileSync } from 'node:fs';
import { renderPdf } from '../../../engine/index.ts';
import { layout } from './layout.ts';

const what = process.argv[2];
if (what === 'invoice') {
  const t = JSON.parse(readFileSync(new URL('../../../examples/invoice/template.json', import.meta.url), 'utf8'));
  const d = JSON.parse(readFileSync(new URL('../../../examples/invoice/data.json', import.meta.url), 'utf8'));
  console.log((await renderPdf(t, d)).pages);
} else if (what === 'barcode') {
  console.log((await renderPdf({ content: [{ barcode: 'PLATEN-123', format: 'code128' }] }, {})).pages);
} else {
  const [page] = layout({ content: [{ barcode: 'PLATEN-123', format: 'code128' }] });
  console.log(page.items.filter((item) => item.kind === 'bars').length);
}
