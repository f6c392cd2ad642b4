/**
 * The command line's tagging options, run as a child process: `--pdf-ua` writes a PDF/UA-1 file
 * (and refuses pdf/a-1b and a template without alt, naming the path), `--no-tags` an untagged one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/render.ts';

function cli(args: string[]) {
  return spawnSync('npx', ['tsx', 'src/cli.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

test('render --pdf-ua writes pdfuaid and a structure tree; --no-tags writes neither', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platen-cli-ua-'));
  try {
    const ua = join(dir, 'ua.pdf');
    const r = cli(['render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', ua, '--pdf-ua', '--pdf-variant', 'pdf/a-2b']);
    assert.equal(r.status, 0, r.stderr);
    const text = readFileSync(ua).toString('latin1');
    assert.match(text, /<pdfuaid:part>1<\/pdfuaid:part>/);
    assert.match(text, /\/StructTreeRoot/);
    const plain = join(dir, 'plain.pdf');
    const p = cli(['render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', plain, '--no-tags']);
    assert.equal(p.status, 0, p.stderr);
    assert.doesNotMatch(readFileSync(plain).toString('latin1'), /StructTreeRoot|pdfuaid/);
    assert.ok(readFileSync(plain).length < readFileSync(ua).length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('render --pdf-ua refuses pdf/a-1b, and a template without alt with the node path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platen-cli-ua-'));
  try {
    const out = join(dir, 'x.pdf');
    const a1 = cli(['render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', out, '--pdf-ua', '--pdf-variant', 'pdf/a-1b']);
    assert.notEqual(a1.status, 0);
    assert.match(a1.stderr, /pdf\/a-1b/);
    const template = join(dir, 't.json');
    writeFileSync(template, JSON.stringify({ metadata: { title: 'T', language: 'en' }, content: [{ text: 'x' }, { qrcode: 'https://example.com' }] }));
    const noAlt = cli(['render', template, '-o', out, '--pdf-ua']);
    assert.equal(noAlt.status, 1);
    assert.match(noAlt.stderr, /content\[1\]\.alt/);
    assert.ok(!existsSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
