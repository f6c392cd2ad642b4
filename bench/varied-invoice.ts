/**
 * The demo invoice's data made different for every render, as a service sees it: new buyer names,
 * a new invoice number, longer item descriptions and other quantities, so strings are shaped and
 * font subsets made afresh instead of coming from the engine's caches. Used by the engine bench's
 * "varied data" task and by `npm run bench:http -- --varied`.
 */
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜabcdefghijklmnopqrstuvwxyzäöüßéèáàçñ';

/**
 * The invoice data `base` (examples/invoice/data.json) changed by `serial` (1, 2, 3, ...). Words
 * are built from the three base-65 digits of `serial`, so no two serials below 274,625 share a
 * word and no string comes back from the engine's shaping cache.
 */
export function variedInvoiceData(base: unknown, serial: number): Record<string, unknown> {
  const word = wordMaker(serial);
  const data = structuredClone(base) as Record<string, any>;
  data.number = `INV-${100000 + serial}`;
  data.buyer = { ...data.buyer, name: `${word(8)} ${word(6)} GmbH`, contact: word(10), street: `${word(9)}straße ${serial % 200}` };
  data.items = data.items.map((it: Record<string, any>, i: number) => ({ ...it, description: `${it.description} ${word(5 + i)}`, qty: ((serial + i) % 97) + 1 }));
  return data;
}

/**
 * Words of `serial`: `word(n)` is a word of n letters (n >= 5) built from the three base-65 digits
 * of `serial`, so words of different serials below 274,625 differ.
 */
export function wordMaker(serial: number): (n: number) => string {
  const n65 = LETTERS.length;
  const digits = [serial % n65, Math.floor(serial / n65) % n65, Math.floor(serial / n65 ** 2) % n65];
  // Letter i of a word of length n: digit i mod 3, shifted by i and n (n >= 5: every digit shows).
  return (n: number) => Array.from({ length: n }, (_, i) => LETTERS[(digits[i % 3]! + i * 13 + n) % n65]).join('');
}
