import { parseTemplate, bindNodes, templateFields } from './engine/template/index.ts';
const def = {
  page: { size: 'a4', margin: [1, 2, 3] },
  styles: { h1: { fontSize: 20, colr: 'red' } },
  content: [
    { text: 'Hi {{name | uper}}', color: 'blu', style: 'h2' },
    { txt: 'x' },
    { text: 'a', image: 'b' },
    { table: { rows: [['a', 'b'], ['c', 'd'], ['e', 5]] } },
    { each: 'items', as: 'item', content: [{ text: '{{item.qty | number:2}} {{$index}}' }] },
    { if: { eq: ['x'] }, then: [] },
    { spacer: -1, margin: 'x' },
    { text: 'unclosed {{ name' },
    { text: '{{ constructor.x }}' },
    { each: 'a.__proto__', content: [] },
  ],
  extra: 1,
};
const r = parseTemplate(def);
console.log(JSON.stringify(r, null, 1));
const ok = parseTemplate({ content: [{ text: 'Hello {{name}}', color: '{{c}}' }, { each: 'items', content: [{ text: '{{item.qty | currency:"EUR"}} #{{$index}}' }] }], metadata: { title: 'T {{n}}' } });
console.log(JSON.stringify(ok));
if (ok.ok) {
  console.log(JSON.stringify(bindNodes(ok.template.content, { name: 'Ann', c: 'red', items: [{ qty: 1234.5 }, { qty: 2 }] }, { now: new Date(), language: 'de' })));
  console.log(templateFields(ok.template));
}
