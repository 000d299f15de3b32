/**
 * The outbox against a windowed, in-order raw sender on a node with a fixed block time, so the
 * figure is ours, not an automining node's. Run: `npm run bench -- outbox-paced` from the
 * repository root.
 *
 * The real services (SQLite store, the service's default outbox settings) with the main chain on
 * the managed anvil started with `--block-time BLOCK_SECONDS`. Two sides, alternating round by
 * round (which goes first alternating too), on the same node:
 * - outbox: plain transfers submitted through the outbox from ACCOUNTS custody keys, CONCURRENCY
 *   submissions at a time, for SEND_SECONDS; then until the outbox has recorded every receipt.
 * - raw: the same transfers from ACCOUNTS plain keys, signed with viem as they are sent (nonce kept
 *   locally) and sent in nonce order as JSON-RPC batches of eth_sendRawTransaction (up to BATCH
 *   a batch, one batch in flight per account), at most WINDOW unmined per account, for
 *   SEND_SECONDS; then until the accounts' nonces show every one mined. (One request a transfer,
 *   awaited in order, left the raw side at 40% of the outbox here: a baseline that slow flatters.)
 * Each round gives the ratio of the two rates (transactions / time from the first send to the last
 * receipt), this process's CPU per transaction (process.cpuUsage: the outbox's work on one side,
 * signing and sending on the other) and the node's; the node's ceiling is its block gas limit over
 * 21,000 gas a transfer, per block time, and the fullest block seen is printed beside it. Prints the
 * median of the round ratios with min and max, and the load average beside each figure. Asserts nothing.
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

async function outboxSide(services: Services, signers: TransactionSigner[], round: number): Promise<{ count: number; ms: number }> {
  const ids: string[] = [];
  const started = performance.now();
  const end = started + SEND_SECONDS * 1000;
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

/** The raw sender: per account, signs and sends in nonce order, at most WINDOW unmined. */
async function rawSide(services: Services, keys: `0x${string}`[]): Promise<{ count: number; ms: number }> {
  const chain = services.chains.get('main');
  const client = chain.client;
  const accounts = keys.map((key) => privateKeyToAccount(key));
  const fees = await client.estimateFeesPerGas();
  const nonces = await Promise.all(accounts.map((account) => client.getTransactionCount({ address: account.address, blockTag: 'latest' })));
  const mined = [...nonces];
  const sentUpTo = [...nonces];
  let sending = true;
  // One poller of the accounts' mined nonces for every sender (what a careful client does).
  const poller = (async () => {
    while (sending || mined.some((nonce, slot) => nonce < sentUpTo[slot]!)) {
      const counts = await Promise.all(accounts.map((account) => client.getTransactionCount({ address: account.address, blockTag: 'latest' })));
      counts.forEach((count, slot) => (mined[slot] = count));
      await sleep(50);
    }
  })();
  const started = performance.now();
  const end = started + SEND_SECONDS * 1000;
  let count = 0;
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
  const ms = performance.now() - started;
  await poller;
  return { count, ms };
}

async function main(): Promise<void> {
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
    const ceiling = Number(gasLimit / TRANSFER_GAS) / BLOCK_SECONDS;

    const fullest = async (side: SideResult) => {
      let most = 0;
      for (let block = side.firstBlock + 1n; block <= side.lastBlock; block++) {
        most = Math.max(most, (await chain.client.getBlock({ blockNumber: block })).transactions.length);
      }
      return most;
    };
    console.log(
      `outbox-paced bench: SQLite store, managed anvil --block-time ${BLOCK_SECONDS} (block gas limit ${gasLimit}: ceiling ${ceiling.toFixed(0)} transfers/s), ` +
        `${ACCOUNTS} accounts a side; outbox ${CONCURRENCY} submissions at a time; raw signs with viem, batches of ${BATCH} in nonce order, ${WINDOW} unmined per account at most; ` +
        `each side sends for ${SEND_SECONDS} s a round; load average before ${loadNow()}`,
    );
    // A short round of each, not counted: connections, caches and the JIT.
    await outboxSide(services, signers, -1);
    await rawSide(services, rawKeys);

    const ratios: number[] = [];
    const cpu = { outbox: [] as number[], raw: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const outboxFirst = round % 2 === 0;
      const run = (side: 'outbox' | 'raw') => measured(services!, nodePid, () => (side === 'outbox' ? outboxSide(services!, signers, round) : rawSide(services!, rawKeys)));
      const first = await run(outboxFirst ? 'outbox' : 'raw');
      const second = await run(outboxFirst ? 'raw' : 'outbox');
      const [outbox, raw] = outboxFirst ? [first, second] : [second, first];
      ratios.push(outbox.perSecond / raw.perSecond);
      cpu.outbox.push(outbox.clientCpuUs);
      cpu.raw.push(raw.clientCpuUs);
      const shown = async (side: SideResult) =>
        `${side.perSecond.toFixed(0)} tx/s (${side.count} in ${side.seconds.toFixed(1)} s, fullest block ${await fullest(side)}; cpu/tx: ours ${side.clientCpuUs.toFixed(0)} us, node ${side.nodeCpuUs.toFixed(0)} us)`;
      console.log(
        `  round ${round + 1} (${outboxFirst ? 'outbox first' : 'raw first'}): outbox ${await shown(outbox)}; raw ${await shown(raw)}; ratio ${ratios.at(-1)!.toFixed(2)}; ` +
          `outbox at ${((outbox.perSecond / ceiling) * 100).toFixed(0)}% of the node's ceiling; load ${loadNow()}`,
      );
    }
    const ratio = medianMinMax(ratios);
    const outboxCpu = medianMinMax(cpu.outbox);
    const rawCpu = medianMinMax(cpu.raw);
    console.log(`  ratio outbox / raw (median of rounds): ${ratio.median.toFixed(3)} (min ${ratio.min.toFixed(3)}, max ${ratio.max.toFixed(3)}); target >= ${TARGET_RATIO}: ${ratio.median >= TARGET_RATIO ? 'met' : 'NOT met'}; load ${loadNow()}`);
    console.log(
      `  our CPU per transaction (median of rounds): outbox ${outboxCpu.median.toFixed(0)} us (min ${outboxCpu.min.toFixed(0)}, max ${outboxCpu.max.toFixed(0)}); ` +
        `raw sender ${rawCpu.median.toFixed(0)} us (min ${rawCpu.min.toFixed(0)}, max ${rawCpu.max.toFixed(0)}); target: reported; node ceiling ${ceiling.toFixed(0)} tx/s`,
    );
  } finally {
    await services?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`outbox-paced bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
