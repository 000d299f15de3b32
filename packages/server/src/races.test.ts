import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ethers } from 'ethers';
import { parseEther, type Address } from 'viem';
import type { App } from './app.ts';
import { sha256Hex } from './custody/passwords.ts';
import { errorCodes } from './errors/codes.ts';
import { openTestApp, type TestApp, type TestServices } from './testing/test-services.ts';
import { approveAs, BAPP, cancelAs, finalResult, openAs, prepareKey, signedInMember } from './a2a/testing/support.ts';

/**
 * Identical state-changing calls at once on one resource, beside the card races of
 * cards/claims/race.test.ts: exactly the expected winners, the others refused with a registry code
 * (never a 5xx), and nothing done twice.
 */
const CALLS = 10;

type Answer = { statusCode: number; body: string; json(): any };

/** The answers split into winners and refusals; every refusal must carry a registry code. */
function tally(answers: Answer[]): { winners: Answer[]; refusedCodes: number[] } {
  for (const answer of answers) assert.ok(answer.statusCode < 500, `a ${answer.statusCode}: ${answer.body}`);
  const winners = answers.filter((answer) => answer.statusCode === 200);
  const refusedCodes = answers.filter((answer) => answer.statusCode !== 200).map((answer) => answer.json().code as number);
  for (const code of refusedCodes) assert.ok(code in errorCodes, `code ${code} is not in the registry`);
  return { winners, refusedCodes };
}

describe(`${CALLS} identical calls at once`, () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  test('App2App send_coin approved ten times at once: one transaction, the others refused', async () => {
    const member = await signedInMember(app, services, { coins: '5' });
    const recipient = ethers.Wallet.createRandom().address.toLowerCase() as Address;
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_coin', transaction: { from: member.address, to: recipient, amount: '0.5' } });
    assert.equal((await openAs(app, member.token, key)).statusCode, 200);
    const client = services.chains.get('main').client;
    const nonceBefore = await client.getTransactionCount({ address: member.address });

    const { winners, refusedCodes } = tally(await Promise.all(Array.from({ length: CALLS }, () => approveAs(app, member.token, key, member.pin))));
    assert.equal(winners.length, 1, `winners: ${winners.map((answer) => answer.body).join(' | ')}; refused: ${refusedCodes.join(', ')}`);
    assert.equal((await finalResult(app, key)).result.status, 'success');
    assert.equal(await client.getTransactionCount({ address: member.address }), nonceBefore + 1, 'one transaction signed');
    assert.equal(await client.getBalance({ address: recipient }), parseEther('0.5'), 'the coins moved once');
  });

  test('an App2App request cancelled ten times at once: one cancel, the others refused', async () => {
    const member = await signedInMember(app, services);
    const key = await prepareKey(app, { bapp: BAPP, type: 'auth' });
    assert.equal((await openAs(app, member.token, key)).statusCode, 200);
    const { winners, refusedCodes } = tally(await Promise.all(Array.from({ length: CALLS }, () => cancelAs(app, member.token, key))));
    assert.equal(winners.length, 1, `refused: ${refusedCodes.join(', ')}`);
    assert.deepEqual([...new Set(refusedCodes)], [6011], 'invalid request status');
    assert.equal((await finalResult(app, key)).status, 'canceled');
  });

  test('ten identical wallet-app sign-ups at once: one member, the others refused', async () => {
    const body = {
      name: `Racer ${randomUUID().slice(0, 8).replace(/\d/g, 'x')}`,
      phone: `+1 415 555 ${String(1000 + Math.floor(Math.random() * 8999))}`,
      email: `racer-${randomUUID()}@example.com`,
      password: sha256Hex('a long password'),
      birth: '1990-05-17',
      pin: sha256Hex('246810'),
    };
    const signUp = () => app.inject({ method: 'POST', url: '/v2/wallet-app/members', headers: { 'x-wallet-app': '1' }, payload: body });
    const { winners, refusedCodes } = tally(await Promise.all(Array.from({ length: CALLS }, signUp)));
    assert.equal(winners.length, 1, `refused: ${refusedCodes.join(', ')}`);
    const members = await services.store.db.selectFrom('users').select('id').where('email', '=', body.email).execute();
    assert.equal(members.length, 1, 'one member kept');
  });
});
