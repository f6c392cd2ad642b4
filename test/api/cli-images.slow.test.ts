/**
 * `platen render` fetches https:// image URLs as the service does: from a local HTTPS server
 * whose self-signed certificate the CLI trusts through PLATEN_IMAGE_FETCH_CA_FILE; a loopback
 * address is refused without PLATEN_IMAGE_ALLOW_PRIVATE, naming the URL and the image's path.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliJson, runCli } from '../helpers/api.ts';
import { startImageServer, type ImageServer } from '../helpers/https-images.ts';
import { encodePng } from '../helpers/images.ts';

let server: ImageServer;
let dir: string;
before(async () => {
  server = await startImageServer({ '/logo.png': { body: encodePng(6, 3, () => [200, 30, 30, 255]) } });
  dir = mkdtempSync(join(tmpdir(), 'platen-cli-img-'));
  writeFileSync(join(dir, 'template.json'), JSON.stringify({ content: [{ text: 'Logo:' }, { image: '{{logo}}', width: 60 }] }));
  writeFileSync(join(dir, 'data.json'), JSON.stringify({ logo: `${server.origin}/logo.png` }));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('render draws an image fetched by URL', async () => {
  const out = join(dir, 'out.pdf');
  const r = await runCli(['render', join(dir, 'template.json'), join(dir, 'data.json'), '-o', out, '--json'], { PLATEN_IMAGE_FETCH_CA_FILE: server.caFile, PLATEN_IMAGE_ALLOW_PRIVATE: 'true' }, { launcher: 'node', timeoutMs: 60_000 });
  assert.equal(cliJson(r).pages, 1);
  assert.match(execFileSync('pdfimages', ['-list', out], { encoding: 'utf8' }), /\s6\s+3\s/);
});

test('render refuses a loopback image URL without PLATEN_IMAGE_ALLOW_PRIVATE, naming it', async () => {
  const r = await runCli(['render', join(dir, 'template.json'), join(dir, 'data.json'), '-o', join(dir, 'no.pdf')], { PLATEN_IMAGE_FETCH_CA_FILE: server.caFile, PLATEN_IMAGE_ALLOW_PRIVATE: 'false' }, { launcher: 'node', timeoutMs: 60_000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /IMAGE_FETCH_FAILED: content\[1\]\.image: image https:\/\/127\.0\.0\.1:\d+\/logo\.png could not be fetched: .*(non-public|private, loopback or reserved)/);
});
