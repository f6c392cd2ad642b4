/**
 * The PDF/A-1b/2b/3b requirements that a file's own objects show, read back with pdf-lib (a
 * parser independent of the engine's writer): header, trailer ID, no encryption, classic xref in
 * A-1, XMP with pdfaid and matching Info, an sRGB output intent with a usable ICC profile, every
 * font program embedded with CIDToGIDMap and CIDSet, no transparency in A-1, no forbidden
 * filters, actions or annotation flags. The tests need nothing outside the repository for this;
 * CI also runs an external checker over the examples when one is available.
 */
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFObject } from 'pdf-lib';

/** What a check found: each fault names the rule and the object. Empty when the file conforms. */
export interface PdfaReport {
  /** `pdfaid:part` of the XMP (NaN when missing). */
  part: number;
  conformance: string | null;
  faults: string[];
  /** The catalog's XMP packet as text. */
  xmp: string;
}

const ALLOWED_FILTERS = new Set(['FlateDecode', 'ASCIIHexDecode', 'ASCII85Decode', 'RunLengthDecode', 'CCITTFaxDecode', 'DCTDecode', 'JBIG2Decode']);
const ALLOWED_ACTIONS = new Set(['GoTo', 'GoToR', 'Thread', 'URI', 'Named', 'SubmitForm', 'GoToE']);

