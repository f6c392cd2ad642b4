/**
 * The grid of a table: where each cell of a row goes, given its colSpan and rowSpan, the cells
 * that span into the row from above and the table's columns. Used when a template is validated
 * (saved) and again on the bound rows when it is rendered (layout/prepare.ts), so both read a row
 * the same way.
 *
 * Two ways of writing the cells that a span covers are accepted:
 * - left out: a row lists only the cells that start in it (`[{text: "A", colSpan: 2}, "C"]`);
 * - placeholders, as pdfmake requires: `{}` or `""` at every covered position
 *   (`[{text: "A", colSpan: 2}, {}, "C"]`, and `{}` under a rowSpan in the rows below).
 *
 * A row is read left to right; at a covered position a `{}` is taken as its placeholder, and
 * anything else goes to the next free position. When that reading runs past the table's columns
 * and the row has `""` cells, it is read again with `""` as a placeholder too. A `{}` or `""` at
 * a free position is an empty cell. What still does not fit is a fault with the cell's path:
 * a cell past the last column, a colSpan running past it or into a cell spanning from a row above,
 * a rowSpan past the end of its section (when the section's rows are all literal).
 *
 * The columns are the table's `columns` when given, else as many as the longest row has cells
 * (wider when a row's spans need more: then the table grows).
 *
 * A cell's spans are its own `colSpan`/`rowSpan`, else those of the last of its named styles that
 * sets them. Paths are relative to the table spec: `rows[2][1].colSpan`.
 */
import { BOUNDS } from './bounds.ts';

type Obj = Record<string, unknown>;

/** What a row entry is, for the grid. */
export type GridEntryKind = 'cell' | 'emptyObject' | 'emptyString';

/** One entry of a row as the grid sees it. */
export interface GridEntry {
  readonly colSpan: number;
  readonly rowSpan: number;
  readonly kind: GridEntryKind;
}

/** A fault of one entry: its index in the row, the key at fault (if one) and a sentence. */
export interface EntryFault {
  readonly entry: number;
  readonly key?: 'colSpan' | 'rowSpan';
  readonly message: string;
}

/** Where a row's entries go: the first column of each entry, -1 for a placeholder. */
export interface RowPlacement {
  readonly cols: readonly number[];
  /** Columns the row needs (the end of its last cell). */
  readonly end: number;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * One reading of a row (see the module comment). `covered[c]` is the number of rows (this one
 * included) that a rowSpan from above still covers in column c. `loose`: `""` is a placeholder.
 */
function read(entries: readonly GridEntry[], covered: readonly number[], loose: boolean): { placement: RowPlacement; fault: EntryFault | null } {
  const cols: number[] = new Array(entries.length);
  // Columns this row's own colSpans cover (after their first).
  const spanned: boolean[] = [];
  const isCovered = (c: number) => (covered[c] ?? 0) > 0 || spanned[c] === true;
  let col = 0;
  let end = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const placeholder = e.kind === 'emptyObject' || (loose && e.kind === 'emptyString');
    if (placeholder && isCovered(col)) {
      cols[i] = -1;
      col++;
      continue;
    }
    while (isCovered(col)) col++;
    for (let c = col + 1; c < col + e.colSpan; c++) {
      if ((covered[c] ?? 0) > 0) {
        return {
          placement: { cols, end: Math.max(end, col + e.colSpan) },
          fault: { entry: i, key: 'colSpan', message: `colSpan ${e.colSpan} from column ${col + 1} runs into column ${c + 1}, which a rowSpan from a row above covers` },
        };
      }
      spanned[c] = true;
    }
    cols[i] = col;
    end = Math.max(end, col + e.colSpan);
    col++;
  }
  return { placement: { cols, end }, fault: null };
}

/**
 * Places one row: the left-out reading, else (when it runs past `columns` and the row has `""`
 * cells) the placeholder reading. `declared`: the columns are the table's own `columns` (then a
 * row past them is a fault); otherwise a row that needs more columns widens the table.
 */
export function placeRow(entries: readonly GridEntry[], covered: readonly number[], columns: number, declared: boolean): { placement: RowPlacement; fault: EntryFault | null } {
  const first = read(entries, covered, false);
  if (!first.fault && first.placement.end <= columns) return first;
  if (entries.some((e) => e.kind === 'emptyString')) {
    const second = read(entries, covered, true);
    if (!second.fault && second.placement.end <= columns) return second;
  }
  if (first.fault || !declared) return first;
  // Past the declared columns: name the first entry that does not fit.
  const { cols } = first.placement;
  for (let i = 0; i < entries.length; i++) {
    const c = cols[i];
    if (c < 0 || c + entries[i].colSpan <= columns) continue;
    const e = entries[i];
    if (e.colSpan > 1 && c < columns) {
      return { placement: first.placement, fault: { entry: i, key: 'colSpan', message: `colSpan ${e.colSpan} from column ${c + 1} runs past the table's ${plural(columns, 'column')}` } };
    }
    return {
      placement: first.placement,
      fault: {
        entry: i,
        message: `this cell would be in column ${c + 1}, past the table's ${plural(columns, 'column')} (a row lists the cells that start in it; positions under a colSpan or rowSpan are left out, or each given as {} or "")`,
      },
    };
  }
  return first;
}

