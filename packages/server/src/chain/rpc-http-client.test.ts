import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { HttpRequestError, ResponseBodyTooLargeError, RpcRequestError, TimeoutError } from 'viem';
import { isNodeUnreachable } from './node-errors.ts';
import { rpcHttpClient } from './rpc-http-client.ts';

/** A node whose answer each test sets; it records each request's headers and the connection it came on. */
let handle: (body: { id: number; method: string }, response: ServerResponse) => void;
const seen: Array<{ authorization: string | undefined; socket: unknown }> = [];
let server: Server;
let url: string;

before(async () => {
  server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk));
    request.on('end', () => {
      seen.push({ authorization: request.headers.authorization, socket: request.socket });
      handle(JSON.parse(text) as { id: number; method: string }, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

test('answers come back as the node sent them, over one kept-open connection; credentials in the URL go as Basic auth, not in the address', async () => {
  handle = (body, response) => json(response, 200, { jsonrpc: '2.0', id: body.id, result: body.method });
  seen.length = 0;
  const client = rpcHttpClient(url.replace('http://', 'http://user%40x:p%3Ass@'), { timeout: 5_000 });
  for (let id = 1; id <= 3; id++) assert.deepEqual(await client.request({ body: { id, method: `m${id}` } }), { jsonrpc: '2.0', id, result: `m${id}` });
  assert.equal(seen.length, 3);
  assert.equal(new Set(seen.map((request) => request.socket)).size, 1, 'one connection for the three calls');
  assert.equal(seen[0]!.authorization, `Basic ${Buffer.from('user@x:p:ss').toString('base64')}`);
  // A JSON-RPC error in a 200 answer is an answer: the transport reads it.
  handle = (body, response) => json(response, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32000, message: 'execution reverted' } });
  assert.deepEqual(await client.request({ body: { id: 4, method: 'x' } }), { jsonrpc: '2.0', id: 4, error: { code: -32000, message: 'execution reverted' } });
});

test('a failed status is an RpcRequestError when it carries a JSON-RPC error, else an HttpRequestError with the status', async () => {
  const client = rpcHttpClient(url, { timeout: 5_000 });
  handle = (body, response) => json(response, 429, { jsonrpc: '2.0', id: body.id, error: { code: -32005, message: 'rate limited' } });
  const limited = await client.request({ body: { id: 1, method: 'x' } }).catch((error: unknown) => error);
  assert.ok(limited instanceof RpcRequestError, String(limited));
  assert.equal(limited.status, 429);
  assert.match(limited.message, /rate limited/);
  handle = (_body, response) => {
    response.writeHead(502, { 'content-type': 'text/plain' });
    response.end('bad gateway');
  };
  const gateway = await client.request({ body: { id: 2, method: 'x' } }).catch((error: unknown) => error);
  assert.ok(gateway instanceof HttpRequestError, String(gateway));
  assert.equal(gateway.status, 502);
  assert.match(gateway.message, /bad gateway/);
});

test('a node that does not answer in time is a TimeoutError; one that cannot be reached an HttpRequestError; both are an unreachable node', async () => {
  handle = () => {}; // never answers
  const late = await rpcHttpClient(url, { timeout: 200 })
    .request({ body: { id: 1, method: 'eth_blockNumber' } })
    .catch((error: unknown) => error);
  assert.ok(late instanceof TimeoutError, String(late));
  assert.ok(isNodeUnreachable(late));
  // Headers and part of the body, then nothing: the wait is bounded all the same.
  handle = (_body, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"jsonrpc":"2.0",');
  };
  const stalled = await rpcHttpClient(url, { timeout: 200 })
    .request({ body: { id: 2, method: 'eth_blockNumber' } })
    .catch((error: unknown) => error);
  assert.ok(stalled instanceof TimeoutError, String(stalled));
  const refused = await rpcHttpClient('http://127.0.0.1:9', { timeout: 2_000 })
    .request({ body: { id: 1, method: 'eth_blockNumber' } })
    .catch((error: unknown) => error);
  assert.ok(refused instanceof HttpRequestError, String(refused));
  assert.equal(refused.status, undefined);
  assert.ok(isNodeUnreachable(refused));
});

test('an answer larger than 10 MiB is refused, not read whole', async () => {
  handle = (_body, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(`"${'x'.repeat(11 * 1024 * 1024)}"`);
  };
  const error = await rpcHttpClient(url, { timeout: 5_000 })
    .request({ body: { id: 1, method: 'x' } })
    .catch((thrown: unknown) => thrown);
  assert.ok(error instanceof ResponseBodyTooLargeError, String(error));
});

test('a batch the node refuses with one error answers that error for each of its calls', async () => {
  handle = (_body, response) => json(response, 200, [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batches are off' } }]);
  const answers = (await rpcHttpClient(url, { timeout: 5_000 }).request({ body: [{ id: 1, method: 'a' }, { id: 2, method: 'b' }] })) as Array<{ error: { message: string } }>;
  assert.equal(answers.length, 2);
  for (const answer of answers) assert.equal(answer.error.message, 'batches are off');
});

test('an https node is reached over TLS, and one whose certificate is not trusted is refused before anything is sent', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'rpc-tls-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  if (made.error || made.status !== 0) return t.skip('needs the openssl command to make a certificate');
  let asked = 0;
  const tls = createTlsServer({ key: readFileSync(join(directory, 'key.pem')), cert: readFileSync(join(directory, 'cert.pem')) }, (_request, response) => {
    asked += 1;
    json(response, 200, { jsonrpc: '2.0', id: 1, result: '0x1' });
  });
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    tls.closeAllConnections();
    tls.close();
  });
  const refused = await rpcHttpClient(`https://localhost:${(tls.address() as AddressInfo).port}/v3/key`, { timeout: 5_000 })
    .request({ body: { id: 1, method: 'eth_chainId' } })
    .catch((error: unknown) => error);
  assert.ok(refused instanceof HttpRequestError, String(refused));
  assert.match(refused.message, /self[- ]signed certificate/);
  assert.equal(asked, 0, 'no request reached the node');
});
