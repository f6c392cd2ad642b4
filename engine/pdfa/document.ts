/**
 * Document-wide metadata, installed on a pdfkit document before it ends: our XMP packet for
 * every document (pdfkit's own neither escapes & and < nor writes xmp:ModifyDate), and for PDF/A
 * the pdfaid identification and the output intent from icc-profiles/.
 */
import type PDFDocument from 'pdfkit';
import { defaultIccProfile } from './profiles.ts';
import type { PdfaProfile } from './variant.ts';
import { xmpPacket, type XmpInfo } from './xmp.ts';

type Doc = InstanceType<typeof PDFDocument>;
interface Ref {
  data: Record<string, unknown>;
  compress: boolean;
  end(chunk?: Buffer | string): void;
}
interface DocInternals {
  ref(data?: object): Ref;
  _root: { data: Record<string, unknown> };
  endMetadata(): void;
}

/** Replace pdfkit's metadata step with ours; with `pdfa`, also write the output intent. */
export function installMetadata(doc: Doc, info: XmpInfo, pdfa?: PdfaProfile, pdfua = false): void {
  const d = doc as unknown as DocInternals;
  d.endMetadata = () => {
    const xmp = d.ref({ Type: 'Metadata', Subtype: 'XML' });
    // PDF/A-1 6.7.2: the catalog's metadata stream is not filtered.
    xmp.compress = false;
    xmp.end(Buffer.from(xmpPacket(info, pdfa && { part: pdfa.part, conformance: pdfa.conformance }, pdfua), 'utf8'));
    d._root.data.Metadata = xmp;
    if (pdfa) d._root.data.OutputIntents = [outputIntent(d)];
  };
}

function outputIntent(d: DocInternals): Ref {
  const icc = defaultIccProfile();
  const profile = d.ref({ N: icc.components });
  profile.end(icc.data);
  const intent = d.ref({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: new String(icc.outputConditionIdentifier),
    Info: new String(icc.info),
    DestOutputProfile: profile,
  });
  intent.end();
  return intent;
}
