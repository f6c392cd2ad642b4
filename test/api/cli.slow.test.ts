/**
 * The `platen` CLI (DESIGN §3) run as a child process on a temporary data dir, a server started on
 * the same data dir to check what it did, configuration errors, and the demo seed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../db/open.ts';
import { createTeam } from '../../src/services/teams.ts';
import { balance, cliJson, expectError, freePort, ROOT, rowCount, runCli, startUrlServer } from '../helpers/api.ts';
import { readPdf } from '../helpers/pdf.ts';
import { waitFor } from '../helpers/wait.ts';

const TINY = { content: [{ text: 'Hello {{name}}' }] };

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'platen-cli-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('teams, keys, credits', () => {
  let dir: string;
  let env: Record<string, string>;
  let teamId: string;
  let firstKey: string;
  let secondKey: string;

  before(() => {
    dir = tempDir();
    env = { PLATEN_DATA_DIR: dir };
  });

  test('teams create --name X --credits 5 --json prints one JSON object {team_id, api_key}', async () => {
    const out = cliJson(await runCli(['teams', 'create', '--name', 'Acme', '--credits', '5', '--json'], env));
    assert.deepEqual(Object.keys(out).sort(), ['api_key', 'team_id']);
    assert.equal(typeof out.team_id, 'string');
    assert.match(String(out.api_key), /^pk_[A-Za-z0-9_-]{30,}$/);
    teamId = String(out.team_id);
    firstKey = String(out.api_key);
  });

  test('createTeam (CLI, seed) is one transaction: when a step fails, no team, key or ledger row is left', async () => {
    const db = openDatabase(join(tempDir(), 'platen.db'));
    try {
      const counts = async () => [await rowCount(db, 'teams'), await rowCount(db, 'apiKeys'), await rowCount(db, 'creditTransactions')];
      // The grant refuses a fractional amount after the team row is written.
      await assert.rejects(() => createTeam(db, 'Half', 1.5), /whole number/);
      assert.deepEqual(await counts(), [0, 0, 0]);
      await createTeam(db, 'Whole', 2);
      assert.deepEqual(await counts(), [1, 1, 1]);
    } finally {
      await db.close();
    }
  });

  test('keys create --team ID --json -> {api_key}, a different key', async () => {
    const out = cliJson(await runCli(['keys', 'create', '--team', teamId, '--json'], env));
    assert.deepEqual(Object.keys(out), ['api_key']);
    assert.match(String(out.api_key), /^pk_/);
    assert.notEqual(out.api_key, firstKey);
    secondKey = String(out.api_key);
  });

  test('credits add --team ID --amount 7 --json -> {team_id, credits: 12}', async () => {
    const out = cliJson(await runCli(['credits', 'add', '--team', teamId, '--amount', '7', '--json'], env));
    assert.deepEqual(out, { team_id: teamId, credits: 12 });
  });

  test('errors exit 1 with a message on stderr and nothing on stdout', async () => {
    const cases: [string[], RegExp][] = [
      [['credits', 'add', '--team', 'no-such-team', '--amount', '3', '--json'], /no team/i],
      [['credits', 'add', '--team', teamId, '--amount', '0', '--json'], /--amount/],
      [['keys', 'create', '--team', 'no-such-team', '--json'], /no team/i],
      [['keys', 'revoke', 'pk_zzzzzzzzzz', '--json'], /no active key/i],
      [['teams', 'create', '--credits', '5', '--json'], /usage/i],
      [['credits', 'add', '--team', teamId, '--amount', 'lots', '--json'], /--amount/],
      [['render', '--bogus'], /^Unknown option '--bogus'; platen help lists the options\n$/],
      [['nosuch', '--help'], /^usage: platen <command>/],
      [['render', 'no-such-template.json', '-o', '--help'], /^Option '-o' argument is ambiguous; platen help lists the options\n$/],
      [['render', 'template.json', '-o'], /^Option '-o, --output <value>' argument missing; platen help/],
    ];
    // The first two through npx as documented; the rest through node directly, to stay quick.
    const results = await Promise.all(cases.map(([args], i) => runCli(args, env, { launcher: i < 2 ? 'npx' : 'node' })));
    results.forEach((r, i) => {
      const [args, message] = cases[i];
      assert.equal(r.status, 1, `${args.join(' ')} exits 1 (stdout: ${r.stdout}, stderr: ${r.stderr})`);
      assert.match(r.stderr, message, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout.trim(), '', `${args.join(' ')} prints nothing on stdout`);
    });
  });

  test('keys revoke <first 12 chars of the key> revokes it: a server on that data dir answers 401 for it', async () => {
    const r = await runCli(['keys', 'revoke', firstKey.slice(0, 12), '--json'], env);
    assert.equal(r.status, 0, `keys revoke ${firstKey.slice(0, 12)} failed: ${r.stderr}`);
    assert.deepEqual(cliJson(r), { revoked: 1 });

    const s = await startUrlServer({ dataDir: dir });
    try {
      const tpl = await s.template(teamId, TINY);
      const body = { template_id: tpl, data: { name: 'Ada' }, export_type: 'binary' };
      await expectError(await s.api('POST', '/v1/pdf/create', firstKey, body), 401, 'UNAUTHORIZED');
      const ok = await s.api('POST', '/v1/pdf/create', secondKey, body);
      assert.equal(ok.status, 200, 'the other key of the team still works');
      assert.equal(ok.headers.get('x-credits-remaining'), '11', '12 credits (5 + 7) minus this one');
      await ok.arrayBuffer();
    } finally {
      await s.close();
    }
  });

  test('keys revoke by the 11-character display prefix works too', async () => {
    const out = cliJson(await runCli(['keys', 'create', '--team', teamId, '--json'], env, { launcher: 'node' }));
    const key = String(out.api_key);
    const r = await runCli(['keys', 'revoke', key.slice(0, 11), '--json'], env, { launcher: 'node' });
    assert.equal(r.status, 0, `keys revoke ${key.slice(0, 11)} failed: ${r.stderr}`);
    assert.deepEqual(cliJson(r), { revoked: 1 });
  });
});

describe('help', () => {
  test('help, --help and -h (also after a command: render --help) print every command and option on stdout and exit 0', async () => {
    for (const args of [['help'], ['--help'], ['-h'], ['render', '--help'], ['teams', 'create', '-h']]) {
      const flag = args.join(' ');
      const r = await runCli(args, {}, { launcher: 'node' });
      assert.equal(r.status, 0, `${flag}: ${r.stderr}`);
      for (const word of ['serve', 'render', '--output', '--pdf-variant', '--font-dir', '--json', 'teams create', 'keys create', 'keys revoke', 'credits add']) {
        assert.ok(r.stdout.includes(word), `${flag} documents ${word}`);
      }
    }
  });
});

describe('configuration errors', () => {
  test('serve with PORT=notanumber exits 1 naming PORT', async () => {
    const r = await runCli(['serve'], { PLATEN_DATA_DIR: tempDir(), PORT: 'notanumber' });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /\bPORT\b/);
    assert.doesNotMatch(r.stderr, /^\s+at /m, 'a message, not a stack trace');
  });

  test('other bad variables stop start-up naming the variable', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PLATEN_RATE_LIMIT: '0' }, /PLATEN_RATE_LIMIT/],
      [{ PLATEN_SECRET: 'short' }, /PLATEN_SECRET/],
      [{ PLATEN_FONT_DIRS: `${ROOT}fonts:/no/such/fonts` }, /PLATEN_FONT_DIRS: folder "\/no\/such\/fonts" does not exist/],
      // A path through a file: stat fails with ENOTDIR, which must still be a message, not a crash.
      [{ PLATEN_FONT_DIRS: `${ROOT}package.json/fonts` }, /PLATEN_FONT_DIRS: folder ".*package\.json\/fonts" cannot be read \(ENOTDIR\)/],
    ];
    const results = await Promise.all(cases.map(([env]) => runCli(['serve'], { PLATEN_DATA_DIR: tempDir(), PORT: '0', ...env }, { launcher: 'node' })));
    results.forEach((r, i) => {
      assert.equal(r.status, 1, `${JSON.stringify(cases[i][0])}: ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, cases[i][1]);
      assert.doesNotMatch(r.stderr, /^\s+at /m, `${JSON.stringify(cases[i][0])}: a message, not a stack trace`);
    });
  });
});

describe('demo seed', () => {
  test('first start on an empty data dir seeds a team with 100 credits and the examples; the README request works', async () => {
    const dir = tempDir();
    const examples = readdirSync(join(ROOT, 'examples'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const first = await startUrlServer({ dataDir: dir, env: { PLATEN_SEED_DEMO: 'true' } });
    try {
      const seeded = first.server.seeded;
      assert.ok(seeded, 'seeded on the first start');
      assert.match(seeded.apiKey, /^pk_/);
      assert.ok(examples.includes('invoice') && examples.length >= 4);
      assert.deepEqual(seeded.templates.map((t) => t.name).sort(), examples.sort());
      for (const t of seeded.templates) assert.match(t.id, /^[A-Za-z0-9]{12}$/);
      const db = first.server.services.db;
      assert.equal(await balance(db, seeded.teamId), 100);
      assert.equal(await rowCount(db, 'templates'), examples.length);

      // README: -d "{\"template_id\": \"$TEMPLATE\", \"data\": $(cat examples/invoice/data.json)}"
      const invoice = seeded.templates.find((t) => t.name === 'invoice')!.id;
      const dataText = readFileSync(join(ROOT, 'examples/invoice/data.json'), 'utf8');
      const data = JSON.parse(dataText) as { number: string };
      const res = await first.api('POST', '/v1/pdf/create', seeded.apiKey, `{"template_id": "${invoice}", "data": ${dataText}}`);
      const text = await res.text();
      assert.equal(res.status, 200, text.slice(0, 300));
      const body = JSON.parse(text) as { url: string; filename: string; credits_remaining: number; expires_in: number };
      assert.equal(body.filename, 'document.pdf');
      assert.equal(body.credits_remaining, 99);
      assert.equal(body.expires_in, 86400);
      const dl = await fetch(body.url);
      assert.equal(dl.status, 200);
      assert.match(dl.headers.get('content-type') ?? '', /^application\/pdf/);
      const pdf = await readPdf(Buffer.from(await dl.arrayBuffer()));
      const all = pdf.pages.map((p) => p.text).join('\n');
      assert.match(all, /INVOICE/);
      assert.ok(all.includes(data.number), `the invoice number ${data.number} is in the PDF`);
    } finally {
      await first.close();
    }

    const second = await startUrlServer({ dataDir: dir, env: { PLATEN_SEED_DEMO: 'true' } });
    try {
      assert.equal(second.server.seeded, null, 'a second start seeds nothing');
      const db = second.server.services.db;
      assert.equal(await rowCount(db, 'teams'), 1);
      assert.equal(await rowCount(db, 'templates'), examples.length);
    } finally {
      await second.close();
    }
  });

  test('`serve` prints the seeded key once, and that key works', async () => {
    const dir = tempDir();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PLATEN_PUBLIC_URL: base, PLATEN_DATA_DIR: dir, PLATEN_RENDER_THREADS: '1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
      const started = Date.now();
      await waitFor(`the seed message (so far: ${out})`, () => {
        assert.equal(child.exitCode, null, `serve exited: ${out}`);
        return /--data @\S+\n/.test(out);
      }, 30_000);
      assert.match(out, /Seeded a demo team with 100 credits/);
      const key = /API key: (pk_\S+)/.exec(out)?.[1];
      assert.ok(key, out);
      const invoice = /^\s+invoice\s+([A-Za-z0-9]{12})$/m.exec(out)?.[1];
      assert.ok(invoice, out);
      // The printed curl, as a user would run it: its URL, its headers, its request file.
      const url = /curl -s -X POST (\S+) -H 'x-api-key: (pk_\S+)'/.exec(out);
      const file = /--data @(\S+)/.exec(out)?.[1];
      assert.ok(url && file, out);
      assert.equal(url[1], `${base}/v1/pdf/create`);
      assert.equal(url[2], key);
      const request = JSON.parse(readFileSync(file, 'utf8')) as { template_id: string; data: { number: string } };
      assert.equal(request.template_id, invoice);
      assert.deepEqual(request.data, JSON.parse(readFileSync(join(ROOT, 'examples/invoice/data.json'), 'utf8')), 'the sample data of the invoice example');
      const res = await fetch(url[1], { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: readFileSync(file) });
      const body = (await res.json()) as { url: string; credits_remaining: number };
      assert.equal(res.status, 200);
      assert.equal(body.credits_remaining, 99);
      const pdf = await readPdf(Buffer.from(await (await fetch(body.url)).arrayBuffer()));
      const text = pdf.pages.map((p) => p.text).join('\n');
      assert.ok(text.includes(request.data.number), 'the invoice number of the sample data is in the PDF');
      assert.doesNotMatch(text, /\(\)/, 'no empty placeholders such as "by ()"');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
