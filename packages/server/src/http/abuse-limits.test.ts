import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildApp, type App } from '../app.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';

const MiB = 1024 * 1024;
const PREPARE_LIMIT = 5;
const BAPP = { name: 'Limits BApp' };
const signMessage = (value = 'hello') => ({ bapp: BAPP, type: 'sign_message', message: { value } });

let services: TestServices;
let app: App;
let otherInstance: App;
let baseUrl: string;

before(async () => {
  services = await openTestServices({
    http: {
      rateLimits: {
        prepare: { max: PREPARE_LIMIT, timeWindowMs: 600_000, acrossInstances: true },
        signUp: { max: 3, timeWindowMs: 600_000, acrossInstances: true },
        a2aReads: { max: 4, timeWindowMs: 600_000, acrossInstances: false },
      },
    },
  });
  app = await buildApp({ services });
  // A second instance on the same store: a limit counted across instances is shared with it.
  otherInstance = await buildApp({ services });
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await app?.close();
  await otherInstance?.close();
  await services?.cleanup();
});

const storedRequests = async () => Number((await services.store.db.selectFrom('a2a_requests').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const prepare = (instance: App, body: unknown, remoteAddress: string) =>
  instance.inject({ method: 'POST', url: '/v2/a2a/prepare', payload: body as object, remoteAddress });

describe('per-address rate limits on routes without authentication', () => {
  test('B1 prepare: past the limit 429 with Retry-After and the family body, counted across instances; nothing more stored', async () => {
    const before = await storedRequests();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => prepare(index % 2 ? otherInstance : app, signMessage(`m${index}`), '198.51.100.7')),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    assert.equal(statuses.filter((status) => status === 200).length, PREPARE_LIMIT, statuses.join(','));
    const refused = answers.filter((answer) => answer.statusCode === 429);
    assert.equal(refused.length, 12 - PREPARE_LIMIT);
    for (const answer of refused) {
      assert.deepEqual(answer.json(), { code: 429, err: 'too many requests' });
      assert.ok(Number(answer.headers['retry-after']) >= 1, 'Retry-After tells how long to wait');
    }
    assert.equal(await storedRequests(), before + PREPARE_LIMIT, 'refused requests store nothing');
    const elsewhere = await prepare(app, signMessage(), '198.51.100.8');
    assert.equal(elsewhere.statusCode, 200, 'another address has its own count');
    const sameSubnet = await prepare(app, signMessage(), '2001:db8:5:6::1');
    const sameSubnetOther = await prepare(otherInstance, signMessage(), '2001:db8:5:6::2');
    assert.deepEqual([sameSubnet.statusCode, sameSubnetOther.statusCode], [200, 200]);
  });

  test('B2 to B4 (per instance), wallet-app sign-up (across instances): 429 with the family body', async () => {
    const reads = await Promise.all(Array.from({ length: 6 }, () => app.inject({ method: 'GET', url: '/v2/a2a/links?request_key=nothing', remoteAddress: '198.51.100.20' })));
    assert.deepEqual(reads.map((read) => read.statusCode).filter((status) => status === 429).length, 2);
    const signUps = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        (index % 2 ? otherInstance : app).inject({ method: 'POST', url: '/v2/wallet-app/members', payload: { name: 'x' }, remoteAddress: '198.51.100.21' }),
      ),
    );
    const limited = signUps.filter((answer) => answer.statusCode === 429);
    assert.equal(limited.length, 2, signUps.map((answer) => answer.statusCode).join(','));
    assert.deepEqual(limited[0]!.json(), { code: 429, err: 'too many requests' });
    assert.ok(limited[0]!.headers['retry-after']);
  });
});

