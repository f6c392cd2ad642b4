import { readFileSync } from 'node:fs';
import { renderPdf } from './engine/index.ts';
const template = JSON.parse(readFileSync('examples/invoice/template.json', 'utf8'));
const base = JSON.parse(readFileSync('examples/invoice/data.json', 'utf8'));
let serial = 0;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜabcdefghijklmnopqrstuvwxyzäöüßéèáàçñ';
function varied(): unknown {
  serial++;
  const word = (n: number) => Array.from({ length: n }, (_, i) => LETTERS[(serial * 7 + i * 13 + n) % LETTERS.length]).join('');
  const data = structuredClone(base) as Record<string, any>;
  data.number = `INV-${100000 + serial}`;
  data.buyer = { ...data.buyer, name: `${word(8)} ${word(6)} GmbH`, contact: word(10), street: `${word(9)}straße ${serial % 200}` };
  data.items = data.items.map((it: Record<string, any>, i: number) => ({ ...it, description: `${it.description} ${word(5 + i)}`, qty: (serial + i) % 97 + 1 }));
  return data;
}
const now = new Date('2026-01-15T12:00:00Z');
for (let i = 0; i < 200; i++) await renderPdf(template, varied(), { now });
const t = performance.now();
const N = Number(process.env.N ?? 1500);
for (let i = 0; i < N; i++) await renderPdf(template, varied(), { now });
console.log('ms per render', ((performance.now() - t) / N).toFixed(2));