/** Read `pdf` and list what breaks PDF/A part `part` (1, 2 or 3), conformance level B. */
export async function checkPdfa(pdf: Buffer, part: 1 | 2 | 3): Promise<PdfaReport> {
  const faults: string[] = [];
  const raw = pdf.toString('latin1');
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, throwOnInvalidObject: true });
  const ctx = doc.context;
  const deref = (o: PDFObject | undefined): PDFObject | undefined => (o instanceof PDFRef ? ctx.lookup(o) : o);
  const dictOf = (o: PDFObject | undefined): PDFDict | undefined => {
    const v = deref(o);
    return v instanceof PDFRawStream ? v.dict : v instanceof PDFDict ? v : undefined;
  };
  const name = (d: PDFDict | undefined, key: string): string | undefined => {
    const v = deref(d?.get(PDFName.of(key)));
    return v instanceof PDFName ? v.decodeText() : undefined;
  };
  const num = (d: PDFDict | undefined, key: string): number | undefined => {
    const v = deref(d?.get(PDFName.of(key)));
    return v instanceof PDFNumber ? v.asNumber() : undefined;
  };
  const text = (o: PDFObject | undefined): string | undefined => {
    const v = deref(o);
    return v instanceof PDFString || v instanceof PDFHexString ? v.decodeText() : undefined;
  };
  const bytesOf = (o: PDFObject | undefined): Uint8Array | undefined => {
    const v = deref(o);
    return v instanceof PDFRawStream ? decodePDFRawStream(v).decode() : undefined;
  };

  // File structure.
  const header = /^%PDF-(\d)\.(\d)/.exec(raw);
  if (!header) faults.push('header: no %PDF-n.m at byte 0');
  else if (part === 1 && `${header[1]}.${header[2]}` !== '1.4') faults.push(`header: PDF/A-1 files are PDF 1.4, this one says ${header[0]}`);
  else if (part > 1 && (header[1] !== '1' || Number(header[2]) > 7)) faults.push(`header: PDF/A-${part} allows PDF 1.0-1.7, this one says ${header[0]}`);
  const second = pdf.subarray(pdf.indexOf(0x0a) + 1, pdf.indexOf(0x0a, pdf.indexOf(0x0a) + 1));
  if (second[0] !== 0x25 || second.subarray(1).filter((b) => b > 127).length < 4) faults.push('header: no binary comment (% and four bytes above 127) on the second line');
  const id = deref(ctx.trailerInfo.ID);
  if (!(id instanceof PDFArray) || id.size() !== 2) faults.push('trailer: no ID array of two strings');
  if (ctx.trailerInfo.Encrypt) faults.push('trailer: the file is encrypted');
  if (!/%%EOF\r?\n?$/.test(raw.slice(-8))) faults.push('trailer: something follows the last %%EOF');
  if (part === 1 && (/\/Type\s*\/ObjStm/.test(raw) || /\/Type\s*\/XRef/.test(raw) || !/\nxref\r?\n/.test(raw))) faults.push('xref: PDF/A-1 needs a classic cross-reference table, no object or xref streams');

  // Every object and every dictionary nested in one: filters, actions, transparency, images.
  const visit = (o: PDFObject, where: string, key: string, parentKey: string) => {
    if (o instanceof PDFArray) return o.asArray().forEach((v) => visit(v, where, key, parentKey));
    const d = o instanceof PDFRawStream ? o.dict : o instanceof PDFDict ? o : undefined;
    if (!d) return;
    for (const [k, v] of d.entries()) visit(v, where, k.decodeText(), key);
    const filter = deref(d.get(PDFName.of('Filter')));
    for (const f of filter instanceof PDFArray ? filter.asArray() : filter ? [filter] : []) {
      const fname = deref(f) instanceof PDFName ? (deref(f) as PDFName).decodeText() : String(f);
      if (!ALLOWED_FILTERS.has(fname)) faults.push(`filter: ${fname} in ${where}`);
    }
    if (o instanceof PDFRawStream && (d.has(PDFName.of('F')) || d.has(PDFName.of('FFilter')))) faults.push(`stream: external stream data in ${where}`);
    if (d.has(PDFName.of('JS'))) faults.push(`action: JavaScript in ${where}`);
    // (A structure element's /A holds attributes, with an owner /O: not an action.)
    if ((key === 'A' && !d.has(PDFName.of('O'))) || key === 'OpenAction' || parentKey === 'AA' || name(d, 'Type') === 'Action') {
      const s = name(d, 'S');
      if (!s || !ALLOWED_ACTIONS.has(s)) faults.push(`action: ${s ?? 'without /S'} in ${where}`);
    }
    if (name(d, 'Subtype') === 'Image') {
      if (deref(d.get(PDFName.of('Interpolate')))?.toString() === 'true') faults.push(`image: Interpolate true in ${where}`);
      if (d.has(PDFName.of('Alternates')) || d.has(PDFName.of('OPI'))) faults.push(`image: Alternates or OPI in ${where}`);
    }
    if (part === 1) {
      const smask = deref(d.get(PDFName.of('SMask')));
      if (smask && !(smask instanceof PDFName && smask.decodeText() === 'None')) faults.push(`transparency: SMask in ${where}`);
      for (const k of ['CA', 'ca']) {
        const v = num(d, k);
        if (v !== undefined && v !== 1) faults.push(`transparency: ${k} ${v} in ${where}`);
      }
      const bm = name(d, 'BM');
      if (bm && bm !== 'Normal' && bm !== 'Compatible') faults.push(`transparency: blend mode ${bm} in ${where}`);
      if (key === 'Group' && name(d, 'S') === 'Transparency') faults.push(`transparency: a transparency group in ${where}`);
    }
  };
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) visit(obj, `obj ${ref.objectNumber}`, '', '');
  for (const [i, page] of doc.getPages().entries()) {
    const annots = deref(page.node.get(PDFName.of('Annots')));
    for (const annot of annots instanceof PDFArray ? annots.asArray().map(dictOf) : []) {
      const flags = num(annot, 'F') ?? 0;
      if ((flags & 4) === 0 || (flags & (1 | 2 | 32)) !== 0) faults.push(`annotation: a ${name(annot, 'Subtype')} annotation on page ${i + 1} is not printable or is hidden (F ${flags})`);
    }
  }

  // Metadata: an XMP packet that names the part, agrees with Info.
  const catalog = doc.catalog;
  const metadata = deref(catalog.get(PDFName.of('Metadata')));
  let xmp = '';
  if (!(metadata instanceof PDFRawStream) || name(metadata.dict, 'Type') !== 'Metadata' || name(metadata.dict, 'Subtype') !== 'XML') {
    faults.push('metadata: the catalog has no /Metadata stream of /Type /Metadata /Subtype /XML');
  } else {
    if (part === 1 && metadata.dict.has(PDFName.of('Filter'))) faults.push('metadata: PDF/A-1 needs an unfiltered XMP stream');
    xmp = Buffer.from(decodePDFRawStream(metadata).decode()).toString('utf8');
    if (/<\?xpacket[^>]*\b(bytes|encoding)=/.test(xmp)) faults.push('metadata: the xpacket header has a bytes or encoding attribute');
  }
  const prop = (re: RegExp) => re.exec(xmp)?.[1] ?? null;
  const declaredPart = Number(prop(/<pdfaid:part>(\d)<\/pdfaid:part>/) ?? prop(/pdfaid:part="(\d)"/) ?? NaN);
  const conformance = prop(/<pdfaid:conformance>([A-Z])<\/pdfaid:conformance>/) ?? prop(/pdfaid:conformance="([A-Z])"/);
  if (declaredPart !== part) faults.push(`metadata: pdfaid:part is ${declaredPart}, expected ${part}`);
  if (conformance !== 'B' && conformance !== 'A' && conformance !== 'U') faults.push(`metadata: pdfaid:conformance is ${conformance}`);
  const info = dictOf(ctx.trailerInfo.Info);
  const unescape = (s: string | null) => s?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&') ?? null;
  const infoVsXmp: [string, RegExp][] = [
    ['Title', /<dc:title>\s*<rdf:Alt>\s*<rdf:li xml:lang="x-default">([^<]*)<\/rdf:li>/],
    ['Author', /<dc:creator>\s*<rdf:Seq>\s*<rdf:li>([^<]*)<\/rdf:li>/],
    ['Subject', /<dc:description>\s*<rdf:Alt>\s*<rdf:li xml:lang="x-default">([^<]*)<\/rdf:li>/],
    ['Keywords', /<pdf:Keywords>([^<]*)<\/pdf:Keywords>/],
    ['Producer', /<pdf:Producer>([^<]*)<\/pdf:Producer>/],
    ['Creator', /<xmp:CreatorTool>([^<]*)<\/xmp:CreatorTool>/],
  ];
  for (const [key, re] of infoVsXmp) {
    const inInfo = text(info?.get(PDFName.of(key)));
    if (inInfo !== undefined && unescape(prop(re)) !== inInfo) faults.push(`metadata: Info ${key} "${inInfo}" differs from the XMP's "${prop(re)}"`);
  }

  // Colour: an output intent with an RGB ICC profile of the right version.
  const intents = deref(catalog.get(PDFName.of('OutputIntents')));
  const pdfaIntent = intents instanceof PDFArray ? intents.asArray().map(dictOf).find((d) => name(d, 'S') === 'GTS_PDFA1') : undefined;
  if (!pdfaIntent) faults.push('colour: no GTS_PDFA1 output intent');
  else {
    const profileObj = deref(pdfaIntent.get(PDFName.of('DestOutputProfile')));
    const icc = bytesOf(profileObj);
    if (!icc || icc.length < 128) faults.push('colour: the output intent has no DestOutputProfile ICC stream');
    else {
      const ascii = (a: number, b: number) => Buffer.from(icc.subarray(a, b)).toString('latin1');
      if (ascii(36, 40) !== 'acsp') faults.push('colour: the ICC profile lacks the acsp signature');
      if (ascii(16, 20) !== 'RGB ') faults.push(`colour: the ICC profile's colour space is "${ascii(16, 20)}", not RGB`);
      if (!['mntr', 'prtr'].includes(ascii(12, 16))) faults.push(`colour: the ICC profile's class is ${ascii(12, 16)}`);
      const major = icc[8];
      if (part === 1 ? major !== 2 : major < 2 || major > 4) faults.push(`colour: ICC version ${major}.x not allowed in PDF/A-${part}`);
      if (num((profileObj as PDFRawStream).dict, 'N') !== 3) faults.push('colour: the ICC stream\'s /N is not 3');
    }
  }

  // Fonts used by pages: every program embedded.
  for (const page of doc.getPages()) {
    const fonts = dictOf(dictOf(page.node.get(PDFName.of('Resources')))?.get(PDFName.of('Font')));
    for (const [key, value] of fonts?.entries() ?? []) {
      const font = dictOf(value);
      const fname = `font ${key.decodeText()} (${name(font, 'BaseFont')})`;
      const subtype = name(font, 'Subtype');
      const descendant = subtype === 'Type0' ? dictOf((deref(font?.get(PDFName.of('DescendantFonts'))) as PDFArray | undefined)?.get(0)) : font;
      const descriptor = dictOf(descendant?.get(PDFName.of('FontDescriptor')));
      if (!descriptor || !['FontFile', 'FontFile2', 'FontFile3'].some((k) => descriptor.has(PDFName.of(k)))) faults.push(`fonts: ${fname} is not embedded`);
      if (subtype === 'Type0') {
        if (name(descendant, 'Subtype') === 'CIDFontType2' && !descendant?.has(PDFName.of('CIDToGIDMap'))) faults.push(`fonts: ${fname} has no CIDToGIDMap`);
        if (part === 1 && !descriptor?.has(PDFName.of('CIDSet'))) faults.push(`fonts: ${fname} is a subset without a CIDSet`);
        if (!font?.has(PDFName.of('ToUnicode'))) faults.push(`fonts: ${fname} has no ToUnicode map`);
      }
    }
  }
  return { part: declaredPart, conformance, faults, xmp };
}
