/**
 * The template studio in a real browser (Debian's Chromium through playwright-core) against a real
 * server: it loads with no request to another origin, an invalid node typed into the template is
 * marked at its JSON path, fixing it changes the rendered page's pixels, and an existing template
 * is opened with an API key, saved, published as a tagged version and rendered through the API;
 * /docs lists every endpoint and runs one with the key.
 * Screenshots go to a temporary folder named in the test's diagnostics.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { readPdf } from '../helpers/pdf.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
// @ts-expect-error: a JavaScript build script without types
import { buildStudio, studioIsStale } from '../../scripts/build-studio.mjs';

let s: TestServer;
let browser: Browser;
let page: Page;
let apiKey: string;
let teamId: string;
let templateId: string;
const shots = mkdtempSync(join(tmpdir(), 'platen-studio-'));
const foreign: string[] = [];
const pageErrors: string[] = [];

before(async () => {
  if (studioIsStale()) await buildStudio();
  s = await startTestServer({ PLATEN_PREVIEW_RATE_LIMIT: '100000' });
  const team = await s.team(5);
  apiKey = team.apiKey;
  teamId = team.teamId;
  templateId = await s.template(team.teamId, { content: [{ text: 'Stored greeting for {{name}}', fontSize: 28 }] }, 'pdf', 'Greeting');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  page.on('request', (r) => {
    if (!r.url().startsWith(s.url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  await s?.close();
});

/** Renders completed so far (the page counts them on #pages). */
const renders = async () => Number(await page.getAttribute('#pages', 'data-renders'));

// Predicates are functions: a string predicate is evaluated with eval, which the page's CSP refuses.
async function waitForRender(after: number): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await page.waitForFunction((n) => Number((globalThis as any).document.getElementById('pages').dataset.renders) > n, after, { timeout: 30_000 });
}

/** Wait until the element `id`'s text satisfies `test` (a RegExp source). */
async function waitForText(id: string, pattern: RegExp): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await page.waitForFunction(([i, p]) => new RegExp(p).test((globalThis as any).document.getElementById(i).textContent), [id, pattern.source] as const, { timeout: 30_000 });
}

/** A checksum of the first page's pixels. */
function firstPagePixels(): Promise<string> {
  return page.evaluate(`(() => {
    const c = document.querySelector('#pages canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i += 4) h = (Math.imul(h, 31) + d[i] + 3 * d[i + 1] + 7 * d[i + 2]) >>> 0;
    return c.width + 'x' + c.height + ':' + h;
  })()`);
}

/** The template editor's text. */
const templateText = () => page.evaluate(`document.querySelector('#template-editor .cm-content').innerText`) as Promise<string>;

async function replaceTemplate(text: string): Promise<void> {
  await page.click('#template-editor .cm-content', { position: { x: 40, y: 8 } });
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(text);
}

test('the studio loads with the example invoice and asks for a key; nothing comes from another origin', async (t) => {
  await page.goto(`${s.url}/studio`);
  await page.waitForSelector('body[data-ready=true]');
  assert.match(await page.textContent('#preview-info') ?? '', /Enter an API key/);
  assert.match(await templateText(), /"size": "A4"/);
  await page.fill('#api-key', apiKey);
  await page.press('#api-key', 'Enter');
  await waitForRender(0);
  await page.waitForSelector('#template-select option:nth-child(2)', { state: 'attached' });
  assert.equal(await page.getAttribute('#pages', 'data-pages'), '1');
  assert.match(await page.textContent('#fields-count') ?? '', /^[1-9]\d*$/);
  await page.screenshot({ path: join(shots, '1-invoice.png') });
  t.diagnostic(`screenshots in ${shots}`);
  // The key lives in sessionStorage only.
  assert.equal(await page.evaluate(`sessionStorage.getItem('platen.studio.apiKey')`), apiKey);
  const local = (await page.evaluate(`JSON.stringify(Object.entries(localStorage))`)) as string;
  assert.ok(!local.includes(apiKey), `localStorage: ${local}`);
  assert.deepEqual(await page.context().cookies(), []);
});

test('an invalid node is marked at its JSON path; fixing it re-renders and the pixels change', async () => {
  await replaceTemplate('{\n  "content": [\n    {"text": "Hello Studio", "fontSize": 30}\n  ]\n}\n');
  let n = await renders();
  await waitForRender(n);
  const plain = await firstPagePixels();

  // Type an unknown key into the node, keystroke by keystroke.
  await page.click('#template-editor .cm-content', { position: { x: 40, y: 8 } });
  await page.keyboard.press('Control+f');
  await page.keyboard.type('"fontSize": 30');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.type(', "colr": "#b3261e');
  assert.match(await templateText(), /"fontSize": 30, "colr": "#b3261e"\}/);
  await waitForText('problems', /unknown key "colr"/);
  assert.equal(await page.textContent('#problems-count'), '1');
  const problem = await page.textContent('#problems');
  assert.match(problem ?? '', /content\[0\]\.colr/);
  assert.match(problem ?? '', /unknown key "colr" \(did you mean "color"\?\)/);
  await page.waitForSelector('#template-editor .cm-lintRange-error');
  assert.equal(await page.textContent('#template-editor .cm-lintRange-error'), '"colr"');
  await page.screenshot({ path: join(shots, '2-error.png') });

  // Clicking the problem selects the key in the editor.
  await page.click('#problems button');
  assert.equal(await page.evaluate(`getSelection().toString()`), '"colr"');

  // Fix it: "colr" -> "color" (the selection deleted first: a quote typed over it would wrap it).
  n = await renders();
  await page.keyboard.press('Backspace');
  await page.keyboard.type('"color"');
  await waitForRender(n);
  await waitForText('problems-count', /^0$/);
  assert.equal(await page.$('#template-editor .cm-lintRange-error'), null);
  const red = await firstPagePixels();
  assert.notEqual(red, plain, 'the red text changed the page image');
  await page.screenshot({ path: join(shots, '3-fixed.png') });
});

