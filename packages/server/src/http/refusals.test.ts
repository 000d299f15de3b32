import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { App } from '../app.ts';
import { openTestApp, type TestServices } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildMp4, buildPng } from '../uploads/testing/media.ts';
import { uploadBody } from '../uploads/testing/multipart.ts';
import { storedState } from '../uploads/testing/stored-state.ts';
import { eventually } from '../testing/eventually.ts';

const MiB = 1024 * 1024;
const tooLarge = { status: 400, body: { code: 4100, err: 'upload animation file limit exceeded' } };
const imageTooLarge = { status: 400, body: { code: 400, err: 'bad request', message: `images may be at most ${2 * MiB} bytes` } };

let services: TestServices;
let app: App;
let port: number;
let baseUrl: string;
let token: string;
let scratch: string;

before(async () => {
  ({ services, app } = await openTestApp({
    partnerApi: { rateLimit: { max: 100_000, timeWindowMs: 60_000 } },
    uploads: { maxImageBytes: 2 * MiB },
  }));
  token = (await signedInPartner(app, services)).token;
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  scratch = mkdtempSync(join(tmpdir(), 'wallet-refusals-'));
});
after(async () => {
  await app?.close();
  await services?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The oversized uploads a partner meets: a 12 MiB video on A5 and A6, a 3 MiB image on A4 (limit 2 MiB here). */
const oversized = [
  { path: '/v2/wallet/nftResource', file: () => buildMp4({ mediaBytes: 12 * MiB }), name: 'clip.mp4', type: 'video/mp4', expected: tooLarge },
  { path: '/v2/wallet/nftResource/secure', file: () => buildMp4({ mediaBytes: 12 * MiB }), name: 'clip.mp4', type: 'video/mp4', expected: tooLarge },
  { path: '/v2/wallet/image', file: () => Buffer.concat([buildPng({ width: 10, height: 10 }), Buffer.alloc(3 * MiB)]), name: 'big.png', type: 'image/png', expected: imageTooLarge },
];

function curl(args: string[]): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', ...args], { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`curl failed: ${stderr || error.message}`));
      const lines = stdout.split('\n');
      const status = Number(lines.pop());
      resolve({ status, body: JSON.parse(lines.join('\n')) });
    });
  });
}

/**
 * Sends a request whose body is `body`, pausing once `pauseAfter` bytes of it are out (so a service
 * that answers early has done so), then sends the rest, and only then reads the answer: what a
 * client that reads once it has sent its body sees. Resolves with the answer, or with the error its
 * writes or its read met.
 */
function sendWholeThenRead(head: string, body: Buffer, pauseAfter: number): Promise<{ answer?: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let failure: string | undefined;
    const fail = (error: NodeJS.ErrnoException | null | undefined) => {
      if (error) failure ??= error.code ?? error.message;
    };
    const write = (chunk: Buffer) => new Promise<void>((done) => socket.write(chunk, (error) => done(fail(error))));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', fail);
    socket.on('connect', async () => {
      await write(Buffer.from(head, 'latin1'));
      for (let offset = 0; offset < body.length && !failure; offset += 64 * 1024) {
        if (offset === pauseAfter) await new Promise((wait) => setTimeout(wait, 300));
        await write(body.subarray(offset, offset + 64 * 1024));
      }
      socket.end();
      await closed;
      resolve(failure ? { error: failure } : { answer: Buffer.concat(received).toString('utf8') });
    });
  });
}

