/**
 * `platen render --watch` as a child process: it renders, renders again when the template or the
 * data file changes (also when an editor replaces the file), reports a faulty file and keeps
 * watching, and exits 0 on SIGTERM.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../helpers/api.ts';
import { killAllChildren, startChild } from '../helpers/child.ts';
import { readPdf } from '../helpers/pdf.ts';
import { waitFor } from '../helpers/wait.ts';

const dir = mkdtempSync(join(tmpdir(), 'platen-watch-'));
after(async () => {
  await killAllChildren();
  rmSync(dir, { recursive: true, force: true });
});

const template = join(dir, 'template.json');
const data = join(dir, 'data.json');
const output = join(dir, 'out', 'doc.pdf');
const text = async () => (await readPdf(readFileSync(output))).pages[0].text;

test('render --watch renders again on every change of the template or the data, and survives a faulty file', async () => {
  writeFileSync(template, JSON.stringify({ content: [{ text: 'First version for {{name}}' }] }));
  writeFileSync(data, JSON.stringify({ name: 'Ada' }));
  const child = startChild(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'render', template, data, '-o', output, '--watch', '--json'], { cwd: ROOT });
  const renders = () => child.stdout().split('\n').filter((l) => l.startsWith('{')).length;
  const rendered = (n: number) => waitFor(`render number ${n}`, () => renders() >= n);

  await rendered(1);
  await waitFor('the watch message', () => child.stderr().includes('watching'));
  assert.match(await text(), /First version for Ada/);

  writeFileSync(template, JSON.stringify({ content: [{ text: 'Second version for {{name}}' }] }));
  await rendered(2);
  assert.match(await text(), /Second version for Ada/);

  writeFileSync(template, '{"content": [');
  await waitFor('the JSON fault on stderr', () => child.stderr().includes('is not valid JSON'));

  // An editor that saves by writing a new file and renaming it over the old one.
  writeFileSync(`${template}.tmp`, JSON.stringify({ content: [{ text: 'Third version for {{name}}' }] }));
  renameSync(`${template}.tmp`, template);
  await rendered(3);
  assert.match(await text(), /Third version for Ada/);

  writeFileSync(data, JSON.stringify({ name: 'Grace' }));
  await rendered(4);
  assert.match(await text(), /Third version for Grace/);

  const line = JSON.parse(child.stdout().split('\n').filter((l) => l.startsWith('{'))[3]) as { output: string; pages: number };
  assert.deepEqual([line.output, line.pages], [output, 1]);
  const stopped = await child.stop('SIGTERM');
  assert.equal(stopped.code, 0, child.stderr());
});
