import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../chain/managed-node.ts';
import { startService, stopService } from '../testing/service-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'wallet-shutdown-'));
let service: ChildProcess | undefined;
after(async () => {
  await stopService(service);
  rmSync(dataDir, { recursive: true, force: true });
});

test('SIGTERM: an open long-poll answers with its current state and the process stops listening and exits 0 within 10 s', async (t) => {
  const metricsPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WALLET_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    WALLET_CHAIN_ETHEREUM: 'off',
    WALLET_CHAIN_POLYGON: 'off',
    WALLET_METRICS_PORT: String(metricsPort),
  };
  delete env.DATABASE_URL;
  const started = await startService(env);
  service = started.service;
  const { baseUrl } = started;
  let stdout = '';
  service.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));

  // /metrics on its own port (config metrics.port), not on the service's.
  const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  assert.equal(scrape.status, 200);
  assert.match(await scrape.text(), /^# TYPE wallet_http_requests_total counter$/m);
  assert.equal((await fetch(`${baseUrl}/metrics`)).status, 404);
  assert.equal((await fetch(`${baseUrl}/health/live`)).status, 200);

  const prepared = await fetch(`${baseUrl}/v2/a2a/prepare`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ bapp: { name: 'Shutdown BApp' }, type: 'auth' }),
  });
  assert.equal(prepared.status, 200);
  const requestKey = (await prepared.json()).request_key as string;
  const longPoll = fetch(`${baseUrl}/v2/a2a/result?request_key=${requestKey}&wait=30`).then(async (response) => ({
    status: response.status,
    body: await response.json(),
    at: Date.now(),
  }));
  // The long-poll is waiting (it would hold for 30 s).
  await new Promise((resolve) => setTimeout(resolve, 500));

  const exited = new Promise<{ code: number | null; at: number }>((resolve) => service!.once('exit', (code) => resolve({ code, at: Date.now() })));
  const signalled = Date.now();
  service.kill('SIGTERM');
  const answered = await longPoll;
  assert.equal(answered.status, 200);
  assert.equal(answered.body.status, 'prepared', 'the current state, not an error');
  assert.ok(answered.at - signalled < 3_000, `long-poll answered ${answered.at - signalled} ms after SIGTERM`);

  const exit = await exited;
  assert.equal(exit.code, 0, stdout);
  assert.ok(exit.at - signalled < 10_000, `exited ${exit.at - signalled} ms after SIGTERM`);
  assert.match(stdout, /SIGTERM: stopping/);
  t.diagnostic(`long-poll answered after ${answered.at - signalled} ms, process exited after ${exit.at - signalled} ms`);
  await assert.rejects(fetch(`${baseUrl}/health/live`), 'no longer listening');
});
