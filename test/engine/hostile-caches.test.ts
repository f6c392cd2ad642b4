/**
 * The template layer's caches (parsed placeholder strings and paths, date patterns, locales) are
 * keyed by strings of templates and data, which may be megabytes long: they are bounded by
 * characters, not only by entries. Before, validating 20 templates with an 8 MB text holding a
 * placeholder kept 660 MB in the service's HTTP process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { checkData, validateTemplate } from '../../engine/index.ts';
import { NOW } from '../helpers/render.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

test('validating 16 templates with an 8 MB text, path and date pattern each keeps no more than a bounded cache', () => {
  const before = heapMb();
  for (let i = 0; i < 16; i++) {
    const long = `${i}`.padEnd(8_000_000, 'a');
    const definition = {
      content: [
        { text: `{{x}} ${long}` },
        { text: `{{ x | date:"'${long.slice(0, 2_000_000)}' yyyy" }}` },
        { each: `{{ ${'p'.repeat(1_000_000)}${i} }}`, content: [] },
      ],
    };
    assert.ok(validateTemplate(definition).ok);
  }
  const grown = heapMb() - before;
  assert.ok(grown < 100, `the heap grew by ${grown.toFixed(0)} MB`);
});

test('a metadata language of 8 MB from the data, in 16 requests, is not kept (and counts as no language)', () => {
  const definition = { metadata: { language: '{{lang}}' }, content: [{ text: '{{n | number:2}}' }] };
  const before = heapMb();
  for (let i = 0; i < 16; i++) assert.deepEqual(checkData(definition, { lang: `${i}`.padEnd(8_000_000, 'a'), n: 1 }, { now: NOW }), []);
  const grown = heapMb() - before;
  assert.ok(grown < 50, `the heap grew by ${grown.toFixed(0)} MB`);
});
