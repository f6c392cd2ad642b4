/**
 * The command line's image output: `platen render TEMPLATE DATA -o OUT.png|.jpg [--page N]
 * [--scale S]` (src/cli.ts) as a child process; the image read back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

test('the output extension names the format: .gif (or any other the CLI cannot write) is a one-line usage error naming it and the supported ones, nothing written; --format wins over the extension', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platen-cli-format-'));
  try {
    for (const name of ['out.gif', 'out.webp']) {
      const r = cli(['render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', join(dir, name)]);
      assert.equal(r.status, 1, r.stderr);
      const ext = name.slice(name.lastIndexOf('.'));
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`\\${ext}`), 'names the extension');
      assert.match(r.stderr, /\.pdf, \.png, \.jpg, \.jpeg/, 'names the supported ones');
      assert.equal(r.stdout, '');
      assert.ok(!existsSync(join(dir, name)), `${name} was not written`);
    }
    const badFlag = cli(['render', 'examples/invoice/template.json', '-o', join(dir, 'a.pdf'), '--format', 'gif']);
    assert.equal(badFlag.status, 1);
    assert.match(badFlag.stderr, /--format gif.*pdf, png, jpeg/);

    // The extension is read without regard to case; a name without one stays a PDF.
    assert.equal(cli(['render', 'examples/invoice/template.json', '-o', join(dir, 'UPPER.PDF')]).status, 0);
    assert.equal(readFileSync(join(dir, 'UPPER.PDF')).subarray(0, 5).toString('latin1'), '%PDF-');
    assert.equal(cli(['render', 'examples/invoice/template.json', '-o', join(dir, 'no-extension')]).status, 0);
    assert.equal(readFileSync(join(dir, 'no-extension')).subarray(0, 5).toString('latin1'), '%PDF-');

    // --format wins: a PNG into out.bin, a PDF into page.png.
    const png = cli(['render', 'examples/invoice/template.json', '-o', join(dir, 'out.bin'), '--format', 'png', '--scale', '0.5']);
    assert.equal(png.status, 0, png.stderr);
    assert.deepEqual([...readFileSync(join(dir, 'out.bin')).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const pdf = cli(['render', 'examples/invoice/template.json', '-o', join(dir, 'page.png'), '--format', 'pdf']);
    assert.equal(pdf.status, 0, pdf.stderr);
    assert.equal(readFileSync(join(dir, 'page.png')).subarray(0, 5).toString('latin1'), '%PDF-');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
