import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address } from 'viem';
import { openServices } from '../services.ts';
import { buildApprovedPartner } from '../testing/factories.ts';
import { eventually } from '../testing/eventually.ts';
import { createTestInstallation, type TestInstallation } from '../testing/test-services.ts';
import { partnerCall, startService, stopService } from '../testing/service-process.ts';
import { databaseUrlWithSchema } from '../testing/test-store.ts';
import { buildAddresses, buildMintPayload } from '../cards/testing/card-factories.ts';
import { Receiver } from './testing/receiver.ts';

/** Cards per mint transaction in this test: a mint of BATCHES x CARDS_PER_BATCH cards gives BATCHES card.minted events. */
const CARDS_PER_BATCH = 2;
const BATCHES = 8;
/** One attempt's time: the lease a killed worker leaves is twice this and 5 s. */
const ATTEMPT_MS = 3_000;

let installation: TestInstallation;
let env: NodeJS.ProcessEnv;
let service: ChildProcess | undefined;
const receiver = new Receiver();
let receiverUrl = '';
before(async () => {
  receiverUrl = await receiver.listen();
  installation = await createTestInstallation();
  const configFile = join(installation.dataDir, 'wallet.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      cards: { maxBatchSize: CARDS_PER_BATCH },
      chains: { ethereum: null, polygon: null },
      webhooks: { allowPrivateAddresses: true, pollIntervalMs: 50, retryDelaysMs: [100, 200, 400, 800, 1600], timeoutMs: ATTEMPT_MS },
    }),
  );
  env = { ...process.env, WALLET_CONFIG: configFile, WALLET_DATA_DIR: installation.dataDir, PORT: '0', LOG_LEVEL: 'warn' };
  if (installation.postgresSchema) env.DATABASE_URL = databaseUrlWithSchema(installation.config.databaseUrl!, installation.postgresSchema);
});
after(async () => {
  await stopService(service);
  await installation.remove();
  await receiver.close();
});

test('the service SIGKILLed mid-delivery: after a restart every event arrives, the one cut off again under the same id', async () => {
  const services = await installation.open();
  const partner = await buildApprovedPartner(services);
  await services.close();

  let started = await startService(env);
  service = started.service;
  const signIn = await partnerCall(started.baseUrl, undefined, 'POST', '/v2/partner/auth', { email: partner.partner.email, password: partner.passwordHash });
  assert.equal(signIn.status, 200);
  const token = signIn.json.access_token as string;
  const endpoint = await partnerCall(started.baseUrl, token, 'POST', '/v2/partner/webhooks', { url: receiverUrl, events: ['card.minted'] });
  assert.equal(endpoint.status, 200, JSON.stringify(endpoint.json));
  receiver.secret = endpoint.json.secret;
  // A slow receiver: each delivery is held long enough (within the attempt's time) for the kill to land in one.
  receiver.holdMs = 1_500;

  const minted = await partnerCall(started.baseUrl, token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: buildAddresses(BATCHES * CARDS_PER_BATCH) }));
  assert.equal(minted.status, 200, JSON.stringify(minted.json));
  assert.equal(minted.json.hashes.length, BATCHES);

  // Kill while a delivery is in flight: it arrived and is not answered yet.
  const deadline = Date.now() + 30_000;
  while (!(receiver.arrived.length >= 2 && receiver.arrived.length > receiver.delivered.length)) {
    assert.ok(Date.now() < deadline, 'deliveries started');
    await sleep(5);
  }
  const killed = service;
  service = undefined;
  const exited = new Promise((resolve) => killed.once('exit', resolve));
  killed.kill('SIGKILL');
  await exited;
  receiver.holdMs = 0;
  await sleep(1_600); // the held answer finds its connection gone
  const cutOff = receiver.arrived.filter((id) => !receiver.delivered.some((message) => message.id === id));
  assert.ok(cutOff.length >= 1, 'a delivery was cut off by the kill');
  const deliveredBeforeKill = receiver.delivered.length;
  assert.ok(deliveredBeforeKill < BATCHES, `delivered before the kill: ${deliveredBeforeKill}`);

  started = await startService(env);
  service = started.service;
  await receiver.waitFor((delivered) => new Set(delivered.map((message) => message.id)).size >= BATCHES, 'every card.minted after the restart', 60_000);

  const delivered = receiver.delivered;
  assert.equal(receiver.badSignatures, 0);
  const ids = new Set(delivered.map((message) => message.id));
  assert.equal(ids.size, BATCHES, 'one message per batch');
  for (const id of cutOff) assert.ok(ids.has(id), `the message cut off (${id}) arrived again under its id`);
  // Every batch's transaction is in exactly one message, and the messages came in the order the batches were minted.
  const hashes = delivered.filter((message, index) => delivered.findIndex((other) => other.id === message.id) === index).map((message) => message.data.tx_hash);
  assert.deepEqual([...hashes].sort(), [...minted.json.hashes].sort());
  const cards = delivered.flatMap((message) => message.data.cards as Array<{ card_id: number }>).map((card) => card.card_id);
  assert.deepEqual([...new Set(cards)].sort((a, b) => a - b), Array.from({ length: BATCHES * CARDS_PER_BATCH }, (_, index) => index + 1));

  const tokenAfterRestart = (await partnerCall(started.baseUrl, undefined, 'POST', '/v2/partner/auth', { email: partner.partner.email, password: partner.passwordHash })).json.access_token;
  // Read once the service has recorded the last answer: the receiver counts a message before its answer gets back.
  const messages = await eventually('every message recorded as delivered', 30_000, async () => {
    const log = await partnerCall(started.baseUrl, tokenAfterRestart, 'GET', `/v2/partner/webhooks/${endpoint.json.id}/deliveries?limit=100`);
    assert.equal(log.status, 200);
    const listed = log.json.messages as Array<{ id: string; status: string }>;
    return listed.every((message) => message.status === 'delivered') ? listed : undefined;
  });
  assert.deepEqual(new Set(messages.map((message) => message.id)), ids);
});

