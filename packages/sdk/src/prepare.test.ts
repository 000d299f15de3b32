import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient, isError } from './index.ts';
import { BASE, fakeFetch, KEY } from './testing/fake-fetch.ts';

const PREPARED = { request_key: KEY, status: 'prepared', expiration_time: 1_767_225_600 };
const TO = '0x5000000000000000000000000000000000000005';
const FROM = '0xd000000000000000000000000000000000000001';
const CONTRACT = '0xc000000000000000000000000000000000000003';

function client(...answers: Parameters<typeof fakeFetch>) {
  const fake = fakeFetch(...answers);
  return { fake, a2a: createClient({ baseUrl: BASE, fetch: fake.fetch, storage: null }) };
}

describe('prepare: the body of every type', () => {
  const cases = [
    {
      name: 'auth',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.auth({ bappName: 'Shop', successLink: 'shop://ok', failLink: 'shop://no' }),
      type: 'auth',
      body: { type: 'auth', bapp: { name: 'Shop', callback: { success: 'shop://ok', fail: 'shop://no' } } },
    },
    {
      name: 'auth with a service key',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.auth({ bappName: 'Shop', serviceKey: 'sk_1' }),
      type: 'auth',
      body: { type: 'auth', bapp: { name: 'Shop', service_key: 'sk_1' } },
    },
    {
      name: 'sendCoin',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.sendCoin({ bappName: 'Shop', to: TO, amount: '1.5', from: FROM, chain: 'polygon' }),
      type: 'send_coin',
      body: { type: 'send_coin', chain: 'polygon', bapp: { name: 'Shop' }, transaction: { to: TO, amount: '1.5', from: FROM } },
    },
    {
      name: 'sendToken with fee delegation',
      call: (a2a: ReturnType<typeof createClient>) =>
        a2a.prepare.sendToken({ bappName: 'Shop', to: TO, amount: '0.123456', contract: CONTRACT, kasAuthorizationKey: 'fd_x', successLink: 'shop://ok' }),
      type: 'send_token',
      body: {
        type: 'send_token',
        bapp: { name: 'Shop', callback: { success: 'shop://ok' }, kas_authorization_key: 'fd_x' },
        transaction: { contract: CONTRACT, to: TO, amount: '0.123456' },
      },
    },
    {
      name: 'sendCard with a bigint id',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.sendCard({ bappName: 'Shop', to: TO, id: 12n, contract: CONTRACT, from: FROM }),
      type: 'send_card',
      body: { type: 'send_card', bapp: { name: 'Shop' }, transaction: { contract: CONTRACT, to: TO, card_id: '12', from: FROM } },
    },
    {
      name: 'executeContract with abi and params',
      call: (a2a: ReturnType<typeof createClient>) =>
        a2a.prepare.executeContract({ bappName: 'Shop', to: CONTRACT, value: 10n ** 18n, abi: { type: 'function', name: 'add' }, params: [1] }),
      type: 'execute_contract',
      body: {
        type: 'execute_contract',
        bapp: { name: 'Shop' },
        transaction: { to: CONTRACT, value: '1000000000000000000', abi: { type: 'function', name: 'add' }, params: [1] },
      },
    },
    {
      name: 'executeContract with calldata',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.executeContract({ bappName: 'Shop', to: CONTRACT, encodedFunctionCall: '0x1003e2d2' }),
      type: 'execute_contract',
      body: { type: 'execute_contract', bapp: { name: 'Shop' }, transaction: { to: CONTRACT, encoded_function_call: '0x1003e2d2' } },
    },
    {
      name: 'signMessage',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.signMessage({ bappName: 'Shop', value: 'hello', from: FROM }),
      type: 'sign_message',
      body: { type: 'sign_message', bapp: { name: 'Shop' }, message: { value: 'hello', from: FROM } },
    },
    {
      name: 'signMessageEip191 of hex bytes',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.signMessageEip191({ bappName: 'Shop', value: '0x68690a', isHexEncoded: true }),
      type: 'sign_message_eip191',
      body: { type: 'sign_message_eip191', bapp: { name: 'Shop' }, message: { value: '0x68690a', is_hex_encoded: true } },
    },
    {
      name: 'signTypedData',
      call: (a2a: ReturnType<typeof createClient>) => a2a.prepare.signTypedData({ bappName: 'Shop', value: { primaryType: 'Mail' }, chain: 'ethereum' }),
      type: 'sign_typedData_v4',
      body: { type: 'sign_typedData_v4', chain: 'ethereum', bapp: { name: 'Shop' }, message: { value: { primaryType: 'Mail' } } },
    },
  ];

  for (const { name, call, type, body } of cases) {
    test(name, async () => {
      const { fake, a2a } = client({ body: PREPARED });
      const prepared = await call(a2a);
      assert.deepEqual(prepared, { ...PREPARED, type });
      assert.equal(fake.calls.length, 1);
      assert.equal(fake.calls[0]!.url, `${BASE}/v2/a2a/prepare`);
      assert.equal(fake.calls[0]!.method, 'POST');
      assert.equal(fake.calls[0]!.headers['content-type'], 'application/json');
      assert.deepEqual(fake.calls[0]!.body, body);
    });
  }

  test('estimated_gas is passed on', async () => {
    const { a2a } = client({ body: { ...PREPARED, estimated_gas: 26250 } });
    const prepared = await a2a.prepare.sendCoin({ bappName: 'Shop', to: TO, amount: '1', from: FROM });
    assert.ok(!isError(prepared));
    assert.equal(prepared.estimated_gas, 26250);
  });
});

