/**
 * Confirmations and reorgs on the embedded anvil node, configured with a depth of 3 (and, below,
 * the `finalized` tag): a transaction stays pending everywhere until its block is confirmed; a reorg
 * (`anvil_reorg`) that drops it has it sent again, one that moves it has its new block recorded.
 * The store is SQLite, or PostgreSQL with TEST_DATABASE_URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseEther, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { approveAs, BAPP, prepareKey, result, setBalance, signedInMember } from '../a2a/testing/support.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { buildAddresses, buildMintPayload, mintOk } from '../cards/testing/card-factories.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { createWebhookEndpoint } from '../webhooks/commands.ts';
import { holdWebhookEvent } from '../webhooks/events.ts';
import { releaseHeldWebhooks } from '../webhooks/release.ts';
import type { OutboxTransaction, TransactionSigner } from './outbox.ts';

const freshAddress = (): Address => privateKeyToAddress(generatePrivateKey());

/** The outbox side of a test: its node, and ways to wait on a row without asserting on time. */
function harness(t: () => TestApp) {
  const services = () => t().services;
  const client = () => services().chains.get('main').client;
  const rpc = (method: string, params: unknown[]) => client().request({ method: method as never, params: params as never });
  const mine = (blocks: number) => rpc('anvil_mine', [toHex(blocks)]);

  /** Polls the store until the row is in `status` (the outbox's own loop records receipts and sends). */
  async function until(id: string, status: OutboxTransaction['status'], blockNumber?: number): Promise<OutboxTransaction> {
    for (let attempt = 0; attempt < 600; attempt++) {
      const transaction = await services().outbox.findById(id);
      if (transaction?.status === status && (blockNumber === undefined || transaction.blockNumber === blockNumber)) return transaction;
      services().outbox.kick();
      await sleep(25);
    }
    throw new Error(`transaction ${id} never reached ${status}${blockNumber === undefined ? '' : ` in block ${blockNumber}`}`);
  }

  /** Mines blocks until the transaction is final (setup steps on a chain that needs confirmations). */
  async function settle(id: string): Promise<OutboxTransaction> {
    for (let attempt = 0; attempt < 600; attempt++) {
      const transaction = await services().outbox.findById(id);
      if (transaction?.status === 'mined' || transaction?.status === 'failed') return transaction;
      if (transaction?.status === 'included') await mine(1);
      await services().outbox.confirmPending();
      services().outbox.kick();
      await sleep(25);
    }
    throw new Error(`transaction ${id} never settled`);
  }

  /** Mines blocks in the background while `work` runs (setups that wait on many transactions). */
  async function whileMining<T>(work: () => Promise<T>): Promise<T> {
    let mining = true;
    const miner = (async () => {
      while (mining) {
        await mine(1);
        await sleep(20);
      }
    })();
    try {
      return await work();
    } finally {
      mining = false;
      await miner;
    }
  }

  async function fundedSigner(): Promise<TransactionSigner> {
    const key = await services().vault.createKey({ ownerType: 'fee_payer', ownerId: 'test', protection: 'server', secretKind: 'private_key' });
    await setBalance(services(), key.address as Address, parseEther('10'));
    const unlocked = await services().vault.unlock(key.keyId);
    return { address: unlocked.address, account: unlocked.account };
  }

  return { services, client, rpc, mine, until, settle, whileMining, fundedSigner };
}

