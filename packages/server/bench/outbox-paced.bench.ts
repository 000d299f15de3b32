/**
 * The outbox against a windowed, in-order raw sender on a node with a fixed block time, so the
 * figure is ours, not an automining node's. Run: `npm run bench -- outbox-paced` from the
 * repository root.
 *
 * The real services (SQLite store, the service's default settings) with the main chain on the
 * managed anvil started with `--block-time BLOCK_SECONDS`. Each side of each round runs on an
 * installation of its own (data directory, store and node), started before its clock starts: on
 * one node the later sides ran at half the rate of the first, whichever they were, the node's CPU
 * per transfer tripling as its chain grew (its periodic state dump, its block states), which is
 * the node's cost and not ours. Three sides:
 * - outbox: plain transfers submitted through the outbox from ACCOUNTS custody keys, CONCURRENCY
 *   submissions at a time, for SEND_SECONDS; then until the outbox has recorded every receipt.
 * - raw: the same transfers from ACCOUNTS plain keys, signed with viem as they are sent (nonce kept
 *   locally) and sent in nonce order as JSON-RPC batches of eth_sendRawTransaction (up to BATCH
 *   a batch, one batch in flight per account), at most WINDOW unmined per account, for
 *   SEND_SECONDS; the accounts' mined nonces polled every 50 ms make room. It reads the receipts of
 *   every new block once (eth_getBlockReceipts, each checked for success) and ends when it has read
 *   every transfer's: the outbox's job includes each transaction's receipt, and on anvil a receipt
 *   costs the node time in proportion to its block's size (about 190 ms of the node's CPU for a
 *   block of 1,024 transfers, 22 ms for 416), so a side that reads none would measure that, not us.
 *   (One request a transfer, awaited in order, left the raw side at 40% of the outbox here: a
 *   baseline that slow flatters.)
 * - raw without receipts, for reference: the same sender ending when the accounts' nonces show
 *   every transfer mined, reading no receipt. Its ratio is printed too, with the same target.
 * The three go in turn, each round starting with the next; a short round of each first, not counted. Each round gives the ratio of the rates
 * (transactions / time from the first send to the last receipt or nonce), this process's CPU per
 * transaction (process.cpuUsage: the outbox's work on one side, signing, sending and reading
 * receipts on the other) and the node's; the node's ceiling is its block gas limit over 21,000 gas
 * a transfer, per block time, and the fullest block seen is printed beside it. Prints the median of
 * the round ratios with min and max, and the load average beside each figure. Asserts nothing.
 *
 * Env: OUTBOX_PACED_ROUNDS (4), OUTBOX_PACED_SEND_SECONDS (10), OUTBOX_PACED_BLOCK_SECONDS (1),
 * OUTBOX_PACED_ACCOUNTS (4), OUTBOX_PACED_CONCURRENCY (16), OUTBOX_PACED_WINDOW (256), OUTBOX_PACED_BATCH (32).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseEther, toHex, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../src/config/config.ts';
import type { TransactionSigner } from '../src/outbox/outbox.ts';
import { openServices, type Services } from '../src/services.ts';
import { withBackgroundJobs } from '../src/background-jobs.ts';
import { loadNow, medianMinMax } from './bench-support.ts';

const ROUNDS = Number(process.env.OUTBOX_PACED_ROUNDS ?? 4);
const SEND_SECONDS = Number(process.env.OUTBOX_PACED_SEND_SECONDS ?? 10);
const BLOCK_SECONDS = Number(process.env.OUTBOX_PACED_BLOCK_SECONDS ?? 1);
const ACCOUNTS = Number(process.env.OUTBOX_PACED_ACCOUNTS ?? 4);
const CONCURRENCY = Number(process.env.OUTBOX_PACED_CONCURRENCY ?? 16);
const WINDOW = Number(process.env.OUTBOX_PACED_WINDOW ?? 256);
/** Issue 24's target, kept: the outbox sends at least 0.9 of the raw sender's rate. */
const TARGET_RATIO = 0.9;
const TRANSFER_GAS = 21_000n;
/** Most transfers the raw sender signs and sends in one JSON-RPC batch. */
const BATCH = Number(process.env.OUTBOX_PACED_BATCH ?? 32);

/** The pause between an installation's start and its side's first send. */
const SETTLE_MS = 2_000;

