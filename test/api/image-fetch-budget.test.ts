/**
 * One budget for all the URL and asset images of a document (PLATEN_IMAGE_FETCH_MAX_TOTAL_BYTES),
 * on a real server with a local HTTPS image host: within it the PDF is made; past it the request
 * is 422 IMAGE_FETCH_FAILED naming the image that went over, and costs no credit.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { balance, expectError } from '../helpers/api.ts';
import { startImageServer, type ImageServer } from '../helpers/https-images.ts';
import { encodePng } from '../helpers/images.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** A PNG of noise (does not compress): about 30 KB. */
function noisePng(): Buffer {
  const bytes = randomBytes(100 * 100 * 3);
  let i = 0;
  return encodePng(100, 100, () => [bytes[i++], bytes[i++], bytes[i++], 255]);
}

let images: ImageServer;
let s: TestServer;
const size = noisePng().length;

before(async () => {
  images = await startImageServer(Object.fromEntries(['a', 'b', 'c', 'd'].map((n) => [`/${n}.png`, { headers: { 'content-type': 'image/png' }, body: noisePng() }])));
  s = await startTestServer({ PLATEN_IMAGE_ALLOW_PRIVATE: 'true', PLATEN_IMAGE_FETCH_CA_FILE: images.caFile, PLATEN_IMAGE_FETCH_MAX_TOTAL_BYTES: String(Math.floor(size * 3.5)) });
});
after(async () => {
  await s.close();
  await images.close();
});

test('three images within the budget render; a fourth takes the document past it: 422 naming it, no credit taken', async () => {
  assert.ok(size > 25_000, `noise PNG ${size} bytes`);
  const { teamId, apiKey } = await s.team(5);
  const three = await s.template(teamId, { content: ['a', 'b', 'c'].map((n) => ({ image: `${images.origin}/${n}.png`, width: 40 })) });
  const ok = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: three, data: {}, export_type: 'binary' });
  assert.equal(ok.status, 200, await ok.clone().text());
  await ok.arrayBuffer();
  const four = await s.template(teamId, { content: [{ text: 'x' }, ...['a', 'b', 'c', 'd'].map((n) => ({ image: `${images.origin}/${n}.png`, width: 40 }))] });
  const body = await expectError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: four, data: {} }), 422, 'IMAGE_FETCH_FAILED');
  assert.match(body.detail, /PLATEN_IMAGE_FETCH_MAX_TOTAL_BYTES/);
  assert.match(String(body.path), /^content\[\d\]\.image$/);
  assert.equal(await balance(s.server.services.db, teamId), 4, 'only the first render cost a credit');
});