describe('confirmations at depth 3 and reorgs (anvil)', () => {
  let t: TestApp;
  const h = harness(() => t);

  before(async () => {
    t = await openTestApp({ chains: { main: { confirmations: { depth: 3 } } }, outbox: { pollIntervalMs: 50, rebroadcastAfterMs: 1_000 } });
  });
  after(() => t?.cleanup());

  test('a transfer is pending until 3 blocks are on top of its block, then final; A20 answers 4700 until then', async () => {
    const partner = await h.whileMining(() => signedInPartner(t.app, t.services));
    const signer = await h.fundedSigner();
    const to = freshAddress();
    const submitted = await t.services.outbox.submit({ idempotencyKey: `depth:${to}`, chain: 'main', signer, to, value: 777n });
    const included = await h.until(submitted.id, 'included');
    const receipt = () => t.app.inject({ method: 'GET', url: `/v2/wallet/receipt?tx_hash=${submitted.txHash}`, headers: { authorization: `Bearer ${partner.token}` } });
    assert.equal((await h.client().getTransactionReceipt({ hash: submitted.txHash })).status, 'success', 'the node has its receipt');

    for (let blocks = 0; blocks < 3; blocks++) {
      await t.services.outbox.confirmPending();
      assert.equal((await t.services.outbox.findById(submitted.id))?.status, 'included', `${blocks} blocks on top: not final`);
      const answer = await receipt();
      assert.equal(answer.statusCode, 400);
      assert.equal(answer.json().code, 4700, 'A20: no final receipt yet');
      await h.mine(1);
    }
    await t.services.outbox.confirmPending();
    const final = await t.services.outbox.waitForFinal(submitted.id);
    assert.equal(final.status, 'mined');
    assert.equal(final.receiptStatus, 'success');
    assert.equal(final.blockNumber, included.blockNumber);
    const answer = await receipt();
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.json().success, true);

    // A hash the outbox did not send follows the same rule on the main chain.
    const [devAccount] = (await h.rpc('eth_accounts', [])) as Address[];
    const outside = (await h.rpc('eth_sendTransaction', [{ from: devAccount, to, value: '0x1' }])) as Hex;
    await h.client().waitForTransactionReceipt({ hash: outside, pollingInterval: 25 });
    const early = await t.app.inject({ method: 'GET', url: `/v2/wallet/receipt?tx_hash=${outside}`, headers: { authorization: `Bearer ${partner.token}` } });
    assert.equal(early.json().code, 4700);
    await h.mine(3);
    const late = await t.app.inject({ method: 'GET', url: `/v2/wallet/receipt?tx_hash=${outside}`, headers: { authorization: `Bearer ${partner.token}` } });
    assert.equal(late.statusCode, 200, late.body);
  });

  test('B3 answers pending while the send_coin is unconfirmed, success once confirmed', async () => {
    const member = await signedInMember(t.app, t.services, { coins: '1' });
    const to = freshAddress();
    const key = await prepareKey(t.app, { bapp: BAPP, type: 'send_coin', transaction: { to, amount: '0.25' } });
    assert.equal((await approveAs(t.app, member.token, key, member.pin)).statusCode, 200);
    const row = await t.services.store.db.selectFrom('outbox_transactions').select('id').where('idempotency_key', '=', key).executeTakeFirstOrThrow();
    await h.until(row.id, 'included');
    assert.equal(await h.client().getBalance({ address: to }), parseEther('0.25'), 'on chain already');
    await t.services.outbox.confirmPending();
    const pending = (await result(t.app, key)).json();
    assert.equal(pending.result.status, 'pending', JSON.stringify(pending));
    await h.mine(3);
    await t.services.outbox.confirmPending();
    await h.until(row.id, 'mined');
    let answer = (await result(t.app, key)).json();
    for (let attempt = 0; attempt < 100 && answer.result?.status === 'pending'; attempt++) answer = (await result(t.app, key, 1)).json();
    assert.equal(answer.result.status, 'success', JSON.stringify(answer));
  });

  test('a webhook event held for a transaction is released only once its block is confirmed', async () => {
    const partner = await h.whileMining(() => signedInPartner(t.app, t.services));
    await createWebhookEndpoint(t.services, partner.partner.id, { url: 'https://receiver.example.org/hooks', events: ['card.sent'] });
    const signer = await h.fundedSigner();
    const to = freshAddress();
    const submitted = await t.services.outbox.submit({
      idempotencyKey: `webhook:${to}`,
      chain: 'main',
      signer,
      to,
      value: 9n,
      alongside: holdWebhookEvent({ partnerId: partner.partner.id, type: 'card.sent', data: { card_id: 1, to } }),
    });
    const message = () => t.services.store.db.selectFrom('webhook_messages').select(['status', 'payload']).where('outbox_key', '=', `webhook:${to}`).executeTakeFirstOrThrow();
    await h.until(submitted.id, 'included');
    assert.equal(await releaseHeldWebhooks(t.services), 0, 'nothing to release while the block is unconfirmed');
    assert.equal((await message()).status, 'held');
    await h.mine(3);
    await t.services.outbox.confirmPending();
    await h.until(submitted.id, 'mined');
    await releaseHeldWebhooks(t.services);
    const released = await message();
    assert.notEqual(released.status, 'held');
    assert.equal(JSON.parse(released.payload).data.tx_hash, submitted.txHash);
  });

  test('card lists follow the rule: a card minted is in the index only once its block is confirmed', async () => {
    const partner = await h.whileMining(() => signedInPartner(t.app, t.services));
    const [owner] = buildAddresses(1);
    const minting = mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: [owner] }));
    const contract = partner.contractAddress.toLowerCase();
    let row: { id: string } | undefined;
    for (let attempt = 0; attempt < 600 && !row; attempt++) {
      row = await t.services.store.db.selectFrom('outbox_transactions').select('id').where('to_address', '=', contract).where('status', '=', 'included').executeTakeFirst();
      if (!row) await sleep(25);
    }
    assert.ok(row, 'the mint is included');
    const included = await h.until(row.id, 'included');
    const listed = () => t.services.cardIndex.listByOwner({ chain: 'main', owner: owner!, contract, limit: 10 });
    // The index reaches the confirmed height, three blocks below the mint's, and stops there.
    await t.services.cardIndex.waitUntilIndexed('main', included.blockNumber! - 3);
    await assert.rejects(t.services.cardIndex.waitUntilIndexed('main', included.blockNumber!, { timeoutMs: 1_500 }), /not indexed through block/);
    assert.deepEqual((await listed()).cards, [], 'not listed while unconfirmed');
    await h.mine(3);
    await t.services.outbox.confirmPending();
    const answer = await minting;
    assert.equal(answer.minted_count, 1);
    await t.services.cardIndex.waitUntilIndexed('main', included.blockNumber!);
    assert.deepEqual((await listed()).cards.map((card) => card.tokenId), [answer.card_ids[0]], 'listed once confirmed');
  });

  test('a reorg of depth 1 to 3 that drops the transaction: it is sent again and confirmed once', async () => {
    const signer = await h.fundedSigner();
    for (const depth of [1, 2, 3]) {
      const to = freshAddress();
      const nonceBefore = await h.client().getTransactionCount({ address: signer.address });
      const submitted = await t.services.outbox.submit({ idempotencyKey: `dropped:${depth}:${to}`, chain: 'main', signer, to, value: 1000n + BigInt(depth) });
      const first = await h.until(submitted.id, 'included');
      // Blocks on top, fewer than the 3 that confirm it, so that the reorg reaches its block.
      if (depth > 1) await h.mine(depth - 1);
      await t.services.outbox.confirmPending();
      assert.equal((await t.services.outbox.findById(submitted.id))?.status, 'included');
      await h.rpc('anvil_reorg', [depth, []]);
      assert.equal(await h.client().getTransactionCount({ address: signer.address }), nonceBefore, 'the new chain lacks it');
      const head = Number(await h.client().getBlockNumber({ cacheTime: 0 }));
      assert.equal(head, first.blockNumber! + depth - 1, 'as many new blocks as replaced');

      // The pass sees the block replaced, finds no receipt, and sends the stored bytes again: the
      // node mines them in the block after the new head.
      await t.services.outbox.confirmPending();
      await h.until(submitted.id, 'included', head + 1);
      const final = await h.settle(submitted.id);
      assert.equal(final.status, 'mined');
      assert.equal(final.receiptStatus, 'success');
      assert.equal(final.txHash, first.txHash, 'the same signed bytes');
      const onChain = await h.client().getTransactionReceipt({ hash: final.txHash });
      assert.equal(Number(onChain.blockNumber), final.blockNumber, 'the block recorded is the one the chain has');
      assert.equal(await h.client().getTransactionCount({ address: signer.address }), nonceBefore + 1, 'its nonce used once');
      assert.equal(await h.client().getBalance({ address: to }), 1000n + BigInt(depth), 'paid once');
      const rows = await t.services.store.db.selectFrom('outbox_transactions').select(['status', 'block_hash']).where('idempotency_key', '=', `dropped:${depth}:${to}`).execute();
      assert.deepEqual(rows, [{ status: 'mined', block_hash: onChain.blockHash }]);
    }
  });

  test('a reorg that moves the transaction into another block: the new block is recorded and confirmed', async () => {
    const signer = await h.fundedSigner();
    const to = freshAddress();
    const submitted = await t.services.outbox.submit({ idempotencyKey: `moved:${to}`, chain: 'main', signer, to, value: 4242n });
    const first = await h.until(submitted.id, 'included');
    await h.mine(1);
    const raw = await t.services.store.db.selectFrom('outbox_transactions').select('raw_tx').where('id', '=', submitted.id).executeTakeFirstOrThrow();
    // The two newest blocks replaced; the transaction goes into the second new one.
    await h.rpc('anvil_reorg', [2, [[raw.raw_tx, 1]]]);
    const moved = await h.client().getTransactionReceipt({ hash: submitted.txHash });
    assert.equal(Number(moved.blockNumber), first.blockNumber! + 1, 'anvil put it one block later');

    await t.services.outbox.confirmPending();
    const recorded = await t.services.store.db.selectFrom('outbox_transactions').select(['status', 'block_number', 'block_hash']).where('id', '=', submitted.id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...recorded, block_number: Number(recorded.block_number) }, { status: 'included', block_number: Number(moved.blockNumber), block_hash: moved.blockHash });
    const final = await h.settle(submitted.id);
    assert.equal(final.status, 'mined');
    assert.equal(final.blockNumber, Number(moved.blockNumber));
    assert.equal(await h.client().getTransactionCount({ address: signer.address }), 1);
    assert.equal(await h.client().getBalance({ address: to }), 4242n);
  });
});