function answerOf(raw: string): { status: number; body: unknown } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  return { status: Number(head!.split(' ')[1]), body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('an oversized upload reaches the client as its error code', () => {
  for (const { path, file, name, type, expected } of oversized) {
    test(`${path} with fetch`, async () => {
      const before = await storedState(services);
      const form = new FormData();
      form.append('upload', new Blob([new Uint8Array(file())], { type }), name);
      const response = await fetch(baseUrl + path, { method: 'POST', body: form, headers: { authorization: token } });
      assert.deepEqual({ status: response.status, body: await response.json() }, expected);
      assert.deepEqual(await storedState(services), before);
    });

    test(`${path} with curl`, async () => {
      const before = await storedState(services);
      const local = join(scratch, name);
      writeFileSync(local, file());
      const answer = await curl(['-F', `upload=@${local};type=${type}`, '-H', `authorization: ${token}`, baseUrl + path]);
      assert.deepEqual(answer, expected);
      assert.deepEqual(await storedState(services), before);
    });
  }

  test('a client that reads only once it has sent its whole body gets the answer, not a reset connection', async () => {
    const { payload, headers } = uploadBody(buildMp4({ mediaBytes: 12 * MiB }), 'clip.mp4', 'video/mp4');
    const head =
      `POST /v2/wallet/nftResource HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${token}\r\n` +
      `Content-Type: ${headers['content-type']}\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`;
    // Paused past the 10 MiB limit: a service that answered then and closed has reset the connection by the time the rest goes out.
    const result = await sendWholeThenRead(head, payload, 11 * MiB);
    assert.equal(result.error, undefined, `the connection failed: ${result.error}`);
    assert.deepEqual(answerOf(result.answer!), tooLarge);
  });

  test('a body refused before it is read (no token) is answered once it has arrived, and the connection stays usable', async () => {
    const { payload, headers } = uploadBody(buildPng({ width: 10, height: 10 }), 'a.png', 'image/png');
    const refused = await fetch(`${baseUrl}/v2/wallet/image`, { method: 'POST', body: new Uint8Array(payload), headers });
    assert.deepEqual({ status: refused.status, body: await refused.json() }, { status: 401, body: { code: 4003, err: 'fail to get authorization in header' } });
    assert.equal(refused.headers.get('connection'), 'keep-alive');
  });
});

describe('refusals made before any route runs answer the registry body', () => {
  test('a JSON body over 1 MiB answers 413 (4130) in each family, read by fetch', async () => {
    const bodies: Record<string, unknown> = {
      '/v2/partner/auth': { code: 4130, err: 'request body is too large' },
      '/v2/a2a/prepare': { code: 4130, err: 'request body is too large' },
      '/v2/wallet-app/sessions': { code: 4130, err: 'request body is too large', message: `Content-Length is ${2 * MiB + 10}; a body may have at most ${MiB} bytes` },
    };
    for (const [path, body] of Object.entries(bodies)) {
      const response = await fetch(baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(2 * MiB) }) });
      assert.equal(response.status, 413, path);
      assert.deepEqual(await response.json(), body, path);
    }
  });

  test('a content type no route takes', async () => {
    const response = await fetch(`${baseUrl}/v2/a2a/prepare`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<a/>' });
    assert.deepEqual({ status: response.status, body: await response.json() }, { status: 400, body: { code: 400, err: 'bad request', message: 'Unsupported Media Type' } });
  });

  test('headers over 16 KiB, on every family', async () => {
    for (const path of ['/v2/wallet/nft/1', '/v2/a2a/result?request_key=x', '/v2/wallet-app/sessions/current', '/health']) {
      const response = await fetch(baseUrl + path, { headers: { 'x-padding': 'a'.repeat(20_000) } });
      assert.deepEqual(
        { status: response.status, body: await response.json() },
        { status: 400, body: { code: 400, err: 'bad request', message: 'the request line and headers are larger than 16 KiB' } },
        path,
      );
    }
  });

  test('requests that are not valid HTTP', async () => {
    const cases: Array<[string, string]> = [
      ['GARBAGE\r\n\r\n', 'the method is not a valid HTTP method'],
      ['POST /v2/partner/auth HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n', 'the Content-Length header is not valid'],
      ['GET /health HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n', 'a header name or value holds a character HTTP does not allow'],
    ];
    for (const [request, message] of cases) {
      const result = await sendWholeThenRead(request, Buffer.alloc(0), -1);
      assert.deepEqual(answerOf(result.answer!), { status: 400, body: { code: 400, err: 'bad request', message } }, request);
    }
  });

  test('an unknown route and a path that is not percent-encoded', async () => {
    const unknown = await fetch(`${baseUrl}/v2/a2a/nothing-here`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.deepEqual({ status: unknown.status, body: await unknown.json() }, { status: 404, body: { code: 404, err: 'not Found' } });
    const badPath = await sendWholeThenRead('GET /v2/wallet/nft/%zz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', Buffer.alloc(0), -1);
    assert.deepEqual(answerOf(badPath.answer!), { status: 400, body: { code: 400, err: 'bad request', message: 'the path is not validly percent-encoded' } });
  });

  test('a client that goes away mid-body changes nothing, and the service goes on answering', async () => {
    const before = await storedState(services);
    const { payload, headers } = uploadBody(buildMp4({ mediaBytes: 4 * MiB }), 'clip.mp4', 'video/mp4');
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(`POST /v2/wallet/nftResource HTTP/1.1\r\nHost: a\r\nAuthorization: ${token}\r\nContent-Type: ${headers['content-type']}\r\nContent-Length: ${payload.length}\r\n\r\n`);
    socket.write(payload.subarray(0, MiB));
    // Gone only once the service holds part of the body: checked before that, the store would look
    // untouched whatever the service then did with it (on a busy machine it may not have read a byte).
    await eventually('the upload begun', 60_000, async () => ((await storedState(services)).temporary.length > 0 ? true : undefined));
    socket.destroy();
    await closed;
    // The half-received file is removed once the service sees the connection gone.
    await eventually('the half-received upload removed', 60_000, async () => (JSON.stringify(await storedState(services)) === JSON.stringify(before) ? true : undefined));
    assert.deepEqual(await storedState(services), before);
    const next = await fetch(`${baseUrl}/v2/wallet/nftResource/secure/none.png`, { headers: { authorization: token } });
    assert.deepEqual({ status: next.status, body: await next.json() }, { status: 404, body: { code: 404, err: 'not Found' } });
  });
});
