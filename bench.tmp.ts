import { parseTemplate, bindNodes } from './engine/template/index.ts';
const def = { content: [{ table: { columns: [40, '*', 60, 60, 60, 80], header: [['#', 'Name', 'Qty', 'Price', 'Date', 'Total']], rows: [
  { each: 'rows', as: 'r', row: ['{{$index}}', '{{r.name | upper}}', '{{r.qty | number}}', { text: '{{r.price | currency:"EUR"}}', textAlign: 'right' }, '{{r.date | date:"dd.MM.yyyy"}}', { text: '{{r.total | currency}}', fontWeight: 'bold', color: '{{r.color}}' }] },
] } }] };
const t = parseTemplate(def); if (!t.ok) throw new Error(JSON.stringify(t.errors));
const rows = Array.from({ length: 1000 }, (_, i) => ({ name: 'Item ' + i, qty: i, price: i * 1.5, date: '2024-03-05', total: i * 3.25, color: i % 2 ? 'red' : '#00ff00' }));
for (const lang of ['en', 'de']) {
  for (let k = 0; k < 5; k++) bindNodes(t.template.content, { rows }, { now: new Date(), language: lang });
  const N = 50; const t0 = performance.now();
  for (let k = 0; k < N; k++) bindNodes(t.template.content, { rows }, { now: new Date(), language: lang });
  console.log(lang, ((performance.now() - t0) / N).toFixed(2), 'ms per 1000x6 bind');
}
const def2 = { content: [{ table: { rows: [ { each: 'rows', as: 'r', row: ['{{r.name}}', '{{r.qty}}', '{{r.price}}', 'x', '{{r.date}}', '{{r.total}}'] } ] } }] };
const t2 = parseTemplate(def2); if (!t2.ok) throw 1;
for (let k = 0; k < 5; k++) bindNodes(t2.template.content, { rows }, { now: new Date() });
const t0 = performance.now(); for (let k = 0; k < 50; k++) bindNodes(t2.template.content, { rows }, { now: new Date() });
console.log('plain', ((performance.now() - t0) / 50).toFixed(2), 'ms');
const t1 = performance.now(); for (let k = 0; k < 20; k++) parseTemplate(def); console.log('validate', ((performance.now() - t1) / 20).toFixed(2), 'ms');
