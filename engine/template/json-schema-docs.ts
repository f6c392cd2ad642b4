/**
 * Descriptions, examples and defaults of the DSL's JSON Schema (json-schema.ts), written for
 * editors' hover help and autocompletion. Property keys are `<where>.<property>`: `root` for the
 * template's own keys, a `$defs` name (`tableNode`, `eachRow`) for a definition's, `[]` for an
 * array's items and `{}` for a map's values (`root.styles{}`); `*.<property>` is the fallback for
 * the style properties every node, span, cell style and named style shares. Lengths are points.
 */

/** What one property gets in the JSON Schema. */
export interface PropertyDoc {
  description: string;
  /** Values that validate (none only for a property that is never allowed). */
  examples: unknown[];
  default?: unknown;
}

export const SCHEMA_DESCRIPTION =
  'A Platen template: page setup, fonts, named styles and a tree of nodes whose {{placeholders}} are filled from a JSON data object. ' +
  'Lengths are PDF points (1 pt = 1/72 in, 1 mm = 2.835 pt). This schema checks structure; the server also checks placeholder syntax, ' +
  'colour names, that named styles exist, table grids and font families.';

const COLOR = 'Colour: #rgb, #rrggbb or a CSS colour name (case-insensitive)';
const BOUND = 'may hold {{placeholders}}';
const SIDES = 'a number for all four sides, [vertical, horizontal] or [top, right, bottom, left] (CSS order)';
const NODES = 'an array of nodes, each an object with exactly one kind key (text, image, table, columns, stack, list, qrcode, barcode, line, spacer, pageBreak, toc, each, if)';

