/**
 * A7 end-to-end latency, one call in flight, against a direct sign-send-wait of the same
 * transaction. Run: `npm run bench -- mint-latency` from the repository root.
 *
 * The real services and app (openTestApp: managed anvil with automine, SQLite, or PostgreSQL with
 * WALLET_TEST_STORE=postgres) with the service's default outbox settings (receipts polled every
 * 200 ms), and an approved partner signed in through A1. A7 side: POST /v2/wallet/mint to
 * LATENCY_CARDS fresh addresses, timed until its answer (it answers once the cards are mined).
 * Direct side: a plain key that owns a CardNFT of its own on the same node signs `mintBatch` to as
 * many fresh addresses (nonce kept locally, fees read once a round), sends it with
 * eth_sendRawTransaction and polls eth_getTransactionReceipt every millisecond until it is there (as the outbox does on an automining node), through
 * a plain viem client of its own (no batching: the service's transport is not in the baseline).
 * Each side's call is made ready (payload, fresh recipients) before its timer starts, and starts
 * LATENCY_BENCH_QUIET_MS after the call before it, so the background work one call leaves (the
 * card index catching up on the new block, a webhook) is counted in neither side's next call. A third
 * side, timed after each pair and not part of the targets, sends the same mint through the outbox
 * alone (`submit` + `waitForFinal`, another plain key as its signer): what is left of A7's time
 * beyond it is A7's own work (PIN, store, HTTP); beyond direct, the outbox's.
 *
 * ROUNDS rounds of at least ROUND_SECONDS each, each on a fresh installation (store and node: a
 * node holding more blocks answers more slowly, which would flatter later rounds); within a round
 * the two sides alternate call by call, which one goes first alternating too, so the machine's
 * drifting load hits both. Prints p50
 * and p99 of each side per round and overall, the ratios against the targets (p50 <= 1.5x,
 * p99 <= 2x direct; judged on the median of the rounds' ratios) and the load average beside each round. Asserts nothing.
 *
 * Env: LATENCY_BENCH_ROUNDS (3), LATENCY_BENCH_ROUND_SECONDS (10), LATENCY_BENCH_CARDS (1),
 * LATENCY_BENCH_POLL_MS (the outbox's receipt poll interval; 200, the default configuration),
 * LATENCY_BENCH_QUIET_MS (30).
 */
