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
 * 2. Cards per second end to end: CARDS cards through A7 calls of MINT_BENCH_CALL_SIZE (500) addresses, CONCURRENCY calls
 *    at a time (each answers once its cards are mined), against the same
 *    number of NaiveCardNFT.mint transactions at their best: pre-signed with consecutive nonces
 *    (before the clock starts), sent SEND_CONCURRENCY at a time, until every receipt is read.
 *    Target: ratio >= 5.
 * 3. A13 latency: LIST_CARDS cards of the partner's contract held by the partner's own address,
 *    written into the card index directly (ids far above the minted ones), with the index caught up
 *    with the chain head so A13's wait for the index returns at once. GET /v2/wallet/nft/:nft_id
 *    for page 1 and for page 5,000 (its cursor built directly, and checked against the next_cursor
 *    A13 gives for page 4,999), interleaved after a warm-up. Target: page 5,000 median <= 1.5 x page 1.
 *
 * Prints each figure, its baseline and the ratio against the target; asserts nothing.
 *
 * Env: MINT_BENCH_CARDS (1000), MINT_BENCH_CONCURRENCY (4), MINT_BENCH_SEND_CONCURRENCY (16),
 * MINT_BENCH_LIST_CARDS (1000000), MINT_BENCH_LIST_ITERATIONS (1000).
 */
import { loadavg } from 'node:os';
import { encodeDeployData, encodeFunctionData, keccak256, parseEther, toHex, type Address, type Hex, type TransactionReceipt } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { naiveCardNftAbi, naiveCardNftBytecode } from '@wallet-service/contracts';
import { setBalance } from '../src/a2a/testing/support.ts';
import { encodeCardCursor } from '../src/card-index/page-cursor.ts';
import { LIST_PAGE_SIZE } from '../src/cards/lists/commands.ts';
import { buildAddresses, buildMintPayload, mintOk, partnerCall } from '../src/cards/testing/card-factories.ts';
import { signInToken } from '../src/partner-api/testing/partner-session.ts';
import type { Services } from '../src/services.ts';
import { buildApprovedPartner } from '../src/testing/factories.ts';
import { openTestApp, type TestApp } from '../src/testing/test-services.ts';
import { fillCardIndex, pool, timeInterleaved, type Latency } from './bench-support.ts';

