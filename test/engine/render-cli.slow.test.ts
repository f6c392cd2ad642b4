/**
 * The command line: `platen render TEMPLATE DATA -o OUT --json` (src/cli.ts), run as a child process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPdf } from '../helpers/pdf.ts';
import { ROOT } from '../helpers/render.ts';

function cli(args: string[]) {
  return spawnSync('npx', ['tsx', 'src/cli.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

function tmp(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'platen-cli-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('render --json prints one JSON object with pages 1 and writes a PDF', async () => {
  const t = tmp();
  try {
    const out = join(t.dir, 'x.pdf');
    const r = cli(['render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', out, '--json']);
    assert.equal(r.status, 0, `exit ${r.status}, stderr: ${r.stderr}`);
    const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
    assert.equal(lines.length, 1, `stdout: ${r.stdout}`);
    const result = JSON.parse(lines[0]);
    assert.equal(typeof result, 'object');
    assert.equal(result.pages, 1);
    const pdf = readFileSync(out);
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    if ('bytes' in result) assert.equal(result.bytes, pdf.length);
    const doc = await readPdf(pdf);
    assert.equal(doc.pages.length, 1);
  } finally {
    t.done();
  }
});

test('npm run -s cli -- render ... --json prints only the JSON object on stdout', () => {
  const t = tmp();
  try {
    const out = join(t.dir, 'x.pdf');
    const r = spawnSync('npm', ['run', '-s', 'cli', '--', 'render', 'examples/invoice/template.json', 'examples/invoice/data.json', '-o', out, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, `exit ${r.status}, stderr: ${r.stderr}`);
    const result = JSON.parse(r.stdout.trim());
    assert.equal(result.pages, 1);
    assert.equal(readFileSync(out).subarray(0, 4).toString('latin1'), '%PDF');
  } finally {
    t.done();
  }
});

test('a bad template exits 1 with the fault path on stderr and writes no file', () => {
  const t = tmp();
  try {
    const template = join(t.dir, 'bad.json');
    writeFileSync(template, JSON.stringify({ content: [{ text: 'ok' }, { table: { rows: [[{ txt: 'typo' }]] } }] }));
    const out = join(t.dir, 'y.pdf');
    const r = cli(['render', template, '-o', out, '--json']);
    assert.equal(r.status, 1, `exit ${r.status}`);
    assert.match(r.stderr, /content\[1\]\.table\.rows\[0\]\[0\]/);
    assert.match(r.stderr, /TEMPLATE_INVALID/);
    assert.equal(r.stdout.trim(), '', 'nothing on stdout');
    assert.equal(existsSync(out), false, 'no PDF written');
  } finally {
    t.done();
  }
});

test('a template that is not JSON exits 1 with a message', () => {
  const t = tmp();
  try {
    const template = join(t.dir, 'broken.json');
    writeFileSync(template, '{"content": [');
    const r = cli(['render', template, '-o', join(t.dir, 'z.pdf'), '--json']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /not valid JSON/);
  } finally {
    t.done();
  }
});

test('an output that cannot be written and a --font-dir that does not exist exit 1 with a one-line message naming them, not a stack trace', () => {
  const t = tmp();
  try {
    const template = join(t.dir, 't.json');
    writeFileSync(template, JSON.stringify({ content: [{ text: 'x' }] }));
    // The output is a folder (EISDIR), a full device (ENOSPC), a file where its folder should be (ENOTDIR).
    writeFileSync(join(t.dir, 'file'), '');
    for (const out of [t.dir, '/dev/full', join(t.dir, 'file', 'x.pdf'), join(t.dir, 'file', 'x.png')]) {
      const r = cli(['render', template, '-o', out]);
      assert.equal(r.status, 1, `${out}: exit ${r.status}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${out}: no stack trace: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`cannot write .*${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`), r.stderr);
    }
    const missing = join(t.dir, 'no-fonts-here');
    const r = cli(['render', template, '-o', join(t.dir, 'x.pdf'), '--font-dir', missing]);
    assert.equal(r.status, 1);
    assert.doesNotMatch(r.stderr, /\n\s+at /, `no stack trace: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`--font-dir .*${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`), r.stderr);
  } finally {
    t.done();
  }
});