const STYLE: Record<string, PropertyDoc> = {
  style: { description: 'Named style(s) from the template\'s `styles`, applied in order; the node\'s own properties override them.', examples: ['label', ['num', 'grand']] },
  fontFamily: { description: 'Font family or alias (sans-serif, serif, monospace), or a list tried in order for every character; case-insensitive. Inherited.', examples: ['Noto Serif', ['Noto Serif', 'Noto Sans Arabic']] },
  fontSize: { description: 'Font size in points. Inherited.', examples: [10, 12.5] },
  fontWeight: { description: '"normal" (400), "bold" (700) or 100..900 in steps of 100; the nearest face is used. Inherited.', examples: ['bold', 600] },
  fontStyle: { description: '"normal" or "italic" (upright where the family has no italic). Inherited.', examples: ['italic'] },
  color: { description: `Text colour (and the default colour of lines and codes). ${COLOR}; on nodes it ${BOUND}. Inherited.`, examples: ['#1f4e79', 'navy'] },
  backgroundColor: { description: `Background of the node's box. ${COLOR}; on nodes it ${BOUND}.`, examples: ['#f3f6f9'] },
  textAlign: { description: 'Horizontal alignment; start and end follow the text direction. Inherited.', examples: ['right', 'justify'], default: 'start' },
  lineHeight: { description: 'Line height as a multiple of the font size. Inherited.', examples: [1.25, 1.5], default: 1.25 },
  textDecoration: { description: 'Underline or strike through the text. Inherited.', examples: ['underline'], default: 'none' },
  direction: { description: 'Text direction: ltr, rtl, or auto (from the first strong letter). Inherited.', examples: ['rtl'], default: 'ltr' },
  letterSpacing: { description: 'Points added after every character (negative tightens). Inherited.', examples: [1.5, -0.2] },
  fontFeatures: { description: 'OpenType feature tags to turn on, such as tnum (tabular figures) or smcp (small capitals). Inherited.', examples: [['tnum'], ['smcp', 'onum']] },
  hyphenate: { description: 'false turns off hyphenation of justified text (which follows metadata.language). Inherited.', examples: [false], default: true },
  margin: { description: `Space outside the node's box: ${SIDES}.`, examples: [8, [0, 0, 8, 0]] },
  padding: { description: `Space inside the node's box, between border and content: ${SIDES}.`, examples: [[10, 12]] },
  border: { description: 'Border of the node\'s box: {"width", "color"} for all sides, or per side {"top": {...}, "left": {...}}.', examples: [{ width: 1, color: '#ccc' }, { left: { width: 3, color: '#1f4e79' } }] },
  keepTogether: { description: 'true: move the node to the next page rather than split it, if it fits on one page.', examples: [true] },
  keepWithNext: { description: 'true: keep the node on the same page as the start of the next one (headings).', examples: [true] },
  widows: { description: 'Fewest lines of a paragraph carried to the top of the next page by a break. Inherited.', examples: [2], default: 2 },
  orphans: { description: 'Fewest lines of a paragraph left at the bottom of a page before a break. Inherited.', examples: [2], default: 2 },
  breakBefore: { description: '"page": start the node on a new page.', examples: ['page'], default: 'auto' },
  pageBreak: { description: 'On any node: "before" starts it on a new page, "after" starts what follows on a new page, "avoid" keeps it whole and on the page of the start of the next node. ({"pageBreak": true} alone is the page break node.)', examples: ['before', 'after', 'avoid'] },
  id: { description: 'A name for the node (a letter, then letters, digits, _ - . :), written out: internal links "#id" go to it. Not in named styles or spans.', examples: ['terms', 'chapter-2'] },
  width: { description: 'Border-box width in points: a box of fixed size (made narrower, with a warning, when the room is smaller). On image and barcode nodes: the picture\'s or bars\' width.', examples: [100, 288] },
  height: { description: 'Border-box height in points: the box is exactly this tall and never split across pages; content taller than it is cut off (CONTENT_CLIPPED warning). On image and barcode nodes: the picture\'s or bars\' height.', examples: [40] },
  position: { description: '"absolute": the node takes no room in the flow and is placed by top/right/bottom/left from the page (relativeTo "page", the default) or from its parent box (relativeTo "parent"); kept on the page (BOX_CLAMPED warning).', examples: ['absolute'], default: 'static' },
  relativeTo: { description: 'What an absolute node\'s top/right/bottom/left are measured from: "page" (the paper\'s edges; the default) or "parent" (the content box of the node it is in; at the top level, the content area).', examples: ['parent'], default: 'page' },
  top: { description: 'Absolute nodes: distance of the top edge (margin included) from the top edge of the page or parent, points.', examples: [20] },
  right: { description: 'Absolute nodes: distance of the right edge from the right edge of the page or parent, points.', examples: [20] },
  bottom: { description: 'Absolute nodes (without top): distance of the bottom edge from the bottom edge of the page or parent, points.', examples: [10] },
  left: { description: 'Absolute nodes: distance of the left edge from the left edge of the page or parent, points.', examples: [10] },
  rotate: { description: 'Degrees clockwise (negative: anticlockwise) about the box\'s centre; the box keeps its place and room in the flow and is never split across pages.', examples: [-90, 45] },
  opacity: { description: 'Opacity of everything the node draws, 0 (invisible) to 1 (opaque). PDF/A-1b refuses values below 1.', examples: [0.3], default: 1 },
  borderRadius: { description: 'Corner radius of the node\'s background and border, points; images are clipped to it.', examples: [6] },
  colSpan: { description: 'Table cells only: columns the cell spans (leave the covered cells out of the row, or put {} at each).', examples: [2] },
  rowSpan: { description: 'Table cells only: rows the cell spans (leave the covered cells out of the rows below, or put {} at each).', examples: [3] },
  role: { description: 'What the node is for readers of the tagged PDF: h1..h6 (a heading), p, figure, caption, note, or artifact (decoration, left out of the structure). Default by kind: text is a paragraph (a heading when its style is named h1..h6), images and codes are figures. Not in named styles.', examples: ['h1', 'artifact'] },
  lang: { description: 'Language of the text (BCP 47), inherited: hyphenation patterns of justified text and the locale of number, currency and date filters inside the node. Default: metadata.language. Not in named styles.', examples: ['de', 'fr-CH'] },
  verticalAlign: { description: 'Table cells only: vertical position of the content in its row; baseline lines the first line of text up with the other baseline cells of the row.', examples: ['middle'], default: 'baseline' },
};

