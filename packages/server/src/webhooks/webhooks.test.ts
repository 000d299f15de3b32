import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { signedInMember, walletApp } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { freshPhone } from '../people/test-support.ts';
import { buildUser } from '../testing/factories.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { createWebhookEndpoint } from './commands.ts';
import { sealWebhookSecretsInClear } from '../custody/sealed-values.ts';
import { encodeFunctionData, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { holdWebhookEvent, newMessageRow, TEST_EVENT, webhookPayload } from './events.ts';
import { insertMessages, leaseMessage, recordAttempt } from './store.ts';
import { randomUUID } from 'node:crypto';
import { releaseHeldWebhooks } from './release.ts';
import { WEBHOOK_EVENTS } from './events.ts';
import { signWebhook } from './signing.ts';
import { Receiver } from './testing/receiver.ts';
import { eventually } from '../testing/eventually.ts';
import { zeroAddress } from 'viem';
import { mintCards } from '../cards/mint/commands.ts';
import { partnerCardContract } from '../cards/partner-signing.ts';
import { designOf, type MintDesignPayload } from '../cards/mint/payload.ts';

let t: TestApp;
const receiver = new Receiver();
let receiverUrl = '';
/** The partner API as the partner holding `token` calls it. */
const callsAs = (token: string) => (method: 'GET' | 'POST' | 'DELETE', url: string, body?: object) => partnerCall(t.app, token, method, url, body);

before(async () => {
  receiverUrl = await receiver.listen();
  t = await openTestApp({ webhooks: { allowPrivateAddresses: true, pollIntervalMs: 50, retryDelaysMs: [100, 200, 300, 400, 500], timeoutMs: 2_000 } });
});
after(async () => {
  await t?.cleanup();
  await receiver.close();
});

describe('webhooks', () => {
  test('the signature is Standard Webhooks\' (its published example)', () => {
    assert.equal(signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('a scripted partner session: every event arrives signed, in order, none lost while the receiver answered 500', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const call = callsAs(partner.token);
    const created = await call('POST', '/v2/partner/webhooks', { url: receiverUrl, events: [...WEBHOOK_EVENTS] });
    assert.equal(created.statusCode, 200, created.body);
    const endpoint = created.json() as { id: string; secret: string; events: string[] };
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    receiver.secret = endpoint.secret;
    receiver.failing = 4;

    const own = partner.partner.main_address;
    const member = await signedInMember(t.app, t.services);
    const minted = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own, own, own, member.address] }));
    const [c1, c2, c3] = minted.card_ids as number[];
    const newcomer = { name: 'Newcomer Park', phone: freshPhone() };
    const toPerson = await call('POST', '/v2/wallet/mint/person', buildMintPayload(partner, { to_address: undefined, to_person: [[newcomer.name, newcomer.phone]] }));
    assert.equal(toPerson.statusCode, 200, toPerson.body);
    const sent = await call('POST', `/v2/wallet/nft/${partner.nftId}/${c1}/send`, { pin: partner.pinHash, card_name: 'Gold', to_address: member.address });
    assert.equal(sent.statusCode, 200, sent.body);
    const burned = await call('DELETE', '/v2/wallet/nft', { pin: partner.pinHash, card_id: c2, contract_address: partner.contractAddress });
    assert.equal(burned.statusCode, 200, burned.body);
    const escrowBody = (extra: object) => ({ pin: partner.pinHash, contract_address: partner.contractAddress, ...extra });
    assert.equal((await call('POST', '/v2/escrow/approve', escrowBody({}))).statusCode, 200);
    const deposit = await call('POST', '/v2/escrow', escrowBody({ card_ids: [c3, minted.card_ids[3]] }));
    // The fourth card is the member's: refused as not held, counted in fail_count.
    assert.equal(deposit.statusCode, 200, deposit.body);
    assert.equal(deposit.json().fail_count, 1);
    const link = new URL(deposit.json().claim_links[0] as string);
    const claimId = link.pathname.split('/').pop()!;
    const claimed = await walletApp(t.app, member.token, 'POST', `/v2/wallet-app/claims/${claimId}/claim`, { secret: link.hash.slice(1) });
    assert.equal(claimed.statusCode, 200, claimed.body);
    // A repeated claim call reports the claim once.
    assert.equal((await walletApp(t.app, member.token, 'POST', `/v2/wallet-app/claims/${claimId}/claim`, { secret: link.hash.slice(1) })).statusCode, 200);
    const more = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own] }));
    const c5 = more.card_ids[0]!;
    assert.equal((await call('POST', '/v2/escrow', escrowBody({ card_ids: [c5] }))).statusCode, 200);
    const cancelled = await call('DELETE', '/v2/escrow', escrowBody({ card_ids: [c5] }));
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const joined = await buildUser(t.services, { name: newcomer.name, phone: newcomer.phone });

    const expected = ['card.minted', 'card.minted', 'invite.sent', 'card.sent', 'card.deleted', 'escrow.created', 'escrow.claimed', 'card.minted', 'escrow.created', 'escrow.cancelled', 'invite.accepted'];
    await receiver.waitFor((delivered) => delivered.length >= expected.length, 'every event');
    await sleep(300);
    const delivered = receiver.delivered;
    assert.equal(receiver.badSignatures, 0, 'every signature verifies');
    assert.ok(receiver.requests >= expected.length + 4, 'the four 500 answers were retried');
    assert.equal(new Set(delivered.map((message) => message.id)).size, delivered.length, 'nothing delivered twice');
    assert.deepEqual(delivered.map((message) => message.type).sort(), [...expected].sort());
    // In the order they happened (the mint to a person may send its invite before or after its card is minted).
    const order = delivered.map((message) => message.type).filter((type) => type !== 'invite.sent');
    assert.deepEqual(order, expected.filter((type) => type !== 'invite.sent'));
    const byType = (type: string) => delivered.filter((message) => message.type === type).map((message) => message.data);

    const [firstMint, personMint, lastMint] = byType('card.minted');
    assert.equal(firstMint!.tx_hash, minted.hash);
    assert.equal(firstMint!.contract_address, partner.contractAddress.toLowerCase());
    assert.deepEqual(
      [...firstMint!.cards].sort((a: { card_id: number }, b: { card_id: number }) => a.card_id - b.card_id),
      minted.card_ids.map((cardId, index) => ({ card_id: cardId, owner: [own, own, own, member.address][index]!.toLowerCase() })).sort((a, b) => a.card_id! - b.card_id!),
    );
    assert.equal(personMint!.tx_hash, toPerson.json().hash);
    assert.equal(lastMint!.cards[0].card_id, c5);
    assert.deepEqual(byType('invite.sent').map((data) => [data.name, data.phone]), [[newcomer.name, newcomer.phone]]);
    assert.deepEqual(byType('card.sent'), [{ chain: 'main', contract_address: partner.contractAddress.toLowerCase(), nft_id: Number(partner.nftId), card_id: c1, from: own.toLowerCase(), to: member.address.toLowerCase(), tx_hash: sent.json().hash }]);
    assert.deepEqual(byType('card.deleted'), [{ chain: 'main', contract_address: partner.contractAddress.toLowerCase(), nft_id: Number(partner.nftId), card_id: c2, tx_hash: burned.json().hash }]);
    const [deposited] = byType('escrow.created');
    assert.deepEqual(deposited!.cards, [{ card_id: c3, claim_id: claimId }]);
    assert.equal(deposited!.tx_hash, deposit.json().tx_hash);
    assert.doesNotMatch(JSON.stringify(delivered), new RegExp(link.hash.slice(1)), 'no claim secret leaves the service');
    assert.deepEqual(byType('escrow.claimed').map((data) => [data.card_id, data.claim_id, data.claimed_to]), [[c3, claimId, member.address.toLowerCase()]]);
    assert.deepEqual(byType('escrow.cancelled').map((data) => [data.card_ids, data.tx_hash]), [[[c5], cancelled.json().tx_hash]]);
    assert.deepEqual(byType('invite.accepted').map((data) => [data.name, data.phone, data.address]), [[newcomer.name, newcomer.phone, joined.user.main_address]]);

    // The delivery log shows the 500s and the deliveries, each message under the id it was sent with.
    // Read once the service has recorded the last answer: the receiver counts a message before its answer gets back.
    const messages = await eventually('every message recorded as delivered', 30_000, async () => {
      const log = await call('GET', `/v2/partner/webhooks/${endpoint.id}/deliveries?limit=100`);
      assert.equal(log.statusCode, 200, log.body);
      const listed = log.json().messages as Array<{ id: string; status: string; attempt_log: Array<{ response_status: number | null }> }>;
      return listed.every((message) => message.status === 'delivered') ? listed : undefined;
    });
    assert.equal(messages.length, expected.length);
    const statuses = messages.flatMap((message) => message.attempt_log.map((attempt) => attempt.response_status));
    assert.equal(statuses.filter((status) => status === 500).length, 4);
    assert.equal(statuses.filter((status) => status === 204).length, expected.length);
    assert.deepEqual(new Set(messages.map((message) => message.id)), new Set(delivered.map((message) => message.id)));
  });

  test('a mint batch that reverts: card.mint_failed with its recipients, its transaction and why', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const created = await partnerCall(t.app, partner.token, 'POST', '/v2/partner/webhooks', { url: receiverUrl, events: ['card.mint_failed'] });
    receiver.secret = created.json().secret;
    const row = await t.services.store.db.selectFrom('partners').selectAll().where('id', '=', partner.partner.id).executeTakeFirstOrThrow();
    // ERC-721 refuses the zero address: the batch's transaction reverts on chain.
    const outcome = await mintCards(t.services, { partner: row, contract: await partnerCardContract(t.services, row), authorization: { pin: partner.pinHash }, design: designOf(buildMintPayload(partner) as unknown as MintDesignPayload), recipients: [zeroAddress] });
    assert.equal(outcome.failCount, 1);
    await receiver.waitFor((delivered) => delivered.some((message) => message.type === 'card.mint_failed'), 'card.mint_failed');
    const failed = receiver.delivered.find((message) => message.type === 'card.mint_failed')!;
    assert.equal(receiver.badSignatures, 0);
    assert.deepEqual(failed.data.recipients, [zeroAddress]);
    assert.equal(failed.data.tx_hash, outcome.hashes[0]);
    assert.equal(failed.data.contract_address, partner.contractAddress.toLowerCase());
    assert.equal(typeof failed.data.reason, 'string');
    assert.equal((await partnerCall(t.app, partner.token, 'DELETE', `/v2/partner/webhooks/${created.json().id}`)).statusCode, 200);
  });

  test('endpoints: listed without their secret, rotated, tested, redelivered by hand, deleted; bad input refused', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const call = callsAs(partner.token);
    for (const body of [{ url: 'ftp://example.com/x', events: ['card.sent'] }, { url: receiverUrl, events: ['card.exploded'] }, { url: receiverUrl, events: [] }, { url: 'https://user:pw@example.com/', events: ['card.sent'] }]) {
      const refused = await call('POST', '/v2/partner/webhooks', body);
      assert.equal(refused.statusCode, 400, JSON.stringify(body));
      assert.equal(refused.json().code, 400);
    }
    // Without allowPrivateAddresses (the default), loopback and private receivers are refused.
    const strict = { config: { ...t.services.config, webhooks: { ...t.services.config.webhooks, allowPrivateAddresses: false } }, store: t.services.store, vault: t.services.vault };
    for (const url of ['http://127.0.0.1:9/x', 'http://10.0.0.8/x', 'http://[::1]/x', 'http://localhost/x']) {
      await assert.rejects(createWebhookEndpoint(strict, partner.partner.id, { url, events: ['card.sent'] }), (error: { code?: number }) => error.code === 400, url);
    }
    assert.deepEqual((await call('GET', '/v2/partner/webhooks')).json(), { endpoints: [] });

    const created = (await call('POST', '/v2/partner/webhooks', { url: receiverUrl, events: ['card.deleted'] })).json() as { id: string; secret: string };
    const listed = (await call('GET', '/v2/partner/webhooks')).json();
    assert.deepEqual(listed.endpoints.map((endpoint: Record<string, unknown>) => [endpoint.id, endpoint.url, endpoint.events, 'secret' in endpoint]), [[created.id, receiverUrl, ['card.deleted'], false]]);
    const rotated = await call('POST', `/v2/partner/webhooks/${created.id}/rotate-secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.notEqual(rotated.json().secret, created.secret);
    receiver.secret = rotated.json().secret;
    const before = receiver.delivered.length;
    const tested = await call('POST', `/v2/partner/webhooks/${created.id}/test`);
    assert.equal(tested.statusCode, 200, tested.body);
    const messageId = tested.json().message_id as string;
    await receiver.waitFor((delivered) => delivered.some((message) => message.id === messageId), 'the test message');
    assert.equal(receiver.delivered[before]!.type, 'webhook.test');
    assert.equal(receiver.badSignatures, 0, 'signed with the new secret');

    const redelivered = await call('POST', `/v2/partner/webhooks/${created.id}/messages/${messageId}/redeliver`);
    assert.equal(redelivered.statusCode, 200, redelivered.body);
    await receiver.waitFor((delivered) => delivered.filter((message) => message.id === messageId).length === 2, 'the redelivery');
    const copies = receiver.delivered.filter((message) => message.id === messageId);
    assert.equal(copies[0]!.body, copies[1]!.body, 'the same id and body');

    // Another partner sees none of it.
    const stranger = await signedInPartner(t.app, t.services);
    const theirs = await partnerCall(t.app, stranger.token, 'GET', `/v2/partner/webhooks/${created.id}/deliveries`);
    assert.equal(theirs.statusCode, 404);
    assert.equal((await partnerCall(t.app, stranger.token, 'DELETE', `/v2/partner/webhooks/${created.id}`)).statusCode, 404);

    assert.equal((await call('DELETE', `/v2/partner/webhooks/${created.id}`)).statusCode, 200);
    assert.deepEqual((await call('GET', '/v2/partner/webhooks')).json(), { endpoints: [] });
    assert.equal((await call('POST', `/v2/partner/webhooks/${created.id}/test`)).statusCode, 404);
    const unsigned = await t.app.inject({ method: 'GET', url: '/v2/partner/webhooks' });
    assert.equal(unsigned.statusCode, 401);
  });

  test('a redelivery asked for while the message is still on its way is sent again, not taken as done by that attempt', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const call = callsAs(partner.token);
    const slow = new Receiver();
    const url = await slow.listen();
    try {
      const created = (await call('POST', '/v2/partner/webhooks', { url, events: ['card.deleted'] })).json() as { id: string; secret: string };
      slow.secret = created.secret;
      slow.holdMs = 1_000;
      const messageId = (await call('POST', `/v2/partner/webhooks/${created.id}/test`)).json().message_id as string;
      await slow.waitFor(() => slow.arrived.includes(messageId), 'the first attempt arriving');
      // Its answer is held back: the attempt is in flight when the partner asks again.
      const redelivered = await call('POST', `/v2/partner/webhooks/${created.id}/messages/${messageId}/redeliver`);
      assert.equal(redelivered.statusCode, 200, redelivered.body);
      slow.holdMs = 0;
      await slow.waitFor((delivered) => delivered.filter((message) => message.id === messageId).length === 2, 'the redelivery');
      // The receiver counts a message as it answers; the worker records the attempt after it reads that answer.
      const message = await eventually('both attempts in the delivery log', 30_000, async () => {
        const log = (await call('GET', `/v2/partner/webhooks/${created.id}/deliveries`)).json();
        const entry = log.messages.find((candidate: { id: string }) => candidate.id === messageId);
        return entry?.attempt_log.length === 2 ? entry : undefined;
      });
      assert.equal(message.status, 'delivered', JSON.stringify(message));
    } finally {
      await slow.close();
    }
  });

  test('the delivery log reads a message and its attempts at one moment: an attempt recorded meanwhile shows with its outcome or not at all', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const call = callsAs(partner.token);
    const endpoint = (await call('POST', '/v2/partner/webhooks', { url: 'http://127.0.0.1:9/never-called', events: ['card.deleted'] })).json() as { id: string };
    const db = t.services.store.db;
    const holder = 'delivery-log-test';
    // As the worker does, an attempt recorded beside reads of the log. The messages are due in an
    // hour, so the service's own worker leaves them alone.
    for (let round = 0; round < 40; round++) {
      const now = Date.now();
      const row = newMessageRow({ endpointId: endpoint.id, partnerId: partner.partner.id, type: TEST_EVENT, payload: webhookPayload(TEST_EVENT, {}, now), atMs: now });
      await insertMessages(db, [{ ...row, next_attempt_ms: now + 3_600_000 }]);
      assert.ok(await leaseMessage(db, row.id, holder, now, now + 60_000));
      const attempt = { id: randomUUID(), message_id: row.id, endpoint_id: endpoint.id, at_ms: now, response_status: 204, error: null, duration_ms: 1 };
      const readLog = async () => {
        const log = (await call('GET', `/v2/partner/webhooks/${endpoint.id}/deliveries`)).json() as { messages: Array<{ id: string; status: string; attempts: number; attempt_log: unknown[] }> };
        return log.messages.find((message) => message.id === row.id)!;
      };
      const [, ...seen] = await Promise.all([recordAttempt(db, attempt, holder, { status: 'delivered' }), readLog(), readLog(), readLog(), readLog()]);
      for (const message of [...seen, await readLog()]) {
        const recorded = message.attempt_log.length === 1;
        assert.equal(message.status, recorded ? 'delivered' : 'pending', JSON.stringify(message));
        assert.equal(message.attempts, recorded ? 1 : 0, JSON.stringify(message));
      }
    }
  });

  test('a rotation keeps the old secret signing for its overlap: a receiver holding only the old secret verifies during it, not after', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const call = callsAs(partner.token);
    const oldReceiver = new Receiver();
    const url = await oldReceiver.listen();
    try {
      const created = (await call('POST', '/v2/partner/webhooks', { url, events: ['card.sent'] })).json() as { id: string; secret: string; previous_secret_expires_at: number | null };
      assert.equal(created.previous_secret_expires_at, null);
      oldReceiver.secret = created.secret;
      const rotated = await call('POST', `/v2/partner/webhooks/${created.id}/rotate-secret`, { overlap_seconds: 3600 });
      assert.equal(rotated.statusCode, 200, rotated.body);
      const expiresAt = rotated.json().previous_secret_expires_at as number;
      assert.equal(typeof expiresAt, 'number');
      const listed = (await call('GET', '/v2/partner/webhooks')).json().endpoints as Array<{ id: string; previous_secret_expires_at: number | null }>;
      assert.deepEqual(listed.map((endpoint) => [endpoint.id, endpoint.previous_secret_expires_at]), [[created.id, expiresAt]]);

      // During the overlap: signed with both secrets; the old one verifies.
      const during = (await call('POST', `/v2/partner/webhooks/${created.id}/test`)).json().message_id as string;
      await oldReceiver.waitFor((delivered) => delivered.some((message) => message.id === during), 'the message during the overlap');
      assert.equal(oldReceiver.badSignatures, 0);

      // As the overlap's end leaves it: the old secret no longer signs.
      await t.services.store.db.updateTable('webhook_endpoints').set({ previous_secret_until_ms: Date.now() - 1 }).where('id', '=', created.id).execute();
      assert.equal((await call('GET', '/v2/partner/webhooks')).json().endpoints[0].previous_secret_expires_at, null);
      const afterwards = (await call('POST', `/v2/partner/webhooks/${created.id}/test`)).json().message_id as string;
      const end = Date.now() + 10_000;
      while (oldReceiver.badSignatures === 0 && Date.now() < end) await sleep(50);
      assert.ok(oldReceiver.badSignatures > 0, 'the old secret alone no longer verifies');
      assert.ok(!oldReceiver.delivered.some((message) => message.id === afterwards));
      const newSecret = rotated.json().secret as string;
      oldReceiver.secret = newSecret;
      await oldReceiver.waitFor((delivered) => delivered.some((message) => message.id === afterwards), 'the message after the overlap, with the new secret');

      // overlap_seconds 0: the old secret stops at once.
      const abrupt = await call('POST', `/v2/partner/webhooks/${created.id}/rotate-secret`, { overlap_seconds: 0 });
      assert.equal(abrupt.json().previous_secret_expires_at, null);
      const tooLong = await call('POST', `/v2/partner/webhooks/${created.id}/rotate-secret`, { overlap_seconds: 8 * 24 * 3600 });
      assert.equal(tooLong.statusCode, 400);
    } finally {
      await oldReceiver.close();
    }
  });

  test('signing secrets are sealed under the master key at rest; one stored in clear (before migration 018) still signs and is sealed at start', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const created = (await partnerCall(t.app, partner.token, 'POST', '/v2/partner/webhooks', { url: receiverUrl, events: ['card.sent'] })).json() as { id: string; secret: string };
    const readRow = () => t.services.store.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const sealed = await readRow();
    assert.ok(!sealed.secret.includes(created.secret.slice('whsec_'.length)), 'the stored column is not the secret');
    assert.notEqual(sealed.secret_master_key_id, null);

    // A row as a store from before migration 018 has it.
    await t.services.store.db.updateTable('webhook_endpoints').set({ secret: created.secret, secret_master_key_id: null }).where('id', '=', created.id).execute();
    receiver.secret = created.secret;
    const inClear = (await partnerCall(t.app, partner.token, 'POST', `/v2/partner/webhooks/${created.id}/test`)).json().message_id as string;
    await receiver.waitFor((delivered) => delivered.some((message) => message.id === inClear), 'a message signed with a secret in clear');
    assert.ok((await sealWebhookSecretsInClear({ db: t.services.store.db, vault: t.services.vault })) >= 1);
    const resealed = await readRow();
    assert.notEqual(resealed.secret, created.secret);
    assert.notEqual(resealed.secret_master_key_id, null);
    const afterSealing = (await partnerCall(t.app, partner.token, 'POST', `/v2/partner/webhooks/${created.id}/test`)).json().message_id as string;
    await receiver.waitFor((delivered) => delivered.some((message) => message.id === afterSealing), 'a message signed with the sealed secret');
    assert.equal(receiver.badSignatures, 0);
    assert.equal((await partnerCall(t.app, partner.token, 'DELETE', `/v2/partner/webhooks/${created.id}`)).statusCode, 200);
  });

  test('an event held with a transaction that reverts is dropped, never sent; a release runs once whoever repeats it', async () => {
    const partner = await signedInPartner(t.app, t.services);
    const created = (await partnerCall(t.app, partner.token, 'POST', '/v2/partner/webhooks', { url: receiverUrl, events: ['card.deleted'] })).json() as { id: string; secret: string };
    receiver.secret = created.secret;
    const key = await t.services.vault.unlock(partner.partner.key_id, partner.pinHash);
    const submitBurn = (cardId: number, idempotencyKey: string) =>
      t.services.outbox.submit({
        idempotencyKey,
        chain: 'main',
        signer: { address: key.address, account: key.account },
        to: partner.contractAddress as Address,
        data: encodeFunctionData({ abi: cardNftAbi, functionName: 'burn', args: [BigInt(cardId)] }),
        // Given, so the node does not refuse it before it is sent: it reverts on chain.
        gas: 200_000n,
        alongside: holdWebhookEvent({ partnerId: partner.partner.id, type: 'card.deleted', data: { card_id: cardId } }),
      });
    const messagesOf = () => t.services.store.db.selectFrom('webhook_messages').select(['status', 'payload']).where('endpoint_id', '=', created.id).execute();
    const submitted = await submitBurn(987_654, `test-burn:${created.id}`);
    // Stored with the transaction (the outbox's receipt and a worker pass come later).
    assert.deepEqual((await messagesOf()).map((message) => message.status), ['held']);
    const reverted = await t.services.outbox.waitForFinal(submitted.id);
    assert.equal(reverted.receiptStatus, 'reverted');
    // The same key again stores nothing new, its event included.
    await submitBurn(987_654, `test-burn:${created.id}`);
    const end = Date.now() + 10_000;
    while ((await messagesOf()).length > 0 && Date.now() < end) await sleep(50);
    assert.deepEqual(await messagesOf(), [], 'the held event is gone');
    assert.equal(await releaseHeldWebhooks(t.services), 0, 'nothing left to release');
    assert.ok(!receiver.delivered.some((message) => message.type === 'card.deleted' && message.data.card_id === 987_654));
    assert.equal((await partnerCall(t.app, partner.token, 'DELETE', `/v2/partner/webhooks/${created.id}`)).statusCode, 200);
  });
});
