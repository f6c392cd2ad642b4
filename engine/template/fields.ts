/**
 * Field extraction (DESIGN §4 `GET /v1/templates/{id}/fields`, §5): every data path a template
 * reads, as the caller's data must have it.
 *
 * - Loop aliases are replaced by the array they walk: inside `{"each": "items", "as": "item"}`,
 *   `item.qty` is `items[].qty`; nested loops compose (`orders[].lines[].sku`).
 * - Types: the `each` array itself is "array"; a path in `image` is "image"; with a `number` or
 *   `currency` filter "number"; with `date` "date"; compared to a literal, the literal's type; a
 *   bare condition "boolean"; a path other fields go through is "object" (or "array"); anything
 *   else "string". When a path is read several ways, the most specific type wins
 *   (array > object > image > date > number > string > boolean > unknown).
 * - `$` built-ins are left out; no duplicates; order of first appearance in the template (its own
 *   key order), metadata, header, footer, background and table rows included.
 */
import type { Condition, Template, TemplateField } from './types.ts';
import { COMPARISONS } from './conditions.ts';
import { parsePath, parseString, hasPlaceholder, type DataPath, type Placeholder } from './placeholders.ts';

type FieldType = TemplateField['type'];

const RANK: Record<FieldType, number> = {
  unknown: 0,
  boolean: 1,
  string: 2,
  number: 3,
  date: 4,
  image: 5,
  object: 6,
  array: 7,
};

interface Frame {
  readonly alias: string;
  /** The data path of the array's items, e.g. `items[]`. */
  readonly prefix: string;
  readonly parent: Frame | null;
}

type Obj = Record<string, unknown>;

function isBareKey(key: string): boolean {
  if (key === '') return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c <= 32 || '.[]|:,"\'{}<>()\u00a0'.includes(key[i])) return false;
  }
  return true;
}

class Collector {
  readonly fields = new Map<string, FieldType>();

  add(name: string, type: FieldType): void {
    const prev = this.fields.get(name);
    if (prev === undefined || RANK[type] > RANK[prev]) this.fields.set(name, type);
  }

  /** The caller-side name of a path, or null for `$` built-ins. */
  nameOf(path: DataPath, frames: Frame | null): string | null {
    if (path.builtin !== null) return null;
    const first = path.segments[0] as string;
    let name: string | null = null;
    for (let f = frames; f !== null; f = f.parent) {
      if (f.alias === first) {
        name = f.prefix;
        break;
      }
    }
    if (name === null) name = isBareKey(first) ? first : `[${JSON.stringify(first)}]`;
    for (let i = 1; i < path.segments.length; i++) {
      const seg = path.segments[i];
      if (typeof seg === 'number') name += `[${seg}]`;
      else name += isBareKey(seg) ? '.' + seg : `[${JSON.stringify(seg)}]`;
    }
    return name;
  }

  addPath(path: DataPath, frames: Frame | null, type: FieldType): string | null {
    const name = this.nameOf(path, frames);
    if (name !== null) this.add(name, type);
    return name;
  }

  /** Records every placeholder of a string; `type` is the type of a filter-less placeholder. */
  string(s: unknown, frames: Frame | null, type: FieldType): void {
    if (typeof s !== 'string' || !hasPlaceholder(s)) return;
    let parts;
    try {
      parts = parseString(s).parts;
    } catch {
      return;
    }
    for (const part of parts) if (typeof part !== 'string') this.placeholder(part, frames, type);
  }

  placeholder(p: Placeholder, frames: Frame | null, type: FieldType): void {
    let t = type;
    for (const f of p.filters) {
      if (f.name === 'number' || f.name === 'currency') {
        t = 'number';
        break;
      }
      if (f.name === 'date') {
        t = 'date';
        break;
      }
    }
    this.addPath(p.path, frames, t);
  }

  /** Parses a bare path (each, conditions); null when malformed. */
  path(text: unknown): DataPath | null {
    if (typeof text !== 'string') return null;
    try {
      return parsePath(text);
    } catch {
      return null;
    }
  }

  condition(c: Condition | undefined, frames: Frame | null): void {
    if (typeof c === 'string') {
      const p = this.path(c);
      if (p !== null) this.addPath(p, frames, 'boolean');
      return;
    }
    if (c === null || typeof c !== 'object') return;
    const o = c as Obj;
    if (Object.hasOwn(o, 'not')) this.condition(o.not as Condition, frames);
    for (const key of ['and', 'or']) {
      if (Object.hasOwn(o, key) && Array.isArray(o[key])) for (const sub of o[key] as Condition[]) this.condition(sub, frames);
    }
    for (const op of COMPARISONS) {
      const pair = o[op];
      if (!Object.hasOwn(o, op) || !Array.isArray(pair)) continue;
      const literal: unknown = pair[1];
      let type: FieldType = 'unknown';
      if (typeof literal === 'number') type = 'number';
      else if (typeof literal === 'boolean') type = 'boolean';
      else if (typeof literal === 'string') type = hasPlaceholder(literal) ? 'unknown' : 'string';
      const p = this.path(pair[0]);
      if (p !== null) this.addPath(p, frames, type);
      if (typeof literal === 'string') this.string(literal, frames, 'unknown');
    }
  }

  /** An `each` (node or row template): records the array, returns the frame of its items. */
  each(n: Obj, frames: Frame | null): Frame | null {
    const p = this.path(n.each);
    if (p === null) return frames;
    const name = this.addPath(p, frames, 'array');
    const alias = typeof n.as === 'string' ? n.as : 'item';
    return { alias, prefix: (name ?? p.text) + '[]', parent: frames };
  }

