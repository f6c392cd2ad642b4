/**
 * Placeholder syntax (DESIGN §5 "Placeholders"): `{{ path | filter:arg | filter }}` and the
 * equivalent `<<path | filter>>`, in any bound string.
 *
 * - A path is dotted with array indexes: `customer.name`, `items[0].name`, `item.qty` (a loop
 *   alias), `row["unit price"]` (a quoted key), or a built-in: `$index`, `$page`, `$pages`, `$now`.
 * - Filters follow pipes; arguments follow a colon, several separated by colons or commas; an
 *   argument is a "double" or 'single' quoted string (backslash escapes the quote) or a bare number.
 * - `\{{` and `\<<` are a literal `{{` / `<<` (in JSON: `"\\{{"`).
 * - The segments `__proto__`, `constructor` and `prototype` are refused everywhere.
 *
 * Parsed strings are cached in a bounded Map: binding a 1,000-row table parses each template
 * string once. Strings without `{{` or `<<` take a fast path.
 */
import { RenderError } from '../errors.ts';
import { FILTER_NAMES, checkFilterArgs, isFilterName, type FilterArg, type FilterCall } from './filters.ts';
import { StringKeyedCache } from './string-cache.ts';

/** One step of a data path: an object key or an array index. */
export type PathSegment = string | number;

/** The `$` built-ins of DSL version 1. */
export type BuiltinName = '$index' | '$page' | '$pages' | '$now';
export const BUILTINS: readonly BuiltinName[] = ['$index', '$page', '$pages', '$now'];

/** A parsed data path. */
export interface DataPath {
  /** Canonical text of the path: `items[0].name`. */
  readonly text: string;
  /** At least one segment; the first is always a string (a data key, a loop alias or a built-in). */
  readonly segments: readonly PathSegment[];
  /** Set when the path is a `$` built-in (then `segments` is just that name). */
  readonly builtin: BuiltinName | null;
}

/** One placeholder of a string. */
export interface Placeholder {
  readonly path: DataPath;
  readonly filters: readonly FilterCall[];
  /** The placeholder as written, delimiters included: `{{ total | currency:"EUR" }}`. */
  readonly source: string;
}

/** A piece of a parsed string: literal text or a placeholder. */
export type StringPart = string | Placeholder;

/** A parsed string. */
export interface ParsedString {
  /** Literal text (escapes resolved) and placeholders in order; never two literals in a row. */
  readonly parts: readonly StringPart[];
  /** The placeholder when the string is exactly one placeholder (no text around it), else null. */
  readonly single: Placeholder | null;
  /** The whole string when it holds no placeholder (escapes resolved), else null. */
  readonly literal: string | null;
}

/** Object keys and path segments that could reach a prototype: refused everywhere. */
export const DANGEROUS_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** True for `__proto__`, `constructor` and `prototype`. DESIGN §5. */
export function isDangerousKey(key: string): boolean {
  return key === '__proto__' || key === 'constructor' || key === 'prototype';
}

/** True when `s` may hold a placeholder (contains `{{` or `<<`): the fast-path test. DESIGN §5. */
export function hasPlaceholder(s: string): boolean {
  return s.indexOf('{{') !== -1 || s.indexOf('<<') !== -1;
}

// ---------------------------------------------------------------------------------------------
// Scanner

class SyntaxFault extends Error {}

function fail(message: string): never {
  throw new SyntaxFault(message);
}