/**
 * The rows of one table section walked in order: what rowSpans from earlier rows cover, and
 * where each row's cells go.
 */
export class SectionGrid {
  /** Per column: rows (the current one included) a rowSpan from above still covers. */
  private readonly covered: number[] = [];
  /** Columns any row needed so far. */
  width = 0;

  /**
   * @param columns the table's columns (declared or counted).
   * @param declared the columns are the table's own `columns`.
   */
  constructor(
    readonly columns: number,
    readonly declared: boolean,
  ) {}

  /**
   * Place the next row. `rowsLeft`: rows from this one to the section's end, or null when not
   * known (rows from each/if at validation); a rowSpan is clipped to it when `clip` is set, else
   * a rowSpan past it is a fault.
   */
  row(entries: readonly GridEntry[], rowsLeft: number | null, clip: boolean): { placement: RowPlacement; fault: EntryFault | null; rowSpans: number[] } {
    const { placement, fault } = placeRow(entries, this.covered, this.columns, this.declared);
    const rowSpans = entries.map((e) => e.rowSpan);
    let rowFault = fault;
    if (!fault) {
      for (let i = 0; i < entries.length; i++) {
        const c = placement.cols[i];
        if (c < 0) continue;
        let span = entries[i].rowSpan;
        if (rowsLeft !== null && span > rowsLeft) {
          if (clip) span = rowSpans[i] = rowsLeft;
          else if (!rowFault) {
            rowFault = { entry: i, key: 'rowSpan', message: `rowSpan ${span} runs past the last row (${plural(rowsLeft, 'row')} from here to the end of the section)` };
          }
        }
        for (let k = c; k < c + entries[i].colSpan; k++) this.covered[k] = Math.max(this.covered[k] ?? 0, span);
      }
    }
    this.width = Math.max(this.width, placement.end);
    for (let c = 0; c < this.covered.length; c++) if (this.covered[c] > 0) this.covered[c]--;
    return { placement, fault: rowFault, rowSpans };
  }

  /** Whether column c of the next row is covered by a rowSpan from above. */
  coveredAt(c: number): boolean {
    return (this.covered[c] ?? 0) > 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Validation of a template's tables (save time).

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

/** The kind of a template cell: `{}` and the literal `""` may be placeholders. */
function kindOf(cell: unknown): GridEntryKind {
  if (cell === '') return 'emptyString';
  if (isObj(cell) && Object.keys(cell).length === 0) return 'emptyObject';
  return 'cell';
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

function rowsOf(rows: unknown, key: string): [unknown[], (string | number)[]][] {
  const all: [unknown[], (string | number)[]][] = [];
  if (Array.isArray(rows)) rows.forEach((t, r) => templateRows(t, [key, r], all));
  return all;
}

/** Checks a row's entries; returns them, or null (with an issue) when a span is out of range. */
function entriesOf(row: unknown[], path: (string | number)[], styles: Obj | undefined, out: GridIssue[]): GridEntry[] | null {
  const entries: GridEntry[] = new Array(row.length);
  let width = 0;
  for (let i = 0; i < row.length; i++) {
    const colSpan = spanOf(row[i], 'colSpan', styles);
    const rowSpan = spanOf(row[i], 'rowSpan', styles);
    // A span out of its own range is reported by the schema.
    if (!inRange(colSpan) || !inRange(rowSpan)) return null;
    width += colSpan;
    if (width > BOUNDS.span) {
      out.push({ path: [...path, i], message: `the row is wider than ${BOUNDS.span} columns` });
      return null;
    }
    entries[i] = { colSpan, rowSpan, kind: kindOf(row[i]) };
  }
  return entries;
}

function report(fault: EntryFault, row: unknown[], path: (string | number)[], out: GridIssue[]): void {
  const cell = row[fault.entry];
  const own = fault.key !== undefined && isObj(cell) && typeof cell[fault.key] === 'number';
  out.push({ path: [...path, fault.entry, ...(own ? [fault.key!] : [])], message: fault.message });
}

/** The grid faults of a table spec that passed its schema; `styles` are the template's named styles. */
export function tableGridIssues(spec: Obj, styles: Obj | undefined): GridIssue[] {
  const out: GridIssue[] = [];
  const declared = Array.isArray(spec.columns);
  const sections = (['header', 'rows', 'footer'] as const).map((key) => ({ key, literal: Array.isArray(spec[key]) && (spec[key] as unknown[]).every(Array.isArray), rows: rowsOf(spec[key], key) }));
  let columns = declared ? (spec.columns as unknown[]).length : 0;
  if (!declared) for (const s of sections) for (const [row] of s.rows) columns = Math.max(columns, row.length);
  for (const { literal, rows } of sections) {
    // Literal rows are walked as a section (rowSpans cover the rows below); rows from each/if alone.
    let grid = new SectionGrid(columns, declared);
    rows.forEach(([row, path], r) => {
      if (!literal) grid = new SectionGrid(columns, declared);
      const entries = entriesOf(row, path, styles, out);
      if (entries === null) return;
      const { fault } = grid.row(entries, literal ? rows.length - r : null, false);
      if (fault) report(fault, row, path, out);
    });
  }
  return out;
}
