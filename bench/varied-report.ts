/**
 * The sales report's data (examples/report/data.json, 1,000 rows) made different for every
 * render: new region and product words, order numbers, units and revenues, so no two renders
 * share a word and strings are shaped and font subsets made afresh. Used by the engine bench.
 */
import { wordMaker } from './varied-invoice.ts';

interface Row {
  n: number;
  date: string;
  order: string;
  region: string;
  product: string;
  units: number;
  revenue: number;
}

/** The report data `base` changed by `serial` (1, 2, 3, ...); totals follow the rows. */
export function variedReportData(base: unknown, serial: number): Record<string, unknown> {
  const word = wordMaker(serial);
  const data = structuredClone(base) as Record<string, any>;
  const regions = new Map<string, string>();
  const products = new Map<string, string>();
  let units = 0;
  let revenue = 0;
  data.rows = (data.rows as Row[]).map((row, i) => {
    let region = regions.get(row.region);
    if (region === undefined) regions.set(row.region, (region = `${word(5)}${regions.size}`));
    let product = products.get(row.product);
    // The product's first word replaced by a new one of the same length: rows wrap as before.
    if (product === undefined) {
      const first = row.product.split(' ')[0]!;
      products.set(row.product, (product = `${word(Math.max(5, first.length))}${row.product.slice(first.length)}`));
    }
    const u = ((row.units + serial * 7 + i) % 239) + 1;
    const r = Math.round(u * (row.revenue / row.units) * 100) / 100;
    units += u;
    revenue += r;
    return { ...row, order: `SO-${serial}-${row.n}`, region, product, units: u, revenue: r };
  });
  data.title = `Sales report ${word(7)}`;
  data.company = `${word(8)} Print GmbH`;
  data.summary = { orders: data.rows.length, units, revenue: Math.round(revenue * 100) / 100 };
  return data;
}
