import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signedInMember } from '../a2a/testing/support.ts';
import { buildMintPayload, mintOk, partnerCall } from '../cards/testing/card-factories.ts';
import { cliFor } from '../cli/testing/run-cli.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { eventually } from '../testing/eventually.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { WEBHOOK_EVENTS } from './events.ts';
import { Receiver } from './testing/receiver.ts';

let t: TestApp;
const receiver = new Receiver();
let receiverUrl = '';
before(async () => {
  receiverUrl = await receiver.listen();
  // A failing message holds the others 500 ms; it is retried for about 50 s before it is given up.
  t = await openTestApp({ webhooks: { allowPrivateAddresses: true, pollIntervalMs: 50, retryDelaysMs: [200, 400, ...Array<number>(48).fill(1_000)], timeoutMs: 2_000, holdLaterMessagesMs: 500 } });
});
after(async () => {
  await t?.cleanup();
  await receiver.close();
});

test('a message the receiver refuses holds the later ones only briefly: they arrive while it retries, then it is delivered, and each card keeps its order', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: object) => partnerCall(t.app, partner.token, method, url, body);
  const created = await call('POST', '/v2/partner/webhooks', { url: receiverUrl, events: [...WEBHOOK_EVENTS] });
  assert.equal(created.statusCode, 200, created.body);
  const endpoint = created.json() as { id: string; secret: string };
  receiver.secret = endpoint.secret;
  // The receiver cannot take the first card.minted it gets (until told otherwise): 500 each time.
  let refusedId: string | null = null;
  let refusing = true;
  receiver.refuse = (message) => {
    if (refusedId === null && message.type === 'card.minted') refusedId = message.id;
    return refusing && message.id === refusedId;
  };

  const own = partner.partner.main_address;
  const member = await signedInMember(t.app, t.services);
  const first = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own] }));
  const a = first.card_ids[0]!;
  const second = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [own, own] }));
  const [b1, b2] = second.card_ids as number[];
  const send = async (cardId: number) => {
    const sent = await call('POST', `/v2/wallet/nft/${partner.nftId}/${cardId}/send`, { pin: partner.pinHash, card_name: 'Gold', to_address: member.address });
    assert.equal(sent.statusCode, 200, sent.body);
  };
  // Card a's send is queued before b1's: it waits for a's refused card.minted, and must not hold b1's.
  await send(a!);
  await send(b1!);
  const burned = await call('DELETE', '/v2/wallet/nft', { pin: partner.pinHash, card_id: b2, contract_address: partner.contractAddress });
  assert.equal(burned.statusCode, 200, burned.body);

  const about = (cardId: number) => (message: { type: string; data: Record<string, any> }) =>
    message.data.card_id === cardId || (message.data.cards as Array<{ card_id: number }> | undefined)?.some((card) => card.card_id === cardId) === true;
  await receiver.waitFor((delivered) => delivered.some((message) => message.type === 'card.sent' && message.data.card_id === b1) && delivered.some((message) => message.type === 'card.deleted'), 'the events of cards b1 and b2 while card a\'s mint is refused');
  assert.ok(refusedId !== null, 'the first card.minted arrived and was refused');
  const mintedA = await t.services.store.db.selectFrom('webhook_messages').selectAll().where('id', '=', refusedId).executeTakeFirstOrThrow();
  assert.ok(JSON.parse(mintedA.payload).data.cards.some((card: { card_id: number }) => card.card_id === a), 'the refused message is card a\'s mint');
  assert.ok(!receiver.delivered.some(about(a!)), 'nothing about card a before its card.minted');
  assert.deepEqual(
    receiver.delivered.map((message) => message.type),
    ['card.minted', 'card.sent', 'card.deleted'],
    'the later events went on, in their order',
  );

  // The receiver has its copies before the service hears its answers: wait for the service to record them.
  await eventually('the three later messages recorded as delivered', 30_000, async () => {
    const rows = await t.services.store.db.selectFrom('webhook_messages').select('id').where('endpoint_id', '=', endpoint.id).where('status', '=', 'delivered').execute();
    return rows.length >= 3 ? rows : undefined;
  });
  // The delivery log shows the refused message pending, when it is tried next and why it failed.
  const { cli, restore } = await cliFor(t.services);
  try {
    const json = await cli('webhook', 'deliveries', '--email', partner.partner.email, '--endpoint', endpoint.id, '--json');
    assert.equal(json.code, 0, json.stderr);
    const messages = (JSON.parse(json.stdout) as { messages: Array<{ id: string; type: string; status: string; attempts: number; nextAttemptAt: number | null; lastError: string | null; attemptLog: Array<{ at: number }> }> }).messages;
    const refused = messages.find((message) => message.id === refusedId)!;
    assert.equal(refused.status, 'pending');
    assert.ok(refused.attempts >= 1);
    assert.equal(refused.lastError, 'HTTP 500');
    assert.equal(typeof refused.nextAttemptAt, 'number');
    assert.ok(refused.nextAttemptAt! > refused.attemptLog.at(-1)!.at, 'the next attempt comes after the last one');
    const delivered = messages.filter((message) => message.status === 'delivered');
    assert.deepEqual(
      delivered.map((message) => ({ nextAttemptAt: message.nextAttemptAt, lastError: message.lastError })),
      Array(3).fill({ nextAttemptAt: null, lastError: null }),
    );
    const text = await cli('webhook', 'deliveries', '--email', partner.partner.email, '--endpoint', endpoint.id);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^  id=${refusedId} type=card.minted status=pending attempts=\\d+ nextAttemptAt=\\d{13} lastError=HTTP 500 `, 'm'));
  } finally {
    restore();
  }
  const log = await call('GET', `/v2/partner/webhooks/${endpoint.id}/deliveries`);
  assert.equal(log.statusCode, 200, log.body);
  const logged = (log.json().messages as Array<{ id: string; next_attempt_at: number | null; last_error: string | null }>).find((message) => message.id === refusedId)!;
  assert.equal(typeof logged.next_attempt_at, 'number');
  assert.equal(logged.last_error, 'HTTP 500');

  // The receiver takes it now: a retry on its schedule delivers it, and card a's send follows it.
  refusing = false;
  await receiver.waitFor((delivered) => delivered.some((message) => message.type === 'card.sent' && message.data.card_id === a), 'card a\'s mint, then its send');
  const types = receiver.delivered.map((message) => message.type);
  assert.equal(types.length, 5);
  assert.equal(new Set(receiver.delivered.map((message) => message.id)).size, 5, 'each message once');
  for (const cardId of [a!, b1!, b2!]) {
    const ofCard = receiver.delivered.filter(about(cardId)).map((message) => message.type);
    assert.equal(ofCard[0], 'card.minted', `card ${cardId}: minted first (${ofCard.join(', ')})`);
    assert.equal(ofCard.length, 2, `card ${cardId}: ${ofCard.join(', ')}`);
  }
  const stored = await t.services.store.db.selectFrom('webhook_messages').selectAll().where('id', '=', refusedId).executeTakeFirstOrThrow();
  assert.equal(stored.status, 'delivered');
  assert.ok(Number(stored.attempts) >= 2, 'delivered on a retry');
  assert.ok(receiver.arrived.indexOf(refusedId) < receiver.arrived.findIndex((id) => receiver.delivered.some((message) => message.id === id && message.type === 'card.sent' && message.data.card_id === a)));
});
