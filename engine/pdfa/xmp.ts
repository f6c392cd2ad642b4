/**
 * The document's XMP metadata packet. Its properties mirror the Info dictionary exactly (PDF/A-1
 * 6.7.3): Title = dc:title, Author = dc:creator, Subject = dc:description, Keywords =
 * pdf:Keywords, Creator = xmp:CreatorTool, Producer = pdf:Producer, CreationDate =
 * xmp:CreateDate, ModDate = xmp:ModifyDate. Text is XML-escaped.
 */

export interface XmpInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  language?: string;
  creator: string;
  producer: string;
  created: Date;
  modified: Date;
}

// XML 1.0 forbids most control characters, even escaped.
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** Text as it may appear in XMP and, identically, in the Info dictionary. */
export function xmpText(s: string): string {
  return s.replace(INVALID_XML, '');
}

function esc(s: string): string {
  return xmpText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** ISO 8601 in UTC, to the second: the same instant as the Info dictionary's D:YYYYMMDDHHmmSSZ. */
export function xmpDate(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** The PDF/A extension schema that declares pdfuaid (PDF/A allows only declared schemas). */
const PDFUA_EXTENSION = [
  '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">',
  '<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">',
  '<pdfaSchema:schema>PDF/UA Universal Accessibility Schema</pdfaSchema:schema>',
  '<pdfaSchema:namespaceURI>http://www.aiim.org/pdfua/ns/id/</pdfaSchema:namespaceURI>',
  '<pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>',
  '<pdfaSchema:property><rdf:Seq><rdf:li rdf:parseType="Resource">',
  '<pdfaProperty:name>part</pdfaProperty:name>',
  '<pdfaProperty:valueType>Integer</pdfaProperty:valueType>',
  '<pdfaProperty:category>internal</pdfaProperty:category>',
  '<pdfaProperty:description>Indicates, which part of ISO 14289 standard is followed</pdfaProperty:description>',
  '</rdf:li></rdf:Seq></pdfaSchema:property>',
  '</rdf:li></rdf:Bag></pdfaExtension:schemas>',
  '</rdf:Description>',
];

/**
 * The XMP packet; `pdfa` adds pdfaid:part and pdfaid:conformance, `pdfua` pdfuaid:part 1 (with
 * its extension schema under PDF/A).
 */
export function xmpPacket(info: XmpInfo, pdfa?: { part: number; conformance: string }, pdfua = false): string {
  const props: string[] = ['<dc:format>application/pdf</dc:format>'];
  if (info.title) props.push(`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${esc(info.title)}</rdf:li></rdf:Alt></dc:title>`);
  if (info.author) props.push(`<dc:creator><rdf:Seq><rdf:li>${esc(info.author)}</rdf:li></rdf:Seq></dc:creator>`);
  if (info.subject) props.push(`<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${esc(info.subject)}</rdf:li></rdf:Alt></dc:description>`);
  if (info.language) props.push(`<dc:language><rdf:Bag><rdf:li>${esc(info.language)}</rdf:li></rdf:Bag></dc:language>`);
  props.push(`<xmp:CreateDate>${xmpDate(info.created)}</xmp:CreateDate>`);
  props.push(`<xmp:ModifyDate>${xmpDate(info.modified)}</xmp:ModifyDate>`);
  props.push(`<xmp:MetadataDate>${xmpDate(info.modified)}</xmp:MetadataDate>`);
  props.push(`<xmp:CreatorTool>${esc(info.creator)}</xmp:CreatorTool>`);
  props.push(`<pdf:Producer>${esc(info.producer)}</pdf:Producer>`);
  if (info.keywords) props.push(`<pdf:Keywords>${esc(info.keywords)}</pdf:Keywords>`);
  if (pdfa) props.push(`<pdfaid:part>${pdfa.part}</pdfaid:part>`, `<pdfaid:conformance>${pdfa.conformance}</pdfaid:conformance>`);
  if (pdfua) props.push('<pdfuaid:part>1</pdfuaid:part>');
  return [
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"' +
      (pdfa ? ' xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"' : '') +
      (pdfua ? ' xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"' : '') +
      '>',
    ...props,
    '</rdf:Description>',
    ...(pdfua && pdfa ? PDFUA_EXTENSION : []),
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}
