/**
 * Generated documents for property tests (fast-check): random page sizes and margins; paragraphs
 * of data words and long unbreakable words; tables with random column widths, spans (covered
 * cells left out or as `{}` placeholders), header and footer rows, stripes, nested stacks and
 * tables; images and QR codes of random sizes. Data words are lowercase letters (no "f": its
 * ligatures extract as one character); header and repeated header rows use capitals and digits.
 */
import fc from 'fast-check';
import { alphaPngDataUri } from '../../helpers/images.ts';

// Lowercase words without "f" (ligatures would extract as one character) and without "l" next to it.
const WORD = fc.stringMatching(/^[a-eg-z]{1,9}$/);
const LONG_WORD = fc.integer({ min: 40, max: 300 }).map((n) => 'abcdeghijk'.repeat(30).slice(0, n));
const CAPS = fc.stringMatching(/^[A-Z0-9]{1,8}$/);
const PNG = alphaPngDataUri(30, 20);

/** A generated definition, its data, and whether it has images or codes. */
export interface Doc {
  definition: Record<string, unknown>;
  data: { w: string[] };
  hasAtoms: boolean;
}

/** A builder that records the data words it places, as `{{w[i]}}` placeholders. */
class Words {
  readonly list: string[] = [];
  ref(word: string): string {
    this.list.push(word);
    return `{{w[${this.list.length - 1}]}}`;
  }
}

type Gen = (words: Words) => unknown;

const text: fc.Arbitrary<Gen> = fc.array(fc.oneof({ weight: 8, arbitrary: WORD }, { weight: 1, arbitrary: LONG_WORD }), { minLength: 1, maxLength: 30 }).map((ws) => (words: Words) => ({
  text: ws.map((w) => words.ref(w)).join(' '),
}));

const image: fc.Arbitrary<Gen> = fc
  .record({ width: fc.option(fc.integer({ min: 5, max: 2500 }), { nil: undefined }), height: fc.option(fc.integer({ min: 5, max: 2500 }), { nil: undefined }), fit: fc.constantFrom('contain', 'cover', 'fill') })
  .map((r) => () => ({ image: PNG, ...(r.width ? { width: r.width } : {}), ...(r.height ? { height: r.height } : {}), fit: r.fit }));

const qrcode: fc.Arbitrary<Gen> = fc.integer({ min: 10, max: 1500 }).map((size) => () => ({ qrcode: 'HELLO', size }));

const columnWidth = fc.oneof(fc.integer({ min: 15, max: 300 }), fc.constantFrom('auto', '*', '2*'));

/** A cell: text, a stack, or (when allowed) a nested table, maybe spanning. */
function cellGen(depth: number, atoms: boolean): fc.Arbitrary<{ gen: Gen; colSpan: number; rowSpan: number }> {
  const content: fc.Arbitrary<Gen>[] = [text, text.map((t) => (w: Words) => ({ stack: [t(w), t(w)] }))];
  if (depth < 1) content.push(tableGen(depth + 1, atoms));
  if (atoms) content.push(image);
  return fc.record({ gen: fc.oneof(...content), colSpan: fc.constantFrom(1, 1, 1, 2, 3), rowSpan: fc.constantFrom(1, 1, 1, 2, 3) });
}

/**
 * A table on a grid: rows of cells placed left to right past the positions spans cover, written
 * with covered positions left out or as `{}` placeholders. Spans are clipped to the grid.
 */
function tableGen(depth: number, atoms: boolean): fc.Arbitrary<Gen> {
  return fc
    .record({
      columns: fc.array(columnWidth, { minLength: 1, maxLength: 5 }),
      bodyRows: fc.integer({ min: 1, max: depth === 0 ? 12 : 3 }),
      cells: fc.array(cellGen(depth, atoms), { minLength: 60, maxLength: 60 }),
      placeholders: fc.boolean(),
      header: fc.boolean(),
      footer: fc.boolean(),
      stripe: fc.boolean(),
      borders: fc.constantFrom('all', 'all', 'horizontal', 'outer', 'none'),
    })
    .map((t) => (words: Words) => {
      const n = t.columns.length;
      let next = 0;
      const grid = (count: number, caps: boolean): unknown[][] => {
        const covered = new Array<number>(n).fill(0);
        const rows: unknown[][] = [];
        for (let r = 0; r < count; r++) {
          const row: unknown[] = [];
          const rowCovered = new Array<boolean>(n).fill(false);
          for (let c = 0; c < n; c++) {
            if (covered[c] > 0 || rowCovered[c]) {
              if (t.placeholders) row.push({});
              continue;
            }
            const spec = t.cells[next++ % t.cells.length];
            let colSpan = 1;
            while (colSpan < spec.colSpan && c + colSpan < n && covered[c + colSpan] === 0) colSpan++;
            const rowSpan = Math.min(spec.rowSpan, count - r);
            const node = caps ? { text: `H${r}${c}` } : (spec.gen(words) as Record<string, unknown>);
            row.push({ ...node, ...(colSpan > 1 ? { colSpan } : {}), ...(rowSpan > 1 ? { rowSpan } : {}) });
            for (let k = c; k < c + colSpan; k++) {
              covered[k] = Math.max(covered[k], rowSpan);
              if (k > c) rowCovered[k] = true;
            }
          }
          for (let c = 0; c < n; c++) if (covered[c] > 0) covered[c]--;
          rows.push(row);
        }
        return rows;
      };
      return {
        table: {
          columns: t.columns,
          ...(t.header ? { header: grid(1 + (next % 2), true) } : {}),
          rows: grid(t.bodyRows, false),
          ...(t.footer ? { footer: [Array.from({ length: n }, (_, c) => `F${c}`)] } : {}),
          ...(t.stripe ? { stripe: '#eeeeee' } : {}),
          borders: t.borders,
          headerStyle: { fontWeight: 'bold', backgroundColor: '#dddddd' },
        },
      };
    });
}

/** Documents as described in the module comment. */
export const docArb: fc.Arbitrary<Doc> = fc
  .record({
    width: fc.integer({ min: 160, max: 700 }),
    height: fc.integer({ min: 160, max: 900 }),
    margin: fc.integer({ min: 0, max: 40 }),
    atoms: fc.boolean(),
    header: fc.option(CAPS, { nil: undefined }),
  })
  .chain((p) =>
    fc
      .array(p.atoms ? fc.oneof({ weight: 3, arbitrary: text }, { weight: 4, arbitrary: tableGen(0, true) }, { weight: 1, arbitrary: image }, { weight: 1, arbitrary: qrcode }) : fc.oneof({ weight: 2, arbitrary: text }, { weight: 4, arbitrary: tableGen(0, false) }), {
        minLength: 1,
        maxLength: 4,
      })
      .map((blocks) => {
        const words = new Words();
        const content = blocks.map((b) => b(words));
        return {
          definition: {
            page: { size: [p.width, p.height], margin: p.margin },
            font: { size: 8 },
            ...(p.header ? { header: [{ text: p.header, margin: [0, 0, 0, 4] }] } : {}),
            content,
          },
          data: { w: words.list },
          hasAtoms: p.atoms,
        };
      }),
  );

