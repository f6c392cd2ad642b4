/**
 * The engine's caches: bounded by their budgets whatever the documents, counted (hits and misses),
 * and invisible in the output (a render through a tiny cache gives the same text as through a
 * large one).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { BoundedCache, retainedBytes } from '../../engine/caches.ts';
import { cacheStats, clearCaches, configureCaches, DEFAULT_CACHE_MB, renderPdf } from '../../engine/index.ts';
import { variedInvoiceData } from '../../bench/varied-invoice.ts';
import { NOW, ROOT } from '../helpers/render.ts';
import { readPdf } from '../helpers/pdf.ts';

const invoice = JSON.parse(readFileSync(join(ROOT, 'examples/invoice/template.json'), 'utf8'));
const invoiceData = JSON.parse(readFileSync(join(ROOT, 'examples/invoice/data.json'), 'utf8'));

after(() => configureCaches(DEFAULT_CACHE_MB));

async function textOf(pdf: Uint8Array): Promise<string> {
  const text = (await readPdf(pdf)).pages.map((p) => p.text).join('\f');
  assert.ok(text.includes('INV-'), 'the invoice number is on the page');
  return text;
}

test('every cache stays within its budget over renders of ever new data, and the output is the same', async () => {
  configureCaches(1);
  const texts: string[] = [];
  for (let serial = 1; serial <= 12; serial++) {
    const r = await renderPdf(invoice, variedInvoiceData(invoiceData, serial), { now: NOW });
    texts.push(await textOf(r.pdf));
    for (const [name, stat] of Object.entries(cacheStats())) {
      assert.ok(stat.size <= stat.budget, `${name}: ${stat.size} ${stat.unit} kept, budget ${stat.budget}`);
    }
  }
  const stats = cacheStats();
  assert.ok(stats.runs.entries > 0 && stats.runs.misses > 0, 'shaped runs are cached');
  assert.ok(stats.fontPrograms.entries > 0, 'font subsets are cached');

  // The same documents through a large cache: the same text.
  configureCaches(DEFAULT_CACHE_MB);
  for (let serial = 1; serial <= 12; serial++) {
    const r = await renderPdf(invoice, variedInvoiceData(invoiceData, serial), { now: NOW });
    assert.equal(await textOf(r.pdf), texts[serial - 1]);
  }
});

test('a repeated document is served from the caches: hits grow, misses do not', async () => {
  clearCaches();
  await renderPdf(invoice, invoiceData, { now: NOW });
  const first = cacheStats();
  await renderPdf(invoice, invoiceData, { now: NOW });
  const second = cacheStats();
  assert.equal(second.runs.misses, first.runs.misses, 'no word shaped twice');
  assert.ok(second.runs.hits > first.runs.hits);
  assert.equal(second.fontPrograms.misses, first.fontPrograms.misses, 'no font subset made twice');
  assert.ok(second.fontPrograms.hits > first.fontPrograms.hits);
});

test('BoundedCache: never over budget, computes on a miss only, keeps the most recent entries', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 200 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 60 })), { maxLength: 200 }), (budget, ops) => {
      const cache = new BoundedCache<number, { weight: number }>(budget, (v) => v.weight, 'bytes');
      let computed = 0;
      for (const [key, weight] of ops) {
        const got = cache.getOrCompute(key, () => {
          computed++;
          return { weight };
        });
        assert.ok(cache.stat().size <= budget);
        // Kept unless it alone is over the budget; the value is the first one computed for the key.
        assert.equal(cache.has(key), got.weight <= budget);
      }
      const stat = cache.stat();
      assert.equal(stat.misses, computed);
      assert.equal(stat.hits + stat.misses, ops.length);
      assert.equal(stat.hitRate, ops.length === 0 ? 0 : Math.round((stat.hits / ops.length) * 1000) / 1000);
    }),
  );
});

test('a cached byte array weighs what it keeps alive: its whole backing store', () => {
  assert.equal(retainedBytes(new Uint8Array(100)), 100);
  assert.equal(retainedBytes(new Uint8Array(new ArrayBuffer(16384), 0, 100)), 16384);
});

test("font subsets are cached in arrays of their own size, not in views of zlib's 16 KB output chunks", async () => {
  clearCaches();
  await renderPdf(invoice, invoiceData, { now: NOW });
  const { entries, size } = cacheStats().fontPrograms;
  assert.ok(entries >= 2, `${entries} subsets`);
  // The invoice's subsets deflate to a few KB each; a view into a zlib chunk would weigh 16 KB.
  assert.ok(size / entries < 16384, `${size} bytes for ${entries} subsets`);
});
