import { createTestSchema } from '../testing/test-store.ts';
/**
 * Crash tests of the outbox against a real embedded node and a real store (SQLite; PostgreSQL in a
 * fresh schema when WALLET_TEST_STORE=postgres). A load driver child process submits operations from
 * several accounts; mid-load either the service process or its chain node is SIGKILLed. Once the
 * outbox has caught up, the chain itself must show every accepted operation exactly once and every
 * account's nonces used without gap or repeat.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test, type TestContext } from 'node:test';
import { createPublicClient, decodeFunctionData, http, type Address, type Hex, type PublicClient } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { openStore, type Store } from '../store/database.ts';
import type { OutboxRow } from '../store/schema.ts';
import {
  startDriver,
  type AcceptedLine,
  type AttemptLine,
  type DriverHandle,
  type DriverLine,
  type DriverOptions,
  type PartnerLine,
} from '../testing/outbox-load-driver.ts';

const STORE_KIND = process.env.WALLET_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
/** Operations of one load run, and how many must be accepted before the kill. */
const LOAD_COUNT = 240;
const KILL_AFTER = 80;
/**
 * The run with a send window: a node mining a block a second, and a window small enough that
 * transactions wait for room (in memory only) when the kill comes, so the restart must send them
 * from the store.
 */
const WINDOWED = { blockTime: 1, sendWindow: 2, count: 60, killAfter: 24 };
const PIN = '246810';

const isAccepted = (line: DriverLine): boolean => typeof line.accepted === 'string';
const isAttempt = (line: DriverLine): boolean => typeof line.attempt === 'string';

/** One isolated service installation: a data directory and its store (SQLite file or PostgreSQL schema). */
interface Installation {
  dataDir: string;
  /** The test's own connection to the store the children use. */
  store: Store;
  driverOptions: Pick<DriverOptions, 'dataDir' | 'databaseUrl' | 'schema'>;
  drivers: DriverHandle[];
  /** Node pids seen, ended in cleanup if still alive. */
  nodePids: Set<number>;
  start(mode: string, options?: Omit<DriverOptions, 'dataDir' | 'databaseUrl' | 'schema'>): DriverHandle;
  cleanup(): Promise<void>;
}

async function openInstallation(): Promise<Installation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-crash-'));
  let store: Store;
  let postgres: { databaseUrl: string; schema: string; drop(): Promise<void> } | undefined;
  try {
    if (STORE_KIND === 'postgres') {
      const databaseUrl = process.env.TEST_DATABASE_URL;
      if (!databaseUrl) throw new Error('WALLET_TEST_STORE=postgres needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
      postgres = await createTestSchema();
      store = await openStore({ databaseUrl, postgresSchema: postgres.schema, sqlitePath: '' });
    } else {
      store = await openStore({ sqlitePath: join(dataDir, 'wallet.sqlite') });
    }
  } catch (error) {
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const driverOptions = {
    dataDir,
    ...(postgres ? { databaseUrl: postgres.databaseUrl, schema: postgres.schema } : {}),
  };
  let cleaned: Promise<void> | undefined;
  const installation: Installation = {
    dataDir,
    store,
    driverOptions,
    drivers: [],
    nodePids: new Set(),
    start(mode, options = {}) {
      const driver = startDriver(mode, { ...driverOptions, ...options });
      installation.drivers.push(driver);
      return driver;
    },
    cleanup() {
      cleaned ??= (async () => {
        // Graceful first: a driver stopping its services also stops (and dumps) its node.
        await Promise.all(installation.drivers.map((driver) => driver.stop(8_000)));
        const record = nodeRecord(dataDir);
        if (record) installation.nodePids.add(record.nodePid);
        for (const pid of installation.nodePids) killAnvil(pid);
        try {
          await store.close();
          await postgres?.drop();
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
        }
      })();
      return cleaned;
    },
  };
  return installation;
}

/** `<dataDir>/chains/main/node.json`, written by the supervisor of the embedded node. */
function nodeRecord(dataDir: string): { nodePid: number; ownerPid: number; rpcUrl: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, 'chains', 'main', 'node.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs (a zombie, dead but not yet reaped, does not). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    if (process.platform === 'linux') return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs `pid` if it is still an anvil process (pids get reused). */
function killAnvil(pid: number): void {
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('anvil')) return;
  } catch {
    if (process.platform === 'linux') return; // gone
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message())), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the setup driver to completion: 3 approved partners and 3 funded fee-payer keys. */
async function setUp(installation: Installation, node: Pick<DriverOptions, 'blockTime' | 'sendWindow'> = {}): Promise<PartnerLine['partner'][]> {
  const setup = installation.start('setup', { run: 'setup', pin: PIN, ...node });
  const { code, signal } = await withTimeout(setup.exited, 90_000, () => `setup did not finish:\n${setup.stderr()}`);
  assert.equal(code, 0, `setup exited ${signal ?? code}:\n${setup.stderr()}`);
  const partners = setup.lines.filter((line) => 'partner' in line).map((line) => (line as unknown as PartnerLine).partner);
  assert.equal(partners.length, 3);
  assert.equal(setup.lines.filter((line) => 'feePayer' in line).length, 3);
  return partners;
}

