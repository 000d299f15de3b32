import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createPublicClient, http } from 'viem';
import { countUnanswered, type UnansweredCalls } from './rpc-transport.ts';

test('calls the node leaves unanswered are counted; calls it answers, even with an error, are not', async (t) => {
  // A node that answers every call with a JSON-RPC error, and then one that is gone.
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'execution reverted' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const unanswered: UnansweredCalls = { count: 0 };
  const client = createPublicClient({ transport: countUnanswered(http(url, { retryCount: 0 }), unanswered) });

  await assert.rejects(client.getBlockNumber({ cacheTime: 0 }), /execution reverted/);
  assert.equal(unanswered.count, 0, 'an answer with an error is an answer');

  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await assert.rejects(client.getBlockNumber({ cacheTime: 0 }));
  assert.equal(unanswered.count, 1, 'a refused connection is counted');
});
