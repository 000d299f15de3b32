import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient, memoryStorage, type ResultAnswer } from './index.ts';
import { BASE, fakeFetch, KEY, state, type FakeAnswer, type FakeHandler } from './testing/fake-fetch.ts';

const ADDRESS = '0xd000000000000000000000000000000000000001';
const AUTH_RESULT = { main_address: ADDRESS, evm_address: ADDRESS, bitcoin_address: 'bc1qexample' };
const EXPIRED = {
  status: 400,
  body: { request_key: KEY, expiration_time: 1, status: 'error', error: { code: 6001, err: 'request key is expired', message: 'request key is expired' } },
};
const UNKNOWN = { status: 400, body: { code: 6000, err: 'request key does not exist' } };

function client(...answers: Array<FakeHandler | FakeAnswer>) {
  const fake = fakeFetch(...answers);
  const storage = memoryStorage();
  return { fake, storage, a2a: createClient({ baseUrl: BASE, fetch: fake.fetch, storage }) };
}

describe('getResult', () => {
  test('reads every state of B3', async () => {
    const { fake, a2a } = client(state('prepared'), state('requested'), state('canceled'), state('completed', { result: { tx_hash: '0x9c', status: 'success' } }));
    assert.equal((await a2a.getResult(KEY)).status, 'prepared' as never);
    assert.deepEqual(await a2a.getResult(KEY), state('requested').body);
    assert.deepEqual(await a2a.getResult(KEY), state('canceled').body);
    assert.deepEqual(await a2a.getResult(KEY), state('completed', { result: { tx_hash: '0x9c', status: 'success' } }).body);
    assert.deepEqual(fake.paths(), Array(4).fill(`/v2/a2a/result?request_key=${KEY}`));
  });

  test('a request in error resolves with its state and err, code and message beside it', async () => {
    const error = { code: 6414, err: 'transaction reverted', message: 'x must be below 100' };
    const { a2a } = client({ status: 400, body: { request_key: KEY, expiration_time: 5, status: 'error', error } });
    assert.deepEqual(await a2a.getResult(KEY), { request_key: KEY, expiration_time: 5, status: 'error', ...error, error });
  });

  test('an expired key (6001) and an unknown key (6000)', async () => {
    const { a2a } = client(EXPIRED, UNKNOWN);
    const expired = await a2a.getResult(KEY);
    assert.equal('err' in expired && expired.code, 6001);
    assert.equal(expired.status, 'error');
    assert.deepEqual(await a2a.getResult('nope'), { code: 6000, err: 'request key does not exist' });
  });

  test('the key is sent encoded', async () => {
    const { fake, a2a } = client(UNKNOWN);
    await a2a.getResult('a&wait=30');
    assert.deepEqual(fake.paths(), ['/v2/a2a/result?request_key=a%26wait%3D30']);
  });

  test('a completed auth stores the addresses and nothing else; other results store nothing', async () => {
    const { a2a, storage } = client(state('completed', { result: { signature: '0x1', hash: '0x2' } }), state('completed', { result: AUTH_RESULT, ci_hash: 'abc' }));
    await a2a.getResult(KEY);
    assert.equal(a2a.getConnection(), null);
    assert.equal(storage.getItem('wallet-a2a.connection'), null);
    await a2a.getResult(KEY);
    const connection = a2a.getConnection();
    assert.ok(connection);
    assert.deepEqual({ ...connection, connected_at: 0 }, { ...AUTH_RESULT, connected_at: 0 });
    assert.ok(Math.abs(connection.connected_at - Date.now() / 1000) < 60);
    assert.doesNotMatch(storage.getItem('wallet-a2a.connection')!, /ci_hash|abc/);
  });
});

