import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { GuardedFetchError, guardedFetchJson, isAllowedAddress, type GuardedFetchSettings } from './guarded-fetch.ts';

const settings: GuardedFetchSettings = { timeoutMs: 1_000, maxBytes: 1_024, maxRedirects: 2, allowPrivateAddresses: false };
const local: GuardedFetchSettings = { ...settings, allowPrivateAddresses: true };

test('only public unicast addresses are allowed, unless private ones are', () => {
  const refused = ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', 'not an address'];
  for (const address of refused) assert.equal(isAllowedAddress(address, false), false, address);
  for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isAllowedAddress(address, false), true, address);
  assert.equal(isAllowedAddress('127.0.0.1', true), true);
});

describe('guardedFetchJson against a local server', () => {
  let server: Server;
  let port = 0;
  const hits: string[] = [];

  before(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      switch (request.url) {
        case '/status':
          return response.end(JSON.stringify({ valid: true }));
        case '/to-status':
          return response.writeHead(302, { location: '/status' }).end();
        case '/to-other-host':
          return response.writeHead(302, { location: `http://other.test:${port}/status` }).end();
        case '/to-file':
          return response.writeHead(302, { location: 'file:///etc/passwd' }).end();
        case '/loop':
          return response.writeHead(302, { location: '/loop' }).end();
        case '/large':
          return response.end('x'.repeat(4_096));
        case '/large-chunked':
          response.write('['.repeat(600));
          return response.end(']'.repeat(600));
        case '/slow':
          return; // never answers
        case '/text':
          return response.end('hello');
        default:
          return response.writeHead(500).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const refusedWith = (pattern: RegExp) => (error: unknown) => error instanceof GuardedFetchError && pattern.test(error.message);

  test('a loopback address is refused before anything is sent, as a literal IP or by name', async () => {
    const before = hits.length;
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/status`, settings), refusedWith(/127\.0\.0\.1, which is not a public address/));
    await assert.rejects(guardedFetchJson(`http://[::1]:${port}/status`, settings), refusedWith(/::1, which is not a public address/));
    const resolveToLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
    await assert.rejects(guardedFetchJson(`http://partner.test:${port}/status`, settings, { resolve: resolveToLoopback }), refusedWith(/partner\.test resolves to 127\.0\.0\.1/));
    // A name that resolves to a public and a private address is refused too (the private one could be picked).
    const mixed = async () => [{ address: '8.8.8.8', family: 4 }, { address: '10.0.0.1', family: 4 }];
    await assert.rejects(guardedFetchJson(`http://partner.test:${port}/status`, settings, { resolve: mixed }), refusedWith(/10\.0\.0\.1/));
    assert.equal(hits.length, before, 'no request reached the server');
  });

  test('the connection goes to the address that was vetted, resolved once', async () => {
    let lookups = 0;
    // partner.test exists only in this resolver: the fetch works only if it connects to the pinned address.
    const resolve = async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    assert.deepEqual(await guardedFetchJson(`http://partner.test:${port}/status`, local, { resolve }), { valid: true });
    assert.equal(lookups, 1);
    assert.deepEqual(await guardedFetchJson(`http://partner.test:${port}/to-status`, local, { resolve }), { valid: true });
    assert.equal(lookups, 3, 'each redirect hop is resolved and checked again');
  });

  test('redirects are checked again, and limited', async () => {
    // Here only 127.0.0.1 is allowed: the first hop passes, a redirect to a host on another address does not.
    const onlyThisAddress = { isAllowed: (address: string) => address === '127.0.0.1' };
    const resolve = async (host: string) => [{ address: host === 'other.test' ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    await assert.rejects(
      guardedFetchJson(`http://127.0.0.1:${port}/to-other-host`, settings, { ...onlyThisAddress, resolve }),
      refusedWith(/other\.test resolves to 127\.0\.0\.2, which is not a public address/),
    );
    const toHere = async () => [{ address: '127.0.0.1', family: 4 }];
    assert.deepEqual(await guardedFetchJson(`http://127.0.0.1:${port}/to-other-host`, settings, { ...onlyThisAddress, resolve: toHere }), { valid: true });
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/to-file`, local), refusedWith(/file: URLs are not fetched/));
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/loop`, local), refusedWith(/more than 2 redirects/));
  });

  test('size, time, status and content are limited', async () => {
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/large`, local), refusedWith(/larger than 1024 bytes/));
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/large-chunked`, local), refusedWith(/larger than 1024 bytes/));
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/slow`, { ...local, timeoutMs: 200 }), refusedWith(/did not answer in time/));
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/missing`, local), refusedWith(/HTTP 500/));
    await assert.rejects(guardedFetchJson(`http://127.0.0.1:${port}/text`, local), refusedWith(/did not answer JSON/));
    for (const url of ['ftp://127.0.0.1/status', 'not a url', `http://user:pass@127.0.0.1:${port}/status`]) {
      await assert.rejects(guardedFetchJson(url, local), (error: unknown) => error instanceof GuardedFetchError, url);
    }
  });
});
