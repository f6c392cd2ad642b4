/**
 * Roles and cluster settings from the environment: PLATEN_ROLE / `serve --role`, the job lease,
 * the queue's polling and the shutdown deadline; roles other than `all` need PostgreSQL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { runCli } from '../helpers/api.ts';

const base = { PLATEN_SECRET: 'r'.repeat(40), PLATEN_DATA_DIR: '/nonexistent-platen-data' };
const pgUrl = 'postgres://platen@db.internal:5432/platen';

test('defaults: role all, lease 2 x render deadline + 30 s, poll 250 ms, shutdown 30 s', () => {
  const c = loadConfig(base);
  assert.equal(c.role, 'all');
  assert.equal(c.jobLeaseMs, 2 * 30_000 + 30_000);
  assert.equal(c.queuePollMs, 250);
  assert.equal(c.shutdownTimeoutMs, 30_000);
  assert.equal(loadConfig({ ...base, PLATEN_RENDER_TIMEOUT_MS: '5000' }).jobLeaseMs, 40_000);
  // pg-boss holds a job for less than a day: the default stops at 23 hours.
  assert.equal(loadConfig({ ...base, PLATEN_RENDER_TIMEOUT_MS: String(20 * 3_600_000) }).jobLeaseMs, 23 * 3_600_000);
});

test('api and worker need PLATEN_DATABASE_URL; with it every role is accepted', () => {
  for (const role of ['api', 'worker']) {
    assert.throws(
      () => loadConfig({ ...base, PLATEN_ROLE: role }),
      (e: unknown) => e instanceof ConfigError && /PLATEN_ROLE: role "(api|worker)" needs cluster mode \(PLATEN_DATABASE_URL/.test(e.message) && /use role "all"/.test(e.message),
    );
    assert.equal(loadConfig({ ...base, PLATEN_ROLE: role, PLATEN_DATABASE_URL: pgUrl }).role, role);
  }
  assert.equal(loadConfig({ ...base, PLATEN_ROLE: 'all' }).role, 'all');
  assert.throws(() => loadConfig({ ...base, PLATEN_ROLE: 'render' }), (e: unknown) => e instanceof ConfigError && /PLATEN_ROLE: must be api, worker or all/.test(e.message));
});

test('the lease must hold a whole render (cluster mode) and stay under 24 hours; bad numbers name their variable', () => {
  assert.throws(
    () => loadConfig({ ...base, PLATEN_DATABASE_URL: pgUrl, PLATEN_RENDER_TIMEOUT_MS: '10000', PLATEN_JOB_LEASE_MS: '10000' }),
    (e: unknown) => e instanceof ConfigError && /PLATEN_JOB_LEASE_MS: must be above PLATEN_RENDER_TIMEOUT_MS \(10000\)/.test(e.message),
  );
  assert.equal(loadConfig({ ...base, PLATEN_DATABASE_URL: pgUrl, PLATEN_RENDER_TIMEOUT_MS: '10000', PLATEN_JOB_LEASE_MS: '10001' }).jobLeaseMs, 10_001);
  assert.throws(() => loadConfig({ ...base, PLATEN_JOB_LEASE_MS: String(24 * 3_600_000) }), (e: unknown) => e instanceof ConfigError && /PLATEN_JOB_LEASE_MS/.test(e.message));
  assert.throws(() => loadConfig({ ...base, PLATEN_QUEUE_POLL_MS: '10' }), (e: unknown) => e instanceof ConfigError && /PLATEN_QUEUE_POLL_MS/.test(e.message));
  assert.throws(() => loadConfig({ ...base, PLATEN_SHUTDOWN_TIMEOUT_MS: '-1' }), (e: unknown) => e instanceof ConfigError && /PLATEN_SHUTDOWN_TIMEOUT_MS/.test(e.message));
  assert.equal(loadConfig({ ...base, PLATEN_SHUTDOWN_TIMEOUT_MS: '0' }).shutdownTimeoutMs, 0);
  // Numbers in decimal digits only: an empty value, hex, an exponent or a fraction is named, not read as 0 or 256.
  for (const value of ['', '0x100', '1e3', '2.5', 'ten']) {
    assert.throws(() => loadConfig({ ...base, PORT: value }), (e: unknown) => e instanceof ConfigError && /PORT: must be a whole number in decimal digits/.test(e.message), JSON.stringify(value));
  }
  assert.equal(loadConfig({ ...base, PORT: ' 8080 ' }).port, 8080);
});

test('platen serve --role worker without PostgreSQL stops at once with the reason; a bad --role is named', async () => {
  const env: Record<string, string> = { ...base, PLATEN_DATABASE_URL: '', PLATEN_ROLE: '', PORT: '0' };
  const worker = await runCli(['serve', '--role', 'worker'], env, { launcher: 'node' });
  assert.equal(worker.status, 1);
  assert.match(worker.stderr, /PLATEN_ROLE: role "worker" needs cluster mode \(PLATEN_DATABASE_URL=postgres:\/\/\.\.\.\)/);
  const bad = await runCli(['serve', '--role', 'everything'], env, { launcher: 'node' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--role must be one of api, worker, all/);
});
