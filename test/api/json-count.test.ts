/**
 * holdsMoreThan against a full count of generated JSON values (fast-check): the bounded walk that
 * decides what is refused (too many template nodes) or checked on a render thread (large data).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { holdsMoreThan } from '../../src/services/json-count.ts';

function count(v: unknown, scalars: boolean): number {
  if (v === null || typeof v !== 'object') return scalars ? 1 : 0;
  let n = 1;
  for (const c of Array.isArray(v) ? v : Object.values(v)) n += count(c, scalars);
  return n;
}

test('property: holdsMoreThan(v, max, scalars) is count(v) > max, containers alone or every value', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), fc.nat(60), fc.boolean(), (v, max, scalars) => {
      assert.equal(holdsMoreThan(v, max, scalars), count(v, scalars) > max);
    }),
    { numRuns: 2000 },
  );
});

test('holdsMoreThan on a small value (6 values, 3 of them containers) and on one of millions', () => {
  const small = { a: [1, 2, { b: null }] };
  assert.equal(holdsMoreThan(small, 6, true), false);
  assert.equal(holdsMoreThan(small, 5, true), true);
  assert.equal(holdsMoreThan(small, 3, false), false);
  assert.equal(holdsMoreThan(small, 2, false), true);
  const huge = Array.from({ length: 2_000_000 }, () => ({}));
  assert.equal(holdsMoreThan(huge, 10_000, true), true);
  assert.equal(holdsMoreThan(huge, 10_000, false), true);
});
