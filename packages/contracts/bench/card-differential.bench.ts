/**
 * The long run of the differential test (packages/contracts/src/differential.test.ts): CardNFT and
 * LeanCardNFT against PlainCardNFT (OpenZeppelin ERC-721) over many random sequences from a random
 * seed, where `npm test` runs 20 from a fixed one. Run: node --import tsx
 * packages/contracts/bench/card-differential.bench.ts (or `npm run bench -- card-differential`).
 *
 * Prints the seed first (a failure also prints it with the shrunk sequence; replay it with
 * CARD_DIFF_SEED=<seed> CARD_DIFF_RUNS=<runs>), then the test's own summary. Exits non-zero when
 * the contracts disagree.
 *
 * Env: CARD_DIFF_BENCH_RUNS (200), CARD_DIFF_BENCH_SEED (random).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runs = Number(process.env.CARD_DIFF_BENCH_RUNS ?? 200);
const seed = Number(process.env.CARD_DIFF_BENCH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const testFile = fileURLToPath(new URL('../src/differential.test.ts', import.meta.url));

console.log(`card-differential: ${runs} sequences from seed ${seed}`);
const started = Date.now();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', testFile], {
  stdio: 'inherit',
  env: { ...process.env, CARD_DIFF_RUNS: String(runs), CARD_DIFF_SEED: String(seed) },
});
console.log(`card-differential: ${result.status === 0 ? 'no difference' : 'DIFFERENCES FOUND'} in ${((Date.now() - started) / 1000).toFixed(0)} s (seed ${seed})`);
process.exit(result.status ?? 1);
