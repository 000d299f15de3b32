/**
 * How fast the operator CLI answers: `wallet-service --help`, `limits show` (the config only),
 * `partner list` and `audit list` (the store only) on the compiled build, what `npx wallet-service`
 * runs, against `node -e 0` on the same machine. Run: `npm run bench -- cli`.
 *
 * Rebuilds dist/ first, so the code timed is the code as it is. Every command runs against one
 * SQLite data directory, created by an untimed first run; one untimed round warms the file cache,
 * then the commands alternate round by round so a busy machine weighs on all alike. Prints each
 * command's median, min and max of CLI_BENCH_ROUNDS (default 5) beside its target (0.3 s for
 * `--help`, 1 s for the others, on a quiet 2-core machine) and the load average, since a busy
 * machine slows every line alike. Asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarise } from './bench-support.ts';

const ROUNDS = Number(process.env.CLI_BENCH_ROUNDS ?? 5);
const root = new URL('../../../', import.meta.url).pathname;
const bin = join(root, 'packages/server/bin/wallet-service.js');

const RUNS = [
  { name: 'node -e 0', args: ['-e', '0'], targetMs: undefined },
  { name: 'wallet-service --help', args: [bin, '--help'], targetMs: 300 },
  { name: 'wallet-service limits show', args: [bin, 'limits', 'show'], targetMs: 1000 },
  { name: 'wallet-service partner list', args: [bin, 'partner', 'list'], targetMs: 1000 },
  { name: 'wallet-service audit list', args: [bin, 'audit', 'list'], targetMs: 1000 },
] as const;

const dataDir = mkdtempSync(join(tmpdir(), 'wallet-cli-bench-'));
const env: NodeJS.ProcessEnv = { ...process.env, WALLET_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
delete env.DATABASE_URL;
delete env.NODE_OPTIONS;

/** Milliseconds from spawning `node <args>` to its exit; a failure stops the bench. */
function timed(args: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 120_000 });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
  return ms;
}

try {
  const build = spawnSync(process.execPath, [join(root, 'packages/server/scripts/build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(1);
  // The store created and migrated once, outside the timings; then one untimed round.
  for (const run of RUNS) timed(run.args);
  const samples = RUNS.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) for (const [index, run] of RUNS.entries()) samples[index]!.push(timed(run.args));

  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const baseline = summarise(samples[0]!).medianMs;
  console.log(`load average ${loadavg().map((load) => load.toFixed(2)).join(' ')} on ${availableParallelism()} cores; ${ROUNDS} runs each`);
  console.log(`${'command'.padEnd(30)} ${'median'.padStart(8)} ${'min'.padStart(8)} ${'max'.padStart(8)}  ${'target'.padStart(8)}  beyond node -e 0`);
  for (const [index, run] of RUNS.entries()) {
    const sorted = [...samples[index]!].sort((a, b) => a - b);
    const middle = summarise(sorted).medianMs;
    const verdict = run.targetMs === undefined ? '' : middle <= run.targetMs ? 'within' : 'OVER';
    console.log(
      `${run.name.padEnd(30)} ${seconds(middle).padStart(8)} ${seconds(sorted[0]!).padStart(8)} ${seconds(sorted.at(-1)!).padStart(8)}  ${(run.targetMs === undefined ? '' : `${seconds(run.targetMs)} ${verdict}`).padStart(8)}  ${index === 0 ? '' : `+${seconds(middle - baseline)}`}`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

