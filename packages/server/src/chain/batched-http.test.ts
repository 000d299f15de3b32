import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createPublicClient, RpcRequestError } from 'viem';
import { batchedHttp } from './batched-http.ts';

interface Call {
  id: number;
  method: string;
  params?: unknown[];
}

/** A JSON-RPC server that records each HTTP body; answers in reverse order, errs on `fail`, and refuses whole batches while `refuseBatches`. */
const bodies: unknown[] = [];
let refuseBatches = false;
let server: Server;
let url: string;

function answer(call: Call): object {
  if (call.method === 'fail') return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'told to fail' } };
  return { jsonrpc: '2.0', id: call.id, result: `${call.method}:${JSON.stringify(call.params ?? [])}` };
}

before(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text) as Call | Call[];
      bodies.push(body);
      response.setHeader('content-type', 'application/json');
      if (Array.isArray(body) && refuseBatches) return response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batches are off' } }));
      response.end(JSON.stringify(Array.isArray(body) ? body.map(answer).reverse() : answer(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () => createPublicClient({ transport: batchedHttp(url, { retryCount: 0, timeout: 5_000 }) });

test('calls made in one turn go as one batch, each gets its own answer; a call alone goes as a plain request', async () => {
  bodies.length = 0;
  const rpc = client();
  const answers = await Promise.all(['a', 'b', 'c'].map((method, index) => rpc.request({ method: method as never, params: [index] as never })));
  assert.deepEqual(answers, ['a:[0]', 'b:[1]', 'c:[2]']);
  assert.equal(bodies.length, 1);
  assert.deepEqual((bodies[0] as Call[]).map((call) => call.method), ['a', 'b', 'c']);
  assert.equal(await rpc.request({ method: 'alone' as never }), 'alone:[]');
  assert.equal(bodies.length, 2);
  assert.equal(Array.isArray(bodies[1]), false);
});

test('an error answers its own call only; a node refusing a whole batch fails each call of it with its error', async () => {
  const rpc = client();
  const [good, bad] = await Promise.allSettled([rpc.request({ method: 'good' as never }), rpc.request({ method: 'fail' as never })]);
  assert.deepEqual(good, { status: 'fulfilled', value: 'good:[]' });
  assert.equal(bad.status, 'rejected');
  assert.match(String((bad as PromiseRejectedResult).reason), /told to fail/);
  refuseBatches = true;
  try {
    const refused = await Promise.allSettled([rpc.request({ method: 'x' as never }), rpc.request({ method: 'y' as never })]);
    for (const outcome of refused) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(((outcome as PromiseRejectedResult).reason as Error).message.includes('batches are off'));
    }
  } finally {
    refuseBatches = false;
  }
});

test('a node that cannot be reached fails every call of the batch', async () => {
  const rpc = createPublicClient({ transport: batchedHttp('http://127.0.0.1:9', { retryCount: 0, timeout: 2_000 }) });
  const outcomes = await Promise.allSettled([rpc.request({ method: 'a' as never }), rpc.request({ method: 'b' as never })]);
  assert.deepEqual(outcomes.map((outcome) => outcome.status), ['rejected', 'rejected']);
  assert.ok(!((outcomes[0] as PromiseRejectedResult).reason instanceof RpcRequestError));
});