/** Characters that end a bare key. */
function isNameChar(code: number): boolean {
  if (code <= 32) return false;
  switch (code) {
    case 46: // .
    case 91: // [
    case 93: // ]
    case 124: // |
    case 58: // :
    case 44: // ,
    case 34: // "
    case 39: // '
    case 123: // {
    case 125: // }
    case 60: // <
    case 62: // >
    case 40: // (
    case 41: // )
    case 160: // no-break space
      return false;
    default:
      return true;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

class Cursor {
  i: number;
  constructor(
    readonly s: string,
    start: number,
    /** Index where this piece of text ends (exclusive). */
    readonly end: number,
  ) {
    this.i = start;
  }
  code(): number {
    return this.i < this.end ? this.s.charCodeAt(this.i) : -1;
  }
  skipSpace(): void {
    while (this.i < this.end && isSpace(this.s.charCodeAt(this.i))) this.i++;
  }
  describeHere(): string {
    return this.i < this.end ? `"${this.s[this.i]}"` : 'the end';
  }
}

function readName(c: Cursor): string {
  const start = c.i;
  while (c.i < c.end && isNameChar(c.s.charCodeAt(c.i))) c.i++;
  return c.s.slice(start, c.i);
}

function readQuoted(c: Cursor): string {
  const quote = c.s[c.i];
  c.i++;
  let out = '';
  while (c.i < c.end) {
    const ch = c.s[c.i];
    if (ch === '\\' && c.i + 1 < c.end) {
      out += c.s[c.i + 1];
      c.i += 2;
      continue;
    }
    if (ch === quote) {
      c.i++;
      return out;
    }
    out += ch;
    c.i++;
  }
  return fail(`unclosed ${quote} quote`);
}

function readNumber(c: Cursor): number {
  const start = c.i;
  if (c.code() === 45 /* - */) c.i++;
  if (!isDigit(c.code())) fail('filter arguments are quoted strings or numbers');
  while (isDigit(c.code())) c.i++;
  if (c.code() === 46 /* . */) {
    c.i++;
    if (!isDigit(c.code())) fail('filter arguments are quoted strings or numbers');
    while (isDigit(c.code())) c.i++;
  }
  return Number(c.s.slice(start, c.i));
}

function checkSegment(key: string): void {
  if (isDangerousKey(key)) fail(`"${key}" is not allowed in a data path`);
}

function segmentText(key: string): string {
  for (let i = 0; i < key.length; i++) if (!isNameChar(key.charCodeAt(i))) return '[' + JSON.stringify(key) + ']';
  return key === '' ? '[""]' : '.' + key;
}

/** Reads a path at the cursor; stops at the first character that cannot continue it. */
function readPath(c: Cursor): DataPath {
  c.skipSpace();
  const first = readName(c);
  if (first === '') fail(c.i >= c.end ? 'expected a data path' : `expected a data path, found ${c.describeHere()}`);
  checkSegment(first);
  const segments: PathSegment[] = [first];
  let text = first;
  for (;;) {
    const code = c.code();
    if (code === 46 /* . */) {
      c.i++;
      const key = readName(c);
      if (key === '') fail(`expected a key after "." in "${text}."`);
      checkSegment(key);
      segments.push(key);
      text += '.' + key;
    } else if (code === 91 /* [ */) {
      c.i++;
      c.skipSpace();
      const inner = c.code();
      if (isDigit(inner)) {
        const start = c.i;
        while (isDigit(c.code())) c.i++;
        const index = Number(c.s.slice(start, c.i));
        if (!Number.isSafeInteger(index)) fail(`the index in "${text}[" is too large`);
        segments.push(index);
        text += '[' + index + ']';
      } else if (inner === 34 || inner === 39) {
        const key = readQuoted(c);
        checkSegment(key);
        segments.push(key);
        text += segmentText(key);
      } else {
        fail(`expected an index or a quoted key after "${text}["`);
      }
      c.skipSpace();
      if (c.code() !== 93 /* ] */) fail(`expected "]" after "${text}"`);
      c.i++;
    } else {
      break;
    }
  }
  let builtin: BuiltinName | null = null;
  if (first.charCodeAt(0) === 36 /* $ */) {
    if (!(BUILTINS as readonly string[]).includes(first)) {
      fail(`unknown built-in "${first}" (built-ins: ${BUILTINS.join(', ')})`);
    }
    if (segments.length > 1) fail(`the built-in "${first}" has no properties`);
    builtin = first as BuiltinName;
  }
  return { text, segments, builtin };
}

function readFilters(c: Cursor): FilterCall[] {
  const filters: FilterCall[] = [];
  for (;;) {
    c.skipSpace();
    if (c.code() !== 124 /* | */) return filters;
    c.i++;
    c.skipSpace();
    const start = c.i;
    while (c.i < c.end && /* letters */ isAsciiLetter(c.s.charCodeAt(c.i))) c.i++;
    const name = c.s.slice(start, c.i);
    if (name === '') fail(`expected a filter name after "|", found ${c.describeHere()}`);
    if (!isFilterName(name)) {
      const hint = closest(name, FILTER_NAMES);
      fail(`unknown filter "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; the filters are ${FILTER_NAMES.join(', ')}`);
    }
    const args: FilterArg[] = [];
    c.skipSpace();
    if (c.code() === 58 /* : */) {
      c.i++;
      for (;;) {
        c.skipSpace();
        const code = c.code();
        if (code === 34 || code === 39) args.push(readQuoted(c));
        else if (code === 45 || isDigit(code)) args.push(readNumber(c));
        else fail(`filter arguments are quoted strings or numbers; found ${c.describeHere()} after "${name}:"`);
        c.skipSpace();
        const sep = c.code();
        if (sep === 58 || sep === 44) {
          c.i++;
          continue;
        }
        break;
      }
    }
    const problem = checkFilterArgs(name, args);
    if (problem !== null) fail(problem);
    filters.push({ name, args });
  }
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Index just past the closing delimiter of a placeholder opened at `start`, skipping quoted args. */
function findClose(s: string, from: number, close: number): number {
  let quote = -1;
  for (let i = from; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (quote !== -1) {
      if (code === 92 /* \ */) i++;
      else if (code === quote) quote = -1;
    } else if (code === 34 || code === 39) {
      quote = code;
    } else if (code === close && s.charCodeAt(i + 1) === close) {
      return i;
    }
  }
  return -1;
}

function parsePlaceholder(s: string, open: number, closeCode: number): { placeholder: Placeholder; next: number } {
  const opener = closeCode === 125 ? '{{' : '<<';
  const closer = closeCode === 125 ? '}}' : '>>';
  const closeAt = findClose(s, open + 2, closeCode);
  if (closeAt === -1) fail(`unclosed "${opener}" at character ${open + 1} (no matching "${closer}")`);
  const source = s.slice(open, closeAt + 2);
  const c = new Cursor(s, open + 2, closeAt);
  c.skipSpace();
  if (c.i >= c.end) fail(`empty placeholder "${source}"`);
  try {
    const path = readPath(c);
    const filters = readFilters(c);
    c.skipSpace();
    if (c.i < c.end) fail(`unexpected ${c.describeHere()}`);
    return { placeholder: { path, filters, source }, next: closeAt + 2 };
  } catch (e) {
    if (e instanceof SyntaxFault) fail(`${source}: ${e.message}`);
    throw e;
  }
}

function parseUncached(s: string): ParsedString {
  const parts: StringPart[] = [];
  let lit = '';
  let litStart = 0;
  let i = 0;
  const n = s.length;
  while (i < n - 1) {
    const code = s.charCodeAt(i);
    if ((code === 123 || code === 60) && s.charCodeAt(i + 1) === code) {
      if (i > 0 && s.charCodeAt(i - 1) === 92 /* \ */) {
        // Escaped: drop the backslash, keep the two delimiter characters as text.
        lit += s.slice(litStart, i - 1);
        litStart = i;
        i += 2;
        continue;
      }
      lit += s.slice(litStart, i);
      if (lit !== '') parts.push(lit);
      lit = '';
      const { placeholder, next } = parsePlaceholder(s, i, code === 123 ? 125 : 62);
      parts.push(placeholder);
      i = next;
      litStart = i;
      continue;
    }
    i++;
  }
  lit += s.slice(litStart);
  if (lit !== '') parts.push(lit);
  const single = parts.length === 1 && typeof parts[0] !== 'string' ? parts[0] : null;
  let literal: string | null = null;
  if (parts.length === 0) literal = '';
  else if (parts.length === 1 && typeof parts[0] === 'string') literal = parts[0];
  return { parts, single, literal };
}

// ---------------------------------------------------------------------------------------------
// Cache and public API

/** 10,000 strings of at most 4 MiB characters together (1 MiB one). */
const stringCache = new StringKeyedCache<ParsedString | SyntaxFault>(10_000, 4 * 1024 * 1024);
const pathCache = new StringKeyedCache<DataPath | SyntaxFault>(10_000, 4 * 1024 * 1024);

function parseCached(s: string): ParsedString | SyntaxFault {
  const hit = stringCache.get(s);
  if (hit !== undefined) return hit;
  let result: ParsedString | SyntaxFault;
  try {
    result = parseUncached(s);
  } catch (e) {
    if (!(e instanceof SyntaxFault)) throw e;
    result = e;
  }
  return stringCache.remember(s, result);
}

/**
 * Parses a string into literal parts and placeholders (cached; a string without `{{`/`<<` is
 * returned as one literal without touching the cache). Throws RenderError('TEMPLATE_INVALID')
 * on a syntax error: unclosed `{{`, an unknown filter, bad filter arguments, an unknown `$`
 * built-in, a refused segment such as `__proto__`. DESIGN §5.
 */
export function parseString(s: string): ParsedString {
  if (!hasPlaceholder(s)) return { parts: s === '' ? [] : [s], single: null, literal: s };
  const result = parseCached(s);
  if (result instanceof SyntaxFault) throw new RenderError('TEMPLATE_INVALID', result.message);
  return result;
}

/** Validates a string's placeholder syntax: null when fine, else the sentence of the fault. DESIGN §5. */
export function checkString(s: string): string | null {
  if (!hasPlaceholder(s)) return null;
  const result = parseCached(s);
  return result instanceof SyntaxFault ? result.message : null;
}

function parsePathCached(text: string): DataPath | SyntaxFault {
  const hit = pathCache.get(text);
  if (hit !== undefined) return hit;
  let result: DataPath | SyntaxFault;
  try {
    let start = 0;
    let end = text.length;
    // Accept a path wrapped in one placeholder: "{{ items }}" or "<<items>>".
    const trimmed = text.trim();
    if ((trimmed.startsWith('{{') && trimmed.endsWith('}}')) || (trimmed.startsWith('<<') && trimmed.endsWith('>>'))) {
      start = text.indexOf(trimmed) + 2;
      end = start + trimmed.length - 4;
    }
    const c = new Cursor(text, start, end);
    const path = readPath(c);
    c.skipSpace();
    if (c.code() === 124) fail(`filters are not allowed in "${text}": write a bare data path`);
    if (c.i < c.end) fail(`unexpected ${c.describeHere()} in the data path "${text}"`);
    result = path;
  } catch (e) {
    if (!(e instanceof SyntaxFault)) throw e;
    result = e;
  }
  return pathCache.remember(text, result);
}

/**
 * Parses a bare data path as used by `each` and conditions (`items`, `customer.vip`,
 * `order.lines[0]`; a `{{ }}` wrapper is tolerated, filters are not). Cached. Throws
 * RenderError('TEMPLATE_INVALID') on a syntax error or a refused segment. DESIGN §5.
 */
export function parsePath(text: string): DataPath {
  const result = parsePathCached(text);
  if (result instanceof SyntaxFault) throw new RenderError('TEMPLATE_INVALID', result.message);
  return result;
}

/** Validates a bare data path: null when fine, else the sentence of the fault. DESIGN §5. */
export function checkPath(text: string): string | null {
  const result = parsePathCached(text);
  return result instanceof SyntaxFault ? result.message : null;
}

/** Every placeholder of a string (empty when none); throws like {@link parseString}. DESIGN §5. */
export function placeholdersOf(s: string): Placeholder[] {
  const out: Placeholder[] = [];
  for (const part of parseString(s).parts) if (typeof part !== 'string') out.push(part);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Suggestions

/** Levenshtein distance, small strings only. DESIGN §5. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** The candidate closest to `word` (case-insensitive) if it is a plausible typo, else null. DESIGN §5. */
export function closest(word: string, candidates: Iterable<string>): string | null {
  const w = word.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  if (best === null) return null;
  const limit = Math.max(1, Math.min(2, Math.floor(Math.max(word.length, best.length) / 3)));
  return bestDistance <= limit ? best : null;
}
