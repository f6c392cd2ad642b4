/**
 * Field extraction (DESIGN §4 `GET /v1/templates/{id}/fields`, §5): every data path a template
 * reads, as the caller's data must have it.
 *
 * - Loop aliases are replaced by the array they walk: inside `{"each": "items", "as": "item"}`,
 *   `item.qty` is `items[].qty`; nested loops compose (`orders[].lines[].sku`).
 * - Types are inferred from every use of a path. Uses that say what the value is:
 *   - "number": a `number` or `currency` filter; a comparison with a number literal
 *     (`{"gt": ["total", 1000]}`, also eq/ne/gte/lt/lte);
 *   - "date": a `date` filter;
 *   - "boolean": `eq`/`ne` with `true` or `false`;
 *   - "image": the source of an `image` node;
 *   - "array": walked by an `each`, or read through an index (`items[0]`, `items[]...`);
 *   - "object": read through a key (`customer.name`, `totals["net sum"]`).
 *   Weaker uses, which any of those refines: printed in text or another string property
 *   (`link`, `qrcode`, colours, metadata), through `upper`/`lower`, or compared with a string
 *   literal, says "string" (any scalar prints, but text is what the template expects); a bare
 *   condition (`"if": "buyer.vatId"`) only tests presence and says "boolean" when it is the only
 *   use.
 * - Resolution: the one type the strong uses agree on; when they disagree (a `number` filter and a
 *   `date` filter on one path) "unknown"; with no strong use "string" if the path is printed or
 *   compared with text, else "boolean" if it is a condition, else "unknown" (it is compared only
 *   with null or with another placeholder).
 * - `$` built-ins are left out; no duplicates; order of first appearance in the template (its own
 *   key order), metadata, header, footer, background and table rows included.
 */
import type { Condition, Template, TemplateField } from './types.ts';
import { COMPARISONS } from './conditions.ts';
import { parsePath, parseString, hasPlaceholder, type DataPath, type Placeholder } from './placeholders.ts';

type FieldType = TemplateField['type'];

/**
 * What one use of a path says about its value: a field type ("string" is the weak "printed" use),
 * "truthy" for a bare condition, "unknown" for a use that says nothing.
 */
type Use = FieldType | 'truthy';

/** Uses that only hint at a type: anything stronger replaces them. */
const WEAK: ReadonlySet<Use> = new Set<Use>(['string', 'truthy', 'unknown']);

/** The type of a path from all its uses (rules in the module comment). */
function resolve(uses: ReadonlySet<Use>): FieldType {
  let strong: FieldType | null = null;
  for (const u of uses) {
    if (WEAK.has(u)) continue;
    if (strong !== null && strong !== u) return 'unknown';
    strong = u as FieldType;
  }
  if (strong !== null) return strong;
  if (uses.has('string')) return 'string';
  if (uses.has('truthy')) return 'boolean';
  return 'unknown';
}

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
  /** Every use of each path, in order of first appearance. */
  readonly fields = new Map<string, Set<Use>>();

  add(name: string, use: Use): void {
    let uses = this.fields.get(name);
    if (uses === undefined) this.fields.set(name, (uses = new Set()));
    uses.add(use);
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

  addPath(path: DataPath, frames: Frame | null, use: Use): string | null {
    const name = this.nameOf(path, frames);
    if (name !== null) this.add(name, use);
    return name;
  }

  /** Records every placeholder of a string; `use` is the use of a filter-less placeholder. */
  string(s: unknown, frames: Frame | null, use: Use): void {
    if (typeof s !== 'string' || !hasPlaceholder(s)) return;
    let parts;
    try {
      parts = parseString(s).parts;
    } catch {
      return;
    }
    for (const part of parts) if (typeof part !== 'string') this.placeholder(part, frames, use);
  }

  /** The first filter that reads the value as something says what it is; `default` passes it on. */
  placeholder(p: Placeholder, frames: Frame | null, use: Use): void {
    let u = use;
    for (const f of p.filters) {
      if (f.name === 'default') continue;
      u = f.name === 'number' || f.name === 'currency' ? 'number' : f.name === 'date' ? 'date' : 'string';
      break;
    }
    this.addPath(p.path, frames, u);
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
      if (p !== null) this.addPath(p, frames, 'truthy');
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
      // A number literal makes the comparison numeric; a boolean one is an identity test; a string
      // one compares text (or ISO dates); null and placeholders say nothing about the path.
      let use: Use = 'unknown';
      if (typeof literal === 'number') use = 'number';
      else if (typeof literal === 'boolean') use = 'boolean';
      else if (typeof literal === 'string') use = hasPlaceholder(literal) ? 'unknown' : 'string';
      const p = this.path(pair[0]);
      if (p !== null) this.addPath(p, frames, use);
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
  // A path other names go through is an object (`a.b`, `a["b"]`) or an array (`a[]`, `a[0]`). In
  // sorted order the names a name is a prefix of come right after it; a stack of the names that
  // are prefixes of the current one gives each name its nearest such prefix, which is all that is
  // needed: a shorter prefix was told when that nearest one was. (Comparing every pair took 2 s for
  // a template of 19,000 fields.)
  const names = [...c.fields.keys()];
  const prefixes: string[] = [];
  for (const name of [...names].sort()) {
    while (prefixes.length > 0 && !name.startsWith(prefixes[prefixes.length - 1])) prefixes.pop();
    const parent = prefixes[prefixes.length - 1];
    if (parent !== undefined) {
      const next = name[parent.length];
      if (next === '.') c.add(parent, 'object');
      else if (next === '[') c.add(parent, name[parent.length + 1] === '"' ? 'object' : 'array');
    }
    prefixes.push(name);
  }
  return names.map((name) => ({ name, type: resolve(c.fields.get(name)!) }));
}