/** Waits until the store has every accepted operation mined and nothing left to send. */
async function waitAllMined(store: Store, accepted: AcceptedLine[], timeoutMs: number): Promise<void> {
  const keys = new Set(accepted.map((line) => line.accepted));
  let last = '';
  try {
    await waitUntil(
      async () => {
        const rows = await store.db.selectFrom('outbox_transactions').select(['idempotency_key', 'status', 'error']).execute();
        const failed = rows.filter((row) => row.status === 'failed');
        assert.deepEqual(failed, [], 'no outbox transaction may fail');
        const minedKeys = new Set(rows.filter((row) => row.status === 'mined').map((row) => row.idempotency_key));
        const unmined = rows.filter((row) => row.status !== 'mined').length;
        const missing = [...keys].filter((key) => !minedKeys.has(key)).length;
        last = `${unmined} rows not mined, ${missing} accepted operations not mined`;
        return unmined === 0 && missing === 0;
      },
      timeoutMs,
      'every accepted operation to be mined',
    );
  } catch (error) {
    throw new Error(`${(error as Error).message} (${last})`);
  }
}

/** Runs `work` over `items`, `width` at a time. */
async function inChunks<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += width) await Promise.all(items.slice(start, start + width).map(work));
}

/**
 * The assertions on chain state. Every outbox row: mined, receipt recorded as the node has it. Every
 * account: outbox nonces 0..n-1, each once, and the chain nonce n. Every attempted operation: its
 * effect is on chain exactly once when its row exists (always, when it was accepted), absent when not.
 */
