/**
 * The single binary (issue 7): `npm run build:binary` (reused when dist/platen is newer than every
 * input), copied alone into an empty folder, then `serve` there seeds the demo team and renders the
 * demo invoice over HTTP, and `render` works with no node_modules beside it. The children get a
 * bare environment (no NODE_OPTIONS from the test runner) and their own cache folder, so the
 * runtime folder is extracted afresh.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderPdf } from '../../engine/index.ts';
import { freePort, ROOT } from '../helpers/api.ts';
import { killAllChildren, startChild } from '../helpers/child.ts';
import { readPdf } from '../helpers/pdf.ts';
import { waitFor } from '../helpers/wait.ts';

const invoiceTemplate = join(ROOT, 'examples/invoice/template.json');
const invoiceData = join(ROOT, 'examples/invoice/data.json');

let tmp: string;
let folder: string;
let binary: string;
let env: Record<string, string>;

before(() => {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-binary.mjs'), '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 });
  tmp = mkdtempSync(join(tmpdir(), 'platen-binary-'));
  folder = join(tmp, 'empty');
  mkdirSync(folder);
  binary = join(folder, 'platen');
  copyFileSync(join(ROOT, 'dist/platen'), binary);
  execFileSync('chmod', ['+x', binary]);
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(tmp, 'home'), XDG_CACHE_HOME: join(tmp, 'cache'), LOG_LEVEL: 'warn' };
});

after(async () => {
  await killAllChildren();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('dist/platen', () => {
  test('serve in an empty folder: default data dir, demo team seeded, the demo invoice rendered over HTTP', async (t) => {
    assert.deepEqual(readdirSync(folder), ['platen']);
    const port = await freePort();
    const started = performance.now();
    const child = startChild(binary, ['serve'], { cwd: folder, env: { ...env, PORT: String(port), HOST: '127.0.0.1' } });
    const keyLine = await child.waitForLine(/API key: pk_/, 60_000);
    const apiKey = keyLine.trim().split(/\s+/).pop()!;
    const invoiceLine = await child.waitForLine(/^\s+invoice\s+\S+/, 5_000);
    const templateId = invoiceLine.trim().split(/\s+/)[1]!;
    const url = `http://127.0.0.1:${port}`;
    await waitFor('GET /healthz answering 200', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 60_000, 10);
    t.diagnostic(`start to first healthy /healthz: ${Math.round(performance.now() - started)} ms (runtime folder extracted on this start)`);

    assert.ok(existsSync(join(folder, 'data/platen.db')), 'the database is in ./data');
    const res = await fetch(`${url}/v1/pdf/create`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ template_id: templateId, export_type: 'binary', data: JSON.parse(readFileSync(invoiceData, 'utf8')) }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('x-credits-remaining'), '99');
    const pdf = Buffer.from(await res.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    const { pages } = await readPdf(pdf);
    assert.equal(pages.length, 1);
    assert.match(pages[0]!.text, /INVOICE/);

    // PDF/A reads the ICC profile from the runtime folder.
    const pdfa = await fetch(`${url}/v1/pdf/create`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ template_id: templateId, export_type: 'binary', pdf_variant: 'pdf/a-2b', data: JSON.parse(readFileSync(invoiceData, 'utf8')) }),
    });
    assert.equal(pdfa.status, 200, await pdfa.clone().text());
    assert.match(Buffer.from(await pdfa.arrayBuffer()).toString('latin1'), /\/OutputIntents/);

    // The template studio's files, the DSL's JSON Schema and previews work from the binary too.
    const studio = await fetch(`${url}/studio`);
    assert.equal(studio.status, 200);
    assert.match(await studio.text(), /Platen Studio/);
    for (const file of ['studio.js', 'studio.css', 'pdf.worker.min.mjs', 'swagger-ui-bundle.js']) assert.equal((await fetch(`${url}/studio/${file}`)).status, 200, file);
    assert.match(await (await fetch(`${url}/docs`)).text(), /swagger-ui-bundle\.js/);
    const schema = await fetch(`${url}/v1/schemas/template.json`);
    assert.equal(await schema.text(), readFileSync(join(ROOT, 'schemas/template.schema.json'), 'utf8'));
    const preview = await fetch(`${url}/v1/templates/preview`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ template_id: templateId, data: JSON.parse(readFileSync(invoiceData, 'utf8')) }),
    });
    assert.equal(preview.status, 200, await preview.clone().text());
    assert.match((await readPdf(Buffer.from(await preview.arrayBuffer()))).pages[0]!.text, /PREVIEW/);

    // Image output loads the canvas library and its native addon from the runtime folder.
    const image = await fetch(`${url}/v1/image/create`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ template_id: templateId, export_type: 'binary', scale: 1, data: JSON.parse(readFileSync(invoiceData, 'utf8')) }),
    });
    assert.equal(image.status, 200, await image.clone().text());
    assert.equal(image.headers.get('content-type'), 'image/png');
    const png = Buffer.from(await image.arrayBuffer());
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.ok(png.length > 20_000, `a full page, not a blank one (${png.length} bytes)`);

    const stopped = await child.stop('SIGTERM', 10_000);
    assert.equal(stopped.code, 0, child.stderr());
    assert.equal(child.stderr(), '');
  });

  test('render TEMPLATE DATA -o OUT with no node_modules beside it', async () => {
    copyFileSync(invoiceTemplate, join(folder, 'template.json'));
    copyFileSync(invoiceData, join(folder, 'data.json'));
    assert.ok(!existsSync(join(folder, 'node_modules')));
    const out = execFileSync(binary, ['render', 'template.json', 'data.json', '-o', 'out.pdf', '--json'], { cwd: folder, env, encoding: 'utf8', timeout: 60_000 });
    const result = JSON.parse(out) as { output: string; pages: number; bytes: number };
    assert.equal(result.pages, 1);
    const pdf = readFileSync(join(folder, 'out.pdf'));
    assert.equal(pdf.length, result.bytes);
    assert.match((await readPdf(pdf)).pages[0]!.text, /INVOICE/);
  });

  test('hyphenation patterns (loaded by name at run time) are in the binary: justified German text breaks as in-process', async () => {
    const template = {
      page: { size: [160, 400], margin: 20 },
      font: { family: 'Noto Sans', size: 11 },
      metadata: { language: 'de' },
      content: [{ text: 'Die Versicherung übernimmt die Kosten der Rechtsverfolgung, sofern die Angelegenheit innerhalb des vereinbarten Geltungsbereiches liegt.', textAlign: 'justify' }],
    };
    writeFileSync(join(folder, 'de.json'), JSON.stringify(template));
    execFileSync(binary, ['render', 'de.json', '-o', 'de.pdf'], { cwd: folder, env, encoding: 'utf8', timeout: 60_000 });
    const fromBinary = (await readPdf(readFileSync(join(folder, 'de.pdf')))).pages[0]!.text;
    const inProcess = (await readPdf((await renderPdf(template, {})).pdf)).pages[0]!.text;
    assert.match(inProcess, /\p{L}-\n\p{L}/u, 'the paragraph is hyphenated in-process');
    assert.equal(fromBinary, inProcess);
  });

  test('the runtime folder is written once, named by content hash, and rewritten when incomplete', () => {
    const base = join(tmp, 'cache/platen');
    const [hash, ...others] = readdirSync(base);
    assert.match(hash!, /^[0-9a-f]{16}$/);
    assert.deepEqual(others, [], 'no leftover temporary folders');
    const font = join(base, hash!, 'fonts/NotoSans-Regular.ttf');
    assert.ok(existsSync(font));
    rmSync(font);
    execFileSync(binary, ['render', 'template.json', 'data.json', '-o', 'again.pdf'], { cwd: folder, env, encoding: 'utf8', timeout: 60_000 });
    assert.ok(existsSync(font), 'a missing file is extracted again');
    assert.deepEqual(readdirSync(base), [hash]);
  });
});
