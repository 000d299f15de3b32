/**
 * Card listing latency, page 1 against page 5,000. Run: node --import tsx packages/server/bench/cards.bench.ts
 * (or `npm run bench -- cards` from the repository root).
 *
 * Fills the card index of a fresh store directly (no chain): N cards of one contract held by one
 * owner, plus other owners' cards in a second contract so the indexes hold more than the one
 * owner. Then times listByOwner at 100 cards a page: page 1, and page 5,000 reached through its
 * keyset cursor (built directly, since a cursor is only the last position shown, and checked once
 * against the cursor a walk through every page gives). Both the per-contract list (A13, B4) and
 * the all-contracts list are timed, interleaved, after a warm-up. Prints medians, p95 and the ratio
 * page 5,000 / page 1 (target <= 1.5). Prints; asserts nothing.
 *
 * Env: CARDS_BENCH_N (default 1000000), CARDS_BENCH_ITERATIONS (2000), CARDS_BENCH_WALK (1: walk
 * to the page to check the cursor; 0: skip), CARDS_BENCH_STORE (sqlite, or postgres with
 * TEST_DATABASE_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCardCursor } from '../src/card-index/page-cursor.ts';
import { listCardsByOwner, type ListCardsByOwnerInput } from '../src/card-index/store.ts';
import { openStore, type Store } from '../src/store/database.ts';
import { createTestSchema } from '../src/testing/test-store.ts';
import { fillCardIndex, timeInterleaved, type Latency } from './bench-support.ts';

const N = Number(process.env.CARDS_BENCH_N ?? 1_000_000);
const ITERATIONS = Number(process.env.CARDS_BENCH_ITERATIONS ?? 2_000);
const WALK = (process.env.CARDS_BENCH_WALK ?? '1') !== '0';
const STORE = process.env.CARDS_BENCH_STORE === 'postgres' ? 'postgres' : 'sqlite';
const PAGE_SIZE = 100;
const DEEP_PAGE = Math.max(2, Math.min(5_000, Math.floor(N / PAGE_SIZE)));
const OTHER_CARDS = Math.min(200_000, Math.ceil(N / 5));
const TARGET_RATIO = 1.5;

const CHAIN = 'main';
const contract = `0x${'c0ffee'.padEnd(40, '1')}`;
const otherContract = `0x${'0ddba11'.padEnd(40, '2')}`;
const owner = `0x${'0a'.repeat(20)}`;

/** Times page 1 and the deep page of one list, interleaved so drift hits both alike. */
async function timePages(store: Store, base: ListCardsByOwnerInput, deepCursor: string): Promise<{ first: Latency; deep: Latency }> {
  const fullPage = async (input: ListCardsByOwnerInput) => {
    const page = await listCardsByOwner(store.db, input);
    if (page.cards.length !== PAGE_SIZE) throw new Error('a timed page was not full');
  };
  const [first, deep] = await timeInterleaved(ITERATIONS, Math.min(200, ITERATIONS), [
    () => fullPage(base),
    () => fullPage({ ...base, cursor: deepCursor }),
  ]);
  return { first: first!, deep: deep! };
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-cards-bench-'));
  const postgres = STORE === 'postgres' ? await createTestSchema() : undefined;
  const store = await openStore({
    databaseUrl: postgres?.databaseUrl,
    postgresSchema: postgres?.schema,
    sqlitePath: join(directory, 'cards.sqlite'),
  });
  try {
    let started = performance.now();
    await fillCardIndex(store, { chain: CHAIN, contract, owner, cards: N, firstTokenId: 1, otherContract, otherCards: OTHER_CARDS });
    const fillSeconds = (performance.now() - started) / 1000;

    // Page k starts after card (k - 1) * 100: the cursor is that position.
    const deepCursor = encodeCardCursor({ contract, tokenId: (DEEP_PAGE - 1) * PAGE_SIZE });
    const perContract: ListCardsByOwnerInput = { chain: CHAIN, owner, contract, limit: PAGE_SIZE };
    const allContracts: ListCardsByOwnerInput = { chain: CHAIN, owner, limit: PAGE_SIZE };
    const deepPage = await listCardsByOwner(store.db, { ...perContract, cursor: deepCursor });
    if (deepPage.cards[0]?.tokenId !== (DEEP_PAGE - 1) * PAGE_SIZE + 1) throw new Error('the deep page does not start where it should');

    let walkNote = 'skipped (CARDS_BENCH_WALK=0)';
    if (WALK) {
      started = performance.now();
      let cursor = '';
      for (let page = 1; page < DEEP_PAGE; page++) {
        cursor = (await listCardsByOwner(store.db, { ...perContract, cursor })).nextCursor;
      }
      const walkSeconds = (performance.now() - started) / 1000;
      walkNote = `${cursor === deepCursor ? 'equals' : 'DIFFERS FROM'} the built cursor (${DEEP_PAGE - 1} pages walked in ${walkSeconds.toFixed(1)} s)`;
    }

    const contractTimes = await timePages(store, perContract, deepCursor);
    const allTimes = await timePages(store, allContracts, deepCursor);
    const ms = (value: number) => `${value.toFixed(3)} ms`.padStart(10);
    const line = (label: string, latency: Latency) =>
      `  ${label.padEnd(34)} median ${ms(latency.medianMs)}   p95 ${ms(latency.p95Ms)}   mean ${ms(latency.meanMs)}`;
    const verdict = (ratio: number) => `${ratio.toFixed(2)} (target <= ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`;

    console.log(
      `cards bench: ${N.toLocaleString('en')} cards of one contract held by one owner (+${OTHER_CARDS.toLocaleString('en')} other cards), ` +
        `${STORE} store filled in ${fillSeconds.toFixed(1)} s; ${PAGE_SIZE} cards a page, ${ITERATIONS} timed calls per page`,
    );
    console.log(`  walk to page ${DEEP_PAGE}: ${walkNote}`);
    console.log('listByOwner with contract (A13, B4):');
    console.log(line('page 1', contractTimes.first));
    console.log(line(`page ${DEEP_PAGE}`, contractTimes.deep));
    console.log(`  ratio page ${DEEP_PAGE} / page 1 (medians):  ${verdict(contractTimes.deep.medianMs / contractTimes.first.medianMs)}`);
    console.log('listByOwner over all contracts:');
    console.log(line('page 1', allTimes.first));
    console.log(line(`page ${DEEP_PAGE}`, allTimes.deep));
    console.log(`  ratio page ${DEEP_PAGE} / page 1 (medians):  ${verdict(allTimes.deep.medianMs / allTimes.first.medianMs)}`);
  } finally {
    await store.close();
    await postgres?.drop();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(`cards bench failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
