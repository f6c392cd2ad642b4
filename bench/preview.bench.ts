/**
 * Preview latency for the invoice (examples/invoice), on a real server in this process (2 render
 * threads, loopback):
 *  1. HTTP: POST /v1/templates/preview one request at a time, as the studio sends it (definition +
 *     data, export_type "json") and as binary; request sent to the last byte received.
 *  2. Browser (Debian's Chromium, playwright-core): the studio with the invoice; one key typed into
 *     the title text, then a pause, repeated: keystroke to the new first page image on screen (the
 *     studio renders a change at once when idle). Also a burst of five keys typed without pause:
 *     last keystroke to image, which includes the 150 ms the studio waits for typing to pause.
 * Prints p50/p90/p99 and writes bench/results-preview.json.
 *   npm run bench:preview [-- --requests 300] [-- --keys 60] [-- --no-browser]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../test/helpers/browser.ts';
import { startTestServer } from '../test/helpers/server.ts';
// @ts-expect-error: a JavaScript build script without types
import { buildStudio, studioIsStale } from '../scripts/build-studio.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg('--requests', 300);
const KEYS = arg('--keys', 60);
const WARM_UP = 30;

const definition = JSON.parse(readFileSync(`${root}examples/invoice/template.json`, 'utf8')) as Record<string, unknown>;
const data = JSON.parse(readFileSync(`${root}examples/invoice/data.json`, 'utf8')) as Record<string, unknown>;

interface Stats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

function stats(ms: number[]): Stats {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  const r = (n: number) => Math.round(n * 10) / 10;
  return { n: s.length, p50: r(at(0.5)), p90: r(at(0.9)), p99: r(at(0.99)), max: r(s[s.length - 1]!), mean: r(s.reduce((a, b) => a + b, 0) / s.length) };
}

const server = await startTestServer({ PLATEN_PREVIEW_RATE_LIMIT: '1000000' });
const results: Record<string, unknown> = {
  date: new Date().toISOString(),
  machine: `${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? ''}, Node ${process.version}`,
  renderThreads: 2,
};
try {
  const { apiKey } = await server.team(1);

  async function http(exportType: 'json' | 'binary'): Promise<Stats> {
    const times: number[] = [];
    for (let i = 0; i < WARM_UP + REQUESTS; i++) {
      const started = performance.now();
      const res = await server.api('POST', '/v1/templates/preview', apiKey, { definition, data, export_type: exportType });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`preview answered ${res.status}`);
      if (i >= WARM_UP) times.push(performance.now() - started);
    }
    return stats(times);
  }
  results.httpJson = await http('json');
  results.httpBinary = await http('binary');
  console.log(`HTTP, request to bytes, ${REQUESTS} requests after ${WARM_UP}:`);
  console.log(`  export_type json   ${JSON.stringify(results.httpJson)}`);
  console.log(`  export_type binary ${JSON.stringify(results.httpBinary)}`);

  if (!process.argv.includes('--no-browser')) {
    if (studioIsStale()) await buildStudio();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
      await page.goto(`${server.url}/studio`);
      await page.waitForSelector('body[data-ready=true]');
      await page.fill('#api-key', apiKey);
      await page.press('#api-key', 'Enter');
      /** Wait until the image on screen shows the latest change. */
      const latest = () =>
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        page.waitForFunction(() => { const d = (globalThis as any).document; return d.getElementById('pages').dataset.changeAt === d.body.dataset.lastChange; }, null, { timeout: 30_000 });
      await latest();
      // Put the cursor after INVOICE in the title.
      await page.click('#template-editor .cm-content', { position: { x: 40, y: 8 } });
      await page.keyboard.press('Control+f');
      await page.keyboard.type('"INVOICE');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      await page.keyboard.press('ArrowRight');
      const keyToImage: number[] = [];
      const requestToImage: number[] = [];
      const requestToResponse: number[] = [];
      for (let i = 0; i < WARM_UP / 3 + KEYS; i++) {
        await page.keyboard.type(String.fromCharCode(97 + (i % 26)));
        await latest();
        if (i >= WARM_UP / 3) {
          keyToImage.push(Number(await page.getAttribute('#pages', 'data-change-ms')));
          requestToImage.push(Number(await page.getAttribute('#pages', 'data-request-ms')));
          requestToResponse.push(Number(await page.getAttribute('#pages', 'data-fetch-ms')));
        }
        await page.waitForTimeout(200); // idle again: the next key renders at once
      }
      const burst: number[] = [];
      for (let i = 0; i < 20; i++) {
        await page.keyboard.type('xyzab');
        await latest();
        burst.push(Number(await page.getAttribute('#pages', 'data-change-ms')));
        await page.waitForTimeout(200);
      }
      results.keystrokeToImage = stats(keyToImage);
      results.requestToImage = stats(requestToImage);
      results.requestToResponse = stats(requestToResponse);
      results.burstLastKeyToImage = stats(burst);
      console.log(`Browser, ${KEYS} single keystrokes into the invoice's title:`);
      console.log(`  keystroke to first page image ${JSON.stringify(results.keystrokeToImage)}`);
      console.log(`  request to first page image   ${JSON.stringify(results.requestToImage)}`);
      console.log(`  request to decoded response   ${JSON.stringify(results.requestToResponse)}`);
      console.log(`  burst of 5 keys, last key to image (150 ms pause included) ${JSON.stringify(results.burstLastKeyToImage)}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
writeFileSync(`${root}bench/results-preview.json`, JSON.stringify(results, null, 2) + '\n');
console.log('wrote bench/results-preview.json');
