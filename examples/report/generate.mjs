// Writes examples/report/data.json: 1,000 deterministic sales rows (no Math.random).
// Run: node examples/report/generate.mjs
import { writeFileSync } from 'node:fs';

// Numerical Recipes LCG, 32-bit state.
let state = 20250101;
function next() {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 2 ** 32;
}
const pick = (list) => list[Math.floor(next() * list.length)];

const regions = ['North', 'South', 'East', 'West', 'Central', 'Alpine', 'Coastal', 'Export'];
const products = [
  ['Offset paper 80 g/m², A4, 500 sheets', 4.2],
  ['Silk paper 150 g/m², SRA3, 250 sheets', 18.9],
  ['Recycled paper 90 g/m², A4, 500 sheets', 5.1],
  ['Business cards, 400 g/m², 1,000 pcs', 39.0],
  ['Roll-up banner 85 × 200 cm', 149.0],
  ['Toner cartridge, black, high yield', 87.5],
  ['Toner cartridge, cyan', 112.0],
  ['Envelopes C4, window, 250 pcs', 24.6],
  ['Envelopes DL, 1,000 pcs', 31.8],
  ['Poster A1, matt, 10 pcs', 56.0],
  ['Label roll 100 × 50 mm, 1,000 pcs', 14.3],
  ['Binding spines 10 mm, 100 pcs', 9.7],
];

const start = Date.UTC(2024, 0, 1);
const rows = [];
let day = 0;
let totalUnits = 0;
let totalRevenue = 0;
for (let i = 0; i < 1000; i++) {
  day += next() < 0.35 ? 1 : 0; // about 2.7 orders a day
  const [product, price] = pick(products);
  const units = 1 + Math.floor(next() * next() * 240);
  const discount = next() < 0.2 ? 0.9 : 1;
  const revenue = Math.round(units * price * discount * 100) / 100;
  totalUnits += units;
  totalRevenue += revenue;
  rows.push({
    n: i + 1,
    date: new Date(start + day * 86_400_000).toISOString().slice(0, 10),
    order: `SO-${String(24001 + i)}`,
    region: pick(regions),
    product,
    units,
    revenue,
  });
}

const data = {
  title: 'Sales report 2024',
  company: 'Kestrel Print GmbH',
  period: { from: rows[0].date, to: rows[rows.length - 1].date },
  summary: {
    orders: rows.length,
    units: totalUnits,
    revenue: Math.round(totalRevenue * 100) / 100,
  },
  rows,
};
// One row per line: readable, and small diffs if the generator changes.
const { rows: _rows, ...head } = data;
const text = JSON.stringify(head, null, 2).replace(/\n}$/, ',\n  "rows": [\n') +
  rows.map((r) => '    ' + JSON.stringify(r)).join(',\n') + '\n  ]\n}\n';
writeFileSync(new URL('./data.json', import.meta.url), text);
console.log(`${rows.length} rows, ${data.period.from} .. ${data.period.to}, ${totalUnits} units, EUR ${data.summary.revenue}`);
