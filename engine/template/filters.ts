/**
 * Placeholder filters (DESIGN §5 "Placeholders"): `upper`, `lower`, `number[:decimals]`,
 * `currency[:"EUR"]`, `date[:"pattern"]`, `default:"-"`.
 *
 * Formatting follows `Intl` in the template's language (metadata.language, default "en"). Intl
 * formatter objects are slow to build, so they are cached by (locale, options). Filters never
 * throw on data: a value a filter cannot format passes through unchanged.
 *
 * Dates have no hidden time zone: an ISO string is shown with the wall-clock fields it was written
 * with (`2024-03-05T10:00:00+02:00` shows 10:00); an instant without an offset (epoch milliseconds,
 * `$now`, an ISO string ending in `Z`) is shown in UTC.
 */

import { StringKeyedCache } from './string-cache.ts';

/** An argument of a filter: a quoted string or a bare number. */
export type FilterArg = string | number;

/** The filter names of DSL version 1. */
export type FilterName = 'upper' | 'lower' | 'number' | 'currency' | 'date' | 'default';

/** One filter application as parsed from `| name:arg1,arg2`. */
export interface FilterCall {
  readonly name: FilterName;
  readonly args: readonly FilterArg[];
}

/** Every filter name, in documentation order. */
export const FILTER_NAMES: readonly FilterName[] = ['upper', 'lower', 'number', 'currency', 'date', 'default'];
const FILTER_SET: ReadonlySet<string> = new Set(FILTER_NAMES);

/** True when `name` is a filter of the DSL. DESIGN §5. */
export function isFilterName(name: string): name is FilterName {
  return FILTER_SET.has(name);
}

/** Default currency of `currency` without an argument. */
export const DEFAULT_CURRENCY = 'USD';
/** Default language of the filters (and of `metadata.language`). */
export const DEFAULT_LANGUAGE = 'en';

// ---------------------------------------------------------------------------------------------
// Small bounded caches

const CACHE_LIMIT = 512;

function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= CACHE_LIMIT) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Locales

const localeCache = new StringKeyedCache<string>(CACHE_LIMIT, 64 * 1024);

/** Longest language tag taken; a longer one (from the data, in `metadata.language`) counts as malformed. */
const MAX_LANGUAGE_TAG = 255;

/**
 * The canonical BCP 47 locale for `language` (e.g. "EN-us" -> "en-US"), or "en" when the tag is
 * missing, malformed or longer than 255 characters. Never throws. Cached. DESIGN §5.
 */
export function resolveLocale(language: string | undefined | null): string {
  if (language === undefined || language === null || language === '' || language.length > MAX_LANGUAGE_TAG) return DEFAULT_LANGUAGE;
  const hit = localeCache.get(language);
  if (hit !== undefined) return hit;
  let locale = DEFAULT_LANGUAGE;
  try {
    const canonical = Intl.getCanonicalLocales(language.trim());
    if (canonical.length === 1) locale = canonical[0];
  } catch {
    locale = DEFAULT_LANGUAGE;
  }
  return localeCache.remember(language, locale);
}

/** True when `language` is a well-formed BCP 47 tag (what `metadata.language` must be). DESIGN §5. */
export function isLanguageTag(language: string): boolean {
  try {
    return Intl.getCanonicalLocales(language).length === 1;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Values to text

/**
 * The text of a bound value (DESIGN §5): missing (undefined) and null render as "", strings as
 * themselves, numbers with `String(n)`, booleans as "true"/"false", a Date as its ISO string;
 * arrays and objects render as "" (a placeholder cannot print a structure).
 */
export function toText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return String(value);
    case 'object':
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
      return '';
    default:
      return '';
  }
}

/** A number from a number or a numeric string (`" 12.5 "`), else null. */
function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') {
    const t = value.trim();
    if (t === '') return null;
    const n = Number(t);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Numbers and currencies

/** Formatters by locale, then by options key: two lookups on existing strings, no key building. */
const numberFormats = new Map<string, Map<string | number, Intl.NumberFormat | null>>();