describe('JSON depth and stored JSON', () => {
  test('a 100,000-deep field answers 400 naming the bound, before it is parsed; nothing stored, the service goes on', async () => {
    const before = await storedRequests();
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const url of ['/v2/a2a/prepare', '/v2/wallet-app/members', '/v2/partner/auth']) {
      const answer = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: `{"bapp":{"name":"x"},"type":"auth","extra":${deep}}`,
        remoteAddress: '198.51.100.30',
      });
      assert.equal(answer.statusCode, 400, url);
      assert.deepEqual(answer.json(), { code: 400, err: 'bad request', message: 'the JSON body is nested deeper than 64 levels (arrays and objects)' }, url);
    }
    assert.equal(await storedRequests(), before);
    assert.equal((await prepare(app, signMessage(), '198.51.100.31')).statusCode, 200);
  });

  test('fields the specification does not ask for are not stored (ABI items, typed data)', async () => {
    const typed = {
      types: { Mail: [{ name: 'contents', type: 'string', junk: 'x' }] },
      primaryType: 'Mail',
      domain: { name: 'Limits', chainId: 31337, tracking: { id: 1 } },
      message: { contents: 'hi', hidden: { nested: [1, 2, 3] } },
    };
    const answer = await prepare(app, { bapp: BAPP, type: 'sign_typedData_v4', message: { value: typed } }, '198.51.100.40');
    assert.equal(answer.statusCode, 200, answer.body);
    const row = await services.store.db.selectFrom('a2a_requests').select('action').where('request_key', '=', answer.json().request_key).executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.action).typed_data, {
      types: { Mail: [{ name: 'contents', type: 'string' }] },
      primaryType: 'Mail',
      domain: { name: 'Limits', chainId: 31337 },
      message: { contents: 'hi' },
    });
  });

  test('stored JSON past http.maxStoredJsonBytes is refused, naming the bound; nothing stored', async () => {
    const small = await openTestServices({ http: { maxStoredJsonBytes: 2_048 } });
    const smallApp = await buildApp({ services: small });
    try {
      const answer = await smallApp.inject({ method: 'POST', url: '/v2/a2a/prepare', payload: signMessage('x'.repeat(4_096)) });
      assert.deepEqual([answer.statusCode, answer.json()], [400, { code: 400, err: 'bad request', message: 'the request is larger than 2048 bytes as JSON' }]);
      assert.equal(Number((await small.store.db.selectFrom('a2a_requests').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 0);
    } finally {
      await smallApp.close();
      await small.cleanup();
    }
  });
});

/**
 * Sends the head of a request and `sent` bytes of its body, then waits for an answer without
 * sending the rest: an answer that comes proves the body was not awaited (nor held).
 */
function answerBeforeWholeBody(path: string, headers: Record<string, string | number>, sent: number): Promise<{ status: number; body: unknown; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${baseUrl}${path}`, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()), headers: response.headers });
        request.destroy();
      });
    });
    request.on('error', reject);
    request.write(Buffer.alloc(sent, 0x20));
  });
}

describe('bodies over the limit: 413 (4130)', () => {
  test('a declared 50 MiB body answers 413 in each family before the body is sent', async () => {
    const expected: Record<string, unknown> = {
      '/v2/partner/auth': { code: 4130, err: 'request body is too large' },
      '/v2/a2a/prepare': { code: 4130, err: 'request body is too large' },
      '/v2/wallet-app/sessions': { code: 4130, err: 'request body is too large', message: `Content-Length is ${50 * MiB}; a body may have at most ${MiB} bytes` },
    };
    for (const [path, body] of Object.entries(expected)) {
      const answer = await answerBeforeWholeBody(path, { 'content-type': 'application/json', 'content-length': 50 * MiB }, 64 * 1024);
      assert.deepEqual([answer.status, answer.body], [413, body], path);
      assert.equal(answer.headers.connection, 'close');
    }
  });

  test('a chunked body (no Content-Length) is cut off once past the limit', async () => {
    const answer = await answerBeforeWholeBody('/v2/a2a/prepare', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, 2 * MiB);
    assert.deepEqual([answer.status, answer.body], [413, { code: 4130, err: 'request body is too large' }]);
  });

  test('a declared multipart body over the upload bound answers 413; each file keeps its own limit (4100)', async () => {
    const { token } = await signedInPartner(app, services);
    const answer = await answerBeforeWholeBody('/v2/wallet/nftResource', { authorization: token, 'content-type': 'multipart/form-data; boundary=x', 'content-length': 200 * MiB }, 1024);
    assert.equal(answer.status, 413);
    assert.equal((answer.body as { code: number }).code, 4130);
  });
});
