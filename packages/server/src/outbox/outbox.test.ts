import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { clearAccountPool, isNextNonceQueued, mineStalledPool } from '../chain/chains.ts';
import { sendIntoQueue } from '../chain/testing/queued-next-nonce.ts';
import { eventually } from '../testing/eventually.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { OutboxRefusal, TransactionOutbox, type ReceiptWrite, type TransactionSigner } from './outbox.ts';
import { OutboxStore } from './store.ts';

const freshAddress = (): Address => privateKeyToAddress(generatePrivateKey());

describe('transaction outbox (real node, real store)', () => {
  let services: TestServices;
  let operator: TransactionSigner;

  before(async () => {
    services = await openTestServices();
    operator = await services.operator.signer();
  });
  after(() => services?.cleanup());

  async function fundedSigner(coins = '10'): Promise<TransactionSigner> {
    const key = await services.vault.createKey({ ownerType: 'fee_payer', ownerId: 'test', protection: 'server', secretKind: 'private_key' });
    const funding = await services.outbox.submit({
      idempotencyKey: `fund:${key.address}`,
      chain: 'main',
      signer: operator,
      to: key.address,
      value: parseEther(coins),
    });
    assert.equal((await services.outbox.waitForFinal(funding.id)).receiptStatus, 'success');
    const unlocked = await services.vault.unlock(key.keyId);
    return { address: unlocked.address, account: unlocked.account };
  }

  test('stores, sends and records the receipt of a transfer; the same key never sends twice', async () => {
    const signer = await fundedSigner();
    const client = services.chains.get('main').client;
    const to = freshAddress();
    const submission = { idempotencyKey: `transfer:${to}`, chain: 'main', signer, to, value: 12345n };
    const first = await services.outbox.submit(submission);
    const mined = await services.outbox.waitForFinal(first.id);
    assert.equal(mined.status, 'mined');
    assert.equal(mined.receiptStatus, 'success');
    assert.equal(mined.nonce, 0);
    const again = await services.outbox.submit(submission);
    assert.equal(again.id, first.id);
    assert.equal(again.txHash, first.txHash);
    assert.equal(await client.getBalance({ address: to }), 12345n);
    assert.equal(await client.getTransactionCount({ address: signer.address }), 1);
    const receipt = await client.getTransactionReceipt({ hash: mined.txHash });
    assert.equal(receipt.blockNumber, BigInt(mined.blockNumber!));
  });

  test('concurrent submissions from one account get consecutive nonces, each used once', async () => {
    const signer = await fundedSigner();
    const recipients = Array.from({ length: 25 }, freshAddress);
    const submitted = await Promise.all(
      recipients.map((to, index) =>
        services.outbox.submit({ idempotencyKey: `burst:${to}`, chain: 'main', signer, to, value: BigInt(index + 1) }),
      ),
    );
    const mined = await Promise.all(submitted.map((transaction) => services.outbox.waitForFinal(transaction.id)));
    assert.deepEqual(
      mined.map((transaction) => transaction.nonce).sort((a, b) => a - b),
      recipients.map((_, index) => index),
    );
    const client = services.chains.get('main').client;
    assert.equal(await client.getTransactionCount({ address: signer.address }), 25);
    for (const [index, to] of recipients.entries()) assert.equal(await client.getBalance({ address: to }), BigInt(index + 1));
    // Receipts are recorded many rows to a statement: each row holds its own transaction's.
    for (const transaction of mined) {
      const receipt = await client.getTransactionReceipt({ hash: transaction.txHash });
      assert.equal(transaction.blockNumber, Number(receipt.blockNumber));
      assert.equal(transaction.receiptStatus, receipt.status);
    }
    // Reads asked for together are made as one query: each caller still gets its own row, a repeated
    // id gets it twice, and an unknown id gets nothing.
    const [first, unknown, second, firstAgain] = await Promise.all([
      services.outbox.findById(mined[0]!.id),
      services.outbox.findById('00000000-0000-4000-8000-000000000000'),
      services.outbox.findById(mined[1]!.id),
      services.outbox.findById(mined[0]!.id),
    ]);
    assert.deepEqual([first?.txHash, unknown, second?.txHash, firstAgain?.txHash], [mined[0]!.txHash, undefined, mined[1]!.txHash, mined[0]!.txHash]);
  });

  test('a nonce guessed ahead and taken by another sender, or by a repeated key, is signed again with the stored one', async () => {
    const signer = await fundedSigner();
    // A second outbox on the same store is a second process: each takes nonces the other expected.
    const other = new TransactionOutbox({ store: services.store, chains: services.chains, pollIntervalMs: 50, rebroadcastAfterMs: 1_000, sendWindow: 256 });
    const submitted: Array<{ id: string; txHash: Hex; nonce: number }> = [];
    const keys: string[] = [];
    for (let round = 0; round < 4; round++) {
      const burst = Array.from({ length: 6 }, (_, index) => {
        const to = freshAddress();
        const key = `guess:${round}:${index}`;
        keys.push(key);
        const outbox = index % 2 === 0 ? services.outbox : other;
        return outbox.submit({ idempotencyKey: key, chain: 'main', signer, to, value: 1n, gas: 21_000n });
      });
      // Repeats of stored keys, with the gas given, reach the group commit and take no nonce.
      if (round > 0) burst.push(services.outbox.submit({ idempotencyKey: keys[0]!, chain: 'main', signer, to: freshAddress(), value: 1n, gas: 21_000n }));
      submitted.push(...(await Promise.all(burst)));
    }
    const unique = [...new Map(submitted.map((transaction) => [transaction.id, transaction])).values()];
    assert.equal(unique.length, 24);
    const mined = await Promise.all(unique.map((transaction) => services.outbox.waitForFinal(transaction.id)));
    assert.ok(mined.every((transaction) => transaction.status === 'mined' && transaction.receiptStatus === 'success'));
    assert.deepEqual(
      mined.map((transaction) => transaction.nonce).sort((a, b) => a - b),
      Array.from({ length: 24 }, (_, index) => index),
    );
    const client = services.chains.get('main').client;
    assert.equal(await client.getTransactionCount({ address: signer.address }), 24);
    // What went on chain at each nonce is the stored transaction with that nonce.
    for (const transaction of mined) assert.equal((await client.getTransaction({ hash: transaction.txHash })).nonce, transaction.nonce);
    await other.stop();
  });

  test('the same key submitted concurrently is stored and sent once', async () => {
    const signer = await fundedSigner();
    const to = freshAddress();
    const submission = { idempotencyKey: `twice:${to}`, chain: 'main', signer, to, value: 99n };
    const answers = await Promise.all([services.outbox.submit(submission), services.outbox.submit(submission), services.outbox.submit(submission)]);
    assert.equal(new Set(answers.map((answer) => answer.id)).size, 1);
    await services.outbox.waitForFinal(answers[0]!.id);
    const client = services.chains.get('main').client;
    assert.equal(await client.getBalance({ address: to }), 99n);
    assert.equal(await client.getTransactionCount({ address: signer.address }), 1);
    const rows = await services.store.db.selectFrom('outbox_transactions').select('id').where('idempotency_key', '=', submission.idempotencyKey).execute();
    assert.equal(rows.length, 1);
  });

  test('the same key from two processes at once, among other keys: one stored, both answered with it, and no nonce left unused', async () => {
    const signer = await fundedSigner();
    const other = new TransactionOutbox({ store: services.store, chains: services.chains, pollIntervalMs: 50, rebroadcastAfterMs: 1_000, sendWindow: 256 });
    try {
      const shared = { idempotencyKey: `shared:${signer.address}`, chain: 'main', signer, to: freshAddress(), value: 5n, gas: 21_000n };
      // Each process's group holds the shared key and keys of its own: the group that loses the race
      // on the shared key still stores its own ones.
      const burst = [services.outbox, other].flatMap((outbox, side) => [
        outbox.submit(shared),
        ...Array.from({ length: 3 }, (_, index) => outbox.submit({ idempotencyKey: `own:${signer.address}:${side}:${index}`, chain: 'main', signer, to: freshAddress(), value: 1n, gas: 21_000n })),
      ]);
      const answers = await Promise.all(burst);
      assert.equal(answers[0]!.id, answers[4]!.id, 'both processes answer the one stored row');
      const unique = [...new Map(answers.map((answer) => [answer.id, answer])).values()];
      assert.equal(unique.length, 7);
      const mined = await Promise.all(unique.map((transaction) => services.outbox.waitForFinal(transaction.id)));
      assert.deepEqual(
        mined.map((transaction) => transaction.nonce).sort((a, b) => a - b),
        [0, 1, 2, 3, 4, 5, 6],
      );
      const rows = await services.store.db.selectFrom('outbox_transactions').select('id').where('idempotency_key', '=', shared.idempotencyKey).execute();
      assert.equal(rows.length, 1);
      assert.equal(await services.chains.get('main').client.getTransactionCount({ address: signer.address }), 7);
    } finally {
      await other.stop();
    }
  });

  test('a waiter reads its row again less often the longer it waits, and still finds a receipt recorded elsewhere', async () => {
    const signer = await fundedSigner();
    const client = services.chains.get('main').client;
    const rpc = (method: string, params: unknown[] = []) => client.request({ method: method as never, params: params as never });
    // A second process, waiting only: it sends nothing and records nothing, so it hears of the
    // transaction only by reading its row. Its reads of rows by id are counted.
    let reads = 0;
    const counted = services.store.db.withPlugin({
      transformQuery: (args) => {
        const node = args.node as { kind: string; from?: { froms: Array<{ table?: { identifier?: { name?: string } } }> } };
        if (node.kind === 'SelectQueryNode' && node.from?.froms[0]?.table?.identifier?.name === 'outbox_transactions') reads += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const waiter = new TransactionOutbox({ store: { ...services.store, db: counted }, chains: services.chains, pollIntervalMs: 50, rebroadcastAfterMs: 1_000, sendWindow: 256 });
    await rpc('evm_setAutomine', [false]);
    try {
      const to = freshAddress();
      const submitted = await services.outbox.submit({ idempotencyKey: `waiting:${to}`, chain: 'main', signer, to, value: 4n });
      // Sent, then nobody tracks it: it stays in the node's pool, unmined.
      await services.outbox.stop();
      // Two seconds unmined: read at 0, 100, 300, 700 ms and then every 400 ms, about 8 reads; every
      // 100 ms it would be 21. A busy machine fires the timers late, so fewer.
      await assert.rejects(waiter.waitForFinal(submitted.id, 2_000), /not mined within 2000 ms/);
      assert.ok(reads >= 2 && reads <= 10, `${reads} reads in 2 s`);
      // Mined, and its receipt recorded by the first process once it tracks again: the waiter
      // learns it from the row.
      const waiting = waiter.waitForFinal(submitted.id, 30_000);
      await rpc('evm_mine');
      await services.outbox.start();
      const final = await waiting;
      assert.equal(final.status, 'mined');
      assert.equal(final.receiptStatus, 'success');
      assert.equal(await client.getBalance({ address: to }), 4n);
    } finally {
      await rpc('evm_setAutomine', [true]);
      await services.outbox.start();
      await waiter.stop();
    }
  });

  test('a transaction the node lost is broadcast again with the same bytes and hash', async () => {
    const signer = await fundedSigner();
    const client = services.chains.get('main').client;
    const rpc = (method: string, params: unknown[] = []) => client.request({ method: method as never, params: params as never });
    await rpc('evm_setAutomine', [false]);
    try {
      const to = freshAddress();
      const submitted = await services.outbox.submit({ idempotencyKey: `lost:${to}`, chain: 'main', signer, to, value: 7n });
      await rpc('anvil_dropAllTransactions');
      assert.equal(await client.getTransaction({ hash: submitted.txHash }).catch(() => null), null);
      // The outbox notices the missing receipt and sends the stored raw transaction again.
      const deadline = Date.now() + 15_000;
      while (!(await client.getTransaction({ hash: submitted.txHash }).catch(() => null))) {
        assert.ok(Date.now() < deadline, 'the lost transaction was not broadcast again');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await rpc('evm_mine');
      const mined = await services.outbox.waitForFinal(submitted.id);
      assert.equal(mined.txHash, submitted.txHash);
      assert.equal(mined.receiptStatus, 'success');
      assert.equal(await client.getBalance({ address: to }), 7n);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });

  test('transactions an automining embedded node holds back in its pool get a block mined for them', async () => {
    const signer = await fundedSigner();
    const chain = services.chains.get('main');
    assert.equal(chain.automine, true);
    const rpc = (method: string, params: unknown[] = []) => chain.client.request({ method: method as never, params: params as never });
    assert.equal(await mineStalledPool(chain), false, 'nothing to mine in an empty pool');
    // With automine switched off the node holds ready transactions back, as anvil's automine does
    // when one account's transactions arrive out of nonce order.
    await rpc('evm_setAutomine', [false]);
    try {
      const recipients = Array.from({ length: 3 }, freshAddress);
      const submitted = await Promise.all(
        recipients.map((to, index) => services.outbox.submit({ idempotencyKey: `held:${to}`, chain: 'main', signer, to, value: BigInt(index + 1), gas: 21_000n })),
      );
      const mined = await Promise.all(submitted.map((transaction) => services.outbox.waitForFinal(transaction.id, 15_000)));
      assert.deepEqual(
        mined.map((transaction) => transaction.receiptStatus),
        ['success', 'success', 'success'],
      );
      for (const [index, to] of recipients.entries()) assert.equal(await chain.client.getBalance({ address: to }), BigInt(index + 1));
      assert.deepEqual(await rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });

  test('an account whose next nonce an automining embedded node keeps queued gets its transactions sent again into an empty pool', async () => {
    const signer = await fundedSigner();
    const chain = services.chains.get('main');
    const rpc = (method: string, params: unknown[] = []) => chain.client.request({ method: method as never, params: params as never });
    const transfer = (label: string, to: Address, value: bigint) =>
      services.outbox.submit({ idempotencyKey: `${label}:${to}`, chain: 'main', signer, to, value, gas: 21_000n });
    const first = await transfer('queued-first', freshAddress(), 1n);
    assert.equal((await services.outbox.waitForFinal(first.id)).nonce, 0);
    // The node is made to leave the account's next nonce in its queue, as anvil does under load.
    const to = freshAddress();
    const held = await sendIntoQueue(chain, signer.address, 1, () => transfer('queued-held', to, 2n));
    assert.equal(held.nonce, 1);
    const mined = await services.outbox.waitForFinal(held.id, 15_000);
    assert.equal(mined.status, 'mined');
    assert.equal(mined.receiptStatus, 'success');
    assert.equal(await chain.client.getBalance({ address: to }), 2n);
    assert.equal(await chain.client.getTransactionCount({ address: signer.address }), 2);
    assert.deepEqual(await rpc('txpool_status'), { pending: '0x0', queued: '0x0' });
  });

  test("an embedded node keeping an account's next nonce queued is told from its pool, apart from a nonce queued behind a gap", async () => {
    const chain = services.chains.get('main');
    const rpc = (method: string, params: unknown[] = []) => chain.client.request({ method: method as never, params: params as never });
    const account = privateKeyToAccount(generatePrivateKey());
    await rpc('anvil_setBalance', [account.address, '0xde0b6b3a7640000']);
    const fees = await chain.client.estimateFeesPerGas();
    const send = async (nonce: number) =>
      chain.client.sendRawTransaction({
        serializedTransaction: await account.signTransaction({
          chainId: chain.chainId,
          nonce,
          to: freshAddress(),
          value: 1n,
          gas: 21_000n,
          maxFeePerGas: fees.maxFeePerGas * 2n,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        }),
      });
    await chain.client.waitForTransactionReceipt({ hash: await send(0) });
    // Told that nonce 0 is unused, the node queues nonce 1 behind it: a gap, not the quirk.
    await rpc('anvil_setNonce', [account.address, '0x0']);
    await send(1);
    assert.equal(await isNextNonceQueued(chain, account.address, 1), false);
    assert.equal(await isNextNonceQueued(chain, account.address, 0), false);
    // Told again that nonce 0 is used, the node keeps nonce 1 queued though it is the next one.
    await rpc('anvil_setNonce', [account.address, '0x1']);
    assert.equal(await isNextNonceQueued(chain, account.address, 1), true);
    await clearAccountPool(chain, account.address);
    assert.equal(await isNextNonceQueued(chain, account.address, 1), false);
    assert.equal((await chain.client.waitForTransactionReceipt({ hash: await send(1) })).status, 'success');
  });

  test('"nonce too low" for a nonce used outside the outbox fails that one transaction and moves on', async () => {
    const signer = await fundedSigner();
    const client = services.chains.get('main').client;
    const warmUp = await services.outbox.submit({ idempotencyKey: `warm:${signer.address}`, chain: 'main', signer, to: freshAddress(), value: 1n });
    await services.outbox.waitForFinal(warmUp.id);
    // Someone else spends nonce 1 of this key directly on the node.
    const fees = await client.estimateFeesPerGas();
    const outside = await signer.account.signTransaction!({
      chainId: services.chains.get('main').chainId,
      nonce: 1,
      to: freshAddress(),
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    await client.sendRawTransaction({ serializedTransaction: outside as Hex });
    const clashing = await services.outbox.submit({ idempotencyKey: `clash:${signer.address}`, chain: 'main', signer, to: freshAddress(), value: 2n });
    assert.equal(clashing.nonce, 1);
    const settled = await services.outbox.waitForFinal(clashing.id);
    assert.equal(settled.status, 'failed');
    assert.match(settled.error ?? '', /nonce 1 used by another transaction/);
    const next = await services.outbox.submit({ idempotencyKey: `after-clash:${signer.address}`, chain: 'main', signer, to: freshAddress(), value: 3n });
    assert.equal(next.nonce, 2);
    assert.equal((await services.outbox.waitForFinal(next.id)).receiptStatus, 'success');
  });

  test('submissions at once whose writes before signing refuse some: those are neither signed, stored nor sent, and take no nonce', async () => {
    const signer = await fundedSigner();
    const recipients = Array.from({ length: 6 }, freshAddress);
    const signed: string[] = [];
    const account = { ...signer.account, signTransaction: async (transaction: Parameters<NonNullable<typeof signer.account.signTransaction>>[0]) => {
      signed.push(transaction.to!.toLowerCase());
      return signer.account.signTransaction!(transaction);
    } };
    const outcomes = await Promise.allSettled(
      recipients.map((to, index) =>
        services.outbox.submit({
          idempotencyKey: `before-signing:${to}`,
          chain: 'main',
          signer: { address: signer.address, account },
          to,
          value: 1n,
          beforeSigning: async () => {
            if (index % 2 === 1) throw new Error(`refused ${index}`);
          },
        }),
      ),
    );
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'rejected']);
    const refused = recipients.filter((_, index) => index % 2 === 1).map((to) => to.toLowerCase());
    assert.deepEqual(signed.filter((to) => refused.includes(to)), [], 'nothing signed for a refused one');
    const mined = await Promise.all(outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [services.outbox.waitForFinal(outcome.value.id)] : [])));
    assert.deepEqual(mined.map((transaction) => transaction.nonce).sort(), [0, 1, 2]);
    for (const to of refused) assert.equal(await services.outbox.findByIdempotencyKey(`before-signing:${to}`), undefined);
    assert.equal(await services.chains.get('main').client.getTransactionCount({ address: signer.address }), 3);
  });

  test("submissions at once with statements of their own store them in their commit; one whose statement fails is neither stored nor sent, the others are", async () => {
    const signer = await fundedSigner();
    const recipients = Array.from({ length: 4 }, freshAddress);
    const settingKey = (to: string) => `test.statements.${to.toLowerCase()}`;
    // The third one's setting is stored already: its insert fails on the unique key.
    await services.store.db.insertInto('service_settings').values({ key: settingKey(recipients[2]!), value: 'before' }).execute();
    const outcomes = await Promise.allSettled(
      recipients.map((to) =>
        services.outbox.submit({
          idempotencyKey: `statements:${to}`,
          chain: 'main',
          signer,
          to,
          value: 1n,
          alongsideStatements: (trx, row) => [trx.insertInto('service_settings').values({ key: settingKey(to), value: row.id }).execute()],
        }),
      ),
    );
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const mined = await Promise.all(outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [services.outbox.waitForFinal(outcome.value.id)] : [])));
    assert.deepEqual(mined.map((transaction) => transaction.receiptStatus), ['success', 'success', 'success']);
    assert.deepEqual(mined.map((transaction) => transaction.nonce).sort(), [0, 1, 2]);
    const settings = await services.store.db.selectFrom('service_settings').selectAll().where('key', 'in', recipients.map(settingKey)).execute();
    const valueOf = new Map(settings.map((setting) => [setting.key, setting.value]));
    for (const [index, to] of recipients.entries()) {
      const stored = await services.outbox.findByIdempotencyKey(`statements:${to}`);
      if (index === 2) {
        assert.equal(stored, undefined, 'the refused one is not stored');
        assert.equal(valueOf.get(settingKey(to)), 'before', 'and its statement changed nothing');
      } else {
        assert.equal(valueOf.get(settingKey(to)), stored?.id, 'stored with its statement, naming its row');
      }
    }
    assert.equal(await services.chains.get('main').client.getTransactionCount({ address: signer.address }), 3);
  });

  test("a waiter's writes are made in the commit that records the receipt; one that throws is undone alone and left to its waiter", async () => {
    const signer = await fundedSigner();
    const to = freshAddress();
    const submitted = await services.outbox.submit({ idempotencyKey: `with-receipt:${to}`, chain: 'main', signer, to, value: 1n });
    const settingKey = `test.with-receipt.${to}`;
    const wrote: ReceiptWrite = async (trx, transaction, logs) => {
      await trx.insertInto('service_settings').values({ key: settingKey, value: `${transaction.status}:${transaction.blockNumber}:${logs.length}` }).execute();
    };
    const failing: ReceiptWrite = async (trx) => {
      await trx.insertInto('service_settings').values({ key: `${settingKey}.failing`, value: 'x' }).execute();
      throw new Error('this write fails');
    };
    const [first, second] = await Promise.all([services.outbox.waitForFinal(submitted.id, 60_000, wrote), services.outbox.waitForFinal(submitted.id, 60_000, failing)]);
    assert.equal(first.status, 'mined');
    assert.ok(first.receiptWritesDone?.has(wrote), 'made with the receipt');
    assert.ok(!second.receiptWritesDone?.has(failing), 'the failing write is not reported made');
    const settings = await services.store.db.selectFrom('service_settings').selectAll().where('key', 'like', `${settingKey}%`).execute();
    assert.deepEqual(settings, [{ key: settingKey, value: `mined:${first.blockNumber}:0` }], 'the failing write was undone, the other kept');
    const stored = await services.outbox.findById(submitted.id);
    assert.equal(stored?.status, 'mined');
  });

  test("a waiter whose first read of the row comes back after its receipt was recorded still learns that its write was made", async () => {
    const signer = await fundedSigner();
    const to = freshAddress();
    const submitted = await services.outbox.submit({ idempotencyKey: `late-read:${to}`, chain: 'main', signer, to, value: 1n });
    const settingKey = `test.late-read.${to}`;
    const wrote: ReceiptWrite = async (trx) => {
      await trx.insertInto('service_settings').values({ key: settingKey, value: 'made' }).execute();
    };
    // The waiter's first read of the row answers only once the receipt is recorded, as a read
    // queued behind busy PostgreSQL connections can.
    const findById = services.outbox.findById;
    services.outbox.findById = async function lateRead(this: TransactionOutbox, id: string) {
      services.outbox.findById = findById;
      await eventually('the receipt recorded', 30_000, async () => {
        const row = await services.store.db.selectFrom('outbox_transactions').select('status').where('id', '=', id).executeTakeFirst();
        return row?.status === 'signed' ? undefined : row;
      });
      return findById.call(this, id);
    };
    try {
      const final = await services.outbox.waitForFinal(submitted.id, 60_000, wrote);
      assert.equal(final.status, 'mined');
      assert.ok(final.receiptWritesDone?.has(wrote), 'made with the receipt, and the waiter is told so');
    } finally {
      services.outbox.findById = findById;
    }
    const made = await services.store.db.selectFrom('service_settings').selectAll().where('key', '=', settingKey).execute();
    assert.deepEqual(made, [{ key: settingKey, value: 'made' }]);
  });

  test('a transaction that cannot be estimated is refused before anything is stored', async () => {
    const signer = await fundedSigner('1');
    const key = `too-much:${signer.address}`;
    await assert.rejects(
      services.outbox.submit({ idempotencyKey: key, chain: 'main', signer, to: freshAddress(), value: parseEther('1000') }),
      (error: OutboxRefusal) => error instanceof OutboxRefusal && error.reason === 'insufficient_funds',
    );
    assert.equal(await services.outbox.findByIdempotencyKey(key), undefined);
    const nonceRow = await services.store.db
      .selectFrom('account_nonces')
      .selectAll()
      .where('address', '=', signer.address.toLowerCase())
      .executeTakeFirst();
    assert.equal(nonceRow, undefined);
  });

  test("the store reads an account's unmined rows in a nonce range, lowest first, and no one else's", async () => {
    // On a chain no service here tracks, so that nothing sends these rows.
    const account = freshAddress();
    const stored = (nonce: number, overrides: { status?: 'signed' | 'mined'; from?: Address; chain?: string } = {}) => ({
      id: `range-${account}-${nonce}-${overrides.status ?? 'signed'}-${overrides.from ?? ''}-${overrides.chain ?? ''}`,
      idempotency_key: `range:${account}:${nonce}:${overrides.status ?? ''}:${overrides.from ?? ''}:${overrides.chain ?? ''}`,
      chain: overrides.chain ?? 'untracked',
      from_address: overrides.from ?? account,
      nonce,
      to_address: null,
      value_wei: '0',
      data: '0x',
      gas_limit: '21000',
      raw_tx: '0x00',
      tx_hash: `0x${String(nonce).padStart(64, '0')}`,
      status: overrides.status ?? 'signed',
      receipt_status: null,
      block_number: null,
      block_hash: null,
      gas_used: null,
      contract_address: null,
      error: null,
      last_broadcast_ms: null,
      // Stored newest first: the range's order is the nonce's.
      created_ms: 10_000 - nonce,
      updated_ms: 10_000 - nonce,
    });
    await services.store.db
      .insertInto('outbox_transactions')
      .values([
        ...[7, 3, 5, 4, 6, 2].map((nonce) => stored(nonce)),
        stored(8, { status: 'mined' }),
        stored(4, { from: freshAddress() }),
        stored(5, { chain: 'untracked-too' }),
      ])
      .execute();
    const outboxStore = new OutboxStore(services.store);
    const read = await outboxStore.unminedBetween({ chain: 'untracked', from_address: account }, 3, 8, 500);
    assert.deepEqual(read.map((row) => row.nonce), [3, 4, 5, 6, 7]);
    assert.ok(read.every((row) => row.from_address === account && row.chain === 'untracked' && row.status === 'signed'));
    assert.deepEqual((await outboxStore.unminedBetween({ chain: 'untracked', from_address: account }, 3, 8, 2)).map((row) => row.nonce), [3, 4]);
  });

  test('an unconfigured chain answers 6417', async () => {
    await assert.rejects(
      services.outbox.submit({ idempotencyKey: 'x', chain: 'polygon', signer: operator, to: freshAddress() }),
      (error: { code?: number }) => error.code === 6417,
    );
  });
});
