import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address } from 'viem';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { signedInPartner } from '../testing/partner-session.ts';
import { buildAddresses, buildMintPayload, mintOk } from '../../cards/testing/card-factories.ts';
import { forgetOldKeys, KEY_RETENTION_MS } from './commands.ts';
import { REPLAYED_HEADER } from './hook.ts';
import { setTimeout as sleep } from 'node:timers/promises';

let t: TestApp;
before(async () => {
  t = await openTestApp();
});
after(async () => {
  await t.cleanup();
});

function nextTokenId(contract: string): Promise<bigint> {
  return t.services.chains.get('main').client.readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'nextTokenId' });
}

function keyedCall(token: string, key: string | undefined, method: 'POST' | 'DELETE' | 'PUT', url: string, payload: object) {
  return t.app.inject({ method, url, headers: { authorization: token, ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload });
}

describe('Idempotency-Key on the partner API', () => {
  test('a mint retried with the same key and body mints once and answers the first answer again', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const payload = buildMintPayload(partner, { to_address: buildAddresses(3) });
    const before = await nextTokenId(partner.contractAddress);
    const first = await keyedCall(partner.token, 'mint-1', 'POST', '/v2/wallet/mint', payload);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers[REPLAYED_HEADER], undefined);
    // Same body with its fields in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(payload).reverse());
    const retry = await keyedCall(partner.token, 'mint-1', 'POST', '/v2/wallet/mint', reordered);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers[REPLAYED_HEADER], 'true');
    assert.deepEqual(retry.json(), first.json());
    assert.equal(await nextTokenId(partner.contractAddress), before + 3n, 'three cards on chain, not six');
    const count = await t.app.inject({ method: 'GET', url: '/v2/wallet/mint/count', headers: { authorization: partner.token } });
    assert.equal(count.json().mint_count, 3);
  });

  test('a mint whose connection was cut, retried with its key over HTTP, mints once', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const payload = buildMintPayload(partner, { to_address: buildAddresses(5) });
    const before = await nextTokenId(partner.contractAddress);
    const post = (signal?: AbortSignal) =>
      fetch(`${baseUrl}/v2/wallet/mint`, {
        method: 'POST',
        headers: { authorization: partner.token, 'content-type': 'application/json', 'idempotency-key': 'cut-1' },
        body: JSON.stringify(payload),
        ...(signal ? { signal } : {}),
      });
    const controller = new AbortController();
    const cut = post(controller.signal).catch(() => undefined);
    // Cut once the call holds its key, before it can have answered.
    const claimed = () => t.services.store.db.selectFrom('partner_idempotency_keys').select('state').where('idempotency_key', '=', 'cut-1').executeTakeFirst();
    while (!(await claimed())) await sleep(2);
    controller.abort();
    await cut;
    const retry = await post();
    assert.equal(retry.status, 200);
    const answer = (await retry.json()) as { card_ids: number[]; minted_count: number };
    assert.equal(answer.minted_count, 5);
    assert.equal(await nextTokenId(partner.contractAddress), before + 5n, 'five cards, minted once');
    const again = await post();
    assert.deepEqual(await again.json(), answer);
  });

  test('the same key with another body is refused with 4090 and mints nothing', async () => {
    const partner = await signedInPartner(t.app, t.services);
    await mintOk(t.app, partner.token, buildMintPayload(partner));
    const first = await keyedCall(partner.token, 'mint-2', 'POST', '/v2/wallet/mint', buildMintPayload(partner));
    assert.equal(first.statusCode, 200, first.body);
    const before = await nextTokenId(partner.contractAddress);
    const other = await keyedCall(partner.token, 'mint-2', 'POST', '/v2/wallet/mint', buildMintPayload(partner));
    assert.equal(other.statusCode, 400);
    assert.equal(other.json().code, 4090);
    assert.equal(await nextTokenId(partner.contractAddress), before);
    // The key is the partner's own: another partner may use the same text.
    const stranger = await signedInPartner(t.app, t.services);
    const theirs = await keyedCall(stranger.token, 'mint-2', 'POST', '/v2/wallet/mint', buildMintPayload(stranger));
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.equal(theirs.headers[REPLAYED_HEADER], undefined);
  });

  test('ten parallel calls with one key mint once and all get the same answer', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const payload = buildMintPayload(partner, { to_address: buildAddresses(2) });
    const before = await nextTokenId(partner.contractAddress);
    const answers = await Promise.all(Array.from({ length: 10 }, () => keyedCall(partner.token, 'mint-parallel', 'POST', '/v2/wallet/mint', payload)));
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answers.filter((answer) => answer.headers[REPLAYED_HEADER] === undefined).length, 1, 'one call ran');
    for (const answer of answers) assert.deepEqual(answer.json(), answers[0]!.json());
    assert.equal(await nextTokenId(partner.contractAddress), before + 2n);
  });

  test('a call whose process stopped before answering: the retry finds the accepted mint and answers it', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const payload = buildMintPayload(partner, { to_address: buildAddresses(4) });
    const first = await keyedCall(partner.token, 'mint-crash', 'POST', '/v2/wallet/mint', payload);
    assert.equal(first.statusCode, 200, first.body);
    const before = await nextTokenId(partner.contractAddress);
    // As a kill -9 after the mint was accepted leaves it: the key held by a call that no longer renews it, no answer stored.
    await t.services.store.db
      .updateTable('partner_idempotency_keys')
      .set({ state: 'running', holder: 'gone', lease_until_ms: Date.now() - 1, response_status: null, response_body: null, response_type: null })
      .where('partner_id', '=', partner.partner.id)
      .where('idempotency_key', '=', 'mint-crash')
      .execute();
    const retry = await keyedCall(partner.token, 'mint-crash', 'POST', '/v2/wallet/mint', payload);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers[REPLAYED_HEADER], undefined, 'rebuilt, not replayed');
    assert.deepEqual(retry.json(), first.json());
    assert.equal(await nextTokenId(partner.contractAddress), before, 'nothing minted again');
  });

  test('a burn retried with its key answers its first answer, not "card not held"', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const minted = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [partner.partner.main_address] }));
    const body = { pin: partner.pinHash, card_id: minted.card_ids[0], contract_address: partner.contractAddress };
    const first = await keyedCall(partner.token, 'burn-1', 'DELETE', '/v2/wallet/nft', body);
    assert.equal(first.statusCode, 200, first.body);
    const retry = await keyedCall(partner.token, 'burn-1', 'DELETE', '/v2/wallet/nft', body);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers[REPLAYED_HEADER], 'true');
    const unkeyed = await keyedCall(partner.token, undefined, 'DELETE', '/v2/wallet/nft', body);
    assert.notEqual(unkeyed.statusCode, 200, 'without a key the call runs again and is refused');
  });

  test('a malformed key is refused with 400 and changes nothing', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const before = await nextTokenId(partner.contractAddress);
    for (const key of ['', 'x'.repeat(256), 'with space']) {
      const answer = await keyedCall(partner.token, key, 'POST', '/v2/wallet/mint', buildMintPayload(partner));
      assert.equal(answer.statusCode, 400, `key ${JSON.stringify(key)}`);
      // The hook's answer, not a schema refusal: the document lists the header as a plain string.
      assert.deepEqual(answer.json(), { code: 400, err: 'bad request', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' });
    }
    // The access token is checked first.
    const unsigned = await keyedCall('not-a-token', 'with space', 'POST', '/v2/wallet/mint', buildMintPayload(partner));
    assert.notEqual(unsigned.json().code, 400, unsigned.body);
    assert.equal(await nextTokenId(partner.contractAddress), before);
  });

  test('keys are kept 24 hours', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const payload = buildMintPayload(partner);
    assert.equal((await keyedCall(partner.token, 'kept', 'POST', '/v2/wallet/mint', payload)).statusCode, 200);
    const kept = () => t.services.store.db.selectFrom('partner_idempotency_keys').selectAll().where('idempotency_key', '=', 'kept').executeTakeFirst();
    const createdAt = Number((await kept())!.created_at_ms);
    await forgetOldKeys(t.services, createdAt + KEY_RETENTION_MS - 1);
    assert.ok(await kept(), 'kept until 24 hours have passed');
    assert.ok((await forgetOldKeys(t.services, createdAt + KEY_RETENTION_MS + 1)) >= 1);
    assert.equal(await kept(), undefined);
  });
});
