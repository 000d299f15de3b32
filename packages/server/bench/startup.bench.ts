/**
 * Start-up time of the service: `npm start` (the compiled build, dist/) against `npm run dev` (the
 * TypeScript sources through tsx), each on a fresh data directory, from the command's spawn to the
 * first 200 from GET /health. Run: `npm run bench -- startup`.
 *
 * Fresh data directories, so every start does the full work: the SQLite store created and migrated,
 * the operator key generated, the three embedded anvil nodes started. The two commands alternate
 * (and which goes first alternates per round), so a busy machine weighs on both alike; prints each
 * run and the medians. Rebuilds dist/ first, so the compiled side is the code as it is.
 * Prints; asserts nothing.
 *
 * Env: STARTUP_BENCH_ROUNDS (default 5 per command).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarise } from './bench-support.ts';

const ROUNDS = Number(process.env.STARTUP_BENCH_ROUNDS ?? 5);
const root = new URL('../../../', import.meta.url).pathname;
const COMMANDS = { compiled: ['start'], tsx: ['run', 'dev'] } as const;
type Side = keyof typeof COMMANDS;

/** Milliseconds from spawning `npm <args>` to the first healthy /health; the service is stopped after. */
async function startUp(side: Side): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-startup-bench-'));
  const begun = performance.now();
  // Its own process group: npm, its shell and the service get the SIGINT together.
  const child = spawn('npm', ['--silent', ...COMMANDS[side]], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', WALLET_DATA_DIR: dataDir, DATABASE_URL: '' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`npm ${COMMANDS[side].join(' ')} exited (${code}):\n${output}`)));
    });
    for (;;) {
      const response = await fetch(`${baseUrl}/health`).catch(() => undefined);
      if (response?.status === 200) return performance.now() - begun;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    process.kill(-child.pid!, 'SIGINT');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const build = spawnSync(process.execPath, [join(root, 'packages/server/scripts/build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const samples: Record<Side, number[]> = { compiled: [], tsx: [] };
// One start of each not counted: the first pays for a cold file cache.
for (const side of ['compiled', 'tsx'] as const) await startUp(side);
for (let round = 0; round < ROUNDS; round++) {
  const order: Side[] = round % 2 === 0 ? ['compiled', 'tsx'] : ['tsx', 'compiled'];
  for (const side of order) {
    const ms = await startUp(side);
    samples[side].push(ms);
    console.log(`round ${round + 1}  ${side.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms`);
  }
}
const compiled = summarise(samples.compiled).medianMs;
const tsx = summarise(samples.tsx).medianMs;
console.log(`npm start (compiled) to a healthy /health: median ${compiled.toFixed(0)} ms`);
console.log(`npm run dev (tsx)    to a healthy /health: median ${tsx.toFixed(0)} ms`);
console.log(`compiled saves ${(tsx - compiled).toFixed(0)} ms (${((1 - compiled / tsx) * 100).toFixed(0)} %)`);
