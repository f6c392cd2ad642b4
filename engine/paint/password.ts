/**
 * Whether a password can protect a PDF. AES-256 encryption (PDF 2.0, as pdfkit writes it)
 * prepares a password with SASLprep (RFC 4013) before hashing it, and SASLprep refuses some text:
 * control, private-use and non-characters, code points unassigned in Unicode 3.2 (emoji among
 * them), and right-to-left letters mixed with left-to-right ones. A password that it maps to
 * nothing (soft hyphens, zero-width spaces) would open the PDF as no password at all.
 */
import PDFDocument from 'pdfkit';

/**
 * What makes `password` unusable for a PDF, as a sentence for the caller, or undefined when it
 * can be used. pdfkit's own preparation is run on it (a document that is never written), so the
 * answer is the encryption's.
 */
export function passwordFault(password: string): string | undefined {
  try {
    // pdfkit prepares both passwords when the document is made; nothing is written.
    new PDFDocument({ autoFirstPage: false, font: null, pdfVersion: '1.7ext3', userPassword: password, ownerPassword: password } as unknown as PDFKit.PDFDocumentOptions);
  } catch (e) {
    const message = e instanceof Error ? e.message : '';
    if (/Prohibited character/.test(message)) return 'holds a character a PDF password may not hold (a control, private-use or non-character: SASLprep, RFC 4013)';
    if (/Unassigned code point/.test(message)) return 'holds a character PDF passwords cannot hold (a code point unassigned in Unicode 3.2, such as an emoji: SASLprep, RFC 4013)';
    if (/RandALCat and LCat/.test(message)) return 'mixes right-to-left and left-to-right letters, which a PDF password may not (SASLprep, RFC 4013)';
    if (/first and the last/.test(message)) return 'holds right-to-left letters, so it must start and end with one (SASLprep, RFC 4013)';
    // pdfkit fails this way on a password its preparation maps to nothing.
    if (e instanceof TypeError) return 'is empty once prepared for the PDF (soft hyphens and the like count as nothing): use visible characters';
    return `cannot be prepared for the PDF's encryption: ${message}`;
  }
  return undefined;
}
