import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HttpRequestError, RpcRequestError } from 'viem';
import { buildApp, type App } from '../app.ts';
import { errorCodes } from '../errors/codes.ts';
import { randomUUID } from 'node:crypto';
import { openTestApp, type TestServices } from '../testing/test-services.ts';

let services: TestServices;
let app: App;

before(async () => {
  ({ services, app } = await openTestApp());
});
after(async () => {
  await app?.close();
  await services?.cleanup();
});

test('GET /health and /health/ready are 200 while the store and the chain answer, 503 naming the chain when it does not; /health/live stays 200', async () => {
  const healthy = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(healthy.statusCode, 200);
  assert.deepEqual(healthy.json(), { status: 'ok', checks: { store: 'ok', 'chain:main': 'ok' } });
  const ready = await app.inject({ method: 'GET', url: '/health/ready' });
  assert.equal(ready.statusCode, 200);
  assert.deepEqual(ready.json(), { status: 'ok', checks: { store: 'ok', 'chain:main': 'ok', outbox: 'ok' } });

  await services.chains.get('main').node!.stop();
  for (const url of ['/health', '/health/ready']) {
    const down = await app.inject({ method: 'GET', url });
    assert.equal(down.statusCode, 503, url);
    const body = down.json();
    assert.equal(body.status, 'unavailable');
    assert.equal(body.checks.store, 'ok');
    assert.match(body.checks['chain:main'], /ECONNREFUSED 127\.0\.0\.1:\d+$/, 'why: the node refused the connection');
  }
  const live = await app.inject({ method: 'GET', url: '/health/live' });
  assert.equal(live.statusCode, 200);
  assert.deepEqual(live.json(), { status: 'ok', checks: { process: 'ok' } });
});

test('a chain node that stops answering in the middle of a request, or answers from a chain it is reorganising, is a 503 with the registry body, not a 500', async () => {
  const probe = await buildApp({ services });
  // Any route's read of a node that went away surfaces as viem's HttpRequestError.
  probe.get('/v2/test-node-gone', async () => {
    throw new HttpRequestError({ url: 'http://127.0.0.1:1', details: 'fetch failed' });
  });
  // A node reorganising answers from a chain it is changing: anvil's words for it.
  probe.get('/v2/test-node-reorganising', async () => {
    throw new RpcRequestError({
      body: { method: 'eth_call' },
      error: { code: -32602, message: 'BlockOutOfRangeError: block height is 732 but requested was 733' },
      url: 'http://127.0.0.1:1',
    });
  });
  probe.get('/v2/test-defect', async () => {
    throw new Error('a defect');
  });
  try {
    const gone = await probe.inject({ method: 'GET', url: '/v2/test-node-gone' });
    assert.equal(gone.statusCode, 503);
    assert.deepEqual(gone.json(), { code: 503, err: errorCodes[503].message });
    const reorganising = await probe.inject({ method: 'GET', url: '/v2/test-node-reorganising' });
    assert.equal(reorganising.statusCode, 503);
    assert.deepEqual(reorganising.json(), { code: 503, err: errorCodes[503].message });
    const defect = await probe.inject({ method: 'GET', url: '/v2/test-defect' });
    assert.equal(defect.statusCode, 500, 'other failures stay 500');
  } finally {
    await probe.close();
  }
});

test('an unknown route answers the registry 404 body', async () => {
  const response = await app.inject({ method: 'GET', url: '/v2/nothing-here' });
  assert.equal(response.statusCode, 404);
  assert.deepEqual(response.json(), { code: 404, err: 'not Found' });
});

test('/health/ready answers 503 naming the outbox while a transaction waits past outbox.stuckAfterSeconds; /health stays 200', async () => {
  const stuckAfterSeconds = 3;
  const stuck = await openTestApp({ outbox: { stuckAfterSeconds } });
  const rpc = (method: string, params: unknown[] = []) => stuck.services.chains.get('main').client.request({ method: method as never, params: params as never });
  try {
    await stuck.services.outbox.stop();
    await rpc('evm_setAutomine', [false]);
    const operator = await stuck.services.operator.signer();
    const submitted = Date.now();
    await stuck.services.outbox.submit({ idempotencyKey: `stuck:${randomUUID()}`, chain: 'main', signer: operator, to: '0xb000000000000000000000000000000000000003', data: '0x', value: 1n });
    const early = await stuck.app.inject({ method: 'GET', url: '/health/ready' });
    // Only a check made before the threshold can say "not yet": a busy machine may take longer to get here.
    if (Date.now() - submitted < stuckAfterSeconds * 1000) assert.equal(early.statusCode, 200, 'not yet stuck');
    let ready = early;
    for (const deadline = Date.now() + 60_000; ready.statusCode !== 503 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ready = await stuck.app.inject({ method: 'GET', url: '/health/ready' });
    }
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().checks.store, 'ok');
    assert.equal(ready.json().checks['chain:main'], 'ok');
    assert.match(ready.json().checks.outbox, /^a transaction has waited \d+ s for its receipt$/);
    assert.equal((await stuck.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  } finally {
    await rpc('evm_setAutomine', [true]).catch(() => undefined);
    await stuck.cleanup();
  }
});
