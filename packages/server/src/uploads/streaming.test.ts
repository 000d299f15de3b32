import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { App } from '../app.ts';
import { openTestApp, type TestServices } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildPng, mp4Head } from './testing/media.ts';
import { streamingUploadBody } from './testing/multipart.ts';
import { storedState } from './testing/stored-state.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
let services: TestServices;
let app: App;
let baseUrl: URL;
let token: string;

before(async () => {
  ({ services, app } = await openTestApp({ partnerApi: { rateLimit: { max: 100_000, timeWindowMs: 60_000 } } }));
  token = (await signedInPartner(app, services)).token;
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
});
after(async () => {
  await app?.close();
  await services?.cleanup();
});

/**
 * POSTs a body streamed from a lazy generator over a real connection and resolves with the answer
 * and the bytes the client managed to send before the server stopped reading.
 */
function streamUpload(path: string, body: ReturnType<typeof streamingUploadBody>, headers: Record<string, string>) {
  return new Promise<{ status: number; body: unknown; sent: number; headers: Record<string, unknown> }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer after 60 s (sent ${body.sent()} bytes)`)), 60_000);
    const request = httpRequest(new URL(path, baseUrl), { method: 'POST', headers: { ...body.headers, ...headers } });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        body.stream.destroy();
        resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), sent: body.sent() });
      });
    });
    // The server closes the connection mid-upload: the client's writes then fail, which is the point.
    request.on('error', () => {});
    body.stream.pipe(request);
  });
}

describe('limits are enforced while streaming', () => {
  test('a 2 GiB video upload is cut off at 10 MiB with 4100, never buffered, and leaves nothing', async () => {
    const before = await storedState(services);
    const memoryBefore = process.memoryUsage();
    const body = streamingUploadBody(mp4Head(2 * GiB), 2 * GiB);
    const answer = await streamUpload('/v2/wallet/nftResource', body, { authorization: token });
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.body, { code: 4100, err: 'upload animation file limit exceeded' });
    assert.equal(answer.headers.connection, 'close');
    // The server stopped reading just past the limit (plus what sat in socket buffers).
    assert.ok(answer.sent < 64 * MiB, `the client could send ${answer.sent} bytes`);
    const memoryAfter = process.memoryUsage();
    assert.ok(memoryAfter.arrayBuffers - memoryBefore.arrayBuffers < 64 * MiB, 'upload bytes were held in memory');
    assert.deepEqual(await storedState(services), before);
  });

  test('a 2 GiB image upload is cut off at the image limit', async () => {
    const before = await storedState(services);
    const body = streamingUploadBody(buildPng({ width: 10, height: 10 }), 2 * GiB, 'huge.png', 'image/png');
    const answer = await streamUpload('/v2/wallet/image', body, { authorization: token });
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      { status: 400, body: { code: 400, err: 'bad request', message: `images may be at most ${services.config.uploads.maxImageBytes} bytes` } },
    );
    assert.ok(answer.sent < services.config.uploads.maxImageBytes + 64 * MiB, `the client could send ${answer.sent} bytes`);
    assert.deepEqual(await storedState(services), before);
  });

  test('a 2 GiB upload without a token is refused (4003) without being read', async () => {
    const body = streamingUploadBody(mp4Head(2 * GiB), 2 * GiB);
    const answer = await streamUpload('/v2/wallet/nftResource', body, {});
    assert.deepEqual({ status: answer.status, body: answer.body }, { status: 401, body: { code: 4003, err: 'fail to get authorization in header' } });
    assert.ok(answer.sent < 64 * MiB, `the client could send ${answer.sent} bytes`);
  });
});
