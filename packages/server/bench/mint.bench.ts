/**
 * Card minting and listing through the partner API, each beside the naive way measured in the same
 * run. Run: node --import tsx packages/server/bench/mint.bench.ts (or `npm run bench -- mint` from
 * the repository root).
 *
 * The real services and app (openTestApp: embedded anvil with automine; SQLite, or PostgreSQL with
 * WALLET_TEST_STORE=postgres and TEST_DATABASE_URL) and an approved partner signed in through A1.
 * The naive way is NaiveCardNFT (OpenZeppelin ERC721URIStorage): `mint(to, uri)`, one card per
 * transaction with its own token URI, from a plain key on the same node.
 *
 * 1. Gas per card: one A7 call to 100 fresh addresses (total receipt gas, intrinsic and calldata
 *    included, / 100), shown beside 100 NaiveCardNFT.mint transactions to 100 other fresh
 *    addresses (sum of receipt gas / 100). Target: <= 12,000 gas per card at 100 recipients.
 * 2. Cards per second end to end: CARDS cards a side in ROUNDS rounds, which side goes first
 *    alternating. A7: calls of MINT_BENCH_CALL_SIZE (100) addresses, CONCURRENCY (8) in flight, each
 *    answering once its cards are mined. Naive: the same number of NaiveCardNFT.mint transactions at
 *    their best, pre-signed with consecutive nonces (before the clock starts), sent SEND_CONCURRENCY
 *    at a time until every receipt is read, on a fresh node each round (anvil slows as blocks pile
 *    up, and the naive way makes a block per card). After the A7 side, and outside its time, the
 *    card index is let reach the chain head, so the next side does not run beside its leftover
 *    work; that lag is printed, and the rate with it counted. Target: ratio >= 5. Before it, the cost of
 *    unlocking the partner key with its PIN (scrypt) and of a held key is measured.
 * 3. A13 latency: LIST_CARDS cards of the partner's contract held by the partner's own address,
 *    written into the card index directly (ids far above the minted ones), with the index caught up
 *    with the chain head so A13's wait for the index returns at once. GET /v2/wallet/nft/:nft_id
 *    for page 1 and for page 5,000 (its cursor built directly, and checked against the next_cursor
 *    A13 gives for page 4,999), interleaved after a warm-up. Target: page 5,000 median <= 1.5 x page 1.
 *
 * Prints each figure, its baseline and the ratio against the target; asserts nothing.
 *
 * Env: MINT_BENCH_CARDS (5000), MINT_BENCH_ROUNDS (5), MINT_BENCH_CALL_SIZE (100), MINT_BENCH_CONCURRENCY (8), MINT_BENCH_SEND_CONCURRENCY (16),
 * MINT_BENCH_LIST_CARDS (1000000), MINT_BENCH_LIST_ITERATIONS (1000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeDeployData, encodeFunctionData, keccak256, parseEther, toHex, type Address, type Hex, type TransactionReceipt } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { naiveCardNftAbi, naiveCardNftBytecode } from '@wallet-service/contracts';
import { setBalance } from '../src/a2a/testing/support.ts';
import { encodeCardCursor } from '../src/card-index/page-cursor.ts';
import { LIST_PAGE_SIZE } from '../src/cards/lists/commands.ts';
import { buildAddresses, buildMintPayload, indexedToHead, mintOk, partnerCall } from '../src/cards/testing/card-factories.ts';
import { signInToken } from '../src/partner-api/testing/partner-session.ts';
import { createChainContext, type ChainContext } from '../src/chain/chains.ts';
import { ManagedNode } from '../src/chain/managed-node.ts';
import { KeyVault } from '../src/custody/key-vault.ts';
import { findSealedKey } from '../src/custody/store.ts';
import { UNLOCKED_KEY_TTL_MS } from '../src/custody/unlocked-keys.ts';
import { buildApprovedPartner } from '../src/testing/factories.ts';
import { openTestApp, type TestApp } from '../src/testing/test-services.ts';
import { fillCardIndex, pool, summarise, timeInterleaved, type Latency } from './bench-support.ts';

const CARDS = Number(process.env.MINT_BENCH_CARDS ?? 5_000);
const ROUNDS = Number(process.env.MINT_BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.MINT_BENCH_CONCURRENCY ?? 8);
const UNLOCK_SAMPLES = 5;
const SEND_CONCURRENCY = Number(process.env.MINT_BENCH_SEND_CONCURRENCY ?? 16);
const LIST_CARDS = Number(process.env.MINT_BENCH_LIST_CARDS ?? 1_000_000);
const LIST_ITERATIONS = Number(process.env.MINT_BENCH_LIST_ITERATIONS ?? 1_000);
/** Addresses per A7 call (MINT_BENCH_CALL_SIZE): the project's target is set at 100 a call. */
const RECIPIENTS_PER_CALL = Number(process.env.MINT_BENCH_CALL_SIZE ?? 100);
const GAS_CARDS = 100;
const WARM_UP_CARDS = 10;
const DEEP_PAGE = Math.max(2, Math.min(5_000, Math.floor(LIST_CARDS / LIST_PAGE_SIZE)));
/** The listed cards' ids start here, far above any card the bench mints on the same contract. */
const FIRST_LISTED_ID = 1_000_000_001;
const OTHER_CARDS = Math.min(200_000, Math.ceil(LIST_CARDS / 5));
const OTHER_CONTRACT = `0x${'0ddba11'.padEnd(40, '2')}`;
/** The project's targets (issue 24; the A13 listing keeps its own). */
const TARGETS = { gasPerCard: 12_000, rateRatio: 5, latencyRatio: 1.5 };