function formatsOf(locale: string): Map<string | number, Intl.NumberFormat | null> {
  let byOptions = numberFormats.get(locale);
  if (byOptions === undefined) byOptions = remember(numberFormats, locale, new Map());
  return byOptions;
}

function numberFormat(locale: string, decimals: number | undefined): Intl.NumberFormat {
  const byOptions = formatsOf(locale);
  const key = decimals === undefined ? -1 : decimals;
  const hit = byOptions.get(key);
  if (hit) return hit;
  const options: Intl.NumberFormatOptions =
    decimals === undefined ? {} : { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
  return remember(byOptions, key, new Intl.NumberFormat(locale, options)) as Intl.NumberFormat;
}

function currencyFormat(locale: string, currency: string): Intl.NumberFormat | null {
  const byOptions = formatsOf(locale);
  const hit = byOptions.get(currency);
  if (hit !== undefined) return hit;
  let format: Intl.NumberFormat | null;
  try {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
  } catch {
    format = null;
  }
  return remember(byOptions, currency, format);
}

/**
 * `number[:decimals]`: a number (or numeric string) grouped and rounded the locale's way
 * (`1234.5` -> "1,234.5" in en, "1.234,50" with 2 decimals in de). Without `decimals`, Intl's
 * default (at most 3). Anything else is returned unchanged. DESIGN §5.
 */
export function formatNumber(value: unknown, locale: string, decimals?: number): unknown {
  const n = toNumber(value);
  if (n === null) return value;
  return numberFormat(locale, decimals).format(n);
}

/**
 * `currency[:"EUR"]`: a number (or numeric string) as an amount of `currency` (ISO 4217, default
 * "USD") in Intl currency style (`1234.5` EUR -> "1.234,50\u00a0€" in de). Anything else, or an
 * unknown currency code, is returned unchanged. DESIGN §5.
 */
export function formatCurrency(value: unknown, locale: string, currency: string = DEFAULT_CURRENCY): unknown {
  const n = toNumber(value);
  if (n === null) return value;
  const format = currencyFormat(locale, currency);
  return format === null ? value : format.format(n);
}

// ---------------------------------------------------------------------------------------------
// Dates

/** Calendar fields of a date, as shown (see the module comment on time zones). */
interface DateFields {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday. */
  weekday: number;
  /** The same wall-clock fields as a UTC instant, for Intl (which formats with timeZone UTC). */
  utc: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

function fieldsOfInstant(ms: number): DateFields | null {
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return null;
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
    utc: d.getTime(),
  };
}

function fieldsOfIso(s: string): DateFields | null {
  const m = ISO_DATE.exec(s.trim());
  if (m === null) return null;
  const year = +m[1];
  const month = +m[2];
  const day = +m[3];
  const hour = m[4] === undefined ? 0 : +m[4];
  const minute = m[5] === undefined ? 0 : +m[5];
  const second = m[6] === undefined ? 0 : +m[6];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const d = new Date(utc);
  // Date.UTC rolls 2024-02-30 over into March: refuse instead.
  if (d.getUTCDate() !== day || d.getUTCMonth() !== month - 1) return null;
  // Date.UTC maps years 0-99 to 1900-1999.
  if (year < 100) d.setUTCFullYear(year);
  return { year, month, day, hour, minute, second, weekday: d.getUTCDay(), utc: d.getTime() };
}

/** Fields of a date value: an ISO string, epoch milliseconds or a Date; null when invalid. */
function dateFields(value: unknown): DateFields | null {
  if (typeof value === 'string') return fieldsOfIso(value);
  if (typeof value === 'number') return fieldsOfInstant(value);
  if (value instanceof Date) return fieldsOfInstant(value.getTime());
  return null;
}

/** Month, weekday and day-period names of one locale. */
interface DateNames {
  /** Month names as used next to a day ("5. März", Russian "марта"). */
  monthLong: string[];
  monthShort: string[];
  /** Month names standing alone ("März 2024", Russian "март"). */
  monthLongAlone: string[];
  monthShortAlone: string[];
  weekdayLong: string[];
  weekdayShort: string[];
  am: string;
  pm: string;
}

const dateNames = new Map<string, DateNames>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

function dateTimeFormat(locale: string, key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const k = locale + '|' + key;
  const hit = dateTimeFormats.get(k);
  if (hit !== undefined) return hit;
  return remember(dateTimeFormats, k, new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }));
}

