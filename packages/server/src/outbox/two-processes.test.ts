import { createTestSchema } from '../testing/test-store.ts';
/**
 * Two service processes sharing one PostgreSQL store and one external node send from the same
 * account at the same time: the nonce row in the store must serialise them, so the account's 100
 * transactions use nonces 0..99 exactly once each. PostgreSQL only (WALLET_TEST_STORE=postgres):
 * SQLite is one process's embedded store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createPublicClient, http, type Address, type Hex, type PublicClient } from 'viem';
import { openStore, type Store } from '../store/database.ts';
import { startTestChain, type TestChain } from '../testing/chain-node.ts';
import {
  startDriver,
  type AcceptedLine,
  type DriverHandle,
  type DriverLine,
} from '../testing/outbox-load-driver.ts';

const skip =
  process.env.WALLET_TEST_STORE === 'postgres'
    ? false
    : 'needs a shared PostgreSQL store: run with WALLET_TEST_STORE=postgres TEST_DATABASE_URL=postgres://...';

const PER_PROCESS = 50;
const SENDER_OWNER = 'shared-sender';

describe('two processes sending from one account (PostgreSQL store, external node)', { skip }, () => {
  let chain: TestChain | undefined;
  let schema: { schema: string; drop(): Promise<void> } | undefined;
  let store: Store | undefined;
  const drivers: DriverHandle[] = [];
  const dataDirs: string[] = [];

  after(async () => {
    await Promise.all(drivers.map((driver) => driver.stop(8_000)));
    await chain?.stop();
    await store?.close();
    await schema?.drop();
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  });

  test(`${2 * PER_PROCESS} concurrent transactions from one account: nonces 0..${2 * PER_PROCESS - 1} once each`, { timeout: 150_000 }, async (t) => {
    const databaseUrl = process.env.TEST_DATABASE_URL;
    assert.ok(databaseUrl, 'TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
    chain = await startTestChain();
    schema = await createTestSchema();
    store = await openStore({ databaseUrl, postgresSchema: schema.schema, sqlitePath: '' });
    // Each process has its own data directory, so the master key that seals the shared key is passed to both.
    const masterKey = randomBytes(32).toString('hex');
    const common = {
      databaseUrl,
      schema: schema.schema,
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      masterKey,
      senderOwner: SENDER_OWNER,
    };
    const newDataDir = () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'wallet-two-'));
      dataDirs.push(dataDir);
      return dataDir;
    };
    const start = (mode: string, options: Parameters<typeof startDriver>[1]) => {
      const driver = startDriver(mode, options);
      drivers.push(driver);
      return driver;
    };

    // One process creates the sender key and funds it from the operator, through the outbox.
    const firstDir = newDataDir();
    const setup = start('shared-setup', { ...common, dataDir: firstDir, run: 'shared' });
    const sender = (await setup.waitForLine((line) => 'sender' in line, 60_000, 'the funded sender')).sender as { address: Address };
    assert.equal((await setup.exited).code, 0, setup.stderr());

    // Both processes start, get ready, and are released together.
    const senders = [firstDir, newDataDir()].map((dataDir, index) =>
      start('send', { ...common, dataDir, count: PER_PROCESS, concurrency: 10, run: `process-${index}`, waitGo: true }),
    );
    await Promise.all(senders.map((driver) => driver.waitForLine((line) => line.ready === true, 60_000, 'ready')));
    for (const driver of senders) driver.send('go');
    const client = createPublicClient({ transport: http(chain.rpcUrl) }) as PublicClient;
    for (const driver of senders) {
      const final = await driver.waitForLine((line) => 'final' in line, 120_000, 'final').catch(async (error: Error) => {
        // A hang says little by itself: what the node holds, and what the store thinks is unmined.
        const pool = await client.request({ method: 'txpool_inspect' as never }).catch((cause: Error) => cause.message);
        const mined = await client.getTransactionCount({ address: sender.address, blockTag: 'latest' }).catch(() => undefined);
        const unmined = await store!.db.selectFrom('outbox_transactions').select(['nonce', 'status', 'broadcast_attempts', 'last_broadcast_ms', 'error']).where('status', '!=', 'mined').execute();
        throw new Error(`${error.message}\nthe node's pool: ${JSON.stringify(pool)}\nnonces mined: ${mined}\nunmined in the store: ${JSON.stringify(unmined)}`);
      });
      assert.deepEqual(final.final, { mined: PER_PROCESS, failed: 0 });
      assert.equal((await driver.exited).code, 0, driver.stderr());
    }

    const isAccepted = (line: DriverLine) => typeof line.accepted === 'string';
    const accepted = senders.map((driver) => driver.lines.filter(isAccepted) as unknown as AcceptedLine[]);
    for (const lines of accepted) assert.equal(lines.length, PER_PROCESS);
    const all = accepted.flat();
    assert.equal(new Set(all.map((line) => line.accepted)).size, 2 * PER_PROCESS, 'idempotency keys are distinct');
    assert.ok(all.every((line) => line.from.toLowerCase() === sender.address.toLowerCase()), 'one sender');

    // The store: 100 rows of the sender, all mined, nonces 0..99 each once.
    const rows = await store.db
      .selectFrom('outbox_transactions')
      .selectAll()
      .where('from_address', '=', sender.address.toLowerCase())
      .execute();
    assert.equal(rows.length, 2 * PER_PROCESS);
    assert.ok(rows.every((row) => row.status === 'mined' && row.receipt_status === 'success' && row.block_number !== null));
    assert.deepEqual(
      rows.map((row) => Number(row.nonce)).sort((a, b) => a - b),
      Array.from({ length: 2 * PER_PROCESS }, (_, index) => index),
    );

    // The chain: nonce 100, each recipient credited exactly once, each recorded receipt the node's.
    assert.equal(await client.getTransactionCount({ address: sender.address, blockTag: 'latest' }), 2 * PER_PROCESS);
    const byKey = new Map(rows.map((row) => [row.idempotency_key, row]));
    await Promise.all(
      all.map(async (line) => {
        assert.equal(await client.getBalance({ address: line.to }), BigInt(line.value), `balance of ${line.to}`);
        const row = byKey.get(line.accepted);
        assert.ok(row, `row of ${line.accepted}`);
        assert.equal(row.tx_hash, line.txHash);
        const receipt = await client.getTransactionReceipt({ hash: row.tx_hash as Hex });
        assert.equal(receipt.blockHash, row.block_hash);
      }),
    );

    // How interleaved the two processes were: nonce order, switching between processes.
    const owner = new Map(all.map((line) => [line.nonce, line.accepted.split(':')[1]]));
    let switches = 0;
    for (let nonce = 1; nonce < 2 * PER_PROCESS; nonce++) if (owner.get(nonce) !== owner.get(nonce - 1)) switches++;
    t.diagnostic(`nonce runs switched between the processes ${switches} times`);
  });
});