describe('prepare: amounts with more than 6 decimals are refused before any request', () => {
  for (const [name, run] of [
    ['sendCoin', (a2a: ReturnType<typeof createClient>) => a2a.prepare.sendCoin({ bappName: 'Shop', to: TO, amount: '0.1234567' })],
    ['sendToken', (a2a: ReturnType<typeof createClient>) => a2a.prepare.sendToken({ bappName: 'Shop', to: TO, amount: '1.0000001', contract: CONTRACT })],
  ] as const) {
    test(name, async () => {
      const { fake, a2a } = client();
      const refused = await run(a2a);
      assert.equal(fake.calls.length, 0, 'nothing was sent');
      assert.deepEqual(refused, {
        err: 'send token amount decimal places exceeded',
        code: 4072,
        message: `amount ${name === 'sendCoin' ? '0.1234567' : '1.0000001'} has 7 decimals; at most 6 are allowed`,
      });
    });
  }

  test('six decimals and whole amounts pass to the service, which judges the rest', async () => {
    const { fake, a2a } = client({ body: PREPARED }, { body: PREPARED }, { status: 400, body: { code: 6404, err: 'invalid amount' } });
    assert.ok(!isError(await a2a.prepare.sendCoin({ bappName: 'Shop', to: TO, amount: '0.000001' })));
    assert.ok(!isError(await a2a.prepare.sendToken({ bappName: 'Shop', to: TO, amount: '25', contract: CONTRACT })));
    assert.deepEqual(await a2a.prepare.sendCoin({ bappName: 'Shop', to: TO, amount: '-1' }), { code: 6404, err: 'invalid amount' });
    assert.equal(fake.calls.length, 3);
  });

  test('an amount given as a number is counted as written', async () => {
    const { fake, a2a } = client();
    const refused = await a2a.prepare.sendCoin({ bappName: 'Shop', to: TO, amount: (0.1 + 0.2) as unknown as string });
    assert.equal(isError(refused) && refused.code, 4072);
    assert.equal(fake.calls.length, 0);
  });
});

describe('prepare: errors of the service', () => {
  test('a bare { code, err } resolves as it is', async () => {
    const { a2a } = client({ status: 400, body: { code: 6401, err: 'bapp name is required' } });
    assert.deepEqual(await a2a.prepare.auth({ bappName: '' }), { code: 6401, err: 'bapp name is required' });
  });

  test('the detail of 6408 and 6414 becomes message', async () => {
    const { a2a } = client({
      status: 400,
      body: { code: 6414, err: 'transaction reverted', error: { code: 6414, message: 'x must be below 100', err: 'transaction reverted' } },
    });
    const refused = await a2a.prepare.executeContract({ bappName: 'Shop', to: CONTRACT, abi: {}, params: [] });
    assert.deepEqual(refused, { code: 6414, err: 'transaction reverted', message: 'x must be below 100' });
  });

  test('an empty 500 and a page that is not JSON get the HTTP status as code', async () => {
    const { a2a } = client({ status: 500 }, { status: 502, text: '<html>bad gateway</html>' }, { status: 404, text: 'nope' });
    assert.deepEqual(await a2a.prepare.auth({ bappName: 'Shop' }), { code: 500, err: 'internal server error' });
    assert.deepEqual(await a2a.prepare.auth({ bappName: 'Shop' }), { code: 502, err: 'internal server error' });
    assert.deepEqual(await a2a.prepare.auth({ bappName: 'Shop' }), { code: 404, err: 'HTTP 404' });
  });

  test('a 200 that is not a JSON object is an error too', async () => {
    const { a2a } = client({ status: 200, text: '[]' });
    assert.deepEqual(await a2a.prepare.auth({ bappName: 'Shop' }), { code: 200, err: 'HTTP 200' });
  });

  test('a service that cannot be reached rejects as fetch does', async () => {
    const { a2a } = client(() => {
      throw new TypeError('fetch failed');
    });
    await assert.rejects(a2a.prepare.auth({ bappName: 'Shop' }), { name: 'TypeError', message: 'fetch failed' });
  });
});
