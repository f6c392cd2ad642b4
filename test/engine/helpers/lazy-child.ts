/**
 * Child process of lazy-modules.test.ts: `invoice` renders the invoice (a QR code, no barcode),
 * `barcode` renders a code128 through renderPdf, `svg` an SVG image, `layout` lays a code128 out
 * through layoutDocument directly (no renderPdf before it). Prints the page count, or the number
 * of bar draw items.
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
} else if (what === 'svg') {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10"><rect width="20" height="10" fill="#1e3a8a"/></svg>';
  console.log((await renderPdf({ content: [{ image: `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`, width: 100 }] }, {})).pages);
} else {
  const [page] = layout({ content: [{ barcode: 'PLATEN-123', format: 'code128' }] });
  console.log(page.items.filter((item) => item.kind === 'bars').length);
}
