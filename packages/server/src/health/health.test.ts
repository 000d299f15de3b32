import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../app.ts';
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

test('GET /health is 200 while the store and the chain answer, 503 naming the chain when it does not', async () => {
  const healthy = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(healthy.statusCode, 200);
  assert.deepEqual(healthy.json(), { status: 'ok', checks: { store: 'ok', 'chain:main': 'ok' } });

  await services.chains.get('main').node!.stop();
  const down = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(down.statusCode, 503);
  const body = down.json();
  assert.equal(body.status, 'unavailable');
  assert.equal(body.checks.store, 'ok');
  assert.notEqual(body.checks['chain:main'], 'ok');
});

test('an unknown route answers the registry 404 body', async () => {
  const response = await app.inject({ method: 'GET', url: '/v2/nothing-here' });
  assert.equal(response.statusCode, 404);
  assert.deepEqual(response.json(), { code: 404, err: 'not Found' });
});
