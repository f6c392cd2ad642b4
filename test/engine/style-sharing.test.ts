/**
 * Computed styles are shared: nodes with equal style properties under the same parent get one
 * computed style object (a report's thousands of styled cells hold one, not one each), equal to
 * the style they would get alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { computeStyle, rootStyle } from '../../engine/layout/style.ts';
import type { StyleProps } from '../../engine/template/types.ts';

const props: fc.Arbitrary<StyleProps> = fc.record(
  {
    fontSize: fc.double({ min: 4, max: 40, noNaN: true }),
    fontWeight: fc.constantFrom('bold' as const, 'normal' as const, 300, 700),
    color: fc.constantFrom('#112233', '#ffffff', '#1f4e79'),
    textAlign: fc.constantFrom('left' as const, 'right' as const, 'center' as const),
    margin: fc.oneof(fc.nat(20), fc.tuple(fc.nat(20), fc.nat(20))),
    padding: fc.array(fc.nat(12), { minLength: 1, maxLength: 4 }),
    backgroundColor: fc.constantFrom('#f3f6f9', '#1f4e79'),
    width: fc.nat(300),
    opacity: fc.double({ min: 0, max: 1, noNaN: true }),
    keepWithNext: fc.boolean(),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<StyleProps>;

test('equal style properties under one parent give the same computed style, equal to a fresh one', () => {
  fc.assert(
    fc.property(props, fc.string({ maxLength: 8 }), (p, text) => {
      const parent = rootStyle({ family: 'Noto Sans', size: 9 }, 'Noto Sans');
      // The same properties in another object, with a property that is not a style (the text).
      const a = computeStyle(parent, p);
      const b = computeStyle(parent, { ...structuredClone(p), text } as StyleProps);
      assert.equal(a, b);
      // A parent equal but not the same: a style of its own, equal in every property.
      const fresh = computeStyle(rootStyle({ family: 'Noto Sans', size: 9 }, 'Noto Sans'), structuredClone(p));
      assert.deepEqual(fresh, a);
    }),
  );
});

test('different style properties, or another parent, give different computed styles', () => {
  const parent = rootStyle(undefined, 'Noto Sans');
  const right = computeStyle(parent, { textAlign: 'right' });
  const muted = computeStyle(parent, { textAlign: 'right', color: '#6b7785' });
  assert.notEqual(right, muted);
  assert.equal(right.textAlign, 'right');
  assert.deepEqual(muted.color, [0x6b, 0x77, 0x85]);
  const bold = computeStyle(parent, { fontWeight: 'bold' });
  assert.equal(computeStyle(bold, { textAlign: 'right' }).fontWeight, 700);
  assert.notEqual(computeStyle(bold, { textAlign: 'right' }), right);
});
