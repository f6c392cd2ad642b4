/**
 * The command line's image output: `platen render TEMPLATE DATA -o OUT.png|.jpg [--page N]
 * [--scale S]` (src/cli.ts) as a child process; the image read back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { ROOT } from '../helpers/render.ts';

function cli(args: string[]) {
  return spawnSync('npx', ['tsx', 'src/cli.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

test('render -o page.png --page 2 --scale 1 writes that page as a PNG; .jpg a JPEG; a page past the last one fails naming page', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platen-cli-image-'));
  try {
    const png = join(dir, 'page.png');
    const r = cli(['render', 'examples/report/template.json', 'examples/report/data.json', '-o', png, '--page', '2', '--scale', '1', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    assert.equal(out.page, 2);
    assert.ok(out.pages > 2);
    const image = PNG.sync.read(readFileSync(png));
    assert.deepEqual([image.width, image.height], [out.width, out.height]);
    assert.deepEqual([image.width, image.height], [596, 842]);

    const jpg = join(dir, 'page.jpg');
    assert.equal(cli(['render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', jpg, '--scale', '0.5']).status, 0);
    assert.deepEqual([...readFileSync(jpg).subarray(0, 3)], [0xff, 0xd8, 0xff]);

    const past = cli(['render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', join(dir, 'x.png'), '--page', '9']);
    assert.equal(past.status, 1);
    assert.match(past.stderr, /page.*9.*1 page/);
    const misuse = cli(['render', 'examples/invoice/template.json', '-o', join(dir, 'x.pdf'), '--scale', '2']);
    assert.equal(misuse.status, 1);
    assert.match(misuse.stderr, /image output/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