test('the service SIGKILLed after a send was submitted and before its answer: the card.sent event arrives once, and the retry with the key answers the first call\'s transaction', async () => {
  await stopService(service);
  service = undefined;
  const setup = await installation.open();
  const partner = await buildApprovedPartner(setup);
  await setup.close();
  const signIn = async (baseUrl: string) => (await partnerCall(baseUrl, undefined, 'POST', '/v2/partner/auth', { email: partner.partner.email, password: partner.passwordHash })).json.access_token as string;

  let started = await startService(env);
  service = started.service;
  let token = await signIn(started.baseUrl);
  const endpoint = await partnerCall(started.baseUrl, token, 'POST', '/v2/partner/webhooks', { url: receiverUrl, events: ['card.sent'] });
  assert.equal(endpoint.status, 200, JSON.stringify(endpoint.json));
  receiver.secret = endpoint.json.secret;
  receiver.holdMs = 0;
  const minted = await partnerCall(started.baseUrl, token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: [partner.partner.main_address] }));
  assert.equal(minted.status, 200, JSON.stringify(minted.json));
  const cardId = minted.json.card_ids[0] as number;
  await stopService(service);

  // This run dies (SIGKILL) as soon as the send's transaction is stored: before it is mined, before any answer.
  started = await startService({ ...env, WALLET_TEST_KILL_AFTER_SUBMIT: 'card-send:' });
  service = started.service;
  const exited = new Promise((resolve) => started.service.once('exit', (_code, signal) => resolve(signal)));
  token = await signIn(started.baseUrl);
  const recipient = buildAddresses(1)[0]!;
  const sendPath = `/v2/wallet/nft/${partner.nftId}/${cardId}/send`;
  const sendBody = { pin: partner.pinHash, card_name: 'Gold', to_address: recipient };
  const keyed = { 'idempotency-key': 'send-after-crash' };
  await assert.rejects(partnerCall(started.baseUrl, token, 'POST', sendPath, sendBody, keyed), 'the call got no answer');
  assert.equal(await exited, 'SIGKILL');
  service = undefined;

  // The retry comes once the first call's lease on the key has run out (as 30 s after the kill would leave it).
  const attach = () => openServices(installation.config, { chainMode: 'attach', ...(installation.postgresSchema ? { postgresSchema: installation.postgresSchema } : {}) });
  let services = await attach();
  let submitted;
  try {
    submitted = await services.store.db.selectFrom('outbox_transactions').select(['tx_hash', 'status']).where('idempotency_key', 'like', 'card-send:%').execute();
    assert.equal(submitted.length, 1, 'the send was stored before the kill');
    const held = await services.store.db.selectFrom('webhook_messages').select(['status', 'event_type']).where('partner_id', '=', partner.partner.id).execute();
    assert.deepEqual(held, [{ status: 'held', event_type: 'card.sent' }], 'its event was stored with it, held');
    await services.store.db.updateTable('partner_idempotency_keys').set({ lease_until_ms: Date.now() - 1 }).where('partner_id', '=', partner.partner.id).where('idempotency_key', '=', keyed['idempotency-key']).execute();
  } finally {
    await services.close();
  }

  started = await startService(env);
  service = started.service;
  token = await signIn(started.baseUrl);
  const retry = await partnerCall(started.baseUrl, token, 'POST', sendPath, sendBody, keyed);
  assert.equal(retry.status, 200, JSON.stringify(retry.json));
  assert.equal(retry.headers.get('idempotent-replayed'), null, 'answered from the transaction, not a stored answer');
  assert.equal(retry.json.hash, submitted[0]!.tx_hash, "the first call's transaction");
  const again = await partnerCall(started.baseUrl, token, 'POST', sendPath, sendBody, keyed);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.json, retry.json);

  services = await attach();
  try {
    const owner = await services.chains.get('main').client.readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] });
    assert.equal(owner.toLowerCase(), recipient.toLowerCase(), 'the card moved');
    assert.equal((await services.store.db.selectFrom('outbox_transactions').select('id').where('idempotency_key', 'like', 'card-send:%').execute()).length, 1, 'one transfer, sent once');
  } finally {
    await services.close();
  }

  await receiver.waitFor((delivered) => delivered.some((message) => message.type === 'card.sent' && message.data.card_id === cardId), 'card.sent after the restart');
  await sleep(500);
  const sent = receiver.delivered.filter((message) => message.type === 'card.sent' && message.data.card_id === cardId);
  assert.equal(new Set(sent.map((message) => message.id)).size, 1, 'one event');
  assert.equal(sent[0]!.data.tx_hash, retry.json.hash);
  assert.equal(sent[0]!.data.to, recipient.toLowerCase());
  assert.equal(receiver.badSignatures, 0);
});
