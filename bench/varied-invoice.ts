/**
 * The demo invoice's data made different for every render, as a service sees it: new buyer names,
 * a new invoice number, longer item descriptions and other quantities, so strings are shaped and
 * font subsets made afresh instead of coming from the engine's caches. Used by the engine bench's
 * "varied data" task and by `npm run bench:http -- --varied`.
 */
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜabcdefghijklmnopqrstuvwxyzäöüßéèáàçñ';

/** The invoice data `base` (examples/invoice/data.json) changed by `serial` (1, 2, 3, ...). */
export function variedInvoiceData(base: unknown, serial: number): Record<string, unknown> {
  const word = (n: number) => Array.from({ length: n }, (_, i) => LETTERS[(serial * 7 + i * 13 + n) % LETTERS.length]).join('');
  const data = structuredClone(base) as Record<string, any>;
  data.number = `INV-${100000 + serial}`;
  data.buyer = { ...data.buyer, name: `${word(8)} ${word(6)} GmbH`, contact: word(10), street: `${word(9)}straße ${serial % 200}` };
  data.items = data.items.map((it: Record<string, any>, i: number) => ({ ...it, description: `${it.description} ${word(5 + i)}`, qty: ((serial + i) % 97) + 1 }));
  return data;
}
