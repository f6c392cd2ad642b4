import { applyFilter } from './engine/template/filters.ts';
const N = 100000;
for (const [name, args, v] of [['currency', ['EUR'], 1234.5], ['number', [], 12], ['date', ['dd.MM.yyyy'], '2024-03-05'], ['upper', [], 'item 1'], ['date', [], '2024-03-05']] as const) {
  const call = { name, args } as any;
  for (let i = 0; i < 1000; i++) applyFilter(call, v, 'de');
  const t0 = performance.now(); for (let i = 0; i < N; i++) applyFilter(call, v, 'de');
  console.log(name, args, ((performance.now() - t0) * 1000 / N).toFixed(3), 'µs');
}
