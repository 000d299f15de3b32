import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatEther, verifyMessage, type Address } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { approveAs, cancelAs, mintCards, openAs, signedInMember } from '../../server/src/a2a/testing/support.ts';
import type { CardEntry } from '../../server/src/a2a/cards/commands.ts';
import { openTestApp, type TestApp } from '../../server/src/testing/test-services.ts';
import { createClient, memoryStorage, type A2aClient, type Card } from './index.ts';
import { expectOk } from './testing/fake-fetch.ts';

/** The SDK declares the wire format itself (it depends on nothing); the compiler holds it to the service's. */
const sameCardShape: [Card] extends [CardEntry] ? ([CardEntry] extends [Card] ? true : false) : false = true;
void sameCardShape;

/**
 * The SDK against the real service: HTTP on a loopback port, a real store and anvil. The member
 * approves through the wallet-app API while the SDK long-polls the result.
 */
describe('SDK against the service', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let a2a: A2aClient;
  const sent: string[] = [];

  before(async () => {
    testApp = await openTestApp();
    baseUrl = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
    a2a = createClient({
      baseUrl,
      storage: memoryStorage(),
      fetch: (input, init) => {
        sent.push(String(input).replace(baseUrl, ''));
        return fetch(input, init);
      },
    });
  });
  after(() => testApp?.cleanup());

  const member = (coins?: string) => signedInMember(testApp.app, testApp.services, coins ? { coins } : {});

  test('auth: prepare, links, approval in the wallet app, waitForResult, then disconnect', async () => {
    const prepared = expectOk(await a2a.prepare.auth({ bappName: 'SDK test', successLink: 'sdk://ok' }));
    assert.equal(prepared.status, 'prepared');
    const key = prepared.request_key;

    const links = expectOk(await a2a.getRequestUrl(key));
    const served = (await (await fetch(`${baseUrl}/v2/a2a/links?request_key=${key}`)).json()) as Record<string, string>;
    assert.equal(links.url, served.qr_text);
    assert.equal(links.ios_scheme_link, served.ios_scheme_link);
    assert.equal(links.android_intent_link, served.android_intent_link);
    const local = createClient({ baseUrl, storage: null, links: { webUrl: testApp.services.config.publicUrl } });
    const built = expectOk(await local.getRequestUrl(key));
    assert.deepEqual(built, links, 'links built from the same settings are the service’s');
    const qr = await fetch(links.qr_png_url);
    assert.equal(qr.headers.get('content-type'), 'image/png');

    let fallback = '';
    assert.deepEqual(await a2a.request(key, (requestKey) => void (fallback = requestKey)), { request_key: key, environment: 'other', opened: false });
    assert.equal(fallback, key);

    const states: string[] = [];
    const waiting = a2a.waitForResult(key, { onUpdate: (answer) => states.push(answer.status ?? `${answer.code}`) });
    const wallet = await member();
    assert.equal((await openAs(testApp.app, wallet.token, key)).statusCode, 200);
    assert.equal((await approveAs(testApp.app, wallet.token, key, wallet.pin)).statusCode, 200);
    const answer = await waiting;
    assert.equal(answer.status, 'completed');
    assert.ok(answer.status === 'completed');
    assert.equal(answer.result.main_address, wallet.address);
    assert.equal(states[0], 'prepared');
    assert.equal(states.at(-1), 'completed');
    assert.ok(sent.some((path) => path === `/v2/a2a/result?request_key=${key}&wait=30`), 'it long-polled');

    assert.equal(a2a.getConnection()?.main_address, wallet.address);
    a2a.disconnect();
    assert.equal(a2a.getConnection(), null);
  });

  test('sendCoin: a 7-decimal amount never leaves; a real one is sent and mined', async () => {
    const wallet = await member('5');
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const before = sent.length;
    const refused = await a2a.prepare.sendCoin({ bappName: 'SDK test', to: recipient, amount: '0.0000001', from: wallet.address });
    assert.equal('code' in refused && refused.code, 4072);
    assert.equal(sent.length, before, 'no request was sent');

    const prepared = expectOk(await a2a.prepare.sendCoin({ bappName: 'SDK test', to: recipient, amount: '0.25', from: wallet.address }));
    assert.equal(prepared.type, 'send_coin');
    assert.equal(prepared.estimated_gas, 26250);
    const waiting = a2a.waitForResult(prepared.request_key, { untilMined: true });
    assert.equal((await approveAs(testApp.app, wallet.token, prepared.request_key, wallet.pin)).statusCode, 200);
    const answer = await waiting;
    assert.ok(answer.status === 'completed', JSON.stringify(answer));
    assert.equal(answer.result.status, 'success');
    const balance = await testApp.services.chains.get('main').client.getBalance({ address: recipient });
    assert.equal(formatEther(balance), '0.25');
  });

  test('errors come back with the REST codes', async () => {
    // A prepare refusal's message names the field it is about.
    assert.deepEqual(await a2a.prepare.sendCoin({ bappName: 'SDK test', to: '0x12', amount: '1' }), {
      code: 6403,
      err: 'invalid to address',
      message: 'body/transaction/to must match pattern "^0x[0-9a-fA-F]{40}$"',
    });
    assert.deepEqual(await a2a.prepare.auth({ bappName: ' ' }), { code: 6401, err: 'bapp name is required', message: 'body/bapp/name must match pattern "\\S"' });
    const unknown = '00000000-0000-0000-0000-000000000000';
    assert.deepEqual(await a2a.getResult(unknown), { code: 6000, err: 'request key does not exist' });
    assert.deepEqual(await a2a.waitForResult(unknown), { code: 6000, err: 'request key does not exist' });
    assert.deepEqual(await a2a.getRequestUrl(unknown), { code: 6000, err: 'request key does not exist' });
  });

  test('a request the member cancels ends the wait as canceled', async () => {
    const wallet = await member();
    const prepared = expectOk(await a2a.prepare.signMessageEip191({ bappName: 'SDK test', value: 'never signed' }));
    const waiting = a2a.waitForResult(prepared.request_key);
    assert.equal((await cancelAs(testApp.app, wallet.token, prepared.request_key)).statusCode, 200);
    assert.equal((await waiting).status, 'canceled');
  });

  test('signMessageEip191: the signature is the member’s', async () => {
    const wallet = await member();
    const prepared = expectOk(await a2a.prepare.signMessageEip191({ bappName: 'SDK test', value: 'Sign in to SDK test', from: wallet.address }));
    const waiting = a2a.waitForResult(prepared.request_key);
    assert.equal((await approveAs(testApp.app, wallet.token, prepared.request_key, wallet.pin)).statusCode, 200);
    const answer = await waiting;
    assert.ok(answer.status === 'completed');
    const signature = answer.result.signature as `0x${string}`;
    assert.ok(await verifyMessage({ address: wallet.address, message: 'Sign in to SDK test', signature }));
  });

  test('getCardList reads B4 page by page', async () => {
    const wallet = await member();
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const minted = await mintCards(testApp.services, [wallet.address, other, wallet.address]);
    const page = expectOk(await a2a.getCardList({ contract: minted.contractAddress, eoa: wallet.address }));
    assert.deepEqual(page.cards.map((card) => card.card_id), [1, 3]);
    assert.equal(page.cards[0]!.owner.toLowerCase(), wallet.address.toLowerCase());
    assert.equal(page.cards[0]!.transaction_hash, minted.mintTxHash);
    assert.equal(page.next_cursor, '');
    const empty = expectOk(await a2a.getCardList({ contract: minted.contractAddress, eoa: privateKeyToAccount(generatePrivateKey()).address }));
    assert.deepEqual(empty.cards, []);
    assert.deepEqual(await a2a.getCardList({ contract: other as Address, eoa: wallet.address }), { code: 6405, err: 'invalid contract' });
  });
});