const CARDS = Number(process.env.MINT_BENCH_CARDS ?? 1_000);
const CONCURRENCY = Number(process.env.MINT_BENCH_CONCURRENCY ?? 4);
const SEND_CONCURRENCY = Number(process.env.MINT_BENCH_SEND_CONCURRENCY ?? 16);
const LIST_CARDS = Number(process.env.MINT_BENCH_LIST_CARDS ?? 1_000_000);
const LIST_ITERATIONS = Number(process.env.MINT_BENCH_LIST_ITERATIONS ?? 1_000);
/** Addresses per A7 call (MINT_BENCH_CALL_SIZE): a partner minting many cards names up to cards.maxRecipients per call. */
const RECIPIENTS_PER_CALL = Number(process.env.MINT_BENCH_CALL_SIZE ?? 500);
const GAS_CARDS = 100;
const WARM_UP_CARDS = 10;
const DEEP_PAGE = Math.max(2, Math.min(5_000, Math.floor(LIST_CARDS / LIST_PAGE_SIZE)));
/** The listed cards' ids start here, far above any card the bench mints on the same contract. */
const FIRST_LISTED_ID = 1_000_000_001;
const OTHER_CARDS = Math.min(200_000, Math.ceil(LIST_CARDS / 5));
const OTHER_CONTRACT = `0x${'0ddba11'.padEnd(40, '2')}`;
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
async function signNaive(services: Services, minter: NaiveMinter, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, call: { to?: Address; data: Hex; gas: bigint }): Promise<Hex> {
  return minter.account.signTransaction({
    type: 'eip1559',
    chainId: services.chains.get('main').chainId,
    nonce: minter.nonce++,
    ...(call.to ? { to: call.to } : {}),
    data: call.data,
    gas: call.gas,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
}

/** A funded plain key with its own NaiveCardNFT deployed. */
async function deployNaive(services: Services): Promise<NaiveMinter> {
  const client = services.chains.get('main').client;
  const account = privateKeyToAccount(generatePrivateKey());
  await setBalance(services, account.address, parseEther('1000'));
  const minter: NaiveMinter = { account, contract: '0x', nonce: 0, minted: 0, mintGas: 0n };
  const data = encodeDeployData({ abi: naiveCardNftAbi, bytecode: naiveCardNftBytecode, args: [account.address] });
  const gas = await client.estimateGas({ account: account.address, data });
  const raw = await signNaive(services, minter, await client.estimateFeesPerGas(), { data, gas: (gas * 5n) / 4n });
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
async function naiveMints(services: Services, minter: NaiveMinter, recipients: Address[]): Promise<{ ms: number; gasUsed: bigint }> {
  const client = services.chains.get('main').client;
  const fees = await client.estimateFeesPerGas();
  const raws: Hex[] = [];
  for (const to of recipients) {
    const data = encodeFunctionData({ abi: naiveCardNftAbi, functionName: 'mint', args: [to, naiveTokenUri(minter.minted++)] });
    raws.push(await signNaive(services, minter, fees, { to: minter.contract, data, gas: minter.mintGas }));
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
  const naive = await naiveMints(t.services, minter, buildAddresses(GAS_CARDS));
  return { a7: Number(a7Gas) / GAS_CARDS, naive: Number(naive.gasUsed) / GAS_CARDS, a7Transactions: receipts.length };
}

async function cardsPerSecond(t: TestApp, partner: Partner, minter: NaiveMinter): Promise<{ a7: number; naive: number; a7Ms: number; naiveMs: number }> {
  const calls: Address[][] = [];
  for (let left = CARDS; left > 0; left -= RECIPIENTS_PER_CALL) calls.push(buildAddresses(Math.min(RECIPIENTS_PER_CALL, left)));
  let started = performance.now();
  await pool(calls.length, CONCURRENCY, async (index) => {
    await a7Mint(t, partner, calls[index]!);
  });
  const a7Ms = performance.now() - started;
  const naive = await naiveMints(t.services, minter, buildAddresses(CARDS));
  return { a7: (CARDS * 1000) / a7Ms, naive: (CARDS * 1000) / naive.ms, a7Ms, naiveMs: naive.ms };
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
    const minter = await deployNaive(t.services);

    // Warm-up (not measured): the first card of each contract, key unlock, JIT, connections.
    await a7Mint(t, partner, buildAddresses(WARM_UP_CARDS));
    await naiveMints(t.services, minter, buildAddresses(WARM_UP_CARDS));

    const gas = await gasPerCard(t, partner, minter);
    const rate = await cardsPerSecond(t, partner, minter);
    const listing = await listingLatency(t, partner);

    const gasRatio = gas.a7 / gas.naive;
    const gasMet = gas.a7 <= TARGETS.gasPerCard;
    const rateRatio = rate.a7 / rate.naive;
    const latencyRatio = listing.deep.medianMs / listing.first.medianMs;
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    const s = (value: number) => `${(value / 1000).toFixed(2)} s`;
    console.log(
      `mint bench: ${t.services.store.dialect} store, embedded anvil (automine); load average before the run ${load}; ` +
        `whole run ${((performance.now() - began) / 1000).toFixed(0)} s`,
    );
    console.log(`  gas per card: one A7 call to ${GAS_CARDS} fresh addresses (${gas.a7Transactions} transaction) vs ${GAS_CARDS} NaiveCardNFT.mint transactions`);
    console.log(
      `  cards per second: ${CARDS} cards, A7 calls of ${RECIPIENTS_PER_CALL} addresses ${CONCURRENCY} at a time, each answered once its cards are mined ` +
        `(${s(rate.a7Ms)}) vs ${CARDS} pre-signed NaiveCardNFT.mint transactions sent ${SEND_CONCURRENCY} at a time until every receipt was read (${s(rate.naiveMs)})`,
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
        `<= ${TARGETS.gasPerCard.toLocaleString('en')} gas per card at ${GAS_CARDS} recipients`,
        gasMet ? 'met' : 'not met',
      ],
      ['cards per second', rate.a7.toFixed(1), `${rate.naive.toFixed(1)} (naive)`, rateRatio.toFixed(2), `>= ${TARGETS.rateRatio}`, rateRatio >= TARGETS.rateRatio ? 'PASS' : 'MISS'],
      [
        `A13 page ${DEEP_PAGE} median`,
        ms(listing.deep.medianMs),
        `${ms(listing.first.medianMs)} (page 1)`,
        latencyRatio.toFixed(2),
        `<= ${TARGETS.latencyRatio}`,
        latencyRatio <= TARGETS.latencyRatio ? 'PASS' : 'MISS',
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
