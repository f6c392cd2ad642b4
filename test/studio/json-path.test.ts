/** The studio's mapping of server field paths to ranges of the editor's JSON text (studio/src/json-path.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { json } from '@codemirror/lang-json';
import { EditorState } from '@codemirror/state';
import { locate, parsePath } from '../../studio/src/json-path.ts';

test('parsePath reads dotted keys, indexes and quoted keys', () => {
  assert.deepEqual(parsePath(''), []);
  assert.deepEqual(parsePath('content[2].table.rows[0][1]'), ['content', 2, 'table', 'rows', 0, 1]);
  assert.deepEqual(parsePath('styles["my style"].color'), ['styles', 'my style', 'color']);
  assert.deepEqual(parsePath('styles["a\\"b"]'), ['styles', 'a"b']);
  assert.deepEqual(parsePath('items'), ['items']);
});

const doc = `{
  "styles": {"my style": {"color": "bluish"}},
  "content": [
    {"text": "Hello", "colr": "red"},
    {"table": {"rows": [["a", 5]]}}
  ]
}`;
const state = EditorState.create({ doc, extensions: [json()] });
const at = (path: string, atKey = false) => {
  const r = locate(state, parsePath(path), atKey);
  return state.sliceDoc(r.from, r.to);
};

test('locate finds values, keys (unknown keys), array items and quoted keys', () => {
  assert.equal(at('content[0].colr'), '"red"');
  assert.equal(at('content[0].colr', true), '"colr"');
  assert.equal(at('content[1].table.rows[0][1]'), '5');
  assert.equal(at('styles["my style"].color'), '"bluish"');
});

test('a path past what exists marks the nearest value: its key, or an object\'s first line', () => {
  // content[0].image is missing: the node's object, on its line.
  assert.equal(at('content[0].image'), '{"text": "Hello", "colr": "red"},');
  assert.equal(at('content[9]'), '[');
  assert.equal(at(''), '{');
});
