/**
 * Table measuring: column widths (fixed, auto, star), each cell's content measured at its
 * column width, row heights (row spans stretch the last row they cover).
 */
import type { MCell, MRow, PCell, PTable, StackBox, TableBox } from './nodes.ts';
import { measure, outerHeight } from './measure.ts';
import { columnIntrinsics, resolveWidths } from './widths.ts';

type BaseFields = Omit<StackBox, 'kind' | 'children' | 'height'>;

/** Measure a table in `inner` points of width. */
export function measureTable(node: PTable, inner: number, base: BaseFields, v: number): TableBox {
  const sections = [node.header, node.body, node.footer];
  const widths = resolveWidths(node.columns, inner, () => columnIntrinsics(node.columns.length, sections));
  const colX: number[] = [0];
  for (let i = 0; i < widths.length; i++) colX.push(colX[i] + widths[i]);
  // A right-to-left table runs its columns from the right edge (the first column on the right).
  const rtl = node.style.direction === 'rtl';
  const header = measureRows(node.header, widths, colX, false, rtl);
  const body = measureRows(node.body, widths, colX, true, rtl);
  const footer = measureRows(node.footer, widths, colX, false, rtl);
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
    stripe: node.stripe,
    continued: false,
    height: h + v,
  };
}

function measureRows(rows: readonly (readonly PCell[])[], widths: number[], colX: number[], isBody: boolean, rtl: boolean): MRow[] {
  const total = colX[colX.length - 1];
  const measured: MCell[][] = rows.map((row) =>
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
        background: cell.background,
        padding: cell.padding,
        verticalAlign: cell.verticalAlign,
      };
    }),
  );
  const heights = measured.map((cells) => {
    let h = 0;
    for (const c of cells) if (c.rowSpan === 1) h = Math.max(h, cellNeed(c));
    return h;
  });
  measured.forEach((cells, r) => {
    for (const c of cells) {
      if (c.rowSpan === 1) continue;
      let covered = 0;
      for (let k = r; k < r + c.rowSpan; k++) covered += heights[k];
      const need = cellNeed(c);
      if (need > covered) heights[r + c.rowSpan - 1] += need - covered;
    }
  });
  return measured.map((cells, r) => ({ height: heights[r], cells, index: isBody ? r : -1 }));
}

/** Height a cell needs: its content plus vertical padding. */
export function cellNeed(c: MCell): number {
  return outerHeight(c.content) + c.padding.top + c.padding.bottom;
}