import { loadavg } from 'node:os';
import { createPublicClient, encodeDeployData, encodeFunctionData, http, parseEther, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { cardNftAbi, cardNftBytecode } from '@wallet-service/contracts';
import { setBalance } from '../src/a2a/testing/support.ts';
import { buildAddresses, buildMintPayload, mintOk } from '../src/cards/testing/card-factories.ts';
import { signInToken } from '../src/partner-api/testing/partner-session.ts';
import type { ChainContext } from '../src/chain/chains.ts';
import { buildApprovedPartner } from '../src/testing/factories.ts';
import { openTestApp, type TestApp } from '../src/testing/test-services.ts';
import { medianMinMax, percentile, loadNow } from './bench-support.ts';

const ROUNDS = Number(process.env.LATENCY_BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.LATENCY_BENCH_ROUND_SECONDS ?? 10);
const CARDS = Number(process.env.LATENCY_BENCH_CARDS ?? 1);
const POLL_MS = Number(process.env.LATENCY_BENCH_POLL_MS ?? 200);
const WARM_UP_PAIRS = 20;
const QUIET_MS = Number(process.env.LATENCY_BENCH_QUIET_MS ?? 30);
/** The targets (37): A7 at most 1.5x direct at p50 and 2x at p99. */
const TARGETS = { p50: 1.5, p99: 2 };

/**
 * A plain key owning a CardNFT of its own: signs its mints itself (the direct side), or hands them
 * to the outbox as its signer (`submit` + `waitForFinal`: the outbox alone, without A7's own work).
 */
async function directMinter(chain: ChainContext, outbox: TestApp['services']['outbox']) {
  const account = privateKeyToAccount(generatePrivateKey());
  let sequence = 0;
  // Its own plain viem client (no batching, no metrics): what a caller's own sign-send-wait would use.
  const client = createPublicClient({ chain: chain.viemChain, transport: http(chain.rpcUrl) });
  await client.request({ method: 'anvil_setBalance' as never, params: [account.address, toHex(parseEther('1000'))] as never });
  let nonce = 0;
  let fees = await client.estimateFeesPerGas();
  const send = async (call: { to?: Address; data: Hex; gas: bigint }) => {
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: chain.chainId,
      nonce: nonce++,
      ...(call.to ? { to: call.to } : {}),
      data: call.data,
      gas: call.gas,
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    for (;;) {
      const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
      if (receipt) return receipt;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const deployData = encodeDeployData({
    abi: cardNftAbi,
    bytecode: cardNftBytecode,
    args: ['Direct', 'DIRECT', 'https://example.com/cards/', account.address, buildAddresses(1)[0]!],
  });
  const deployed = await send({ data: deployData, gas: ((await client.estimateGas({ account: account.address, data: deployData })) * 5n) / 4n });
  if (deployed.status !== 'success' || !deployed.contractAddress) throw new Error('the direct CardNFT was not deployed');
  const contract = deployed.contractAddress;
  const mintGas = 150_000n + 34_000n * BigInt(CARDS);
  return {
    refreshFees: async () => {
      fees = await client.estimateFeesPerGas();
    },
    mint: async (recipients: Address[]) => {
      const receipt = await send({ to: contract, data: encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [recipients, true] }), gas: mintGas });
      if (receipt.status !== 'success') throw new Error('a direct mint reverted');
    },
    /** After this, only the outbox signs for this key (it keeps the nonce). */
    mintThroughOutbox: async (recipients: Address[]) => {
      const submitted = await outbox.submit({
        idempotencyKey: `latency-bench:${account.address}:${sequence++}`,
        chain: chain.name,
        signer: { address: account.address, account },
        to: contract,
        data: encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [recipients, true] }),
        gas: mintGas,
      });
      const final = await outbox.waitForFinal(submitted.id);
      if (final.status !== 'mined' || final.receiptStatus !== 'success') throw new Error(`an outbox mint ended ${final.status}`);
    },
  };
}

/** Samples of one round's calls, a side each. */
interface RoundSamples {
  a7: number[];
  direct: number[];
  outbox: number[];
}

/**
 * One round on an installation of its own (store and node): anvil answers more slowly the more
 * blocks it holds (a bare anvil, one card a mint: p50 7.2 ms over its first 250 blocks, 14.4 ms
 * by its thousandth), which would add the same milliseconds to both sides round after round and
 * flatter the ratio. Each side warms up first, then the sides alternate call by call for
 * ROUND_SECONDS, which one goes first alternating by round.
 */
