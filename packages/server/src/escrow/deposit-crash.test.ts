import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import { keccak256, type Address, type Hex } from 'viem';
import { openServices } from '../services.ts';
import { buildApprovedPartner, buildUser } from '../testing/factories.ts';
import { createTestInstallation, type TestInstallation } from '../testing/test-services.ts';
import { partnerCall, startService, stopService } from '../testing/service-process.ts';
import { databaseUrlWithSchema } from '../testing/test-store.ts';
import { buildAddresses, buildMintPayload } from '../cards/testing/card-factories.ts';
import { forgetOldKeys } from '../partner-api/idempotency/commands.ts';
import { claimCard } from './claims/commands.ts';
import { claimLinkParts } from './testing/claim-links.ts';

let installation: TestInstallation;
let env: NodeJS.ProcessEnv;
let service: ChildProcess | undefined;
before(async () => {
  installation = await createTestInstallation();
  env = { ...process.env, WALLET_DATA_DIR: installation.dataDir, PORT: '0', LOG_LEVEL: 'warn' };
  if (installation.postgresSchema) env.DATABASE_URL = databaseUrlWithSchema(installation.config.databaseUrl!, installation.postgresSchema);
});
after(async () => {
  await stopService(service);
  await installation.remove();
});

test('A17 SIGKILLed after its deposit was submitted: the retry with the key answers the claim links of that deposit, and they claim', async () => {
  const setup = await installation.open();
  const partner = await buildApprovedPartner(setup);
  await setup.close();
  const signIn = async (baseUrl: string) => (await partnerCall(baseUrl, undefined, 'POST', '/v2/partner/auth', { email: partner.partner.email, password: partner.passwordHash })).json.access_token as string;
  const own = partner.partner.main_address;

  let started = await startService(env);
  service = started.service;
  let token = await signIn(started.baseUrl);
  const approved = await partnerCall(started.baseUrl, token, 'POST', '/v2/escrow/approve', { pin: partner.pinHash, contract_address: partner.contractAddress });
  assert.equal(approved.status, 200, JSON.stringify(approved.json));
  const elsewhere = buildAddresses(1)[0]!;
  const minted = await partnerCall(started.baseUrl, token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: [own, elsewhere, own] }));
  assert.equal(minted.status, 200, JSON.stringify(minted.json));
  const [c1, notHeld, c2] = minted.json.card_ids.map(Number) as [number, number, number];
  await stopService(service);

  // This run dies (SIGKILL) as soon as the deposit's transaction is stored: before it is mined, before any answer.
  started = await startService({ ...env, WALLET_TEST_KILL_AFTER_SUBMIT: 'escrow-deposit:' });
  service = started.service;
  const exited = new Promise((resolve) => started.service.once('exit', (_code, signal) => resolve(signal)));
  token = await signIn(started.baseUrl);
  const body = { pin: partner.pinHash, contract_address: partner.contractAddress, card_ids: [c1, notHeld, c2] };
  const keyed = { 'idempotency-key': 'deposit-after-crash' };
  await assert.rejects(partnerCall(started.baseUrl, token, 'POST', '/v2/escrow', body, keyed), 'the call got no answer');
  assert.equal(await exited, 'SIGKILL');
  service = undefined;

  const attach = () => openServices(installation.config, { chainMode: 'attach', ...(installation.postgresSchema ? { postgresSchema: installation.postgresSchema } : {}) });
  let services = await attach();
  let stored;
  try {
    const submitted = await services.store.db.selectFrom('outbox_transactions').select('idempotency_key').where('idempotency_key', 'like', 'escrow-deposit:%').execute();
    assert.equal(submitted.length, 1, 'the deposit was stored before the kill');
    stored = await services.store.db.selectFrom('escrow_claims').selectAll().where('partner_id', '=', partner.partner.id).execute();
    assert.deepEqual(stored.map((row) => Number(row.token_id)).sort(), [c1, c2].sort(), 'a claim per card held');
    assert.ok(stored.every((row) => row.sealed_secret !== null && row.secret_master_key_id !== null), 'the secrets are kept sealed');
    // The retry comes once the first call's lease on the key has run out (as 30 s after the kill would leave it).
    await services.store.db.updateTable('partner_idempotency_keys').set({ lease_until_ms: Date.now() - 1 }).where('partner_id', '=', partner.partner.id).where('idempotency_key', '=', keyed['idempotency-key']).execute();
  } finally {
    await services.close();
  }

  started = await startService(env);
  service = started.service;
  token = await signIn(started.baseUrl);
  const retry = await partnerCall(started.baseUrl, token, 'POST', '/v2/escrow', body, keyed);
  assert.equal(retry.status, 200, JSON.stringify(retry.json));
  assert.equal(retry.headers.get('idempotent-replayed'), null, 'answered from the transaction, not a stored answer');
  assert.equal(retry.json.fail_count, 1);
  assert.deepEqual(retry.json.failed_card_ids, [notHeld]);
  const links = (retry.json.claim_links as string[]).map(claimLinkParts);
  assert.equal(links.length, 2);
  // The links are those of the first call: its claim ids, in the order of card_ids, with the secrets whose hashes went on chain.
  const byId = new Map(stored.map((row) => [row.id, row]));
  assert.deepEqual(links.map((link) => Number(byId.get(link.claimId)?.token_id)), [c1, c2]);
  for (const link of links) assert.equal(keccak256(`0x${link.secret}` as Hex), byId.get(link.claimId)!.claim_hash);
  const again = await partnerCall(started.baseUrl, token, 'POST', '/v2/escrow', body, keyed);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.json, retry.json);

  services = await attach();
  try {
    const client = services.chains.get('main').client;
    const ownerOf = async (cardId: number) =>
      (await client.readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] })).toLowerCase();
    const escrow = (await client.readContract({ address: partner.contractAddress as Address, abi: cardNftAbi, functionName: 'escrow' })).toLowerCase();
    assert.equal(await ownerOf(c1), escrow);
    assert.equal(await ownerOf(c2), escrow);
    assert.equal(await ownerOf(notHeld), elsewhere.toLowerCase());
    assert.equal((await services.store.db.selectFrom('outbox_transactions').select('id').where('idempotency_key', 'like', 'escrow-deposit:%').execute()).length, 1, 'one deposit, sent once');

    // A link of the retry's answer claims its card (its transaction sent by the running service's outbox).
    const member = await buildUser(services);
    const claimed = await claimCard(services, member.user, links[0]!);
    assert.equal(claimed.status, 'claimed');
    assert.equal(await ownerOf(c1), claimed.claimed_to!.toLowerCase());

    // Once the key is forgotten (24 h) the sealed secrets go with it.
    await forgetOldKeys(services, Date.now() + 25 * 60 * 60 * 1000);
    const left = await services.store.db.selectFrom('escrow_claims').select(['sealed_secret', 'secret_master_key_id']).where('partner_id', '=', partner.partner.id).execute();
    assert.deepEqual(left, [
      { sealed_secret: null, secret_master_key_id: null },
      { sealed_secret: null, secret_master_key_id: null },
    ]);
  } finally {
    await services.close();
  }
});
