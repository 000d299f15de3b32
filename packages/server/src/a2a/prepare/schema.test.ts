import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { Address } from 'viem';
import type { App } from '../../app.ts';
import type { AppError } from '../../errors/app-error.ts';
import { Errors, errorCodes, type ErrorCode } from '../../errors/codes.ts';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { BAPP, mintCards, prepare } from '../testing/support.ts';
import { PrepareBody } from './schema.ts';
import { prepareSchemaError, prepareValidatorCompiler } from './validation.ts';

const validate = prepareValidatorCompiler({ schema: PrepareBody, method: 'POST', url: '/v2/a2a/prepare', httpPart: 'body' }) as ((body: unknown) => boolean) & {
  errors?: FastifySchemaValidationError[] | null;
};

/** What the schema refuses a body with: the code and the detail naming the field. */
function schemaRefusal(body: unknown): AppError {
  assert.equal(validate(body), false, `the schema accepted ${JSON.stringify(body)}`);
  return prepareSchemaError(validate.errors ?? []);
}

const to = '0x3000000000000000000000000000000000000003';
const send = (transaction: Record<string, unknown>) => ({ bapp: BAPP, type: 'send_coin', transaction });
const call = (transaction: Record<string, unknown>) => ({ bapp: BAPP, type: 'execute_contract', transaction: { to, ...transaction } });

/** One body per code, each wrong in one field only: [code, body, the field the refusal names]. */
const REFUSALS: Array<[ErrorCode, unknown, string]> = [
  [Errors.BappNameRequired, { bapp: { name: ' ' }, type: 'auth' }, 'body/bapp/name'],
  [Errors.BappNameRequired, { type: 'auth' }, 'body/bapp'],
  [Errors.InvalidRequestType, { bapp: BAPP, type: 7 }, 'body/type'],
  [Errors.InvalidRequestType, { bapp: BAPP }, 'body/type'],
  [Errors.UnknownRequestType, { bapp: BAPP, type: 'send_nft' }, 'body/type'],
  [Errors.ChainNotSupported, { ...send({ to, amount: '1' }), chain: 'bitcoin' }, 'body/chain'],
  [Errors.InvalidTransaction, { bapp: BAPP, type: 'send_coin' }, 'body/transaction'],
  [Errors.InvalidTransaction, { bapp: BAPP, type: 'sign_message', message: { value: 'x' }, transaction: { to } }, 'body/transaction'],
  [Errors.InvalidTransaction, { bapp: BAPP, type: 'sign_message', message: 'x' }, 'body/message'],
  [Errors.InvalidTransaction, call({ encoded_function_call: '0x1234' }), 'body/transaction/encoded_function_call'],
  [Errors.InvalidTo, send({ to: '0x12', amount: '1' }), 'body/transaction/to'],
  [Errors.InvalidTo, send({ to: '0xAbCdEf0000000000000000000000000000000000', amount: '1' }), 'body/transaction/to'],
  [Errors.InvalidAmount, send({ to, amount: '1e18' }), 'body/transaction/amount'],
  [Errors.InvalidContract, { bapp: BAPP, type: 'send_token', transaction: { contract: 'token', to, amount: '1' } }, 'body/transaction/contract'],
  [Errors.InvalidCardId, { bapp: BAPP, type: 'send_card', transaction: { contract: to, to, card_id: '1.5' } }, 'body/transaction/card_id'],
  [Errors.InvalidAbi, call({ abi: 5, params: [] }), 'body/transaction/abi'],
  [Errors.InvalidParams, call({ abi: { type: 'function', name: 'f', inputs: [] }, params: { flag: 1 } }), 'body/transaction/params'],
  [Errors.InvalidValue, call({ value: '1.5', encoded_function_call: '0x12345678' }), 'body/transaction/value'],
  [Errors.InvalidValue, { bapp: BAPP, type: 'sign_message', message: { value: 5 } }, 'body/message/value'],
  [Errors.InvalidValue, { bapp: BAPP, type: 'sign_typedData_v4', message: { value: { types: {}, message: {} } } }, 'body/message/value'],
  [Errors.InvalidFrom, send({ to, amount: '1', from: 'me' }), 'body/transaction/from'],
  [Errors.InvalidFrom, { bapp: BAPP, type: 'sign_message', message: { value: 'x', from: '0x12' } }, 'body/message/from'],
];