export const PROPERTY_DOCS: Record<string, PropertyDoc> = {
  ...Object.fromEntries(Object.entries(STYLE).map(([k, v]) => [`*.${k}`, v])),

  'root.$schema': { description: 'The JSON Schema editors check this file against; ignored when rendering.', examples: ['https://platen.example.com/v1/schemas/template.json', './schemas/template.schema.json'] },
  'root.tagged': { description: 'false: write an untagged PDF (no structure tree, a smaller file). Tagged PDFs let screen readers read the document in order.', examples: [false], default: true },
  'root.pdfUa': { description: 'true: claim and meet PDF/UA-1 (accessible PDF) unless the request\'s pdf_ua says otherwise; images and codes then need alt.', examples: [true], default: false },
  'root.strict': { description: 'true: data the template reads must be there; a render with a missing data path (a placeholder without a default filter, or an each) fails instead of printing it empty.', examples: [true], default: false },
  'root.page': { description: 'Page size, orientation and margins.', examples: [{ size: 'A4', margin: 40 }] },
  'root.page.size': { description: 'A3, A4, A5, A6, B5, Letter, Legal, Tabloid (case-insensitive), width x height with a unit (in, mm, cm, pt) such as "4x6in" or "100x150mm", or [width, height] in points.', examples: ['A4', 'Letter', '4x6in', '100x150mm', [595.28, 841.89]], default: 'A4' },
  'root.page.orientation': { description: 'landscape swaps the width and height of the page size.', examples: ['landscape'], default: 'portrait' },
  'root.page.margin': { description: `Page margins: ${SIDES}.`, examples: [40, [40, 56], [40, 48, 36, 48]], default: 40 },
  'root.font': { description: 'Document defaults that every node inherits.', examples: [{ family: 'Noto Sans', size: 10 }] },
  'root.font.family': { description: 'Default font family or alias, or a list tried in order per character.', examples: ['Noto Sans', 'serif'], default: 'Noto Sans' },
  'root.font.size': { description: 'Default font size in points.', examples: [10], default: 10 },
  'root.font.color': { description: `Default text colour. ${COLOR}; no placeholders.`, examples: ['#1f2933'], default: '#000000' },
  'root.font.lineHeight': { description: 'Default line height, a multiple of the font size.', examples: [1.25], default: 1.25 },
  'root.styles': { description: 'Named styles: {"name": {style properties}}, used with "style": "name" on nodes.', examples: [{ label: { fontSize: 7.5, fontWeight: 'bold', color: '#6b7785' } }] },
  'root.styles{}.style': { description: 'Not allowed: a named style cannot use other styles; list several names at the use site instead.', examples: [] },
  'root.metadata': { description: 'Document information written into the PDF; every field may hold {{placeholders}}.', examples: [{ title: 'Invoice {{number}}', language: 'en' }] },
  'root.metadata.title': { description: `Document title (shown by viewers); ${BOUND}.`, examples: ['Invoice {{number}}'] },
  'root.metadata.author': { description: `Document author; ${BOUND}.`, examples: ['{{seller.name}}'] },
  'root.metadata.subject': { description: `Document subject; ${BOUND}.`, examples: ['Invoice for {{buyer.name}}'] },
  'root.metadata.keywords': { description: `Document keywords; ${BOUND}.`, examples: ['invoice, 2025'] },
  'root.metadata.language': { description: 'BCP 47 language tag: the document language, the locale of number, currency and date filters, and the hyphenation patterns.', examples: ['en', 'de-CH'], default: 'en' },
  'root.header': { description: `Repeated at the top of every page, inside the margins: ${NODES}. {{$page}} and {{$pages}} are set.`, examples: [[{ text: '{{title}}', fontWeight: 'bold' }]] },
  'root.footer': { description: `Repeated at the bottom of every page, inside the margins: ${NODES}. {{$page}} and {{$pages}} are set.`, examples: [[{ text: 'Page {{$page}} of {{$pages}}', textAlign: 'right', fontSize: 8 }]] },
  'root.background': { description: `Drawn behind everything on every page, from the top-left corner over the full page width: ${NODES}.`, examples: [[{ text: 'DRAFT', fontSize: 110, color: '#f0f0f0', textAlign: 'center', margin: [330, 0, 0, 0] }]] },
  'root.watermark': { description: 'Text or an image drawn on every page: centred, turned, translucent, behind the content (over the background) or in front of everything. PDF/A-1b refuses a translucent one.', examples: [{ text: 'CONFIDENTIAL', color: '#b3261e', opacity: 0.2 }, { image: 'data:image/png;base64,iVBORw0KGgo...', width: 300, opacity: 0.1 }] },
  'root.watermark.text': { description: 'The text, one line of 1 to 100 characters, written out (no placeholders).', examples: ['DRAFT', 'CONFIDENTIAL'] },
  'root.watermark.image': { description: 'An image source instead of text (no placeholders).', examples: ['data:image/png;base64,iVBORw0KGgo...'] },
  'root.watermark.color': { description: `Text colour. ${COLOR}; no placeholders.`, examples: ['#b3261e'], default: '#808080' },
  'root.watermark.fontFamily': { description: 'Font family of the text, or a list tried in order per character.', examples: ['Noto Serif'] },
  'root.watermark.fontWeight': { description: 'Weight of the text.', examples: ['normal'], default: 'bold' },
  'root.watermark.fontSize': { description: 'Size of the text in points; default: as large as the page allows (70 % of the diagonal, letters at most a quarter of the shorter side).', examples: [72] },
  'root.watermark.width': { description: 'Width of the image in points.', examples: [300], default: 'half the page width' },
  'root.watermark.opacity': { description: '0 (invisible) to 1 (opaque).', examples: [0.2], default: 0.15 },
  'root.watermark.rotate': { description: 'Degrees clockwise (negative: anticlockwise); default: text along the diagonal from the bottom-left corner, images upright.', examples: [-45, 0] },
  'root.watermark.layer': { description: '"behind": over the background, under the header, content and footer; "front": over everything.', examples: ['front'], default: 'behind' },
  'root.content': { description: `Required: the document body, ${NODES}.`, examples: [[{ text: 'Hello {{name}}' }]] },

  'textNode.text': { description: `A paragraph: a string (${BOUND}; \\n starts a new line) or an array of strings and spans.`, examples: ['Hello {{name}}', ['Please pay ', { text: '{{total | currency:\'EUR\'}}', fontWeight: 'bold' }]] },
  'textNode.link': { description: `Where the text links to: an https:// or http:// URL, mailto:, tel:, or "#id" (nothing else: javascript:, file: and data: are refused); ${BOUND}. Not styled automatically.`, examples: ['https://example.com/pay/{{id}}'] },
  'span.text': { description: `The span's text (${BOUND}), or an array of strings and nested spans.`, examples: ['{{total | currency:\'EUR\'}}'] },
  'span.link': { description: `Where the span links to: an https:// or http:// URL, mailto:, tel:, or "#id"; ${BOUND}.`, examples: ['{{payLink}}'] },

  'textNode.fit': { description: '"shrink": a smaller font size, down to minFontSize, rather than breaking a word or overflowing the node\'s height (SHRINK_FAILED warning when even that does not fit).', examples: ['shrink'] },
  'textNode.minFontSize': { description: 'The smallest size fit "shrink" goes down to, points.', examples: [6], default: 4 },
  'imageNode.alt': { description: `Text alternative read instead of the image; ${BOUND}. "" marks it as decoration. Required when the PDF is PDF/UA.`, examples: ['Company logo', ''] },
  'imageNode.image': {
    description: 'The image (PNG, JPEG or SVG; SVG drawn as vectors): a data: URI, an https:// URL fetched by the service, or asset:<id> of an uploaded asset; often from the data ({{logo}}).',
    examples: ['{{logo}}', 'data:image/png;base64,iVBORw0KGgo...', 'https://cdn.example.com/logo.svg', 'asset:3f9c2a7e1b5d4c6f8a0e2d4b6c8a0f1e'],
  },
  'imageNode.width': { description: 'Width in points (alone: the height follows the aspect ratio).', examples: [150] },
  'imageNode.height': { description: 'Height in points (alone: the width follows the aspect ratio).', examples: [80] },
  'imageNode.fit': { description: 'With width and height: contain (whole image), cover (fills, cropped) or fill (stretched).', examples: ['cover'], default: 'contain' },
  'imageNode.align': { description: 'Horizontal position; default follows textAlign.', examples: ['center'] },

  'tableNode.table': { description: 'The table: columns, header, rows, footer and rules.', examples: [{ columns: ['*', 60], header: [['Item', 'Price']], rows: [{ each: 'items', as: 'item', row: ['{{item.name}}', '{{item.price}}'] }] }] },
  'tableNode.table.columns': { description: 'Column widths: points, "auto" (as wide as the content), "*" or "N*" (shares of the width left).', examples: [['*', 54, 72, 78], ['*', '2*']] },
  'tableNode.table.header': { description: 'Header rows (arrays of cells), repeated at the top of every page the table is on.', examples: [[['Description', { text: 'Amount', textAlign: 'right' }]]] },
  'tableNode.table.rows': { description: 'Required: body rows, each an array of cells, {"each", "as", "row"} (one row per item) or {"if", "then", "else"}.', examples: [[{ each: 'items', as: 'item', row: ['{{item.name}}', '{{item.qty}}'] }]] },
  'tableNode.table.footer': { description: 'Footer rows, printed once after the last body row.', examples: [[['', { text: '{{total | currency:\'EUR\'}}', textAlign: 'right' }]]] },
  'tableNode.table.borders': { description: 'Rules: all (every cell boxed), horizontal (above the table and under every row), outer (a frame) or none.', examples: ['horizontal'], default: 'all' },
  'tableNode.table.borderColor': { description: `Colour of the rules. ${COLOR}; ${BOUND}.`, examples: ['#b0b0b0'], default: '#b0b0b0' },
  'tableNode.table.borderWidth': { description: 'Thickness of the rules in points.', examples: [0.5], default: 0.5 },
  'tableNode.table.stripe': { description: `Background of every second body row. ${COLOR}; ${BOUND}.`, examples: ['#f3f6f9'] },
  'tableNode.table.cellPadding': { description: `Padding inside every cell: ${SIDES}; a cell's own padding replaces it.`, examples: [4, [4, 6]], default: 4 },
  'tableNode.table.headerStyle': { description: 'Style the header cells inherit: text properties and backgroundColor; box properties such as padding are refused (set them on the cells). Replaces the default {"fontWeight": "bold"}.', examples: [{ fontWeight: 'bold', backgroundColor: '#1f4e79', color: 'white' }], default: { fontWeight: 'bold' } },
  'tableNode.table.footerStyle': { description: 'Style the footer cells inherit: text properties and backgroundColor; box properties such as padding are refused (set them on the cells).', examples: [{ fontWeight: 'bold' }] },

  'columnsNode.columns': { description: 'Side-by-side blocks, each {"width", "content"}; the node is as tall as its tallest column.', examples: [[{ width: '*', content: [{ text: 'FROM' }] }, { width: 150, content: [{ text: 'TO' }] }]] },
  'columnsNode.columns[].width': { description: 'Column width: points, "auto", "*" or "N*".', examples: ['*', 150], default: '*' },
  'columnsNode.columns[].content': { description: `The column's nodes: ${NODES}.`, examples: [[{ text: '{{seller.name}}' }]] },
  'columnsNode.gap': { description: 'Space between columns in points.', examples: [20], default: 12 },

  'stackNode.stack': { description: `Nodes grouped in one box (common margin, padding, border, background, text style or keepTogether): ${NODES}.`, examples: [[{ text: 'PAID' }, { text: 'Thank you.' }]] },

  'listNode.list': { description: 'Items: strings or nodes; an item that is a list node is a nested list.', examples: [['First', 'Second', { list: ['Nested'], marker: 'lower-alpha' }]] },
  'listNode.marker': { description: 'Item marker.', examples: ['decimal', 'lower-alpha'], default: 'disc' },
  'listNode.start': { description: 'Number of the first item, for numbered markers.', examples: [1], default: 1 },

  'qrcodeNode.alt': { description: `Text alternative read instead of the code; ${BOUND}. "" marks it as decoration. Required when the PDF is PDF/UA.`, examples: ['Pay invoice 2024-001 online', ''] },
  'qrcodeNode.qrcode': { description: `Text or URL to encode; ${BOUND}. Left out when the value is missing.`, examples: ['{{payLink}}'] },
  'qrcodeNode.size': { description: 'Side of the square in points; without it the smaller of width and height (not both with size).', examples: [96], default: 80 },
  'qrcodeNode.errorCorrection': { description: 'Error correction level.', examples: ['M'], default: 'M' },

  'barcodeNode.alt': { description: `Text alternative read instead of the code; ${BOUND}. "" marks it as decoration. Required when the PDF is PDF/UA.`, examples: ['Article 4006381333931', ''] },
  'barcodeNode.barcode': { description: `Value to encode; ${BOUND}. Left out when the value is missing.`, examples: ['{{sku}}', '4006381333931'] },
  'barcodeNode.format': { description: 'Symbology (a bwip-js id): code128, code39, ean13, ean8, upca, itf14, datamatrix, pdf417, azteccode, ...', examples: ['code128', 'ean13', 'datamatrix'], default: 'code128' },
  'barcodeNode.height': { description: 'Bar height in points (default 40 for linear codes, 80 for 2D codes).', examples: [40] },
  'barcodeNode.width': { description: 'Total width in points (default: 1 pt per module; 2D codes keep their aspect ratio).', examples: [180] },
  'barcodeNode.showText': { description: 'Print the value under the bars (default true for linear codes, false for 2D).', examples: [true] },

  'lineNode.line': { description: 'A horizontal rule.', examples: [{ thickness: 0.5, color: '#c5ccd3' }] },
  'lineNode.line.thickness': { description: 'Thickness in points.', examples: [0.5], default: 1 },
  'lineNode.line.color': { description: `Colour (default: the current text colour). ${COLOR}; ${BOUND}.`, examples: ['#c5ccd3'] },
  'lineNode.line.length': { description: 'Length in points (default: the full available width).', examples: [160] },
  'lineNode.line.dash': { description: 'Dash pattern: [on, off, ...] lengths in points (default solid).', examples: [[3, 2]] },

  'spacerNode.spacer': { description: 'Vertical space in points.', examples: [24] },
  'pageBreakNode.pageBreak': { description: 'true: end the page here.', examples: [true] },
  'tocNode.toc': { description: 'A table of contents: the headings of the content (text with role h1..h6, or a named style h1..h6), each linked and with its page number.', examples: [{}, { levels: 2 }] },
  'tocNode.toc.levels': { description: 'Deepest heading level listed (1: h1 only).', examples: [2], default: 3 },

  'eachNode.each': { description: 'Data path of an array: content is repeated once per element (nothing for a missing or null array).', examples: ['items', 'order.lines'] },
  'eachNode.as': { description: 'Name of the current element inside content; {{$index}} is its 0-based position.', examples: ['item', 'order'], default: 'item' },
  'eachNode.content': { description: `Nodes repeated for every element: ${NODES}.`, examples: [[{ text: '{{item.name}}' }]] },
  'ifNode.if': { description: 'Condition: a data path (truthy test) or {"not"}, {"and"}, {"or"}, {"eq"}, {"ne"}, {"gt"}, {"gte"}, {"lt"}, {"lte"}.', examples: ['customer.vip', { gt: ['total', 1000] }] },
  'ifNode.then': { description: `Nodes rendered when the condition holds: ${NODES}.`, examples: [[{ text: 'Thank you for being a VIP customer.' }]] },
  'ifNode.else': { description: `Nodes rendered when it does not: ${NODES}.`, examples: [[{ text: 'Join our club!' }]] },

  'eachRow.each': { description: 'Data path of an array: one row per element.', examples: ['items'] },
  'eachRow.as': { description: 'Name of the current element in the row\'s cells.', examples: ['item'], default: 'item' },
  'eachRow.row': { description: 'The row\'s cells: strings or nodes.', examples: [['{{item.name}}', { text: '{{item.qty}}', textAlign: 'right' }]] },
  'ifRow.if': { description: 'Condition: a data path or {"not"}, {"and"}, {"or"}, {"eq"}, {"ne"}, {"gt"}, {"gte"}, {"lt"}, {"lte"}.', examples: ['showDiscount'] },
  'ifRow.then': { description: 'Rows used when the condition holds.', examples: [[['Discount', '{{discount}}']]] },
  'ifRow.else': { description: 'Rows used when it does not.', examples: [[['No discount', '']]] },

  'borderSide.width': { description: 'Thickness in points.', examples: [1], default: 1 },
  'borderSide.color': { description: `${COLOR}; on nodes it ${BOUND}.`, examples: ['#cccccc'], default: '#000000' },
  'border.top': { description: 'Top side: {"width", "color"}.', examples: [{ width: 1, color: '#ccc' }] },
  'border.right': { description: 'Right side: {"width", "color"}.', examples: [{ width: 1 }] },
  'border.bottom': { description: 'Bottom side: {"width", "color"}.', examples: [{ width: 0.5, color: '#999' }] },
  'border.left': { description: 'Left side: {"width", "color"}.', examples: [{ width: 3, color: '#1f4e79' }] },

  'notCondition.not': { description: 'True when this condition is false.', examples: [{ eq: ['country', 'AT'] }] },
  'andCondition.and': { description: 'True when every condition is true.', examples: [['items', { gt: ['total', 1000] }]] },
  'orCondition.or': { description: 'True when at least one condition is true.', examples: [['customer.vip', { gte: ['orders', 10] }]] },
  'eqCondition.eq': { description: '[path, value]: the value at path equals value (null also matches a missing value).', examples: [['country', 'AT']] },
  'neCondition.ne': { description: '[path, value]: the value at path does not equal value.', examples: [['status', 'paid']] },
  'gtCondition.gt': { description: '[path, value]: greater than (numbers as numbers, strings lexically).', examples: [['total', 1000], ['total', '{{creditLimit}}']] },
  'gteCondition.gte': { description: '[path, value]: at least.', examples: [['qty', 1]] },
  'ltCondition.lt': { description: '[path, value]: less than.', examples: [['stock', 5]] },
  'lteCondition.lte': { description: '[path, value]: at most.', examples: [['discount', 0.5]] },
};

