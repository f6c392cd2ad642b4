/**
 * Table measuring: column widths (fixed, auto, star; layout/widths.ts), each cell's content
 * measured at the width of the columns it spans, row heights (a cell spanning rows stretches the
 * last row it covers), and each cell's fill (its background, else the stripe of the body row it
 * starts in, so a merged cell is one colour).
 */
import type { Box, MCell, MRow, PCell, PNode, PTable, StackBox, TableBox } from './nodes.ts';
import { rowHeights } from './box-metrics.ts';
import type { RGB } from '../text/paragraph.ts';
import { columnIntrinsics, resolveWidths } from './widths.ts';

type BaseFields = Omit<StackBox, 'kind' | 'children' | 'height'>;

/** Measures a node at a width (the measure pass, passed in: it measures tables through this module). */
export type MeasureFn = (node: PNode, width: number) => Box;

/** Measure a table in `inner` points of width. `v`: its frame's vertical insets. */
export function measureTable(node: PTable, inner: number, base: BaseFields, v: number, measure: MeasureFn): TableBox {
  const sections = [node.header, node.body, node.footer];
  const widths = resolveWidths(node.columns, inner, () => columnIntrinsics(node.columns, sections));
  const colX: number[] = [0];
  for (let i = 0; i < widths.length; i++) colX.push(colX[i] + widths[i]);
  // A right-to-left table runs its columns from the right edge (the first column on the right).
  const rtl = node.style.direction === 'rtl';
  const header = measureRows(node.header, widths, colX, null, rtl, measure);
  const body = measureRows(node.body, widths, colX, node.stripe, rtl, measure);
  const footer = measureRows(node.footer, widths, colX, null, rtl, measure);
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

/** `stripe`: the fill of every second row (body rows), or null. */
function measureRows(rows: readonly (readonly PCell[])[], widths: number[], colX: number[], stripe: RGB | null, rtl: boolean, measure: MeasureFn): MRow[] {
  const total = colX[colX.length - 1];
  const measured: MCell[][] = rows.map((row, r) =>
    row.map((cell) => {
      let width = 0;
      for (let c = cell.col; c < cell.col + cell.colSpan && c < widths.length; c++) width += widths[c];
      const content = measure(cell.node, Math.max(0, width - cell.padding.left - cell.padding.right));
      return {
        col: cell.col,
        colSpan: cell.colSpan,
        rowSpan: cell.rowSpan,
        x: rtl ? total - colX[cell.col] - width : colX[cell.col],
        width,
        content,
        fill: cell.background ?? (stripe && r % 2 === 1 ? stripe : null),
        padding: cell.padding,
        verticalAlign: cell.verticalAlign,
        shift: 0,
      };
    }),
  );
  const heights = rowHeights(measured.map((cells) => ({ cells })));
  return measured.map((cells, r) => ({ height: heights[r], cells }));
}