async function verifyChainState(
  store: Store,
  rpcUrl: string,
  lines: DriverLine[],
  partners: PartnerLine['partner'][],
): Promise<{ rows: number; accepted: number; attempted: number; accounts: number }> {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: 20_000 }) }) as PublicClient;
  const rows = await store.db.selectFrom('outbox_transactions').selectAll().where('chain', '=', 'main').execute();
  const byKey = new Map(rows.map((row) => [row.idempotency_key, row]));
  const accepted = lines.filter(isAccepted) as unknown as AcceptedLine[];
  const attempts = lines.filter(isAttempt) as unknown as AttemptLine[];
  const acceptedKeys = new Set(accepted.map((line) => line.accepted));

  // Every stored transaction is mined, and its recorded receipt is the node's.
  await inChunks(rows, 25, async (row) => {
    assert.equal(row.status, 'mined', `${row.idempotency_key} is ${row.status}`);
    assert.equal(row.receipt_status, 'success', `${row.idempotency_key} receipt ${row.receipt_status}`);
    assert.notEqual(row.block_number, null);
    const receipt = await client.getTransactionReceipt({ hash: row.tx_hash as Hex });
    assert.equal(receipt.status, 'success');
    assert.equal(Number(row.block_number), Number(receipt.blockNumber), `${row.idempotency_key} block number`);
    assert.equal(row.block_hash, receipt.blockHash, `${row.idempotency_key} block hash`);
    assert.equal(receipt.from.toLowerCase(), row.from_address);
  });

  // Per account: nonces 0..n-1, each exactly once; the chain has used exactly n.
  const nonces = new Map<string, number[]>();
  for (const row of rows) nonces.set(row.from_address, [...(nonces.get(row.from_address) ?? []), Number(row.nonce)]);
  for (const [address, used] of nonces) {
    const sorted = [...used].sort((a, b) => a - b);
    assert.deepEqual(sorted, Array.from({ length: sorted.length }, (_, index) => index), `nonces of ${address}`);
    const chainNonce = await client.getTransactionCount({ address: address as Address, blockTag: 'latest' });
    assert.equal(chainNonce, sorted.length, `chain nonce of ${address}`);
  }

  // What was printed as accepted is what the store holds.
  for (const line of accepted) {
    const row = byKey.get(line.accepted);
    assert.ok(row, `accepted operation ${line.accepted} has no outbox row`);
    assert.equal(row.id, line.id);
    assert.equal(row.tx_hash, line.txHash);
    assert.equal(Number(row.nonce), line.nonce);
    assert.equal(row.from_address, line.from.toLowerCase());
  }

  // Every attempted operation: exactly once when stored (accepted ones always are), never otherwise.
  const contracts = new Set(partners.map((partner) => partner.contract.toLowerCase()));
  await inChunks(attempts, 10, async (line) => {
    const row = byKey.get(line.attempt);
    if (acceptedKeys.has(line.attempt)) assert.ok(row);
    const times = row ? 1n : 0n;
    if (line.kind === 'mint') {
      assert.ok(contracts.has(line.to.toLowerCase()), `mint to unknown contract ${line.to}`);
      for (const recipient of line.recipients) {
        const balance = await client.readContract({ address: line.to, abi: cardNftAbi, functionName: 'balanceOf', args: [recipient] });
        assert.equal(balance, times, `${line.attempt}: cards of ${recipient}`);
      }
    } else {
      const balance = await client.getBalance({ address: line.to });
      assert.equal(balance, BigInt(line.value) * times, `${line.attempt}: balance of ${line.to}`);
    }
    if (row) {
      assert.equal(row.to_address, line.to.toLowerCase());
      assert.equal(row.value_wei, line.kind === 'mint' ? '0' : line.value);
    }
  });

  // Per card contract: the tokens that exist are exactly one per recipient of the stored mints.
  const minted = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.to_address || !contracts.has(row.to_address)) continue;
    const call = decodeFunctionData({ abi: cardNftAbi, data: row.data as Hex });
    if (call.functionName !== 'mintBatch') continue;
    const recipients = (call.args[0] as readonly Address[]).map((address) => address.toLowerCase());
    minted.set(row.to_address, [...(minted.get(row.to_address) ?? []), ...recipients]);
  }
  for (const [contract, recipients] of minted) {
    const next = await client.readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'nextTokenId' });
    assert.equal(Number(next) - 1, recipients.length, `tokens of ${contract}`);
    const owners: string[] = [];
    const ids = Array.from({ length: recipients.length }, (_, index) => BigInt(index + 1));
    await inChunks(ids, 25, async (tokenId) => {
      const owner = await client.readContract({ address: contract as Address, abi: cardNftAbi, functionName: 'ownerOf', args: [tokenId] });
      owners.push(owner.toLowerCase());
    });
    assert.deepEqual(owners.sort(), [...recipients].sort(), `owners of the cards of ${contract}`);
  }
  return { rows: rows.length, accepted: accepted.length, attempted: attempts.length, accounts: nonces.size };
}

function unminedRows(rows: Pick<OutboxRow, 'status'>[]): number {
  return rows.filter((row) => row.status !== 'mined').length;
}

