/**
 * The server's field paths (`content[2].table.rows[0][1]`, `styles["my style"].color`) mapped to
 * ranges of the JSON text in an editor, through the editor's JSON syntax tree.
 */
import { ensureSyntaxTree } from '@codemirror/language';
import type { EditorState } from '@codemirror/state';
import type { SyntaxNode } from '@lezer/common';

export type PathSegment = string | number;

/** `a.b[0]["c d"]` -> ['a', 'b', 0, 'c d']; "" -> []. */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  let i = 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      i++;
    } else if (ch === '[') {
      if (path[i + 1] === '"') {
        // A JSON string key: find its closing quote (skipping escapes).
        let j = i + 2;
        while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
        out.push(JSON.parse(path.slice(i + 1, j + 1)) as string);
        i = j + 2;
      } else {
        const j = path.indexOf(']', i);
        out.push(Number(path.slice(i + 1, j)));
        i = j + 1;
      }
    } else {
      let j = i;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out;
}

const VALUE_NODES = new Set(['Object', 'Array', 'String', 'Number', 'True', 'False', 'Null']);

function values(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (VALUE_NODES.has(c.name)) out.push(c);
  return out;
}

/** A range to mark: `from`..`to` in the document. */
export interface Range {
  from: number;
  to: number;
}

/**
 * Where `path` is in the editor's JSON: the value at the path; its key instead when `atKey` (an
 * unknown key); the nearest enclosing value's first line when the path goes past what exists (a
 * missing key). The whole first line when the text has no value at all.
 */
export function locate(state: EditorState, path: readonly PathSegment[], atKey = false): Range {
  const tree = ensureSyntaxTree(state, state.doc.length, 500);
  const firstLine = (from: number): Range => {
    const line = state.doc.lineAt(from);
    return { from, to: Math.max(from + 1, Math.min(line.to, state.doc.length)) };
  };
  let node: SyntaxNode | undefined = tree ? values(tree.topNode)[0] : undefined;
  if (!node) return firstLine(0);
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    let next: SyntaxNode | undefined;
    let key: SyntaxNode | undefined;
    if (typeof seg === 'number' && node.name === 'Array') {
      next = values(node)[seg];
    } else if (typeof seg === 'string' && node.name === 'Object') {
      for (let p = node.firstChild; p; p = p.nextSibling) {
        if (p.name !== 'Property') continue;
        const name = p.getChild('PropertyName');
        if (!name) continue;
        let text: unknown;
        try {
          text = JSON.parse(state.sliceDoc(name.from, name.to));
        } catch {
          continue;
        }
        if (text === seg) {
          key = name;
          next = values(p)[0];
        }
      }
    }
    if (last && atKey && key) return { from: key.from, to: key.to };
    if (!next) return key ? { from: key.from, to: key.to } : firstLine(node.from);
    node = next;
  }
  // An object or array is marked on its first line, not over its whole extent.
  return node.name === 'Object' || node.name === 'Array' ? firstLine(node.from) : { from: node.from, to: node.to };
}