type Partner = Awaited<ReturnType<typeof buildApprovedPartner>> & { token: string };

/** The naive way's minter: a plain key that owns a NaiveCardNFT and signs its own transactions. */
interface NaiveMinter {
  account: PrivateKeyAccount;
  contract: Address;
  nonce: number;
  /** Cards minted so far: numbers each card's own token URI. */
  minted: number;
  /** Gas limit of one mint (an estimate plus a margin; the receipt says what it used). */
  mintGas: bigint;
}

/** A card's own metadata URI as it would be pinned on IPFS (CIDv1, 59 characters). */
function naiveTokenUri(card: number): string {
  return `ipfs://bafkrei${keccak256(toHex(card)).slice(2, 54)}`;
}

/** Signs a transaction of the naive minter with the fees the outbox would pay (twice the estimate). */
async function signNaive(chain: ChainContext, minter: NaiveMinter, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, call: { to?: Address; data: Hex; gas: bigint }): Promise<Hex> {
  return minter.account.signTransaction({
    type: 'eip1559',
    chainId: chain.chainId,
    nonce: minter.nonce++,
    ...(call.to ? { to: call.to } : {}),
    data: call.data,
    gas: call.gas,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
}

/** A funded plain key with its own NaiveCardNFT deployed. */
async function deployNaive(chain: ChainContext): Promise<NaiveMinter> {
  const client = chain.client;
  const account = privateKeyToAccount(generatePrivateKey());
  await client.request({ method: 'anvil_setBalance' as never, params: [account.address, toHex(parseEther('1000'))] as never });
  const minter: NaiveMinter = { account, contract: '0x', nonce: 0, minted: 0, mintGas: 0n };
  const data = encodeDeployData({ abi: naiveCardNftAbi, bytecode: naiveCardNftBytecode, args: [account.address] });
  const gas = await client.estimateGas({ account: account.address, data });
  const raw = await signNaive(chain, minter, await client.estimateFeesPerGas(), { data, gas: (gas * 5n) / 4n });
  const receipt = await client.waitForTransactionReceipt({ hash: await client.sendRawTransaction({ serializedTransaction: raw }), pollingInterval: 20 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('NaiveCardNFT was not deployed');
  minter.contract = receipt.contractAddress;
  const mintGas = await client.estimateContractGas({
    account: account.address,
    address: minter.contract,
    abi: naiveCardNftAbi,
    functionName: 'mint',
    args: [buildAddresses(1)[0]!, naiveTokenUri(0)],
  });
  minter.mintGas = (mintGas * 5n) / 4n;
  return minter;
}

/**
 * The naive way at its best: one mint per recipient, each with its own token URI, pre-signed with
 * consecutive nonces (not timed), then sent SEND_CONCURRENCY at a time and timed until every
 * receipt is read. Returns the time and the summed gas of the receipts.
 */
async function naiveMints(chain: ChainContext, minter: NaiveMinter, recipients: Address[]): Promise<{ ms: number; gasUsed: bigint }> {
  const client = chain.client;
  const fees = await client.estimateFeesPerGas();
  const raws: Hex[] = [];
  for (const to of recipients) {
    const data = encodeFunctionData({ abi: naiveCardNftAbi, functionName: 'mint', args: [to, naiveTokenUri(minter.minted++)] });
    raws.push(await signNaive(chain, minter, fees, { to: minter.contract, data, gas: minter.mintGas }));
  }
  const hashes: Hex[] = new Array(raws.length);
  const receipts: TransactionReceipt[] = new Array(raws.length);
  const started = performance.now();
  await pool(raws.length, SEND_CONCURRENCY, async (index) => {
    hashes[index] = await client.sendRawTransaction({ serializedTransaction: raws[index]! });
  });
  // Mined when the account's nonce has passed the last one; then every receipt is read.
  const deadline = Date.now() + 300_000;
  while ((await client.getTransactionCount({ address: minter.account.address, blockTag: 'latest' })) < minter.nonce) {
    if (Date.now() > deadline) throw new Error('naive mints not mined within 300 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await pool(hashes.length, SEND_CONCURRENCY, async (index) => {
    receipts[index] = await client.getTransactionReceipt({ hash: hashes[index]! });
  });
  const ms = performance.now() - started;
  const failed = receipts.filter((receipt) => receipt.status !== 'success').length;
  if (failed > 0) throw new Error(`${failed} naive mints reverted`);
  return { ms, gasUsed: receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n) };
}

/** One A7 call that must mint every card; returns its answer. */
async function a7Mint(t: TestApp, partner: Partner, recipients: Address[]) {
  const answer = await mintOk(t.app, partner.token, buildMintPayload(partner, { to_address: recipients }));
  if (answer.minted_count !== recipients.length || answer.fail_count !== 0) throw new Error(`A7 minted ${answer.minted_count} of ${recipients.length}`);
  return answer;
}

async function gasPerCard(t: TestApp, partner: Partner, minter: NaiveMinter): Promise<{ a7: number; naive: number; a7Transactions: number }> {
  const answer = await a7Mint(t, partner, buildAddresses(GAS_CARDS));
  const client = t.services.chains.get('main').client;
  const receipts = await Promise.all(answer.hashes.map((hash) => client.getTransactionReceipt({ hash: hash as Hex })));
  const a7Gas = receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n);
  const naive = await naiveMints(t.services.chains.get('main'), minter, buildAddresses(GAS_CARDS));
  return { a7: Number(a7Gas) / GAS_CARDS, naive: Number(naive.gasUsed) / GAS_CARDS, a7Transactions: receipts.length };
}

/**
 * The naive side's own node for one round: a fresh managed anvil (the settings of the service's
 * node), its NaiveCardNFT deployed and warmed up. An automining anvil slows as its blocks pile up,
 * and the naive way makes one block per card; on a fresh node each round it starts as fast as it
 * can, while A7 keeps the service's node, which its earlier rounds and the naive gas figure grew.
 */
async function withFreshNaiveNode<T>(t: TestApp, run: (chain: ChainContext, minter: NaiveMinter) => Promise<T>): Promise<T> {
  const settings = t.services.config.chains.main;
  if (settings?.mode !== 'managed') throw new Error('the bench needs the managed main chain');
  const directory = mkdtempSync(join(tmpdir(), 'wallet-bench-naive-'));
  const node = new ManagedNode({ name: 'naive', settings, directory });
  try {
    const rpcUrl = await node.start();
    const chain = createChainContext('main', settings.chainId, settings.messagePrefix, rpcUrl, node, { managed: true, automine: true });
    const minter = await deployNaive(chain);
    await naiveMints(chain, minter, buildAddresses(WARM_UP_CARDS));
    return await run(chain, minter);
  } finally {
    await node.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

interface RateRound {
  a7Ms: number;
  naiveMs: number;
  a7First: boolean;
  /** From the A7 side's last answer until the card index reached the chain head (not counted in a7Ms). */
  indexLagMs: number;
}

/**
 * ROUNDS rounds, each CARDS / ROUNDS cards a side; which side goes first alternates (the machine's
 * load drifts). A7: calls of RECIPIENTS_PER_CALL addresses, CONCURRENCY in flight, each answered
 * once its cards are mined. Naive: pre-signed mints on a fresh node of their own (see withFreshNaiveNode).
 */
async function cardsPerSecond(t: TestApp, partner: Partner): Promise<RateRound[]> {
  const perRound = Math.ceil(CARDS / ROUNDS);
  const rounds: RateRound[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const calls: Address[][] = [];
    for (let left = perRound; left > 0; left -= RECIPIENTS_PER_CALL) calls.push(buildAddresses(Math.min(RECIPIENTS_PER_CALL, left)));
    let indexLagMs = 0;
    const a7Side = async () => {
      const started = performance.now();
      await pool(calls.length, CONCURRENCY, async (index) => {
        await a7Mint(t, partner, calls[index]!);
      });
      const answered = performance.now();
      // The card index takes the side's cards after their answers (A7 answers once mined; the lists
      // catch the index up when asked). Let it finish before the clock starts again, so neither the
      // next side, naive or A7, runs beside this side's leftover work.
      await indexedToHead(t.services);
      indexLagMs = performance.now() - answered;
      return answered - started;
    };
    const naiveSide = () => withFreshNaiveNode(t, async (chain, minter) => (await naiveMints(chain, minter, buildAddresses(perRound))).ms);
    const a7First = round % 2 === 0;
    let a7Ms: number;
    let naiveMs: number;
    if (a7First) {
      a7Ms = await a7Side();
      naiveMs = await naiveSide();
    } else {
      naiveMs = await naiveSide();
      a7Ms = await a7Side();
    }
    rounds.push({ a7Ms, naiveMs, a7First, indexLagMs });
  }
  return rounds;
}

/**
 * What unlocking the partner's key costs an A7 call: PIN checked with scrypt (a vault that holds no
 * unlocked keys, as every call paid before), against the service's vault, which holds the key for
 * UNLOCKED_KEY_TTL_MS after a check. Medians of UNLOCK_SAMPLES each.
 */
async function unlockCost(t: TestApp, partner: Partner): Promise<{ scryptMs: number; heldMs: number }> {
  const keyId = partner.partner.key_id;
  const sealed = keyId ? await findSealedKey(t.services.store.db, keyId) : undefined;
  if (!keyId || !sealed) throw new Error('the partner has no signing key');
  const coldVault = new KeyVault(t.services.store.db, await t.services.vault.masterKey(sealed.master_key_id ?? ''), { unlockedKeys: { ttlMs: 0 } });
  const median = async (vault: KeyVault) => {
    const samples: number[] = [];
    for (let sample = 0; sample < UNLOCK_SAMPLES; sample++) {
      const started = performance.now();
      await vault.unlock(keyId, partner.pinHash);
      samples.push(performance.now() - started);
    }
    return summarise(samples).medianMs;
  };
  await t.services.vault.unlock(keyId, partner.pinHash);
  return { scryptMs: await median(coldVault), heldMs: await median(t.services.vault) };
}

async function listingLatency(t: TestApp, partner: Partner): Promise<{ first: Latency; deep: Latency; fillSeconds: number; indexNote: string }> {
  const { services, app } = t;
  const client = services.chains.get('main').client;
  const contract = partner.contractAddress.toLowerCase();
  const started = performance.now();
  await fillCardIndex(services.store, {
    chain: 'main',
    contract,
    owner: partner.partner.main_address.toLowerCase(),
    cards: LIST_CARDS,
    firstTokenId: FIRST_LISTED_ID,
    otherContract: OTHER_CONTRACT,
    otherCards: OTHER_CARDS,
  });
  const fillSeconds = (performance.now() - started) / 1000;

  // The contract is followed from its deployment: once the index has reached the head, A13's wait
  // for the index returns at once (nothing is mined while the pages are timed; checked below).
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  await services.cardIndex.waitUntilIndexed('main', head);

  const url = `/v2/wallet/nft/${partner.nftId}`;
  const cursorAfter = (page: number) => encodeCardCursor({ contract, tokenId: FIRST_LISTED_ID - 1 + (page - 1) * LIST_PAGE_SIZE });
  const deepUrl = `${url}?cursor=${cursorAfter(DEEP_PAGE)}`;
  const page = async (pageUrl: string) => {
    const response = await partnerCall(app, partner.token, 'GET', pageUrl);
    if (response.statusCode !== 200) throw new Error(`A13 answered ${response.statusCode}: ${response.body}`);
    return response;
  };
  const firstCards = (await page(url)).json().cards as Array<{ card_id: number }>;
  const deepCards = (await page(deepUrl)).json().cards as Array<{ card_id: number }>;
  const beforeDeep = (await page(`${url}?cursor=${cursorAfter(DEEP_PAGE - 1)}`)).json().next_cursor as string;
  if (firstCards.length !== LIST_PAGE_SIZE || firstCards[0]!.card_id !== FIRST_LISTED_ID) throw new Error('page 1 is not the first 100 listed cards');
  if (deepCards.length !== LIST_PAGE_SIZE || deepCards[0]!.card_id !== FIRST_LISTED_ID + (DEEP_PAGE - 1) * LIST_PAGE_SIZE) {
    throw new Error(`page ${DEEP_PAGE} does not start where it should`);
  }
  if (beforeDeep !== cursorAfter(DEEP_PAGE)) throw new Error(`the built cursor differs from the next_cursor of page ${DEEP_PAGE - 1}`);

  const [first, deep] = await timeInterleaved(LIST_ITERATIONS, Math.min(100, LIST_ITERATIONS), [() => page(url), () => page(deepUrl)]);
  const headAfter = Number(await client.getBlockNumber({ cacheTime: 0 }));
  const indexed = await services.cardIndex.indexedBlock('main');
  const indexNote =
    headAfter === head && indexed >= head
      ? `index at the chain head (block ${head}) throughout`
      : `WARNING: head moved ${head} -> ${headAfter}, index at ${indexed}: some calls may include A13's wait for the index`;
  return { first: first!, deep: deep!, fillSeconds, indexNote };
}

async function main(): Promise<void> {
  const began = performance.now();
  const load = loadavg().map((value) => value.toFixed(2)).join(' ');
  const t = await openTestApp({ partnerApi: { rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 } } });
  try {
    const built = await buildApprovedPartner(t.services, { mintLimit: 10 * (CARDS + GAS_CARDS + WARM_UP_CARDS) });
    const partner: Partner = { ...built, token: await signInToken(t.app, built.partner.email, built.passwordHash) };
    await setBalance(t.services, partner.partner.main_address as Address, parseEther('1000'));
    const main = t.services.chains.get('main');
    const minter = await deployNaive(main);

    // Warm-up (not measured): the first card of each contract, key unlock, JIT, connections.
    await a7Mint(t, partner, buildAddresses(WARM_UP_CARDS));
    await naiveMints(main, minter, buildAddresses(WARM_UP_CARDS));

    const unlock = await unlockCost(t, partner);
    const gas = await gasPerCard(t, partner, minter);
    const rounds = await cardsPerSecond(t, partner);
    const listing = await listingLatency(t, partner);

    const perRound = Math.ceil(CARDS / ROUNDS);
    const a7Ms = rounds.reduce((sum, round) => sum + round.a7Ms, 0);
    const naiveMs = rounds.reduce((sum, round) => sum + round.naiveMs, 0);
    const rate = { a7: (perRound * ROUNDS * 1000) / a7Ms, naive: (perRound * ROUNDS * 1000) / naiveMs };
    const gasRatio = gas.a7 / gas.naive;
    const gasMet = gas.a7 <= TARGETS.gasPerCard;
    const rateRatio = rate.a7 / rate.naive;
    const indexLagMs = rounds.reduce((sum, round) => sum + round.indexLagMs, 0);
    const indexedRatio = (perRound * ROUNDS * 1000) / (a7Ms + indexLagMs) / rate.naive;
    const latencyRatio = listing.deep.medianMs / listing.first.medianMs;
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
    console.log(
      `mint bench: ${t.services.store.dialect} store, embedded anvil (automine); load average before the run ${load}; ` +
        `whole run ${((performance.now() - began) / 1000).toFixed(0)} s`,
    );
    console.log(`  gas per card: one A7 call to ${GAS_CARDS} fresh addresses (${gas.a7Transactions} transaction) vs ${GAS_CARDS} NaiveCardNFT.mint transactions`);
    console.log(
      `  partner key unlock: PIN checked with scrypt ${ms(unlock.scryptMs)} (what every A7 call paid before keys were held), ` +
        `held key ${ms(unlock.heldMs)} (median of ${UNLOCK_SAMPLES}; held ${UNLOCKED_KEY_TTL_MS / 1000} s after a check, so a call pays scrypt at most once a minute)`,
    );
    console.log(
      `  cards per second: ${ROUNDS} rounds of ${perRound} cards a side, which side first alternating; A7 calls of ${RECIPIENTS_PER_CALL} addresses, ` +
        `${CONCURRENCY} in flight, each answered once its cards are mined, vs pre-signed NaiveCardNFT.mint transactions on a fresh node per round, ` +
        `sent ${SEND_CONCURRENCY} at a time until every receipt was read`,
    );
    for (const [index, round] of rounds.entries()) {
      console.log(
        `    round ${index + 1} (${round.a7First ? 'A7 first' : 'naive first'}): A7 ${((perRound * 1000) / round.a7Ms).toFixed(1)} cards/s, ` +
          `naive ${((perRound * 1000) / round.naiveMs).toFixed(1)} cards/s, ratio ${(round.naiveMs / round.a7Ms).toFixed(2)}; ` +
          `card index at the head ${round.indexLagMs.toFixed(0)} ms after A7's last answer`,
      );
    }
    console.log(
      `    counting the card index's catching up in A7's time too: ${((perRound * ROUNDS * 1000) / (a7Ms + indexLagMs)).toFixed(1)} cards/s, ` +
        `ratio ${indexedRatio.toFixed(2)} (the target is on the answered cards, as A7 answers once its cards are mined)`,
    );
    console.log(
      `  A13 listing: ${LIST_CARDS.toLocaleString('en')} cards held by the partner (+${OTHER_CARDS.toLocaleString('en')} other cards) written in ` +
        `${listing.fillSeconds.toFixed(1)} s; ${LIST_ITERATIONS} interleaved calls per page after warm-up; ${listing.indexNote}`,
    );
    console.log(
      `  A13 page 1: median ${ms(listing.first.medianMs)}, p95 ${ms(listing.first.p95Ms)}; page ${DEEP_PAGE}: median ${ms(listing.deep.medianMs)}, ` +
        `p95 ${ms(listing.deep.p95Ms)} (p95 ratio ${(listing.deep.p95Ms / listing.first.p95Ms).toFixed(2)})`,
    );
    const rows = [
      ['figure', 'service', 'baseline', 'ratio', 'target', ''],
      [
        `gas per card, ${GAS_CARDS} recipients`,
        gas.a7.toFixed(0),
        `${gas.naive.toFixed(0)} (naive)`,
        gasRatio.toFixed(3),
        `<= ${TARGETS.gasPerCard.toLocaleString('en')} gas per card`,
        verdict(gasMet),
      ],
      [
        `cards per second, ${perRound * ROUNDS} a side`,
        rate.a7.toFixed(1),
        `${rate.naive.toFixed(1)} (naive)`,
        rateRatio.toFixed(2),
        `>= ${TARGETS.rateRatio}x`,
        verdict(rateRatio >= TARGETS.rateRatio),
      ],
      [
        `A13 page ${DEEP_PAGE} median`,
        ms(listing.deep.medianMs),
        `${ms(listing.first.medianMs)} (page 1)`,
        latencyRatio.toFixed(2),
        `<= ${TARGETS.latencyRatio}`,
        verdict(latencyRatio <= TARGETS.latencyRatio),
      ],
    ];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) console.log(`  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`);
  } finally {
    await t.cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`mint bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