function part(parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes): string {
  for (const p of parts) if (p.type === type) return p.value;
  return '';
}

function namesOf(locale: string): DateNames {
  const hit = dateNames.get(locale);
  if (hit !== undefined) return hit;
  const withDayLong = dateTimeFormat(locale, 'dMMMM', { day: 'numeric', month: 'long' });
  const withDayShort = dateTimeFormat(locale, 'dMMM', { day: 'numeric', month: 'short' });
  const aloneLong = dateTimeFormat(locale, 'MMMM', { month: 'long' });
  const aloneShort = dateTimeFormat(locale, 'MMM', { month: 'short' });
  const names: DateNames = {
    monthLong: [],
    monthShort: [],
    monthLongAlone: [],
    monthShortAlone: [],
    weekdayLong: [],
    weekdayShort: [],
    am: '',
    pm: '',
  };
  for (let m = 0; m < 12; m++) {
    const t = Date.UTC(2021, m, 15);
    names.monthLong.push(part(withDayLong.formatToParts(t), 'month'));
    names.monthShort.push(part(withDayShort.formatToParts(t), 'month'));
    names.monthLongAlone.push(aloneLong.format(t));
    names.monthShortAlone.push(aloneShort.format(t));
  }
  const weekdayLong = dateTimeFormat(locale, 'EEEE', { weekday: 'long' });
  const weekdayShort = dateTimeFormat(locale, 'EEE', { weekday: 'short' });
  for (let w = 0; w < 7; w++) {
    const t = Date.UTC(2021, 7, 1 + w); // 2021-08-01 is a Sunday
    names.weekdayLong.push(weekdayLong.format(t));
    names.weekdayShort.push(weekdayShort.format(t));
  }
  const period = dateTimeFormat(locale, 'ha', { hour: 'numeric', hour12: true });
  names.am = part(period.formatToParts(Date.UTC(2021, 0, 1, 9)), 'dayPeriod') || 'AM';
  names.pm = part(period.formatToParts(Date.UTC(2021, 0, 1, 15)), 'dayPeriod') || 'PM';
  return remember(dateNames, locale, names);
}

/** One piece of a compiled date pattern: a literal or a field token. */
type DateToken =
  | { lit: string }
  | { field: 'yyyy' | 'yy' | 'MMMM' | 'MMM' | 'MM' | 'M' | 'dd' | 'd' | 'EEEE' | 'EEE' | 'HH' | 'H' | 'hh' | 'h' | 'mm' | 'm' | 'ss' | 's' | 'a' };

interface CompiledPattern {
  tokens: DateToken[];
  /** The pattern shows a day of the month: month names take their "with a day" form. */
  hasDay: boolean;
}

/** Patterns come from templates and may be long: at most 4 MiB characters of them together. */
const patternCache = new StringKeyedCache<CompiledPattern | string>(CACHE_LIMIT, 4 * 1024 * 1024);

