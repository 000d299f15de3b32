import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Address } from 'viem';
import type { ChildProcess } from 'node:child_process';
import { openServices, type Services } from '../../services.ts';
import { buildApprovedPartner } from '../../testing/factories.ts';
import { createTestInstallation, type TestInstallation } from '../../testing/test-services.ts';
import { startService, stopService } from '../../testing/service-process.ts';
import { databaseUrlWithSchema } from '../../testing/test-store.ts';
import { buildAddresses, buildMintPayload } from '../testing/card-factories.ts';
import { ABANDONED_BATCH_SECONDS, recoverMintBatches } from './recovery.ts';

const CALLS = 12;
const CARDS_PER_CALL = 20;

let installation: TestInstallation;
let env: NodeJS.ProcessEnv;
let service: ChildProcess | undefined;
before(async () => {
  installation = await createTestInstallation();
  // Five cards per transaction: each call is four batches, so a kill lands between some of them.
  const configFile = join(installation.dataDir, 'wallet.config.json');
  writeFileSync(configFile, JSON.stringify({ cards: { maxBatchSize: 5 }, chains: { ethereum: null, polygon: null } }));
  env = {
    ...process.env,
    WALLET_CONFIG: configFile,
    WALLET_DATA_DIR: installation.dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
  };
  if (installation.postgresSchema) {
    env.DATABASE_URL = databaseUrlWithSchema(installation.config.databaseUrl!, installation.postgresSchema);
  }
});
after(async () => {
  await stopService(service);
  await installation.remove();
});

test('the service SIGKILLed during mints: every answered mint is on chain once, nothing is minted twice, mint_count ends exact', async (t) => {
  // A partner with its contract, made in-process; the service then runs as a child on the same data.
  let services: Services = await installation.open();
  const partner = await buildApprovedPartner(services);
  await services.close();

  let started = await startService(env);
  service = started.service;
  const signIn = await fetch(`${started.baseUrl}/v2/partner/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: partner.partner.email, password: partner.passwordHash }),
  });
  assert.equal(signIn.status, 200);
  const token = (await signIn.json()).access_token as string;

  const calls = Array.from({ length: CALLS }, () => buildAddresses(CARDS_PER_CALL));
  const answered: Array<{ recipients: Address[]; cardIds: number[] }> = [];
  let firstAnswer: () => void;
  const firstAnswered = new Promise<void>((resolve) => (firstAnswer = resolve));
  // Calls start 40 ms apart, so whichever answers first, later ones are still on their way; the
  // second half waits for the first answer, so some are always cut by the kill however quick the rest.
  const inFlight = calls.map(async (recipients, index) => {
    if (index >= CALLS / 2) await firstAnswered;
    await new Promise((resolve) => setTimeout(resolve, index * 40));
    if (service!.exitCode !== null || service!.signalCode !== null) return;
    try {
      const response = await fetch(`${started.baseUrl}/v2/wallet/mint`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: token },
        body: JSON.stringify(buildMintPayload(partner, { to_address: recipients })),
      });
      if (response.status === 200) {
        answered.push({ recipients, cardIds: (await response.json()).card_ids });
        firstAnswer();
      }
    } catch {
      // Cut off by the kill: not accepted.
    }
  });
  await firstAnswered;
  service.kill('SIGKILL');
  await Promise.all(inFlight);
  assert.ok(answered.length >= 1 && answered.length < CALLS, `answered before the kill: ${answered.length}`);
  t.diagnostic(`mint calls answered before the kill: ${answered.length} of ${CALLS}`);

  started = await startService(env);
  service = started.service;
  // Let the restarted service replay what was signed; then settle as the recovery pass would later.
  services = await openServices(installation.config, {
    chainMode: 'attach',
    ...(installation.postgresSchema ? { postgresSchema: installation.postgresSchema } : {}),
  });
  try {
    const db = services.store.db;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const open = await db.selectFrom('card_mint_batches').select('id').where('status', '=', 'submitted').execute();
      const unmined = await db.selectFrom('outbox_transactions').select('id').where('status', '=', 'signed').execute();
      if (open.length === 0 && unmined.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${open.length} batches still submitted, ${unmined.length} transactions unmined`);
      await recoverMintBatches(services);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await recoverMintBatches(services, new Date(Date.now() + (ABANDONED_BATCH_SECONDS + 1) * 1000));

    const batches = await db.selectFrom('card_mint_batches').selectAll().where('partner_id', '=', partner.partner.id).execute();
    assert.deepEqual([...new Set(batches.map((batch) => batch.status))].filter((status) => status !== 'minted' && status !== 'failed'), []);
    const minted = batches.filter((batch) => batch.status === 'minted');
    const mintedCards = minted.reduce((sum, batch) => sum + batch.card_count, 0);

    const client = services.chains.get('main').client;
    const contract = partner.contractAddress as Address;
    const next = await client.readContract({ address: contract, abi: cardNftAbi, functionName: 'nextTokenId' });
    assert.equal(Number(next) - 1, mintedCards, 'every card on chain belongs to exactly one minted batch');
    const partnerRow = await db.selectFrom('partners').select(['mint_count']).where('id', '=', partner.partner.id).executeTakeFirstOrThrow();
    assert.equal(Number(partnerRow.mint_count), mintedCards, 'mint_count counts exactly the minted cards');

    for (const batch of minted) {
      const recipients = JSON.parse(batch.recipients) as Address[];
      for (const [i, recipient] of recipients.entries()) {
        const owner = await client.readContract({ address: contract, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(Number(batch.first_token_id) + i)] });
        assert.equal(owner.toLowerCase(), recipient);
      }
    }
    for (const call of answered) {
      for (const [i, recipient] of call.recipients.entries()) {
        const cardId = call.cardIds[i];
        if (cardId === null || cardId === undefined) continue;
        const owner = await client.readContract({ address: contract, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(cardId)] });
        assert.equal(owner.toLowerCase(), recipient, 'an answered card is where the answer said');
      }
      assert.ok(call.cardIds.every((id) => id !== null), 'an answered call minted all its cards');
    }
  } finally {
    await services.close();
  }
});
