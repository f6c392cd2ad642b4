/**
 * Save-time checks of a table's grid: where its cells' colSpan and rowSpan end.
 *
 * - A cell whose colSpan is more than 1 must end within the table's `columns` when those are
 *   given (a plain cell past them adds a column, as it always has), and no row may be wider than
 *   BOUNDS.span columns.
 * - In a section whose rows are all literal (header, footer, or rows without each/if), a rowSpan
 *   must end within the section. Rows that come from `each`/`if` are only known at render time:
 *   there a rowSpan stops at the last row (layout/prepare.ts), and a table that grows wider than
 *   BOUNDS.span columns fails with LIMIT_EXCEEDED.
 *
 * A cell's spans are its own `colSpan`/`rowSpan`, else those of the last of its named styles that
 * sets them. Paths are relative to the table spec: `rows[2][1].colSpan`.
 */
import { BOUNDS } from './bounds.ts';

type Obj = Record<string, unknown>;

/** One fault of a table's grid. `path` starts at the table spec (`rows[0][1].colSpan`). */
export interface GridIssue {
  readonly path: (string | number)[];
  readonly message: string;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The cell's own value of `key`, else its named styles' (the last that sets it); 1 when none. */
function spanOf(cell: unknown, key: 'colSpan' | 'rowSpan', styles: Obj | undefined): number {
  if (!isObj(cell)) return 1;
  if (typeof cell[key] === 'number') return cell[key] as number;
  const names = typeof cell.style === 'string' ? [cell.style] : Array.isArray(cell.style) ? cell.style : [];
  let span = 1;
  for (const name of names) {
    const style = typeof name === 'string' && styles && Object.hasOwn(styles, name) ? styles[name] : undefined;
    if (isObj(style) && typeof style[key] === 'number') span = style[key] as number;
  }
  return span;
}

function inRange(span: number): boolean {
  return Number.isInteger(span) && span >= 1 && span <= BOUNDS.span;
}

/**
 * Walks one row: places its cells left to right past the slots that row spans from above still
 * cover (`covered[c]`: rows left), and reports the first cell that runs past the grid.
 * `rowsLeft` is the number of rows from this one to the section's end, or null when unknown.
 */
function checkRow(row: unknown[], path: (string | number)[], columns: number | null, covered: number[] | null, rowsLeft: number | null, styles: Obj | undefined, out: GridIssue[]): void {
  let col = 0;
  for (let i = 0; i < row.length; i++) {
    while (covered !== null && (covered[col] ?? 0) > 0) col++;
    const colSpan = spanOf(row[i], 'colSpan', styles);
    const rowSpan = spanOf(row[i], 'rowSpan', styles);
    // A span out of its own range is reported by the schema; the rest of the row is not placed.
    if (!inRange(colSpan) || !inRange(rowSpan)) return;
    const end = col + colSpan;
    const ownColSpan = isObj(row[i]) && typeof (row[i] as Obj).colSpan === 'number';
    if (colSpan > 1 && columns !== null && end > columns) {
      out.push({
        path: [...path, i, ...(ownColSpan ? ['colSpan'] : [])],
        message: `colSpan ${colSpan} from column ${col + 1} runs past the table's ${columns} column${columns === 1 ? '' : 's'}`,
      });
      return;
    }
    if (end > BOUNDS.span) {
      out.push({ path: [...path, i], message: `the row is wider than ${BOUNDS.span} columns` });
      return;
    }
    if (rowsLeft !== null && rowSpan > rowsLeft) {
      const ownRowSpan = isObj(row[i]) && typeof (row[i] as Obj).rowSpan === 'number';
      out.push({
        path: [...path, i, ...(ownRowSpan ? ['rowSpan'] : [])],
        message: `rowSpan ${rowSpan} runs past the last row (${rowsLeft} row${rowsLeft === 1 ? '' : 's'} from here to the end of the section)`,
      });
    }
    if (covered !== null) for (let c = col; c < end; c++) covered[c] = Math.max(covered[c] ?? 0, rowSpan);
    col = end;
  }
  if (covered !== null) for (let c = 0; c < covered.length; c++) if (covered[c] > 0) covered[c]--;
}

/** Every row a row template can produce, with its path (each rows, both branches of if). */
function templateRows(t: unknown, path: (string | number)[], out: [unknown[], (string | number)[]][]): void {
  if (Array.isArray(t)) {
    out.push([t, path]);
    return;
  }
  if (!isObj(t)) return;
  if (Array.isArray(t.row)) out.push([t.row, [...path, 'row']]);
  for (const branch of ['then', 'else'] as const) {
    const list = t[branch];
    if (Array.isArray(list)) list.forEach((sub, i) => templateRows(sub, [...path, branch, i], out));
  }
}

function checkSection(rows: unknown, key: string, columns: number | null, styles: Obj | undefined, out: GridIssue[]): void {
  if (!Array.isArray(rows)) return;
  if (rows.every(Array.isArray)) {
    const covered: number[] = [];
    rows.forEach((row, r) => checkRow(row as unknown[], [key, r], columns, covered, rows.length - r, styles, out));
    return;
  }
  const all: [unknown[], (string | number)[]][] = [];
  rows.forEach((t, r) => templateRows(t, [key, r], all));
  for (const [row, path] of all) checkRow(row, path, columns, null, null, styles, out);
}

/** The grid faults of a table spec that passed its schema; `styles` are the template's named styles. */
export function tableGridIssues(spec: Obj, styles: Obj | undefined): GridIssue[] {
  const out: GridIssue[] = [];
  const columns = Array.isArray(spec.columns) ? spec.columns.length : null;
  for (const key of ['header', 'rows', 'footer']) checkSection(spec[key], key, columns, styles, out);
  return out;
}