function fieldOf(letter: string, count: number): DateToken | null {
  switch (letter) {
    case 'y':
      return { field: count === 2 ? 'yy' : 'yyyy' };
    case 'M':
      return { field: count >= 4 ? 'MMMM' : count === 3 ? 'MMM' : count === 2 ? 'MM' : 'M' };
    case 'd':
      return { field: count >= 2 ? 'dd' : 'd' };
    case 'E':
      return { field: count >= 4 ? 'EEEE' : 'EEE' };
    case 'H':
      return { field: count >= 2 ? 'HH' : 'H' };
    case 'h':
      return { field: count >= 2 ? 'hh' : 'h' };
    case 'm':
      return { field: count >= 2 ? 'mm' : 'm' };
    case 's':
      return { field: count >= 2 ? 'ss' : 's' };
    case 'a':
      return { field: 'a' };
    default:
      return null;
  }
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function compileUncached(pattern: string): CompiledPattern | string {
  const tokens: DateToken[] = [];
  let hasDay = false;
  let lit = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        lit += "'";
        i += 2;
        continue;
      }
      let j = i + 1;
      let quoted = '';
      for (;;) {
        if (j >= pattern.length) return `unclosed quote in date pattern "${pattern}"`;
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") {
            quoted += "'";
            j += 2;
            continue;
          }
          break;
        }
        quoted += pattern[j];
        j++;
      }
      lit += quoted;
      i = j + 1;
      continue;
    }
    if (isAsciiLetter(pattern.charCodeAt(i))) {
      let j = i + 1;
      while (j < pattern.length && pattern[j] === c) j++;
      const token = fieldOf(c, j - i);
      if (token === null) {
        return (
          `unknown letter "${c}" in date pattern "${pattern}" (tokens: yyyy yy MMMM MMM MM M dd d EEEE EEE ` +
          `HH H hh h mm ss a; quote literal text: '${c}')`
        );
      }
      if (lit !== '') tokens.push({ lit });
      lit = '';
      if (c === 'd') hasDay = true;
      tokens.push(token);
      i = j;
      continue;
    }
    lit += c;
    i++;
  }
  if (lit !== '') tokens.push({ lit });
  return { tokens, hasDay };
}

function compilePattern(pattern: string): CompiledPattern | string {
  const hit = patternCache.get(pattern);
  if (hit !== undefined) return hit;
  return patternCache.remember(pattern, compileUncached(pattern));
}

/**
 * Checks a `date` pattern: returns null when valid, else a sentence (unclosed quote, an unquoted
 * letter that is not a token). Tokens: yyyy yy MMMM MMM MM M dd d EEEE EEE HH H hh h mm ss a;
 * text in single quotes is literal ('' is a quote). DESIGN §5.
 */
