import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData, getAddress, parseEther, type Address } from 'viem';
import type { App } from '../../app.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { addToBlacklist } from '../policies/commands.ts';
import {
  BAPP,
  callFromOperator,
  deployFromOperator,
  fixtureContracts,
  mintCards,
  prepare,
  setBalance,
} from '../testing/support.ts';
import { withoutMessage } from '../../testing/responses.ts';

/** B1 validation: each rule reaches its code with the exact body, before anything is stored. */
describe('App2App prepare: validation and simulation', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  let token: Address;
  let target: Address;
  let cards: Address;
  const rich = '0x1000000000000000000000000000000000000001' as Address;
  const poor = '0x2000000000000000000000000000000000000002' as Address;
  const to = '0x3000000000000000000000000000000000000003';
  const { token: tokenContract, target: targetContract } = fixtureContracts();
  const placeAbi = targetContract.abi.find((item) => item.type === 'function' && item.name === 'place')!;
  const addAbi = targetContract.abi.find((item) => item.type === 'function' && item.name === 'add')!;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
    token = await deployFromOperator(services, tokenContract, ['Six', 'SIX', 6, 1_000_000_000n]);
    await callFromOperator(services, token, encodeFunctionData({ abi: tokenContract.abi, functionName: 'transfer', args: [rich, 5_000_000n] }));
    target = await deployFromOperator(services, targetContract);
    cards = (await mintCards(services, [rich])).contractAddress;
    await setBalance(services, rich, parseEther('10'));
  });
  after(() => testApp?.cleanup());

  /**
   * Sends `body`, expecting the refusal `expected`; a refusal about a field (every code but these)
   * also carries `error`, whose message names that field: `field` when given, else one of the body.
   */
  async function refused(body: unknown, expected: Record<string, unknown>, field?: string) {
    const before = await services.store.db.selectFrom('a2a_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const response = await prepare(app, body);
    assert.equal(response.statusCode, 400, response.body);
    const answer = withoutMessage(response.json()) as Record<string, unknown>;
    if ('error' in expected || ABOUT_NO_FIELD.has(expected.code as number)) assert.deepEqual(answer, expected);
    else {
      const { error, ...bare } = answer as { error?: { code: number; message: string; err: string } };
      assert.deepEqual(bare, expected);
      assert.deepEqual({ ...error, message: undefined }, { code: expected.code, message: undefined, err: expected.err }, response.body);
      assert.match(error!.message, field ? new RegExp(`^${field}[ :]`) : /^body\/(bapp|type|chain|transaction|message)\b/, response.body);
    }
    const after = await services.store.db.selectFrom('a2a_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n), 'a refused prepare stores nothing');
  }
  const bare = (code: number, err: string) => ({ code, err });
  /** Refusals about the request as a whole: a bad request's own message, funds, a revert, the daily count. */
  const ABOUT_NO_FIELD = new Set([400, 6200, 6412, 6414]);
  const send = (transaction: Record<string, unknown>) => ({ bapp: BAPP, type: 'send_coin', transaction });
  const tokenSend = (transaction: Record<string, unknown>) => ({ bapp: BAPP, type: 'send_token', transaction });
  const call = (transaction: Record<string, unknown>) => ({ bapp: BAPP, type: 'execute_contract', transaction });

  test('6401: bapp or its name missing or empty', async () => {
    for (const bapp of [undefined, null, 'Shop', {}, { name: '' }, { name: '   ' }, { name: 7 }]) {
      await refused({ bapp, type: 'auth' }, bare(6401, 'bapp name is required'));
    }
  });

  test('6010 for a type that is not a non-empty string, 6410 for an unknown type value', async () => {
    for (const type of [undefined, null, 1, '', ' ', ['auth']]) await refused({ bapp: BAPP, type }, bare(6010, 'invalid request type'));
    for (const type of ['send_nft', 'AUTH', 'sign']) await refused({ bapp: BAPP, type }, bare(6410, 'unknown request type'));
  });

  test('6417: a chain that is not served', async () => {
    await refused({ ...send({ to, amount: '1' }), chain: 'ethereum' }, bare(6417, 'the request is not supported with this chain'));
    await refused({ ...send({ to, amount: '1' }), chain: 'bitcoin' }, bare(6417, 'the request is not supported with this chain'));
    await refused({ ...send({ to, amount: '1' }), chain: 5 }, bare(6417, 'the request is not supported with this chain'));
    const auth = await prepare(app, { bapp: BAPP, type: 'auth', chain: 'bitcoin' });
    assert.equal(auth.statusCode, 200, 'auth ignores the chain');
  });

  test('6402: missing or malformed transaction or message, and abi/params versus encoded_function_call', async () => {
    const invalid = bare(6402, 'invalid transaction');
    await refused({ bapp: BAPP, type: 'send_coin' }, invalid);
    await refused({ bapp: BAPP, type: 'send_coin', transaction: 'to=0x1' }, invalid);
    await refused({ bapp: BAPP, type: 'send_coin', transaction: { to, amount: '1' }, message: { value: 'x' } }, invalid);
    await refused({ bapp: BAPP, type: 'sign_message' }, invalid);
    await refused({ bapp: BAPP, type: 'sign_message', message: { value: 'x' }, transaction: { to } }, invalid);
    await refused({ bapp: BAPP, type: 'sign_message', message: { value: 'x', is_hex_encoded: 'yes' } }, invalid);
    await refused({ bapp: BAPP, type: 'auth', transaction: { to } }, invalid);
    const encoded = encodeFunctionData({ abi: [addAbi], args: [1n] });
    await refused(call({ to: target, abi: JSON.stringify(addAbi), params: '[1]', encoded_function_call: encoded }), invalid);
    await refused(call({ to: target }), invalid, 'body/transaction');
    await refused(call({ to: target, abi: '', params: '', encoded_function_call: '' }), invalid);
    await refused(call({ to: target, params: '[1]', encoded_function_call: encoded }), invalid);
    await refused(call({ to: target, encoded_function_call: '0x1234' }), invalid);
    await refused(call({ to: target, encoded_function_call: 'add(1)' }), invalid);
    // abi and params as the JSON text "[]" are as empty as the arrays.
    const textEmpty = await prepare(app, call({ to: target, abi: '[]', params: '[]', encoded_function_call: encoded }));
    assert.equal(textEmpty.statusCode, 200, textEmpty.body);
  });

  test('6403: a bad to', async () => {
    for (const bad of [undefined, '', '0x123', 'not an address', '0x3000000000000000000000000000000000000003ff', 12, '0xAbCdEf0000000000000000000000000000000000']) {
      await refused(send({ to: bad, amount: '1' }), bare(6403, 'invalid to address'));
    }
    // execute_contract needs a contract at `to`.
    await refused(call({ to, encoded_function_call: '0x12345678' }), bare(6403, 'invalid to address'), 'body/transaction/to');
  });

  test('6404: an amount that is not a positive decimal string, or has more decimals than the token', async () => {
    for (const amount of [undefined, 1, '', 'one', '1e18', '-1', '-0.5', '0', '0.0', '1.', '.5', '0x10', '1.0000000000000000001']) {
      await refused(send({ to, amount }), bare(6404, 'invalid amount'));
    }
    await refused(tokenSend({ contract: token, to, amount: '0.0000001' }), bare(6404, 'invalid amount'), 'body/transaction/amount');
    // More smallest units than a uint256 holds, checked before anything is encoded or simulated.
    for (const amount of ['9'.repeat(60), '1'.repeat(400)]) {
      await refused(send({ to, amount }), bare(6404, 'invalid amount'));
      await refused(send({ to, amount, from: rich }), bare(6404, 'invalid amount'));
    }
    await refused(tokenSend({ contract: token, to, amount: '9'.repeat(72) }), bare(6404, 'invalid amount'));
    await refused(tokenSend({ contract: token, to, amount: '9'.repeat(72), from: rich }), bare(6404, 'invalid amount'));
    const ok = await prepare(app, tokenSend({ contract: token, to, amount: '0.000001' }));
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('6405: a contract that is not an address, has no code, or is not a token or card contract', async () => {
    const invalid = bare(6405, 'invalid contract');
    await refused(tokenSend({ contract: '0x12', to, amount: '1' }), invalid);
    await refused(tokenSend({ to, amount: '1' }), invalid);
    await refused(tokenSend({ contract: to, to, amount: '1' }), invalid, 'body/transaction/contract');
    await refused(tokenSend({ contract: target, to, amount: '1' }), invalid, 'body/transaction/contract');
    await refused({ bapp: BAPP, type: 'send_card', transaction: { contract: token, to, card_id: '1' } }, invalid);
    await refused({ bapp: BAPP, type: 'send_card', transaction: { contract: 'card', to, card_id: '1' } }, invalid);
  });

  test('6406: a card id that is not a whole number or does not exist', async () => {
    for (const cardId of [undefined, '', 'one', '-1', '1.5', 1.5]) {
      await refused({ bapp: BAPP, type: 'send_card', transaction: { contract: cards, to, card_id: cardId } }, bare(6406, 'invalid card id'));
    }
    await refused({ bapp: BAPP, type: 'send_card', transaction: { contract: cards, to, card_id: '999' } }, bare(6406, 'invalid card id'), 'body/transaction/card_id');
  });

  test('6407: an abi that is not one function with known types', async () => {
    const invalid = bare(6407, 'invalid abi');
    await refused(call({ to: target, abi: '{not json', params: '[]' }), invalid, 'body/transaction/abi');
    await refused(call({ to: target, abi: JSON.stringify(targetContract.abi), params: '[]' }), invalid);
    await refused(call({ to: target, abi: JSON.stringify({ type: 'function', name: 'f', inputs: [{ name: 'x', type: 'uint7' }] }), params: '[1]' }), invalid);
    await refused(call({ to: target, abi: JSON.stringify({ type: 'function', name: 'f', inputs: [{ name: 'x', type: 'tuple' }] }), params: '[[]]' }), invalid);
    await refused(call({ to: target, abi: { type: 'function', inputs: [] }, params: [] }), invalid);
    // Nesting is bounded (16 levels), so a few kB of ABI cannot exhaust the stack.
    const nestedArray = (levels: number) => ({ type: 'function', name: 'f', inputs: [{ name: 'x', type: `uint256${'[]'.repeat(levels)}` }] });
    const nestedTuple = (levels: number) => {
      let parameter: Record<string, unknown> = { name: 'x', type: 'uint256' };
      for (let level = 0; level < levels; level += 1) parameter = { name: 'x', type: 'tuple', components: [parameter] };
      return { type: 'function', name: 'f', inputs: [parameter] };
    };
    const deepParams = (levels: number) => JSON.stringify([JSON.parse('['.repeat(levels) + '1' + ']'.repeat(levels))]);
    await refused(call({ to: target, abi: nestedArray(2_000), params: deepParams(2_000) }), invalid);
    await refused(call({ to: target, abi: JSON.stringify(nestedTuple(2_000)), params: deepParams(2_000) }), invalid);
    await refused(call({ to: target, abi: JSON.stringify(nestedTuple(60)), params: deepParams(16) }), invalid);
    await refused(call({ to: target, abi: nestedArray(17), params: deepParams(17) }), invalid);
    const deepest = await prepare(app, call({ to: target, abi: nestedArray(16), params: deepParams(16) }));
    assert.equal(deepest.statusCode, 200, deepest.body);
  });

  test('6408: params that do not match the abi name the argument and the mismatch', async () => {
    const cases: Array<[unknown, string]> = [
      ['[{"buyer":"0x3000000000000000000000000000000000000003","amount":"1","memo":"m"},300]', 'argument flag (uint8): 300 is out of range 0 to 255'],
      ['[{"buyer":"0x12","amount":"1","memo":"m"},1]', 'argument order.buyer (address): expected an address, got "0x12"'],
      ['[{"buyer":"0x3000000000000000000000000000000000000003","amount":"many","memo":"m"},1]', 'argument order.amount (uint256): expected an integer (number, decimal string or 0x hex string), got "many"'],
      ['[{"buyer":"0x3000000000000000000000000000000000000003","amount":"1"},1]', 'argument order.memo (string): missing'],
      ['[["0x3000000000000000000000000000000000000003","1",5],1]', 'argument order.memo (string): expected a string, got 5'],
      ['[1]', 'place takes 2 arguments; 1 were given'],
      ['{"flag":1}', 'params must be an array'],
      ['[{"buyer":"0x3000000000000000000000000000000000000003","amount":"1","memo":"m"},true]', 'argument flag (uint8): expected an integer (number, decimal string or 0x hex string), got true'],
    ];
    for (const [params, message] of cases) {
      await refused(call({ to: target, abi: JSON.stringify(placeAbi), params }), {
        code: 6408,
        err: 'invalid params',
        error: { code: 6408, message: `body/transaction/params: ${message}`, err: 'invalid params' },
      });
    }
  });

  test('6409: a bad value (execute_contract wei, sign message text, typed data)', async () => {
    const invalid = bare(6409, 'invalid value');
    for (const value of ['1.5', '-1', 'ten', 10]) {
      await refused(call({ to: target, value, encoded_function_call: encodeFunctionData({ abi: [addAbi], args: [1n] }) }), invalid);
    }
    await refused({ bapp: BAPP, type: 'sign_message', message: { value: 5 } }, invalid);
    await refused({ bapp: BAPP, type: 'sign_message', message: {} }, invalid);
    await refused({ bapp: BAPP, type: 'sign_message_eip191', message: { value: '0xabc', is_hex_encoded: true } }, invalid);
    await refused({ bapp: BAPP, type: 'sign_message_eip191', message: { value: 'hello', is_hex_encoded: true } }, invalid, 'body/message/value');
    await refused({ bapp: BAPP, type: 'sign_typedData_v4', message: { value: '{' } }, invalid);
    await refused({ bapp: BAPP, type: 'sign_typedData_v4', message: { value: { types: {}, primaryType: 'Mail', message: {} } } }, invalid);
    // Typed data past its bounds is refused before it is hashed: a chain of 2,900 types took seconds.
    const chainOfTypes = (count: number) => {
      const types: Record<string, Array<{ name: string; type: string }>> = {};
      let message: unknown = 1;
      for (let index = count - 1; index >= 0; index -= 1) {
        types[`T${index}`] = [{ name: 'next', type: index + 1 < count ? `T${index + 1}` : 'uint256' }];
        message = { next: message };
      }
      return { types, primaryType: 'T0', domain: {}, message };
    };
    await refused({ bapp: BAPP, type: 'sign_typedData_v4', message: { value: JSON.stringify(chainOfTypes(2_900)) } }, invalid);
    await refused({ bapp: BAPP, type: 'sign_typedData_v4', message: { value: chainOfTypes(50) } }, invalid);
    await refused({ bapp: BAPP, type: 'sign_typedData_v4', message: { value: chainOfTypes(33) } }, invalid);
    const manyStructs = { types: { Item: [{ name: 'a', type: 'uint256' }], Root: [{ name: 'items', type: 'Item[]' }] }, primaryType: 'Root', domain: {} };
    await refused({ bapp: BAPP, type: 'sign_typedData_v4', message: { value: { ...manyStructs, message: { items: Array.from({ length: 4_000 }, () => ({ a: 1 })) } } } }, invalid);
    const withinBounds = await prepare(app, { bapp: BAPP, type: 'sign_typedData_v4', message: { value: chainOfTypes(32) } });
    assert.equal(withinBounds.statusCode, 200, withinBounds.body);
  });

  test('6411: a bad from', async () => {
    for (const from of ['0x12', 'me', 5]) {
      await refused(send({ to, amount: '1', from }), bare(6411, 'invalid from address'));
      await refused({ bapp: BAPP, type: 'sign_message', message: { value: 'x', from } }, bare(6411, 'invalid from address'));
    }
  });

  test('with from: a revert answers 6414 with the reason verbatim, a custom error by name; estimated_gas on success', async () => {
    await refused(call({ to: target, abi: addAbi, params: ['150'], from: rich }), {
      code: 6414,
      err: 'transaction reverted',
      error: { code: 6414, message: 'x must be below 100', err: 'transaction reverted' },
    });
    // A custom error is named when its ABI item is given beside the function, else shown by selector.
    const refusedError = targetContract.abi.find((item) => item.type === 'error' && item.name === 'Refused')!;
    await refused(call({ to: target, abi: [placeAbi, refusedError], params: [[to, 1, 'm'], 9], from: rich }), {
      code: 6414,
      err: 'transaction reverted',
      error: { code: 6414, message: 'Refused(7)', err: 'transaction reverted' },
    });
    await refused(call({ to: target, abi: placeAbi, params: [[to, 1, 'm'], 9], from: rich }), {
      code: 6414,
      err: 'transaction reverted',
      error: { code: 6414, message: 'custom error 0x590a5151', err: 'transaction reverted' },
    });
    // Errors of the token standards are known without an ABI.
    await refused({ bapp: BAPP, type: 'send_card', transaction: { contract: cards, to, card_id: '1', from: poor } }, {
      code: 6414,
      err: 'transaction reverted',
      error: { code: 6414, message: `ERC721InsufficientApproval(${getAddress(poor)}, 1)`, err: 'transaction reverted' },
    });
    const ok = await prepare(app, call({ to: target, abi: addAbi, params: ['5'], from: rich }));
    assert.equal(ok.statusCode, 200, ok.body);
    assert.ok(Number.isInteger(ok.json().estimated_gas) && ok.json().estimated_gas > 21_000);
  });

  test('with from: too little balance answers 6412 (coins and tokens)', async () => {
    await refused(send({ to, amount: '1', from: poor }), bare(6412, 'insufficient funds'));
    await refused(send({ to, amount: '10', from: rich }), bare(6412, 'insufficient funds'));
    await refused(tokenSend({ contract: token, to, amount: '6', from: rich }), bare(6412, 'insufficient funds'));
    const ok = await prepare(app, tokenSend({ contract: token, to, amount: '5', from: rich }));
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('6500: to, contract or from on the blacklist', async () => {
    const blocked = '0x4000000000000000000000000000000000000004';
    await addToBlacklist(services.store.db, blocked, 'test');
    await refused(send({ to: blocked, amount: '1' }), bare(6500, 'address is on the blacklist'), 'body/transaction/to');
    await refused(send({ to, amount: '1', from: blocked }), bare(6500, 'address is on the blacklist'), 'body/transaction/from');
    await refused({ bapp: BAPP, type: 'sign_message', message: { value: 'x', from: blocked } }, bare(6500, 'address is on the blacklist'), 'body/message/from');
    await addToBlacklist(services.store.db, token);
    await refused(tokenSend({ contract: token, to, amount: '1' }), bare(6500, 'address is on the blacklist'), 'body/transaction/contract');
  });

  test('an unknown service_key on auth is refused; a bad callback is refused', async () => {
    await refused({ bapp: { ...BAPP, service_key: 'sk_nope' }, type: 'auth' }, bare(400, 'bad request'));
    await refused({ bapp: { ...BAPP, callback: 'https://x' }, type: 'auth' }, bare(400, 'bad request'));
    await refused([], bare(400, 'bad request'));
    const invalidJson = await app.inject({ method: 'POST', url: '/v2/a2a/prepare', headers: { 'content-type': 'application/json' }, payload: '{' });
    assert.equal(invalidJson.statusCode, 400);
    assert.deepEqual(withoutMessage(invalidJson.json()), bare(400, 'bad request'));
    assert.match(invalidJson.json().message, /JSON/);
  });

  test('CORS is open on Family B: preflight and the response header', async () => {
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/v2/a2a/prepare',
      headers: { origin: 'https://bapp.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    const response = await app.inject({ method: 'POST', url: '/v2/a2a/prepare', headers: { origin: 'https://bapp.example' }, payload: { bapp: BAPP, type: 'auth' } });
    assert.equal(response.headers['access-control-allow-origin'], '*');
    const health = await app.inject({ method: 'GET', url: '/health', headers: { origin: 'https://bapp.example' } });
    assert.equal(health.headers['access-control-allow-origin'], undefined, 'CORS stays scoped to Family B');
  });
});