describe(`outbox crash recovery (${STORE_KIND} store, embedded node)`, () => {
  const installations: Installation[] = [];
  after(async () => {
    for (const installation of installations) await installation.cleanup().catch(() => undefined);
  });

  test('service SIGKILLed mid-load: a restarted service replays; every accepted operation happens exactly once', { timeout: 150_000 }, async (t) => {
    await serviceKilledMidLoad(t, { run: 'crash-service', count: LOAD_COUNT, killAfter: KILL_AFTER });
  });

  test('service SIGKILLed with transactions waiting for room in their send window (a node with a block time): each is sent after the restart, once', { timeout: 150_000 }, async (t) => {
    await serviceKilledMidLoad(t, { run: 'crash-window', ...WINDOWED });
  });

  async function serviceKilledMidLoad(
    t: TestContext,
    run: { run: string; count: number; killAfter: number; blockTime?: number; sendWindow?: number },
  ): Promise<void> {
    const node = { ...(run.blockTime ? { blockTime: run.blockTime } : {}), ...(run.sendWindow ? { sendWindow: run.sendWindow } : {}) };
    const installation = await openInstallation();
    installations.push(installation);
    t.after(() => installation.cleanup());
    const partners = await setUp(installation, node);

    const load = installation.start('load', { count: run.count, concurrency: 8, run: run.run, pin: PIN, ...node });
    await load.waitForCount(isAccepted, run.killAfter, 90_000, `${run.killAfter} accepted operations`);
    const orphan = nodeRecord(installation.dataDir);
    if (orphan) installation.nodePids.add(orphan.nodePid);
    load.child.kill('SIGKILL');
    await load.exited;
    const acceptedAtCrash = load.lines.filter(isAccepted).length;
    assert.ok(acceptedAtCrash < run.count, `the load finished (${acceptedAtCrash}) before the kill: nothing was interrupted`);
    const unminedAtCrash = unminedRows(await installation.store.db.selectFrom('outbox_transactions').select('status').execute());

    // A new service on the same data directory ends the orphaned node gracefully and replays.
    const serve = installation.start('serve', node);
    const serving = await serve.waitForLine((line) => line.serving === true, 60_000, 'serving');
    if (orphan) {
      assert.notEqual(serving.nodePid, orphan.nodePid);
      await waitUntil(() => !isRunning(orphan.nodePid), 15_000, `the orphaned node ${orphan.nodePid} to end`);
    }
    await waitAllMined(installation.store, load.lines.filter(isAccepted) as unknown as AcceptedLine[], 90_000);
    const summary = await verifyChainState(installation.store, serving.rpcUrl as string, load.lines, partners);
    t.diagnostic(`accepted before the kill: ${acceptedAtCrash}; unmined at the kill: ${unminedAtCrash}; ${JSON.stringify(summary)}`);
  }

  test('chain node SIGKILLed mid-load: the supervisor restarts it; the outbox replays what it lost', { timeout: 150_000 }, async (t) => {
    const installation = await openInstallation();
    installations.push(installation);
    t.after(() => installation.cleanup());
    const partners = await setUp(installation);

    const load = installation.start('load', { count: LOAD_COUNT, concurrency: 8, run: 'crash-node', pin: PIN, linger: true });
    await load.waitForCount(isAccepted, KILL_AFTER, 90_000, `${KILL_AFTER} accepted operations`);
    const killed = nodeRecord(installation.dataDir);
    assert.ok(killed, 'node.json of the main chain');
    installation.nodePids.add(killed.nodePid);
    process.kill(killed.nodePid, 'SIGKILL');
    const acceptedAtKill = load.lines.filter(isAccepted).length;
    assert.ok(acceptedAtKill < LOAD_COUNT, `the load finished (${acceptedAtKill}) before the kill: nothing was interrupted`);

    await waitUntil(
      () => {
        const record = nodeRecord(installation.dataDir);
        return record !== undefined && record.nodePid !== killed.nodePid;
      },
      30_000,
      'the supervisor to restart the node',
    );
    const restarted = nodeRecord(installation.dataDir)!;
    installation.nodePids.add(restarted.nodePid);
    assert.equal(restarted.rpcUrl, killed.rpcUrl, 'the node comes back on the same port');

    const final = await load.waitForLine((line) => 'final' in line, 120_000, 'all accepted operations final');
    const submitted = load.lines.find((line) => 'submitted' in line)!;
    assert.deepEqual(submitted, { submitted: LOAD_COUNT, gaveUp: 0 }, 'the load completes despite the node restart');
    assert.deepEqual(final.final, { mined: LOAD_COUNT, failed: 0 });
    await waitAllMined(installation.store, load.lines.filter(isAccepted) as unknown as AcceptedLine[], 60_000);
    const summary = await verifyChainState(installation.store, restarted.rpcUrl, load.lines, partners);
    const replayed = /lost (\d+) mined transactions/.exec(load.stderr())?.[1] ?? '0';
    t.diagnostic(`accepted before the kill: ${acceptedAtKill}; mined transactions the node lost: ${replayed}; ${JSON.stringify(summary)}`);
  });
});