export function checkDatePattern(pattern: string): string | null {
  const compiled = compilePattern(pattern);
  return typeof compiled === 'string' ? compiled : null;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function applyPattern(f: DateFields, compiled: CompiledPattern, locale: string): string {
  let names: DateNames | null = null;
  let out = '';
  for (const t of compiled.tokens) {
    if ('lit' in t) {
      out += t.lit;
      continue;
    }
    switch (t.field) {
      case 'yyyy':
        out += f.year >= 0 && f.year < 1000 ? String(f.year).padStart(4, '0') : String(f.year);
        break;
      case 'yy':
        out += pad2(((f.year % 100) + 100) % 100);
        break;
      case 'MMMM':
        names ??= namesOf(locale);
        out += (compiled.hasDay ? names.monthLong : names.monthLongAlone)[f.month - 1];
        break;
      case 'MMM':
        names ??= namesOf(locale);
        out += (compiled.hasDay ? names.monthShort : names.monthShortAlone)[f.month - 1];
        break;
      case 'MM':
        out += pad2(f.month);
        break;
      case 'M':
        out += String(f.month);
        break;
      case 'dd':
        out += pad2(f.day);
        break;
      case 'd':
        out += String(f.day);
        break;
      case 'EEEE':
        names ??= namesOf(locale);
        out += names.weekdayLong[f.weekday];
        break;
      case 'EEE':
        names ??= namesOf(locale);
        out += names.weekdayShort[f.weekday];
        break;
      case 'HH':
        out += pad2(f.hour);
        break;
      case 'H':
        out += String(f.hour);
        break;
      case 'hh':
        out += pad2(f.hour % 12 === 0 ? 12 : f.hour % 12);
        break;
      case 'h':
        out += String(f.hour % 12 === 0 ? 12 : f.hour % 12);
        break;
      case 'mm':
        out += pad2(f.minute);
        break;
      case 'm':
        out += String(f.minute);
        break;
      case 'ss':
        out += pad2(f.second);
        break;
      case 's':
        out += String(f.second);
        break;
      case 'a':
        names ??= namesOf(locale);
        out += f.hour < 12 ? names.am : names.pm;
        break;
    }
  }
  return out;
}

/**
 * `date[:"pattern"]`: formats an ISO 8601 string (`2024-03-05`, `2024-03-05T14:30:00+01:00`),
 * epoch milliseconds or a Date. With a pattern, its tokens are replaced (month and weekday names
 * from Intl in `locale`); without, Intl `dateStyle: "medium"` ("Mar 5, 2024" in en). An invalid
 * date, an invalid pattern or a non-date value is returned unchanged. Never throws. DESIGN §5.
 */
export function formatDate(value: unknown, locale: string, pattern?: string): unknown {
  const f = dateFields(value);
  if (f === null) return value;
  if (pattern === undefined) return dateTimeFormat(locale, 'medium', { dateStyle: 'medium' }).format(f.utc);
  const compiled = compilePattern(pattern);
  if (typeof compiled === 'string') return value;
  return applyPattern(f, compiled, locale);
}

// ---------------------------------------------------------------------------------------------
// Filters

/**
 * Whether a formatting filter cannot format `value`, which it then passes through unchanged:
 * `number` and `currency` given anything but a number or numeric string, `date` given anything
 * that is no date. A blank value (missing, null, "") is no fault here: it prints empty.
 */
export function cannotFormat(call: FilterCall, value: unknown): boolean {
  if (isBlank(value)) return false;
  switch (call.name) {
    case 'number':
    case 'currency':
      return toNumber(value) === null;
    case 'date':
      return dateFields(value) === null;
    default:
      return false;
  }
}

/** True for a value `default` replaces: missing (undefined), null or "". DESIGN §5. */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function isIntegerArg(a: FilterArg | undefined, min: number, max: number): boolean {
  return typeof a === 'number' && Number.isInteger(a) && a >= min && a <= max;
}

/**
 * Checks the arguments of a filter at validation time: null when valid, else a sentence saying
 * what the filter takes. DESIGN §5.
 */
export function checkFilterArgs(name: FilterName, args: readonly FilterArg[]): string | null {
  switch (name) {
    case 'upper':
    case 'lower':
      return args.length === 0 ? null : `the filter "${name}" takes no arguments`;
    case 'number':
      if (args.length === 0 || (args.length === 1 && isIntegerArg(args[0], 0, 20))) return null;
      return 'the filter "number" takes one optional argument: the count of decimals, 0 to 20 (e.g. number:2)';
    case 'currency':
      if (args.length === 0) return null;
      if (args.length === 1 && typeof args[0] === 'string' && /^[A-Za-z]{3}$/.test(args[0])) return null;
      return 'the filter "currency" takes one optional argument: a quoted ISO 4217 code (e.g. currency:"EUR")';
    case 'date': {
      if (args.length === 0) return null;
      if (args.length === 1 && typeof args[0] === 'string') return checkDatePattern(args[0]);
      return 'the filter "date" takes one optional argument: a quoted pattern (e.g. date:"yyyy-MM-dd")';
    }
    case 'default':
      return args.length === 1 ? null : 'the filter "default" takes one argument: the text shown for a missing value (e.g. default:"-")';
  }
}

/**
 * Applies one filter to a value in `locale` (see {@link resolveLocale}). Missing values stay
 * missing through every filter but `default`; a value a filter cannot format passes through
 * unchanged. Never throws on data. DESIGN §5.
 */
export function applyFilter(call: FilterCall, value: unknown, locale: string): unknown {
  switch (call.name) {
    case 'default':
      return isBlank(value) ? call.args[0] : value;
    case 'upper':
      return value === undefined || value === null ? value : toText(value).toLocaleUpperCase(locale);
    case 'lower':
      return value === undefined || value === null ? value : toText(value).toLocaleLowerCase(locale);
    case 'number':
      return formatNumber(value, locale, call.args.length > 0 ? (call.args[0] as number) : undefined);
    case 'currency':
      return formatCurrency(value, locale, call.args.length > 0 ? String(call.args[0]) : DEFAULT_CURRENCY);
    case 'date':
      return formatDate(value, locale, call.args.length > 0 ? String(call.args[0]) : undefined);
  }
}

/** Applies a chain of filters left to right. DESIGN §5. */
export function applyFilters(calls: readonly FilterCall[], value: unknown, locale: string): unknown {
  let v = value;
  for (let i = 0; i < calls.length; i++) v = applyFilter(calls[i], v, locale);
  return v;
}