const freshAddress = (): Address => `0x${randomBytes(20).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SideResult {
  count: number;
  perSecond: number;
  seconds: number;
  clientCpuUs: number;
  nodeCpuUs: number;
  firstBlock: bigint;
  lastBlock: bigint;
}

/** CPU time (user + system) a process has used so far, in microseconds, from /proc (Linux). */
function processCpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

async function measured(services: Services, nodePid: number, work: () => Promise<{ count: number; ms: number }>): Promise<SideResult> {
  const client = services.chains.get('main').client;
  const firstBlock = await client.getBlockNumber({ cacheTime: 0 });
  const cpuBefore = process.cpuUsage();
  const nodeBefore = processCpuUs(nodePid);
  const { count, ms } = await work();
  const cpu = process.cpuUsage(cpuBefore);
  const nodeCpu = processCpuUs(nodePid) - nodeBefore;
  const lastBlock = await client.getBlockNumber({ cacheTime: 0 });
  return { count, perSecond: (count * 1000) / ms, seconds: ms / 1000, clientCpuUs: (cpu.user + cpu.system) / count, nodeCpuUs: nodeCpu / count, firstBlock, lastBlock };
}

async function outboxSide(services: Services, signers: TransactionSigner[], round: number, sendSeconds = SEND_SECONDS): Promise<{ count: number; ms: number }> {
  const ids: string[] = [];
  const started = performance.now();
  const end = started + sendSeconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const index = next++;
        const transaction = await services.outbox.submit({
          idempotencyKey: `paced:${round}:${index}`,
          chain: 'main',
          signer: signers[index % signers.length]!,
          to: freshAddress(),
          value: BigInt(index + 1),
          gas: TRANSFER_GAS,
        });
        ids.push(transaction.id);
      }
    }),
  );
  const finals = await Promise.all(ids.map((id) => services.outbox.waitForFinal(id, 300_000)));
  const ms = performance.now() - started;
  const unmined = finals.filter((transaction) => transaction.status !== 'mined').length;
  if (unmined > 0) throw new Error(`${unmined} outbox transactions did not end mined`);
  return { count: ids.length, ms };
}

/**
 * The raw sender: per account, signs and sends in nonce order, at most WINDOW unmined; with
 * `readReceipts`, reads each new block's receipts once and ends when every transfer's is read.
 */
async function rawSide(services: Services, keys: `0x${string}`[], readReceipts: boolean, sendSeconds = SEND_SECONDS): Promise<{ count: number; ms: number }> {
  const chain = services.chains.get('main');
  const client = chain.client;
  const accounts = keys.map((key) => privateKeyToAccount(key));
  const fees = await client.estimateFeesPerGas();
  const nonces = await Promise.all(accounts.map((account) => client.getTransactionCount({ address: account.address, blockTag: 'latest' })));
  const mined = [...nonces];
  const sentUpTo = [...nonces];
  let sending = true;
  let count = 0;
  let receiptsRead = 0;
  const ours = new Set(accounts.map((account) => account.address.toLowerCase()));
  let nextBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;
  const receiptReader = readReceipts
    ? (async () => {
        while (sending || receiptsRead < count) {
          const head = await client.getBlockNumber({ cacheTime: 0 });
          for (; nextBlock <= head; nextBlock++) {
            const receipts = (await client.request({ method: 'eth_getBlockReceipts' as never, params: [toHex(nextBlock)] as never })) as Array<{ from: string; status: string }>;
            for (const receipt of receipts) {
              if (!ours.has(receipt.from.toLowerCase())) continue;
              if (receipt.status !== '0x1') throw new Error('a raw transfer reverted');
              receiptsRead++;
            }
          }
          await sleep(50);
        }
      })()
    : undefined;
  // One poller of the accounts' mined nonces for every sender (what a careful client does).
  const poller = (async () => {
    while (sending || mined.some((nonce, slot) => nonce < sentUpTo[slot]!)) {
      const counts = await Promise.all(accounts.map((account) => client.getTransactionCount({ address: account.address, blockTag: 'latest' })));
      counts.forEach((count, slot) => (mined[slot] = count));
      await sleep(50);
    }
  })();
  const started = performance.now();
  const end = started + sendSeconds * 1000;
  let id = 0;
  await Promise.all(
    accounts.map(async (account, slot) => {
      while (performance.now() < end) {
        const room = Math.min(BATCH, WINDOW - (sentUpTo[slot]! - mined[slot]!));
        if (room <= 0) {
          await sleep(10);
          continue;
        }
        const raws: string[] = [];
        for (let index = 0; index < room; index++) {
          raws.push(
            await account.signTransaction({
              type: 'eip1559',
              chainId: chain.chainId,
              nonce: sentUpTo[slot]! + index,
              to: freshAddress(),
              value: BigInt(count + index + 1),
              gas: TRANSFER_GAS,
              maxFeePerGas: fees.maxFeePerGas * 2n,
              maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
            }),
          );
        }
        // One JSON-RPC batch: the node takes them in nonce order, with one round trip.
        const response = await fetch(chain.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(raws.map((raw) => ({ jsonrpc: '2.0', id: id++, method: 'eth_sendRawTransaction', params: [raw] }))),
        });
        const answers = (await response.json()) as Array<{ error?: { message: string } }>;
        const refused = answers.find((answer) => answer.error);
        if (refused) throw new Error(`the node refused a raw transfer: ${refused.error!.message}`);
        sentUpTo[slot]! += raws.length;
        count += raws.length;
      }
    }),
  );
  sending = false;
  const deadline = Date.now() + 300_000;
  while (mined.some((nonce, slot) => nonce < sentUpTo[slot]!)) {
    if (Date.now() > deadline) throw new Error('raw transfers not mined within 300 s');
    await sleep(5);
  }
  await receiptReader;
  const ms = performance.now() - started;
  await poller;
  return { count, ms };
}

/** One side's installation: a fresh data directory, store and managed anvil, with funded accounts. */
interface Installation {
  services: Services;
  nodePid: number;
  signers: TransactionSigner[];
  rawKeys: `0x${string}`[];
  gasLimit: bigint;
  close(): Promise<void>;
}

async function openInstallation(): Promise<Installation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-bench-paced-'));
  let services: Services | undefined;
  try {
    const config = loadConfig({
      env: { WALLET_DATA_DIR: dataDir },
      overrides: { chains: { main: { blockTimeSeconds: BLOCK_SECONDS }, ethereum: null, polygon: null }, logLevel: 'warn' },
    });
    services = await withBackgroundJobs(await openServices(config, { chainMode: 'own', log: pino({ level: 'warn' }, pino.destination(2)) }));
    const chain = services.chains.get('main');
    const nodePid = chain.node?.pid;
    if (nodePid === undefined) throw new Error('the main chain has no managed node');
    const setBalance = (address: Address) => chain.client.request({ method: 'anvil_setBalance' as never, params: [address, toHex(parseEther('100000'))] as never });
    const signers: TransactionSigner[] = [];
    for (let index = 0; index < ACCOUNTS; index++) {
      const key = await services.vault.createKey({ ownerType: 'fee_payer', ownerId: `paced-${index}`, protection: 'server', secretKind: 'private_key' });
      await setBalance(key.address);
      const unlocked = await services.vault.unlock(key.keyId);
      signers.push({ address: unlocked.address, account: unlocked.account });
    }
    const rawKeys = Array.from({ length: ACCOUNTS }, () => generatePrivateKey());
    for (const key of rawKeys) await setBalance(privateKeyToAccount(key).address);
    const gasLimit = (await chain.client.getBlock({ blockTag: 'latest' })).gasLimit;
    const opened = services;
    return {
      services,
      nodePid,
      signers,
      rawKeys,
      gasLimit,
      close: async () => {
        await opened.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await services?.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

const SIDES = ['outbox', 'raw', 'raw without receipts'] as const;
type Side = (typeof SIDES)[number];

/** Runs one side on a fresh installation: its result, and the most transactions a block of it held. */
async function runSide(side: Side, round: number): Promise<{ result: SideResult; fullestBlock: number; gasLimit: bigint }> {
  const installation = await openInstallation();
  try {
    const { services, nodePid, signers, rawKeys } = installation;
    // The start's own writes and first background passes settle before the clock starts.
    await sleep(SETTLE_MS);
    const result = await measured(services, nodePid, () => (side === 'outbox' ? outboxSide(services, signers, round) : rawSide(services, rawKeys, side === 'raw')));
    const client = services.chains.get('main').client;
    let fullestBlock = 0;
    for (let block = result.firstBlock + 1n; block <= result.lastBlock; block++) {
      fullestBlock = Math.max(fullestBlock, (await client.getBlock({ blockNumber: block })).transactions.length);
    }
    return { result, fullestBlock, gasLimit: installation.gasLimit };
  } finally {
    await installation.close();
  }
}

async function main(): Promise<void> {
  // A short round of each, not counted: the JIT and the node's binary in the page cache.
  const warmUp = await openInstallation();
  let gasLimit: bigint;
  try {
    await outboxSide(warmUp.services, warmUp.signers, -1, 2);
    await rawSide(warmUp.services, warmUp.rawKeys, true, 2);
    await rawSide(warmUp.services, warmUp.rawKeys, false, 2);
    gasLimit = warmUp.gasLimit;
  } finally {
    await warmUp.close();
  }
  const ceiling = Number(gasLimit / TRANSFER_GAS) / BLOCK_SECONDS;
  console.log(
    `outbox-paced bench: SQLite store, managed anvil --block-time ${BLOCK_SECONDS} (block gas limit ${gasLimit}: ceiling ${ceiling.toFixed(0)} transfers/s), ` +
      `a fresh installation (store and node) for each side of each round; ` +
      `${ACCOUNTS} accounts a side; outbox ${CONCURRENCY} submissions at a time; raw signs with viem, batches of ${BATCH} in nonce order, ${WINDOW} unmined per account at most; ` +
      `each side sends for ${SEND_SECONDS} s a round; load average before ${loadNow()}`,
  );

  const ratios = { raw: [] as number[], 'raw without receipts': [] as number[] };
  const cpu = { outbox: [] as number[], raw: [] as number[], 'raw without receipts': [] as number[] };
  const node = { outbox: [] as number[], raw: [] as number[], 'raw without receipts': [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = SIDES.map((_, index) => SIDES[(index + round) % SIDES.length]!);
    const results = new Map<Side, { result: SideResult; fullestBlock: number }>();
    for (const side of order) results.set(side, await runSide(side, round));
    const outbox = results.get('outbox')!.result;
    for (const side of SIDES) {
      cpu[side].push(results.get(side)!.result.clientCpuUs);
      node[side].push(results.get(side)!.result.nodeCpuUs);
    }
    ratios.raw.push(outbox.perSecond / results.get('raw')!.result.perSecond);
    ratios['raw without receipts'].push(outbox.perSecond / results.get('raw without receipts')!.result.perSecond);
    const shown = (side: Side) => {
      const { result, fullestBlock } = results.get(side)!;
      return `${side} ${result.perSecond.toFixed(0)} tx/s (${result.count} in ${result.seconds.toFixed(1)} s, fullest block ${fullestBlock}; cpu/tx: ours ${result.clientCpuUs.toFixed(0)} us, node ${result.nodeCpuUs.toFixed(0)} us)`;
    };
    console.log(
      `  round ${round + 1}: ${order.map(shown).join('; ')}; ratio ${ratios.raw.at(-1)!.toFixed(2)} (without receipts ${ratios['raw without receipts'].at(-1)!.toFixed(2)}); ` +
        `outbox at ${((outbox.perSecond / ceiling) * 100).toFixed(0)}% of the node's ceiling; load ${loadNow()}`,
    );
  }
  const figure = (values: number[]) => {
    const { median, min, max } = medianMinMax(values);
    return `${median.toFixed(3)} (min ${min.toFixed(3)}, max ${max.toFixed(3)}); target >= ${TARGET_RATIO}: ${median >= TARGET_RATIO ? 'met' : 'NOT met'}`;
  };
  const microseconds = (values: number[]) => {
    const { median, min, max } = medianMinMax(values);
    return `${median.toFixed(0)} us (min ${min.toFixed(0)}, max ${max.toFixed(0)})`;
  };
  console.log(`  ratio outbox / raw (median of rounds): ${figure(ratios.raw)}; load ${loadNow()}`);
  console.log(`  for reference, outbox / raw without receipts: ${figure(ratios['raw without receipts'])}`);
  console.log(
    `  our CPU per transaction (median of rounds): outbox ${microseconds(cpu.outbox)}; raw ${microseconds(cpu.raw)}; raw without receipts ${microseconds(cpu['raw without receipts'])}; target: reported; node ceiling ${ceiling.toFixed(0)} tx/s`,
  );
  console.log(`  the node's CPU per transaction: outbox ${microseconds(node.outbox)}; raw ${microseconds(node.raw)}; raw without receipts ${microseconds(node['raw without receipts'])}`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`outbox-paced bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
