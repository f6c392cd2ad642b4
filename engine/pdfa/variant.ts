/** PDF/A variants (spec §2.1 `pdf_variant`): ISO 19005 part and conformance level. */

export const PDF_VARIANTS = ['pdf/a-1b', 'pdf/a-2b', 'pdf/a-3b'] as const;
export type PdfVariant = (typeof PDF_VARIANTS)[number];

export interface PdfaProfile {
  /** ISO 19005 part: 1, 2 or 3. */
  part: 1 | 2 | 3;
  conformance: 'B';
  /** The PDF version the part is based on: 1.4 for PDF/A-1, 1.7 for PDF/A-2 and -3. */
  pdfVersion: '1.4' | '1.7';
  /** PDF/A-1 forbids transparency: images with alpha are flattened onto white. */
  opaqueImages: boolean;
}

/** What a variant requires. */
export function pdfaProfile(variant: PdfVariant): PdfaProfile {
  const part = Number(variant.charAt(6)) as 1 | 2 | 3;
  return { part, conformance: 'B', pdfVersion: part === 1 ? '1.4' : '1.7', opaqueImages: part === 1 };
}