async function measureRound(round: number): Promise<RoundSamples> {
  const t = await openTestApp({
    outbox: { pollIntervalMs: POLL_MS, rebroadcastAfterMs: 5_000 },
    partnerApi: { rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 } },
  });
  try {
    const built = await buildApprovedPartner(t.services, { mintLimit: 1_000_000_000 });
    const partner = { ...built, token: await signInToken(t.app, built.partner.email, built.passwordHash) };
    await setBalance(t.services, partner.partner.main_address as Address, parseEther('1000'));
    const direct = await directMinter(t.services.chains.get('main'), t.services.outbox);
    const viaOutbox = await directMinter(t.services.chains.get('main'), t.services.outbox);
    // Each side's call is made ready (its payload, its fresh recipients) before its timer starts.
    const a7 = () => {
      const payload = buildMintPayload(partner, { to_address: buildAddresses(CARDS) });
      return async () => {
        const answer = await mintOk(t.app, partner.token, payload);
        if (answer.minted_count !== CARDS) throw new Error(`A7 minted ${answer.minted_count} of ${CARDS}`);
      };
    };
    const directMint = () => {
      const recipients = buildAddresses(CARDS);
      return () => direct.mint(recipients);
    };
    const outboxMint = () => {
      const recipients = buildAddresses(CARDS);
      return () => viaOutbox.mintThroughOutbox(recipients);
    };
    const timed = async (ready: () => () => Promise<void>) => {
      const call = ready();
      // Each call starts on a quiet service: what the call before it left running in the background
      // (the card index catching up on the new block, a webhook) is counted in neither side's next call.
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      const started = performance.now();
      await call();
      return performance.now() - started;
    };
    for (let pair = 0; pair < WARM_UP_PAIRS; pair++) {
      await a7()();
      await directMint()();
      await outboxMint()();
    }
    await direct.refreshFees();
    const samples: RoundSamples = { a7: [], direct: [], outbox: [] };
    const end = performance.now() + ROUND_SECONDS * 1000;
    for (let pair = 0; performance.now() < end; pair++) {
      if ((pair + round) % 2 === 0) {
        samples.a7.push(await timed(a7));
        samples.direct.push(await timed(directMint));
      } else {
        samples.direct.push(await timed(directMint));
        samples.a7.push(await timed(a7));
      }
      samples.outbox.push(await timed(outboxMint));
    }
    return samples;
  } finally {
    await t.cleanup();
  }
}

async function main(): Promise<void> {
  console.log(
    `mint-latency bench: ${process.env.WALLET_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite'} store, managed anvil (automine), outbox receipt poll ${POLL_MS} ms; one call in flight, ${CARDS} card(s) a call; ` +
      `${ROUNDS} rounds of at least ${ROUND_SECONDS} s, each on a fresh installation (store and node), sides alternating call by call; load average before ${loadNow()}`,
  );
  const all: RoundSamples = { a7: [], direct: [], outbox: [] };
  const ratios = { p50: [] as number[], p99: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const samples = await measureRound(round);
    all.a7.push(...samples.a7);
    all.direct.push(...samples.direct);
    all.outbox.push(...samples.outbox);
    const [a50, a99, d50, d99] = [percentile(samples.a7, 0.5), percentile(samples.a7, 0.99), percentile(samples.direct, 0.5), percentile(samples.direct, 0.99)];
    ratios.p50.push(a50 / d50);
    ratios.p99.push(a99 / d99);
    const slow = samples.a7.filter((ms) => ms > 300).length;
    console.log(
      `  round ${round + 1}: ${samples.a7.length} calls a side; A7 p50 ${a50.toFixed(1)} ms p99 ${a99.toFixed(1)} ms max ${Math.max(...samples.a7).toFixed(1)} ms (${slow} over 300 ms); ` +
        `direct p50 ${d50.toFixed(1)} ms p99 ${d99.toFixed(1)} ms; outbox alone p50 ${percentile(samples.outbox, 0.5).toFixed(1)} ms p99 ${percentile(samples.outbox, 0.99).toFixed(1)} ms; ratios p50 ${(a50 / d50).toFixed(2)} p99 ${(a99 / d99).toFixed(2)}; load ${loadNow()}`,
    );
  }
  const verdict = (value: number, target: number) => `target <= ${target}x: ${value <= target ? 'met' : 'NOT met'}`;
  for (const q of ['p50', 'p99'] as const) {
    const level = q === 'p50' ? 0.5 : 0.99;
    const overall = percentile(all.a7, level) / percentile(all.direct, level);
    const rounds = medianMinMax(ratios[q]);
    console.log(
      `  A7 / direct ${q}: all calls ${overall.toFixed(2)} (A7 ${percentile(all.a7, level).toFixed(1)} ms, direct ${percentile(all.direct, level).toFixed(1)} ms); ` +
        `outbox alone / direct ${(percentile(all.outbox, level) / percentile(all.direct, level)).toFixed(2)}; rounds median ${rounds.median.toFixed(2)} (min ${rounds.min.toFixed(2)}, max ${rounds.max.toFixed(2)}); ${verdict(rounds.median, TARGETS[q])}; load ${loadNow()}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`mint-latency bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