test('a data fault is marked in the data editor', async () => {
  await replaceTemplate('{"content": [{"each": "items", "content": [{"text": "{{item}}"}]}]}');
  await page.click('#data-editor .cm-content', { position: { x: 40, y: 8 } });
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText('{"items": "not a list"}');
  await waitForText('problems-count', /^1$/);
  assert.match((await page.textContent('#problems')) ?? '', /data items/);
  await page.waitForSelector('#data-editor .cm-lintRange-error');
  assert.equal(await page.textContent('#data-editor .cm-lintRange-error'), '"not a list"');
  const n = await renders();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText('{"items": ["one", "two"]}');
  await waitForRender(n);
  assert.equal(await page.textContent('#problems-count'), '0');
});

test('open an existing template, save its draft, publish a tagged version, render it through the API', async () => {
  await page.selectOption('#template-select', templateId);
  let n = await renders();
  await page.click('#open');
  await waitForText('status', /^Opened/);
  assert.match(await templateText(), /Stored greeting for/);
  assert.equal(await page.inputValue('#template-name'), 'Greeting');
  await waitForRender(n);
  await page.screenshot({ path: join(shots, '4-opened.png') });

  n = await renders();
  await replaceTemplate('{"content": [{"text": "Edited in the studio for {{name}}", "fontSize": 24}]}');
  await waitForRender(n);
  await page.keyboard.press('Control+s');
  await waitForText('status', /^Saved the draft/);
  const stored = (await (await s.api('GET', `/v1/templates/${templateId}`, apiKey)).json()) as { definition: { content: { text: string }[] } };
  assert.equal(stored.definition.content[0].text, 'Edited in the studio for {{name}}');

  await page.fill('#version-tag', 'studio-v1');
  await page.click('#publish');
  await waitForText('status', /^Published version/);
  assert.match((await page.textContent('#status')) ?? '', /Published version 1 \(studio-v1\)/);
  await page.screenshot({ path: join(shots, '5-published.png') });

  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: templateId, version: 'studio-v1', export_type: 'binary', data: { name: 'Ada' } });
  assert.equal(res.status, 200, await res.clone().text());
  const text = (await readPdf(Buffer.from(await res.arrayBuffer()))).pages[0].text;
  assert.match(text, /Edited in the studio for Ada/);
  assert.doesNotMatch(text, /PREVIEW/);
});

test('typing a key offers the keys the JSON Schema allows there; hovering a key shows its description', async () => {
  await replaceTemplate('{"content": [{"text": "Hi", "fontSize": 12}]}');
  await page.click('#template-editor .cm-content', { position: { x: 40, y: 8 } });
  await page.keyboard.press('Control+f');
  await page.keyboard.type('"fontSize": 12');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.type(', "fontW');
  await page.waitForSelector('.cm-tooltip-autocomplete');
  assert.match((await page.textContent('.cm-tooltip-autocomplete')) ?? '', /fontWeight/);
  await page.keyboard.press('Escape');
  await replaceTemplate('{"content": [{"text": "Hi", "fontSize": 12}]}');
  await page.mouse.move(0, 0);
  const [x, y] = (await page.evaluate(`(() => {
    const walker = document.createTreeWalker(document.querySelector('#template-editor .cm-content'), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const i = n.data.indexOf('fontSize');
      if (i < 0) continue;
      const r = document.createRange();
      r.setStart(n, i);
      r.setEnd(n, i + 8);
      const b = r.getBoundingClientRect();
      return [b.x + b.width / 2, b.y + b.height / 2];
    }
    return null;
  })()`)) as [number, number];
  await page.mouse.move(x, y);
  await page.waitForSelector('.cm-tooltip-hover');
  assert.match((await page.textContent('.cm-tooltip-hover')) ?? '', /Font size in points/);
  await page.screenshot({ path: join(shots, '6-hover.png') });
});

test('/docs: the API reference lists every endpoint and runs a request with the key given under Authorize', async () => {
  await page.goto(`${s.url}/docs`);
  await page.waitForSelector('.opblock');
  const spec = (await (await s.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.values(spec.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
  assert.equal(await page.locator('.opblock').count(), operations);
  await page.click('button.authorize');
  await page.fill('.modal-ux input', apiKey);
  await page.click('.modal-ux button.authorize');
  await page.click('.modal-ux button.close-modal');
  const account = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path', { hasText: /^\/v1\/account$/ }) });
  await account.locator('.opblock-summary').click();
  await account.locator('button.try-out__btn').click();
  await account.locator('button.execute').click();
  await account.locator('.live-responses-table .response-col_status').first().waitFor();
  const answer = await account.locator('.live-responses-table').innerText();
  assert.match(answer, /^Code\s+Details\s+200\b/);
  assert.ok(answer.includes(`"team_id": "${teamId}"`), answer);
  await page.screenshot({ path: join(shots, '7-docs.png') });
});

test('no request left the server\'s origin and the page raised no error', () => {
  assert.deepEqual(foreign, []);
  assert.deepEqual(pageErrors, []);
});