describe('App2App prepare: the body schema', () => {
  let testApp: TestApp;
  let app: App;
  let cards: Address;

  before(async () => {
    testApp = await openTestApp();
    app = testApp.app;
    cards = (await mintCards(testApp.services, [to as Address])).contractAddress;
  });
  after(() => testApp?.cleanup());

  for (const [code, body, field] of REFUSALS) {
    test(`${code} (${errorCodes[code].message}): ${field}`, async () => {
      const refusal = schemaRefusal(body);
      assert.equal(refusal.code, code);
      assert.ok(refusal.detail?.startsWith(`${field} `), `${refusal.detail} names ${field}`);
      const response = await prepare(app, body);
      assert.equal(response.statusCode, 400, response.body);
      const expected: Record<string, unknown> = { code, err: errorCodes[code].message };
      // The refusal names its field: in `error` (the specification's message), or a 400's `message`.
      if (code === Errors.BadRequest) expected.message = refusal.detail;
      else expected.error = { code, message: refusal.detail, err: errorCodes[code].message };
      assert.deepEqual(response.json(), expected);
    });
  }

  test('6408 names the argument field in the body', async () => {
    const response = await prepare(app, call({ abi: { type: 'function', name: 'f', inputs: [] }, params: { flag: 1 } }));
    assert.match(response.json().error.message, /^body\/transaction\/params /);
  });

  test('when several fields are wrong, the first in the schema answers', () => {
    // bapp before type, type before the rest, and in a transaction its fields in the table's order.
    assert.equal(schemaRefusal({ bapp: {}, type: 7 }).code, Errors.BappNameRequired);
    assert.equal(schemaRefusal({ bapp: BAPP, type: '', chain: 5 }).code, Errors.InvalidRequestType);
    assert.equal(schemaRefusal({ ...send({ to: 1 }), chain: 5 }).code, Errors.ChainNotSupported);
    // A malformed field before a missing one: `from` is checked before `to`.
    assert.equal(schemaRefusal(send({ from: 'me' })).code, Errors.InvalidFrom);
    assert.equal(schemaRefusal({ bapp: BAPP, type: 'send_token', transaction: { contract: 'x', to: 'y', amount: 'z' } }).code, Errors.InvalidContract);
    assert.equal(schemaRefusal({ bapp: BAPP, type: 'execute_contract', transaction: { to: 'x', from: 'y', value: 'z' } }).code, Errors.InvalidTo);
    assert.equal(schemaRefusal({ bapp: BAPP, type: 'sign_message', message: { from: 1, value: 2, is_hex_encoded: 3 } }).code, Errors.InvalidFrom);
  });

  test("each type's minimal body passes the schema and is prepared", async () => {
    const zero = '0x0000000000000000000000000000000000000000';
    const typedData = { types: { Mail: [{ name: 'a', type: 'uint256' }] }, primaryType: 'Mail', domain: {}, message: { a: 1 } };
    const bodies = [
      { bapp: BAPP, type: 'auth' },
      send({ to, amount: '1' }),
      { bapp: BAPP, type: 'send_token', transaction: { contract: zero, to, amount: '1' } },
      { bapp: BAPP, type: 'send_card', transaction: { contract: cards, to, card_id: '1' } },
      { bapp: BAPP, type: 'execute_contract', transaction: { to: cards, encoded_function_call: '0x12345678' } },
      { bapp: BAPP, type: 'sign_message', message: { value: 'hi' } },
      { bapp: BAPP, type: 'sign_message_eip191', message: { value: 'hi' } },
      { bapp: BAPP, type: 'sign_typedData_v4', message: { value: typedData } },
    ];
    for (const body of bodies) {
      assert.equal(validate(body), true, `${body.type}: ${JSON.stringify(validate.errors)}`);
      const response = await prepare(app, body);
      assert.equal(response.statusCode, 200, `${body.type}: ${response.body}`);
      assert.equal(response.json().status, 'prepared');
    }
  });
});
