/**
 * Filters and comparisons that go through long strings in every loop item: a few MB of data
 * multiplied by the loop's items used to take minutes (in the service, the data check runs on the
 * HTTP thread before the render). Past maxDataScan characters the check stops and the render fails
 * with LIMIT_EXCEEDED at the template path, after little work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkData, DEFAULT_LIMITS, renderPdf } from '../../engine/index.ts';
import { NOW, renderError } from '../helpers/render.ts';

const LONG = 'a'.repeat(4_000_000);
const ITEMS = Array.from({ length: 20_000 }, (_, i) => i);

/** CPU milliseconds `fn` takes. */
function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

test('a 4 MB string compared in each of 20,000 loop items: the data check stops early and the render fails with LIMIT_EXCEEDED at the condition', async () => {
  const definition = { content: [{ each: 'items', content: [{ if: { lt: ['a', '{{b}}'] }, then: [{ text: 'y' }] }] }] };
  const data = { a: LONG + 'b', b: LONG + 'c', items: ITEMS };
  // Without the budget this is 80 billion characters compared (about 40 s of one core).
  let faults: unknown[] = [];
  const ms = cpuMs(() => (faults = checkData(definition, data, { now: NOW })));
  assert.deepEqual(faults, []);
  assert.ok(ms < 5000, `the data check took ${ms.toFixed(0)} ms of CPU`);
  const e = await renderError(definition, data);
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /more than 20000000 characters of data/);
  assert.equal(e.path, 'content[0].content[0].if.lt');
});

test('a filter over a 4 MB string in a condition of every loop item fails with LIMIT_EXCEEDED at the placeholder', async () => {
  const definition = { content: [{ each: 'items', content: [{ if: { eq: ['x', '{{t | upper}}'] }, then: [{ text: 'y' }] }] }] };
  const e = await renderError(definition, { t: LONG, items: ITEMS });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.equal(e.path, 'content[0].content[0].if.eq[1]');
});

test('a date pattern that makes 2 MB of text per item fails with LIMIT_EXCEEDED, not after filling the heap', async () => {
  const definition = { content: [{ each: 'items', content: [{ text: `{{item | date:"${'EEEEa'.repeat(40_000)}"}}` }] }] };
  const e = await renderError(definition, { items: Array.from({ length: 20_000 }, () => '2025-01-01') });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.equal(e.path, 'content[0].content[0].text');
});

test('a chain of 100,000 filters on one 4 MB string stops before it is run through them all', async () => {
  const e = await renderError({ metadata: { title: `{{t${' | upper | lower'.repeat(50_000)}}}` }, content: [] }, { t: LONG });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.equal(e.path, 'metadata.title');
});

test('the budget counts what filters and comparisons go through, not the document: a 1,000-row table of filtered and compared values renders, and default passes a long value on for free', async () => {
  const definition = {
    content: [
      { table: { rows: [{ each: 'rows', as: 'r', row: ['{{r.name | upper}}', '{{r.amount | currency:"EUR"}}', '{{r.at | date:"d MMM yyyy"}}', { if: { gt: ['r.amount', 500] }, then: [{ text: 'big' }] }] }] } },
      { each: 'rows', as: 'r', content: [{ image: '{{logo | default:""}}', width: 10 }] }, // the same logo 1,000 times: not counted
    ],
  };
  const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `item ${i}`, amount: i, at: '2025-03-14' }));
  const logo = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const r = await renderPdf(definition, { rows, logo }, { now: NOW, limits: { maxDataScan: 100_000 } });
  assert.ok(r.pages >= 1);
  // The same table with a budget below what its filters and comparisons go through fails.
  const e = await renderError(definition, { rows, logo }, { maxDataScan: 10_000 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.ok(DEFAULT_LIMITS.maxDataScan >= 100 * 100_000);
});

test('a colour from the data that is 8 MB of text, in each of 2,000 loop items: the data check names it at once instead of copying it at every item', () => {
  const definition = { content: [{ each: 'items', content: [{ text: 'x', color: '{{t}}{{t}}' }] }] };
  let faults: { path: string; message: string }[] = [];
  // Before: 47 s of CPU (each item trimmed and lower-cased the 8 MB text).
  const ms = cpuMs(() => (faults = checkData(definition, { t: LONG, items: ITEMS.slice(0, 2000) }, { now: NOW })));
  assert.equal(faults.length, 1);
  assert.equal(faults[0].path, 'data.t');
  assert.match(faults[0].message, /is not #rgb, #rrggbb or a CSS colour name/);
  assert.ok(ms < 5000, `the data check took ${ms.toFixed(0)} ms of CPU`);
});

test('a link joined from two 4 MB placeholders in each of 20,000 items fails with LIMIT_EXCEEDED at the link', async () => {
  const e = await renderError({ content: [{ each: 'items', content: [{ text: 'x', link: '{{t}}{{t}}' }] }] }, { t: LONG, items: ITEMS });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.equal(e.path, 'content[0].content[0].link');
});

test('placeholders that join into a text longer than a JavaScript string can be fail with LIMIT_EXCEEDED at the text, not a bare "Invalid string length"', async () => {
  const e = await renderError({ content: [{ text: '{{t}}'.repeat(200) }] }, { t: 'x'.repeat(5_000_000) });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.equal(e.path, 'content[0].text');
  assert.match(e.message, /longer than 536870888 characters/);
});

test('each passes count even when they make nothing: nested eaches with no content, or empty rows, are bounded like nodes', async () => {
  // 600 x 600 = 360,000 passes, each making nothing: more than the 250,000 nodes a render may bind.
  const a = Array(600).fill(0);
  const empty = await renderError({ content: [{ each: 'a', content: [{ each: 'a', content: [] }] }] }, { a });
  assert.equal(empty.code, 'LIMIT_EXCEEDED');
  assert.equal(empty.path, 'content[0].content[0].content');
  const rows = await renderError({ content: [{ each: 'a', content: [{ table: { rows: [{ each: 'a', row: [] }] } }] }] }, { a });
  assert.equal(rows.code, 'LIMIT_EXCEEDED');
  assert.equal(rows.path, 'content[0].content[0].table.rows[0].row');
  // The data check (on the service's HTTP thread) stops at the same count: a fault past it is left
  // to the render, one before it is found.
  const template = () => ({ content: [{ each: 'a', content: [{ each: 'a', content: [] }] }, { each: 'notAList', content: [{ text: 'x' }] }] });
  assert.deepEqual(checkData(template(), { a, notAList: 5 }), []);
  const found = checkData(template(), { a: a.slice(0, 10), notAList: 5 });
  assert.equal(found.length, 1);
  assert.equal(found[0].path, 'data.notAList');
});