describe('waitForResult', () => {
  test('long-polls from prepared through requested to completed and reports each state', async () => {
    const { fake, a2a } = client(state('prepared'), state('requested'), state('requested'), state('completed', { result: AUTH_RESULT }));
    const seen: string[] = [];
    const answer = await a2a.waitForResult(KEY, { onUpdate: (update: ResultAnswer) => seen.push(update.status ?? '') });
    assert.equal(answer.status, 'completed');
    assert.deepEqual(seen, ['prepared', 'requested', 'completed'], 'an unchanged state after a full wait is not reported again');
    assert.deepEqual(fake.paths(), [
      `/v2/a2a/result?request_key=${KEY}`,
      `/v2/a2a/result?request_key=${KEY}&wait=30`,
      `/v2/a2a/result?request_key=${KEY}&wait=30`,
      `/v2/a2a/result?request_key=${KEY}&wait=30`,
    ]);
    assert.equal(a2a.getConnection()?.main_address, ADDRESS, 'the auth it waited for is stored');
  });

  test('stops at canceled, at a request in error, at expiry and at an unknown key', async () => {
    const failed = { status: 400, body: { request_key: KEY, expiration_time: 5, status: 'error', error: { code: 6500, err: 'address is on the blacklist', message: 'to' } } };
    for (const [last, expected] of [
      [state('canceled'), 'canceled'],
      [failed, 6500],
      [EXPIRED, 6001],
      [UNKNOWN, 6000],
    ] as const) {
      const { fake, a2a } = client(state('requested'), last);
      const answer = await a2a.waitForResult(KEY);
      assert.equal('code' in answer ? answer.code : answer.status, expected);
      assert.equal(fake.calls.length, 2);
    }
  });

  test('answers at once when the first read is final', async () => {
    const { fake, a2a } = client(state('completed', { result: { tx_hash: '0x9c', status: 'pending' } }));
    assert.equal((await a2a.waitForResult(KEY)).status, 'completed');
    assert.equal(fake.calls.length, 1);
  });

  test('untilMined waits on until the transaction succeeded or failed', async () => {
    const { fake, a2a } = client(
      state('requested'),
      state('completed', { result: { tx_hash: '0x9c', status: 'pending' } }),
      state('completed', { result: { tx_hash: '0x9c', status: 'fail' } }),
    );
    const seen: string[] = [];
    const answer = await a2a.waitForResult(KEY, {
      untilMined: true,
      onUpdate: (update) => seen.push('result' in update ? `${update.status}/${(update.result as { status: string }).status}` : update.status!),
    });
    assert.deepEqual(answer, state('completed', { result: { tx_hash: '0x9c', status: 'fail' } }).body);
    assert.deepEqual(seen, ['requested', 'completed/pending', 'completed/fail']);
    assert.equal(fake.calls.length, 3);
  });

  test('timeoutMs resolves with the last state seen and ends the long-poll in flight', async () => {
    let aborted = false;
    const fake = fakeFetch(state('requested'), (call) => {
      assert.match(call.url, /&wait=1$/, 'the wait never exceeds the time left');
      return 'hang';
    });
    const a2a = createClient({
      baseUrl: BASE,
      storage: null,
      fetch: (input, init) => {
        init?.signal?.addEventListener('abort', () => (aborted = true));
        return fake.fetch(input, init);
      },
    });
    const answer = await a2a.waitForResult(KEY, { timeoutMs: 50 });
    assert.equal(answer.status, 'requested');
    assert.ok(aborted, 'the hanging long-poll was aborted');
    assert.equal(fake.calls.length, 2);
  });

  test('timeoutMs 0 reads once', async () => {
    const { fake, a2a } = client(state('prepared'));
    assert.equal((await a2a.waitForResult(KEY, { timeoutMs: 0 })).status, 'prepared');
    assert.equal(fake.calls.length, 1);
  });

  test('an aborted signal rejects with its reason, before or during the wait', async () => {
    const { fake, a2a } = client(state('prepared'), 'hang');
    const before = new AbortController();
    before.abort(new Error('left the page'));
    await assert.rejects(a2a.waitForResult(KEY, { signal: before.signal }), { message: 'left the page' });
    assert.equal(fake.calls.length, 0);

    const during = new AbortController();
    const waiting = a2a.waitForResult(KEY, { signal: during.signal, onUpdate: () => setTimeout(() => during.abort(new Error('stop')), 10) });
    await assert.rejects(waiting, { message: 'stop' });
    assert.equal(fake.calls.length, 2);
  });

  test('a network failure during the wait rejects', async () => {
    const { a2a } = client(state('prepared'), () => {
      throw new TypeError('fetch failed');
    });
    await assert.rejects(a2a.waitForResult(KEY), { message: 'fetch failed' });
  });
});
