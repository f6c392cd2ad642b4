/**
 * Render every example (examples/<name>/template.json with its data.json) plain and in every PDF/A
 * variant into one folder: `<name>.pdf`, `<name>.pdf-a-1b.pdf`, ...; and as PDF/UA-1, alone and
 * with PDF/A-2b and -3b: `<name>.ua.pdf`, `<name>.ua.pdf-a-2b.pdf`, `<name>.ua.pdf-a-3b.pdf`. For
 * conformance checkers (scripts/check-conformance.sh). Usage: tsx scripts/render-examples.ts OUT_DIR
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDF_VARIANTS, renderPdf, type PdfVariant } from '../engine/index.ts';

const out = process.argv[2];
if (!out) throw new Error('usage: tsx scripts/render-examples.ts OUT_DIR');
mkdirSync(out, { recursive: true });
const examples = new URL('../examples/', import.meta.url);
for (const name of readdirSync(examples).sort()) {
  const definition = JSON.parse(readFileSync(new URL(`${name}/template.json`, examples), 'utf8'));
  const data = JSON.parse(readFileSync(new URL(`${name}/data.json`, examples), 'utf8'));
  for (const variant of [undefined, ...PDF_VARIANTS] as (PdfVariant | undefined)[]) {
    const { pdf } = await renderPdf(definition, data, { pdfVariant: variant });
    const file = join(out, variant ? `${name}.${variant.replace('/', '-')}.pdf` : `${name}.pdf`);
    writeFileSync(file, pdf);
  }
  // PDF/UA-1 does not combine with PDF/A-1b (PDF 1.4).
  for (const variant of [undefined, 'pdf/a-2b', 'pdf/a-3b'] as (PdfVariant | undefined)[]) {
    const { pdf } = await renderPdf(definition, data, { pdfVariant: variant, pdfUa: true });
    writeFileSync(join(out, variant ? `${name}.ua.${variant.replace('/', '-')}.pdf` : `${name}.ua.pdf`), pdf);
  }
}
