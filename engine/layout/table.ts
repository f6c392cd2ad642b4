/**
 * Table measuring: column widths (fixed, auto, star; layout/widths.ts), each cell's content
 * measured at the width of the columns it spans, row heights (a cell spanning rows stretches the
 * last row it covers), and each cell's fill (its background, else the stripe of the body row it
 * starts in, so a merged cell is one colour).
 */
import type { Box, MCell, MRow, PCell, PNode, PTable, StackBox, TableBox } from './nodes.ts';
import { firstBaseline, REPEATED_HEADER_SHARE, rowHeights } from './box-metrics.ts';
import type { RGB } from '../text/paragraph.ts';
import type { MeasureContext } from './measure.ts';
import { columnIntrinsics, resolveWidths, warnFixedWidths } from './widths.ts';

type BaseFields = Omit<StackBox, 'kind' | 'children' | 'height'>;

/** Measures a node (the measure pass, passed in: it measures tables through this module). */
export type MeasureFn = (node: PNode, width: number, ctx: MeasureContext, maxHeight: number) => Box;

/**
 * Measure a table in `inner` points of width. `v`: its frame's vertical insets; `maxHeight`: the
 * most height its content can have on a page (a cell's content gets that less the header rows and
 * its padding).
 */
export function measureTable(node: PTable, inner: number, base: BaseFields, v: number, ctx: MeasureContext, maxHeight: number, measure: MeasureFn): TableBox {
  const sections = [node.header, node.body, node.footer];
  const widths = resolveWidths(node.columns, inner, () => columnIntrinsics(node.columns, sections));
  warnFixedWidths(node.columns, widths, inner, node.path, ctx.warnings);
  const colX: number[] = [0];
  for (let i = 0; i < widths.length; i++) colX.push(colX[i] + widths[i]);
  // A right-to-left table runs its columns from the right edge (the first column on the right).
  const rtl = node.style.direction === 'rtl';
  const m: Measuring = { widths, colX, rtl, measure, ctx, maxHeight };
  const header = measureRows(node.header, null, m);
  let headerHeight = 0;
  for (const r of header) headerHeight += r.height;
  // Body and footer rows share a page with the repeated header, unless it is too tall to repeat.
  const repeats = headerHeight <= maxHeight * REPEATED_HEADER_SHARE + 1e-6;
  const rest: Measuring = { ...m, maxHeight: repeats ? maxHeight - headerHeight : maxHeight };
  const body = measureRows(node.body, node.stripe, rest);
  const footer = measureRows(node.footer, null, rest);
  let h = 0;
  for (const rows of [header, body, footer]) for (const r of rows) h += r.height;
  const total = colX[colX.length - 1];
  return {
    ...base,
    // A right-to-left table narrower than the room (fixed or auto columns) sits at the right edge.
    x: rtl ? base.x + Math.max(0, inner - total) : base.x,
    width: total,
    kind: 'table',
    header,
    body,
    footer,
    borders: node.borders,
    borderColor: node.borderColor,
    borderWidth: node.borderWidth,
    continued: false,
    height: h + v,
  };
}

/** What measuring a table's rows needs. */
interface Measuring {
  readonly widths: readonly number[];
  /** Left edge of each column, and the table's width last. */
  readonly colX: readonly number[];
  readonly rtl: boolean;
  readonly measure: MeasureFn;
  readonly ctx: MeasureContext;
  /** The most height a cell can have on a page. */
  readonly maxHeight: number;
}

/** `stripe`: the fill of every second row (body rows), or null. */
function measureRows(rows: readonly (readonly PCell[])[], stripe: RGB | null, m: Measuring): MRow[] {
  const { widths, colX, rtl, measure } = m;
  const total = colX[colX.length - 1];
  const measured: MCell[][] = rows.map((row, r) => {
    const contents = row.map((cell) => {
      let width = 0;
      for (let c = cell.col; c < cell.col + cell.colSpan && c < widths.length; c++) width += widths[c];
      return { width, content: measure(cell.node, Math.max(0, width - cell.padding.left - cell.padding.right), m.ctx, m.maxHeight - cell.padding.top - cell.padding.bottom) };
    });
    // Baseline cells: each first line of text at the row's lowest first baseline.
    const baselines = row.map((cell, i) => {
      if (cell.verticalAlign !== 'baseline') return null;
      const b = firstBaseline(contents[i].content);
      return b === null ? null : cell.padding.top + contents[i].content.marginTop + b;
    });
    let rowBaseline = 0;
    for (const b of baselines) if (b !== null && b > rowBaseline) rowBaseline = b;
    return row.map((cell, i) => ({
      col: cell.col,
      colSpan: cell.colSpan,
      rowSpan: cell.rowSpan,
      x: rtl ? total - colX[cell.col] - contents[i].width : colX[cell.col],
      width: contents[i].width,
      content: contents[i].content,
      fill: cell.background ?? (stripe && r % 2 === 1 ? stripe : null),
      padding: cell.padding,
      verticalAlign: cell.verticalAlign,
      radius: cell.radius,
      shift: baselines[i] === null ? 0 : rowBaseline - baselines[i]!,
    }));
  });
  const heights = rowHeights(measured.map((cells) => ({ cells })));
  return measured.map((cells, r) => ({ height: heights[r], cells }));
}
