/**
 * Template properties that would do nothing are refused when the template is validated, naming
 * the path (offsets without absolute position, a second node with an id already used, a QR code
 * with both size and width/height); a QR code's width and height give its size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateTemplate } from '../../engine/index.ts';
import { pdfOperators, unionBox } from '../helpers/pdfops.ts';
import { render } from '../helpers/render.ts';

const errorsOf = (def: unknown) => {
  const r = validateTemplate(def);
  return r.ok ? [] : r.errors;
};

test('top/left/right/bottom/relativeTo without position absolute are TEMPLATE_INVALID at their path', () => {
  const e = errorsOf({ content: [{ text: 'a' }, { stack: [{ text: 'b', top: 10 }] }, { text: 'c', relativeTo: 'parent' }] });
  assert.deepEqual(e.map((x) => x.path), ['content[1].stack[0].top', 'content[2].relativeTo']);
  assert.match(e[0].message, /"position": "absolute"/);
  // position static said out loud is no better
  assert.equal(errorsOf({ content: [{ text: 'b', position: 'static', left: 3 }] })[0]?.path, 'content[0].left');
  // offsets from a named style without absolute: the node's style is named
  const viaStyle = errorsOf({ styles: { corner: { top: 4 } }, content: [{ text: 'x', style: 'corner' }] });
  assert.deepEqual(viaStyle.map((x) => x.path), ['content[0].style']);
  // in header, footer, table cells and columns too
  assert.equal(errorsOf({ header: [{ text: 'h', bottom: 1 }], content: [] })[0]?.path, 'header[0].bottom');
  assert.equal(errorsOf({ content: [{ table: { rows: [[{ text: 'c', left: 1 }]] } }] })[0]?.path, 'content[0].table.rows[0][0].left');
});

test('offsets with absolute position (own or from a style) are accepted; margin and border sides are not offsets', () => {
  assert.deepEqual(errorsOf({ content: [{ text: 'a', position: 'absolute', top: 10, left: 5, relativeTo: 'parent' }] }), []);
  assert.deepEqual(errorsOf({ styles: { abs: { position: 'absolute' } }, content: [{ text: 'a', style: 'abs', top: 3 }] }), []);
  assert.deepEqual(errorsOf({ styles: { pin: { position: 'absolute', top: 2 } }, content: [{ text: 'a', style: ['pin'] }] }), []);
  assert.deepEqual(errorsOf({ content: [{ text: 'a', margin: [4, 2], border: { top: { width: 1 } } }] }), []);
  // a node's own static position beats its style's absolute one
  assert.equal(errorsOf({ styles: { abs: { position: 'absolute' } }, content: [{ text: 'a', style: 'abs', position: 'static', top: 3 }] })[0]?.path, 'content[0].top');
});

test('a literal id used twice is TEMPLATE_INVALID at the second node', () => {
  const e = errorsOf({ content: [{ text: 'a', id: 'terms' }, { stack: [{ text: 'b' }, { text: 'c', id: 'terms' }] }] });
  assert.deepEqual(e.map((x) => x.path), ['content[1].stack[1].id']);
  assert.match(e[0].message, /content\[0\]/);
  // across header and content
  assert.equal(errorsOf({ header: [{ text: 'h', id: 'x' }], content: [{ text: 'c', id: 'x' }] })[0]?.path, 'content[0].id');
  // distinct ids are fine; then/else of one if may share one, but not with a node outside the if
  assert.deepEqual(errorsOf({ content: [{ text: 'a', id: 'a' }, { text: 'b', id: 'b' }] }), []);
  assert.deepEqual(errorsOf({ content: [{ if: 'paid', then: [{ text: 'p', id: 'st' }], else: [{ text: 'u', id: 'st' }] }] }), []);
  assert.deepEqual(
    errorsOf({ content: [{ if: 'paid', then: [{ text: 'p', id: 'st' }], else: [{ text: 'u', id: 'st' }] }, { text: 'z', id: 'st' }] }).map((x) => x.path),
    ['content[1].id'],
  );
  assert.deepEqual(errorsOf({ content: [{ if: 'paid', then: [{ text: 'p', id: 'st' }, { text: 'q', id: 'st' }] }] }).map((x) => x.path), ['content[0].then[1].id']);
});

test('a QR code takes the smaller of its width and height as its size; size with width is refused', async () => {
  const r = await render({ page: { size: 'A4', margin: 40 }, content: [{ qrcode: 'hello', width: 150, height: 60 }] });
  const [ops] = await pdfOperators(r.pdf);
  const box = unionBox(ops.filledBoxes);
  assert.ok(box.width > 50 && box.width <= 60.5 && Math.abs(box.width - box.height) < 0.5, `QR box ${JSON.stringify(box)}`);
  const big = await render({ page: { size: 'A4', margin: 40 }, content: [{ qrcode: 'hello', width: 150 }] });
  const bigBox = unionBox((await pdfOperators(big.pdf))[0].filledBoxes);
  assert.ok(bigBox.width > 130 && bigBox.width <= 150.5, `QR box ${JSON.stringify(bigBox)}`);
  const e = errorsOf({ content: [{ qrcode: 'hello', size: 50, width: 100 }] });
  assert.deepEqual(e.map((x) => x.path), ['content[0].width']);
  assert.match(e[0].message, /square/);
});

test('colSpan, rowSpan and verticalAlign outside table cells, and minFontSize without fit shrink, are refused at their path', () => {
  assert.deepEqual(errorsOf({ content: [{ text: 'a', verticalAlign: 'middle' }] }).map((x) => x.path), ['content[0].verticalAlign']);
  assert.deepEqual(errorsOf({ content: [{ stack: [{ text: 'a', colSpan: 2 }] }] }).map((x) => x.path), ['content[0].stack[0].colSpan']);
  // inside a cell's own content (not the cell) too
  assert.deepEqual(errorsOf({ content: [{ table: { rows: [[{ stack: [{ text: 'a', rowSpan: 2 }] }]] } }] }).map((x) => x.path), ['content[0].table.rows[0][0].stack[0].rowSpan']);
  assert.deepEqual(errorsOf({ content: [{ text: 'a', minFontSize: 6 }] }).map((x) => x.path), ['content[0].minFontSize']);
  // cells of body, header, footer, each and if rows may carry them
  const table = {
    columns: ['*', '*'],
    header: [[{ text: 'h', colSpan: 2, verticalAlign: 'middle' }, {}]],
    rows: [
      [{ text: 'a', rowSpan: 2 }, 'b'],
      ['', 'c'],
      { each: 'items', row: [{ text: '{{item}}', verticalAlign: 'bottom' }, 'x'] },
      { if: 'flag', then: [[{ text: 'y', colSpan: 2 }, {}]], else: [[{ text: 'z', verticalAlign: 'top' }, 'w']] },
    ],
    footer: [[{ text: 'f', verticalAlign: 'bottom' }, 'g']],
  };
  assert.deepEqual(errorsOf({ content: [{ table }] }), []);
  assert.deepEqual(errorsOf({ content: [{ text: 'a', fit: 'shrink', minFontSize: 6, height: 20 }] }), []);
});

test('a box property in headerStyle or footerStyle is TEMPLATE_INVALID at its path; text properties and a background are accepted', () => {
  const table = (extra: Record<string, unknown>) => ({ content: [{ table: { header: [[{ text: 'H' }]], rows: [[{ text: 'r' }]], footer: [[{ text: 'F' }]], ...extra } }] });
  const e = errorsOf(table({ headerStyle: { fontWeight: 'bold', padding: 6 }, footerStyle: { border: { top: { width: 1 } }, color: '#333333' } }));
  assert.deepEqual(e.map((x) => x.path), ['content[0].table.headerStyle.padding', 'content[0].table.footerStyle.border']);
  assert.match(e[0].message, /header cells inherit/);
  assert.deepEqual(
    errorsOf(table({ headerStyle: { fontWeight: 'bold', fontSize: 9, color: 'white', backgroundColor: '#1f4e79', textAlign: 'center', lang: 'de' }, footerStyle: { fontStyle: 'italic' } })),
    [],
  );
  // and inside a cell's nested table
  const nested = errorsOf({ content: [{ table: { rows: [[{ table: { rows: [[{ text: 'x' }]], headerStyle: { width: 40 } } }]] } }] });
  assert.deepEqual(nested.map((x) => x.path), ['content[0].table.rows[0][0].table.headerStyle.width']);
});
