/**
 * What a JSON request body weighs in memory once parsed, estimated from its bytes before it is
 * parsed. Parsed JSON is far larger than its text when it is made of many small values: 10 MB of
 * `{},{},...` is 3.5 million objects, about 234 MB of heap (22x), and a render holds the data twice
 * (the HTTP thread's copy and the render thread's). Measured on Node 20 (heap after JSON.parse,
 * 10 MB bodies): `{}` 234 MB, `[]` 150 MB, small integers 50 MB, rows of short fields 27 MB,
 * strings 18 MB, one long string 20 MB. The estimate is above each of them.
 */

/** Heap bytes counted per object or array, per value separator, and per byte of text. */
const PER_CONTAINER = 64;
const PER_VALUE = 10;
const PER_BYTE = 2;

/** Copies of the parsed body a request holds at once (the HTTP thread's and the render thread's). */
const COPIES = 2;

/** The least a body of n bytes weighs (one long string): MIN_WEIGHT_PER_BYTE x n. */
export const MIN_WEIGHT_PER_BYTE = 1 + COPIES * PER_BYTE;

/** The most one body may weigh, as a multiple of the body limit (PLATEN_MAX_BODY_BYTES): 200 MiB for 10 MiB. */
export const MAX_WEIGHT_PER_BODY_BYTE = 20;

/** The counts a body's weight is made of. */
export interface BodyWeight {
  /** Bytes of the body. */
  readonly bytes: number;
  /** Objects and arrays (`{` and `[` outside strings). */
  readonly containers: number;
  /** Estimated bytes of memory the body takes while a request holds it: its bytes and two parsed copies. */
  readonly weight: number;
}

/**
 * Count the containers and values of JSON `body` (one pass over its bytes, strings skipped) and
 * estimate its weight. A body that is not valid JSON is weighed as well; parsing it fails later.
 */
export function jsonBodyWeight(body: Uint8Array): BodyWeight {
  let containers = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) containers++;
    else if (c === 0x2c) values++;
  }
  const parsed = PER_BYTE * body.length + PER_CONTAINER * containers + PER_VALUE * values;
  return { bytes: body.length, containers, weight: body.length + COPIES * parsed };
}
