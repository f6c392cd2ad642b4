// Top self-time functions of a V8 CPU profile (node --cpu-prof), for bench/README.md.
//   node bench/cpu-profile-top.mjs <file.cpuprofile> [count=25] [fn,fn,...]
// Prints each function's self time as a share of the sampled time, with its file and line, the
// same summed by file, and the inclusive time (self + callees, each sample once) of the functions
// named in the third argument.
import { readFileSync } from 'node:fs';

const [file, countArg, inclusiveArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cpu-profile-top.mjs <file.cpuprofile> [count]');
  process.exit(2);
}
const count = Number(countArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const hits = new Map();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
const total = profile.samples.length;
const self = new Map();
const perFile = new Map();
for (const [id, n] of hits) {
  const f = byId.get(id).callFrame;
  const where = f.url ? f.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules\/|work\/main\/)/, '') : '(native)';
  const key = `${f.functionName || '(anonymous)'}  ${where}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + n);
  const fileKey = f.url ? where.replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*$/, '$1') : f.functionName;
  perFile.set(fileKey, (perFile.get(fileKey) ?? 0) + n);
}
const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
console.log(`${total} samples`);
for (const [k, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${pct(n)}  ${k}`);
console.log('\nby file / package:');
for (const [k, n] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${pct(n)}  ${k}`);

if (inclusiveArg) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  console.log('\ninclusive:');
  for (const name of inclusiveArg.split(',')) {
    let n = 0;
    for (const [id, h] of hits) {
      for (let x = id; x !== undefined; x = parent.get(x)) {
        if (byId.get(x).callFrame.functionName === name) {
          n += h;
          break;
        }
      }
    }
    console.log(`${pct(n)}  ${name}`);
  }
}