describe('confirmations by the finalized tag (anvil: the head less 64 blocks)', () => {
  let t: TestApp;
  const h = harness(() => t);

  before(async () => {
    t = await openTestApp({ chains: { main: { confirmations: { tag: 'finalized' } } }, outbox: { pollIntervalMs: 50, rebroadcastAfterMs: 1_000 } });
  });
  after(() => t?.cleanup());

  test('a transaction is final once its block is at or below the finalized block, not before', async () => {
    const signer = await h.fundedSigner();
    const to = freshAddress();
    const submitted = await t.services.outbox.submit({ idempotencyKey: `finalized:${to}`, chain: 'main', signer, to, value: 5n });
    const included = await h.until(submitted.id, 'included');
    // anvil answers `finalized` (and `safe`) as the head less 64 (32) blocks, not as the head itself.
    await h.mine(63);
    const finalized = await h.client().getBlock({ blockTag: 'finalized' });
    assert.equal(Number(finalized.number), included.blockNumber! - 1);
    await t.services.outbox.confirmPending();
    assert.equal((await t.services.outbox.findById(submitted.id))?.status, 'included', 'one block above the finalized one');
    await h.mine(1);
    await t.services.outbox.confirmPending();
    const final = await t.services.outbox.waitForFinal(submitted.id);
    assert.equal(final.status, 'mined');
    assert.equal(final.receiptStatus, 'success');
  });
});