  style(s: unknown, frames: Frame | null): void {
    if (s === null || typeof s !== 'object') return;
    const o = s as Obj;
    for (const key of Object.keys(o)) {
      const v = o[key];
      if (key === 'color' || key === 'backgroundColor') this.string(v, frames, 'string');
      else if (key === 'border' && v !== null && typeof v === 'object') {
        const b = v as Obj;
        this.string(b.color, frames, 'string');
        for (const side of ['top', 'right', 'bottom', 'left']) {
          const sv = b[side];
          if (sv !== null && typeof sv === 'object') this.string((sv as Obj).color, frames, 'string');
        }
      }
    }
  }

  inlines(text: unknown, frames: Frame | null): void {
    if (typeof text === 'string') return this.string(text, frames, 'string');
    if (!Array.isArray(text)) return;
    for (const item of text) {
      if (typeof item === 'string') this.string(item, frames, 'string');
      else if (item !== null && typeof item === 'object') {
        const span = item as Obj;
        for (const key of Object.keys(span)) {
          if (key === 'text') this.inlines(span.text, frames);
          else if (key === 'link') this.string(span.link, frames, 'string');
        }
        this.style(span, frames);
      }
    }
  }

  nodes(list: unknown, frames: Frame | null): void {
    if (!Array.isArray(list)) return;
    for (const n of list) this.node(n, frames);
  }

  cell(cell: unknown, frames: Frame | null): void {
    if (typeof cell === 'string') this.string(cell, frames, 'string');
    else this.node(cell, frames);
  }

  rows(rows: unknown, frames: Frame | null): void {
    if (!Array.isArray(rows)) return;
    for (const row of rows) {
      if (Array.isArray(row)) {
        for (const cell of row) this.cell(cell, frames);
        continue;
      }
      if (row === null || typeof row !== 'object') continue;
      const r = row as Obj;
      if (Object.hasOwn(r, 'each')) {
        const inner = this.each(r, frames);
        if (Array.isArray(r.row)) for (const cell of r.row) this.cell(cell, inner);
      } else if (Object.hasOwn(r, 'if')) {
        for (const key of Object.keys(r)) {
          if (key === 'if') this.condition(r.if as Condition, frames);
          else if (key === 'then' || key === 'else') this.rows(r[key], frames);
        }
      }
    }
  }

  table(spec: unknown, frames: Frame | null): void {
    if (spec === null || typeof spec !== 'object') return;
    const t = spec as Obj;
    for (const key of Object.keys(t)) {
      const v = t[key];
      switch (key) {
        case 'header':
        case 'footer':
        case 'rows':
          this.rows(v, frames);
          break;
        case 'stripe':
        case 'borderColor':
          this.string(v, frames, 'string');
          break;
        case 'headerStyle':
        case 'footerStyle':
          this.style(v, frames);
          break;
      }
    }
  }

  node(node: unknown, frames: Frame | null): void {
    if (node === null || typeof node !== 'object') return;
    const n = node as Obj;
    for (const key of Object.keys(n)) {
      const v = n[key];
      switch (key) {
        case 'text':
          this.inlines(v, frames);
          break;
        case 'link':
        case 'qrcode':
        case 'barcode':
          this.string(v, frames, 'string');
          break;
        case 'image':
          this.string(v, frames, 'image');
          break;
        case 'color':
        case 'backgroundColor':
          this.string(v, frames, 'string');
          break;
        case 'border':
          this.style({ border: v }, frames);
          break;
        case 'line':
          if (v !== null && typeof v === 'object') this.string((v as Obj).color, frames, 'string');
          break;
        case 'table':
          this.table(v, frames);
          break;
        case 'columns':
          if (Array.isArray(v)) for (const col of v) if (col !== null && typeof col === 'object') this.nodes((col as Obj).content, frames);
          break;
        case 'stack':
          this.nodes(v, frames);
          break;
        case 'list':
          if (Array.isArray(v)) for (const item of v) this.cell(item, frames);
          break;
        case 'each':
          this.nodes(n.content, this.each(n, frames));
          break;
        case 'if':
          this.condition(v as Condition, frames);
          break;
        case 'then':
        case 'else':
          if (Object.hasOwn(n, 'if')) this.nodes(v, frames);
          break;
      }
    }
  }
}

/**
 * Every data path `t` reads, as `{name, type}` (rules in the module comment). Expects a template
 * that passed `parseTemplate`; malformed strings are skipped, never thrown. DESIGN §4, §5.
 */
export function templateFields(t: Template): TemplateField[] {
  const c = new Collector();
  const root = t as unknown as Obj;
  for (const key of Object.keys(root)) {
    const v = root[key];
    switch (key) {
      case 'metadata':
        if (v !== null && typeof v === 'object') {
          for (const k of Object.keys(v as Obj)) c.string((v as Obj)[k], null, 'string');
        }
        break;
      case 'header':
      case 'footer':
      case 'background':
      case 'content':
        c.nodes(v, null);
        break;
    }
  }
  const names = [...c.fields.keys()];
  const out: TemplateField[] = [];
  for (const name of names) {
    let type = c.fields.get(name) as FieldType;
    if (RANK[type] < RANK.object) {
      for (const other of names) {
        if (other.length <= name.length || !other.startsWith(name)) continue;
        const next = other[name.length];
        if (next === '[' && other[name.length + 1] !== '"') {
          type = 'array';
          break;
        }
        if (next === '[') type = 'object';
        if (next === '.') type = 'object';
      }
    }
    out.push({ name, type });
  }
  return out;
}
