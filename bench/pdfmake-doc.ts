/**
 * Translates a Platen template + data into an equivalent pdfmake document definition, so the
 * benchmark renders the same content with the same fonts in both engines. Binding is done once by
 * Platen's binder (outside the timed loop); pdfmake gets plain content.
 * Covers what the examples use: text and spans, stack, columns, table, list, image, qrcode, line,
 * spacer, pageBreak, header/footer with page numbers.
 */
import { bindNodes } from '../engine/template/bind.ts';
import type { BoundInline, BoundNode, StyleProps, Template } from '../engine/template/types.ts';
import { mergeProps, toSides } from '../engine/layout/style.ts';
import { BUNDLED_FONT_DIR } from '../engine/text/fonts.ts';

type Json = Record<string, unknown>;

/** pdfmake font table for the bundled families. */
export function pdfmakeFonts(): Record<string, Record<string, string>> {
  const f = (file: string) => `${BUNDLED_FONT_DIR}${file}`;
  const sans = { normal: f('NotoSans-Regular.ttf'), bold: f('NotoSans-Bold.ttf'), italics: f('NotoSans-Italic.ttf'), bolditalics: f('NotoSans-BoldItalic.ttf') };
  const serif = { normal: f('NotoSerif-Regular.ttf'), bold: f('NotoSerif-Bold.ttf'), italics: f('NotoSerif-Italic.ttf'), bolditalics: f('NotoSerif-BoldItalic.ttf') };
  const mono = { normal: f('NotoSansMono-Regular.ttf'), bold: f('NotoSansMono-Bold.ttf'), italics: f('NotoSansMono-Regular.ttf'), bolditalics: f('NotoSansMono-Bold.ttf') };
  // The bundled families and their aliases (fonts/manifest.json).
  return { 'Noto Sans': sans, 'sans-serif': sans, 'Noto Serif': serif, serif, 'Noto Sans Mono': mono, monospace: mono };
}

/**
 * pdfmake's lineHeight multiplies the font's natural line height (ascent + descent + line gap);
 * Platen's multiplies the font size. Noto Sans and Noto Serif: 1.069 + 0.293 = 1.362 em.
 */
const NATURAL_LINE_HEIGHT = 1.362;
const lineHeightFor = (platen: number) => platen / NATURAL_LINE_HEIGHT;

function textProps(p: StyleProps): Json {
  const out: Json = {};
  if (p.fontFamily) out.font = p.fontFamily;
  if (p.fontSize) out.fontSize = p.fontSize;
  if (p.fontWeight !== undefined) out.bold = p.fontWeight === 'bold' || (typeof p.fontWeight === 'number' && p.fontWeight >= 600);
  if (p.fontStyle) out.italics = p.fontStyle === 'italic';
  if (p.color) out.color = p.color;
  if (p.textAlign) out.alignment = p.textAlign;
  if (p.lineHeight) out.lineHeight = lineHeightFor(p.lineHeight);
  if (p.textDecoration && p.textDecoration !== 'none') out.decoration = p.textDecoration === 'underline' ? 'underline' : 'lineThrough';
  if (p.backgroundColor) out.fillColor = p.backgroundColor;
  return out;
}

function margin(p: StyleProps): number[] | undefined {
  if (p.margin === undefined) return undefined;
  const s = toSides(p.margin);
  return [s.left, s.top, s.right, s.bottom];
}

function inline(t: string | BoundInline[], styles: Template['styles']): unknown {
  if (typeof t === 'string') return t;
  return t.map((i) => {
    if (typeof i === 'string') return i;
    const p = mergeProps(i, styles);
    return { text: inline(i.text, styles), ...textProps(p), ...(i.link ? { link: i.link } : {}) };
  });
}

