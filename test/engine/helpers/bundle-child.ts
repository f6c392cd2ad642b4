/**
 * For test/engine/engine-bundle.test.ts: loads an engine bundle in a fresh process (V8 keeps
 * compiled scripts per process, and a second load of the same bundle would not look at its
 * cache), renders the example invoice and prints one JSON line: how the cache was used and the
 * PDF (base64).
 *
 *   node --import tsx test/engine/helpers/bundle-child.ts <bundle> <cache file | -> [--flags]
 */
import { readFileSync } from 'node:fs';
import { loadEngineBundle } from '../../../src/engine-bundle.ts';

const [bundle, cache] = process.argv.slice(2);
const root = new URL('../../../', import.meta.url);
const template = JSON.parse(readFileSync(new URL('examples/invoice/template.json', root), 'utf8'));
const data = JSON.parse(readFileSync(new URL('examples/invoice/data.json', root), 'utf8'));
const loaded = loadEngineBundle(bundle!, cache === '-' ? null : cache);
const result = await loaded.engine.renderPdf(template, data, { now: new Date('2026-01-15T12:00:00Z') });
console.log(JSON.stringify({ cache: loaded.cache, pages: result.pages, pdf: Buffer.from(result.pdf).toString('base64') }));