/** Descriptions of the `$defs` entries. */
export const DEF_DOCS: Record<string, string> = {
  node: 'A node: an object with exactly one kind key (text, image, table, columns, stack, list, qrcode, barcode, line, spacer, pageBreak, toc, each, if), its options and any style properties.',
  textNode: 'A paragraph: {"text": "Hello {{name}}"} or an array of strings and spans.',
  imageNode: 'A PNG, JPEG or SVG image from a data: URI, an https:// URL or asset:<id>: {"image": "{{logo}}", "width": 150}.',
  tableNode: 'A table: {"table": {"columns", "header", "rows", "footer", ...}}; headers repeat on every page.',
  columnsNode: 'Side-by-side blocks: {"columns": [{"width": "*", "content": [...]}, ...], "gap": 12}.',
  stackNode: 'Nodes grouped in one box: {"stack": [...]}.',
  listNode: 'A bulleted or numbered list: {"list": ["First", "Second"], "marker": "decimal"}.',
  qrcodeNode: 'A QR code drawn as vectors: {"qrcode": "{{payLink}}", "size": 96}.',
  barcodeNode: 'A barcode: {"barcode": "{{sku}}", "format": "code128"}.',
  lineNode: 'A horizontal rule: {"line": {"thickness": 0.5, "color": "#c5ccd3"}}.',
  spacerNode: 'Vertical space: {"spacer": 24}.',
  pageBreakNode: 'A page break: {"pageBreak": true}.',
  tocNode: 'A table of contents: {"toc": {"levels": 3}}.',
  eachNode: 'Repeats its content once per element of a data array: {"each": "items", "as": "item", "content": [...]}.',
  ifNode: 'Renders then or else by a condition: {"if": "customer.vip", "then": [...], "else": [...]}.',
  span: 'An inline span: {"text": ...} with text style properties and an optional link; spans nest.',
  inline: 'An inline piece of a paragraph: a string or a span.',
  textContent: 'A string or an array of strings and spans.',
  styleRef: 'A style name from `styles`, or a list of names applied in order.',
  fontWeight: '"normal", "bold" or 100, 200, ... 900.',
  sides: 'Lengths for four sides: a number, [vertical, horizontal] or [top, right, bottom, left].',
  borderSide: 'One border side: {"width", "color"} (width default 1, colour default black).',
  border: 'A border: {"width", "color"} for every side, or per side {"top", "right", "bottom", "left"}.',
  noStyle: 'Not allowed here.',
  columnWidth: 'A width in points, "auto" (as wide as the content), "*" or "N*" (shares of the width left).',
  tableCell: 'A table cell: a string or a node (which may carry colSpan, rowSpan and verticalAlign); {} (or "") at a position a span covers, as pdfmake writes it, or an empty cell elsewhere.',
  tableRow: 'A body row: an array of cells, {"each", "as", "row"} or {"if", "then", "else"}.',
  eachRow: 'One row per element of a data array: {"each": "items", "as": "item", "row": [...]}.',
  ifRow: 'Rows chosen by a condition: {"if": ..., "then": [rows], "else": [rows]}.',
  listItem: 'A list item: a string or a node.',
  condition: 'A condition: a data path (true when its value is truthy) or one of not, and, or, eq, ne, gt, gte, lt, lte.',
  notCondition: '{"not": condition}',
  andCondition: '{"and": [conditions]}',
  orCondition: '{"or": [conditions]}',
  eqCondition: '{"eq": [path, value]}',
  neCondition: '{"ne": [path, value]}',
  gtCondition: '{"gt": [path, value]}',
  gteCondition: '{"gte": [path, value]}',
  ltCondition: '{"lt": [path, value]}',
  lteCondition: '{"lte": [path, value]}',
  pageSize: 'A3, A4, A5, A6, B5, Letter, Legal, Tabloid (case-insensitive), width x height with a unit (in, mm, cm, pt) such as "4x6in", or [width, height] in points.',
};