function convert(node: BoundNode, styles: Template['styles']): Json {
  const p = mergeProps(node, styles);
  const base: Json = { ...textProps(p) };
  const m = margin(p);
  if (m) base.margin = m;
  if (p.breakBefore === 'page') base.pageBreak = 'before';
  if ('text' in node) return { ...base, text: inline(node.text, styles), ...(node.link ? { link: node.link } : {}) };
  if ('stack' in node) return { ...base, stack: node.stack.map((n) => convert(n, styles)) };
  if ('columns' in node) {
    return { ...base, columnGap: node.gap ?? 12, columns: node.columns.map((c) => ({ width: c.width ?? '*', stack: c.content.map((n) => convert(n, styles)) })) };
  }
  if ('list' in node) {
    const items = node.list.map((n) => convert(n, styles));
    const ordered = node.marker && !['disc', 'circle', 'square', 'none'].includes(node.marker);
    return ordered ? { ...base, ol: items, start: node.start } : { ...base, ul: items };
  }
  if ('table' in node) {
    const t = node.table;
    const cell = (n: BoundNode) => {
      const c = convert(n, styles);
      if (n.colSpan) c.colSpan = n.colSpan;
      if (n.rowSpan) c.rowSpan = n.rowSpan;
      return c;
    };
    const pad = toSides(t.cellPadding ?? 4);
    const header: Json[][] = (t.header ?? []).map((r) => r.map((n) => ({ ...cell(n), bold: true })));
    const body: Json[][] = [...header, ...t.rows.map((r) => r.map(cell)), ...(t.footer ?? []).map((r) => r.map(cell))];
    // pdfmake needs a placeholder for every cell a span covers.
    const width = Math.max(...body.map((r) => r.reduce((n, c) => n + ((c.colSpan as number) ?? 1), 0)));
    for (const row of body) {
      for (let i = 0; i < row.length; i++) {
        const span = (row[i].colSpan as number) ?? 1;
        for (let k = 1; k < span; k++) row.splice(i + k, 0, {});
      }
      while (row.length < width) row.push({});
    }
    const stripe = t.stripe;
    const lineWidth = t.borders === 'none' ? 0 : (t.borderWidth ?? 0.5);
    return {
      ...base,
      table: { headerRows: header.length, widths: t.columns ? [...t.columns] : body[0].map(() => '*'), body },
      layout: {
        hLineWidth: () => lineWidth,
        vLineWidth: () => (t.borders === 'all' || t.borders === undefined ? lineWidth : 0),
        hLineColor: () => t.borderColor ?? '#b0b0b0',
        vLineColor: () => t.borderColor ?? '#b0b0b0',
        paddingLeft: () => pad.left,
        paddingRight: () => pad.right,
        paddingTop: () => pad.top,
        paddingBottom: () => pad.bottom,
        fillColor: (row: number) => (stripe && row >= header.length && (row - header.length) % 2 === 1 ? stripe : null),
      },
    };
  }
  if ('image' in node) return { ...base, image: node.image, ...(node.width ? { width: node.width } : {}), ...(node.height ? { height: node.height } : {}) };
  if ('qrcode' in node) return { ...base, qr: node.qrcode, fit: node.size ?? 80 };
  if ('line' in node) {
    const l = node.line;
    return { ...base, canvas: [{ type: 'line', x1: 0, y1: 0, x2: l.length ?? 515, y2: 0, lineWidth: l.thickness ?? 1, lineColor: l.color ?? '#000000' }] };
  }
  if ('spacer' in node) return { text: '', margin: [0, node.spacer, 0, 0] };
  if ('pageBreak' in node) return { text: '', pageBreak: 'after' };
  // Barcodes have no pdfmake equivalent; the examples do not use them.
  return { text: '' };
}

/**
 * A factory of pdfmake document definitions of `template` with `data`. pdfmake mutates the
 * definition it renders, so every call builds a fresh one (from content bound once).
 */
export function toPdfmake(template: Template, data: unknown, now: Date): () => Json {
  const lang = template.metadata?.language;
  const content = bindNodes(template.content, data, { now, language: lang });
  return () => build(template, data, now, content);
}

function build(template: Template, data: unknown, now: Date, content: BoundNode[]): Json {
  const lang = template.metadata?.language;
  const band = (nodes: typeof template.content | undefined) =>
    nodes && nodes.length > 0
      ? (page: number, pages: number) => bindNodes(nodes, data, { now, language: lang, page: { page, pages } }).map((n) => convert(n, template.styles))
      : undefined;
  const m = toSides(template.page?.margin ?? 40);
  const size = template.page?.size ?? 'A4';
  return {
    pageSize: Array.isArray(size) ? { width: size[0], height: size[1] } : size.toUpperCase(),
    pageOrientation: template.page?.orientation ?? 'portrait',
    // pdfmake draws header and footer inside the margins: leave them room.
    pageMargins: [m.left, m.top + (template.header ? 24 : 0), m.right, m.bottom + (template.footer ? 30 : 0)],
    defaultStyle: {
      font: template.font?.family ?? 'Noto Sans',
      fontSize: template.font?.size ?? 10,
      color: template.font?.color,
      lineHeight: lineHeightFor(template.font?.lineHeight ?? 1.25),
    },
    info: { title: template.metadata?.title },
    header: band(template.header) && ((page: number, pages: number) => ({ stack: band(template.header)!(page, pages), margin: [m.left, m.top, m.right, 0] })),
    footer: band(template.footer) && ((page: number, pages: number) => ({ stack: band(template.footer)!(page, pages), margin: [m.left, 0, m.right, 0] })),
    content: content.map((n) => convert(n, template.styles)),
  };
}
