/**
 * Where the race suites send their calls: one in-process app (SQLite, or one app on PostgreSQL), or,
 * with WALLET_TEST_STORE=postgres and TEST_DATABASE_URL, three `wallet-service serve` processes
 * sharing one PostgreSQL schema and one chain node, so every guard must hold across processes.
 * Also the checks every race makes: no 5xx, registry codes only, no raw revert data, and the
 * signer's settled nonce.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { parseEther, toHex, type Address } from 'viem';
import type { ConfigOverrides } from '../config/config.ts';
import { errorCodes } from '../errors/codes.ts';
import type { Services } from '../services.ts';
import { startTestChain, type TestChain } from './chain-node.ts';
import { startService, stopService } from './service-process.ts';
import { createSharedInstallation, type SharedInstallation } from './shared-installation.ts';
import { openTestApp } from './test-services.ts';
import { RATE_LIMIT_GROUPS } from '../http/rate-limit/limits.ts';

/** Identical calls per race. */
export const RACERS = 10;
export const RACE_INSTANCES = 3;
export const racesOnManyInstances = process.env.WALLET_TEST_STORE === 'postgres' && Boolean(process.env.TEST_DATABASE_URL);

export interface RaceAnswer {
  status: number;
  text: string;
  json: Record<string, any>;
}

export type RaceMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RaceTarget {
  /** The service's parts in this process, on the same store and chain (setup and checks). */
  services: Services;
  /** 1 in process, RACE_INSTANCES on PostgreSQL. */
  instances: number;
  store: 'sqlite' | 'postgres';
  /** Sends one call; `index` picks the instance (index modulo instances). */
  call(index: number, method: RaceMethod, path: string, body?: object, headers?: Record<string, string>): Promise<RaceAnswer>;
  /** Starts the instances (after setup that must be done before they run); a no-op in process. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The settings both targets share: `trustProxy` lets a race name its client address in
 * X-Forwarded-For, so a rate-limited race does not spend the limit of the others.
 */
export interface RaceTargetOptions {
  /** Configuration of every instance (a config file's content; in process, config overrides). */
  config?: Record<string, unknown>;
}

function parsed(text: string): Record<string, any> {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return {};
  }
}

export async function openRaceTarget(options: RaceTargetOptions = {}): Promise<RaceTarget> {
  // Races call from one address far more often than a client would: every limit is lifted but the ones a race sets.
  const { http = {}, ...rest } = (options.config ?? {}) as { http?: { rateLimits?: Record<string, unknown> } };
  const lifted = Object.fromEntries(RATE_LIMIT_GROUPS.map((group) => [group, { max: 1_000_000 }]));
  const config = { ...rest, trustProxy: true, http: { ...http, rateLimits: { ...lifted, ...http.rateLimits } } };
  return racesOnManyInstances ? manyInstances(config) : inProcess(config);
}

async function inProcess(config: Record<string, unknown>): Promise<RaceTarget> {
  const t = await openTestApp(config as ConfigOverrides);
  return {
    services: t.services,
    instances: 1,
    store: process.env.WALLET_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite',
    async call(_index, method, url, body, headers = {}) {
      const response = await t.app.inject({ method, url, headers, ...(body ? { payload: body } : {}) });
      return { status: response.statusCode, text: response.body, json: parsed(response.body) };
    },
    start: async () => {},
    close: () => t.cleanup(),
  };
}

async function manyInstances(config: Record<string, unknown>): Promise<RaceTarget> {
  const chain: TestChain = await startTestChain();
  const children: ChildProcess[] = [];
  const baseUrls: string[] = [];
  let installation: SharedInstallation | undefined;
  let services: Services | undefined;
  const close = async () => {
    await Promise.all(children.map((child) => stopService(child)));
    await services?.outbox.stop().catch(() => {});
    await services?.close();
    await installation?.remove();
    await chain.stop();
  };
  try {
    installation = await createSharedInstallation({
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      store: 'postgres',
      configFile: { outbox: { pollIntervalMs: 100, rebroadcastAfterMs: 2_000 }, ...config },
    });
    services = await installation.open();
    // Setup (partners' contracts, funding) is sent from here; the instances start once it is done.
    await services.outbox.start();
    await fundAccount(services, services.operator.address);
    return {
      services,
      instances: RACE_INSTANCES,
      store: 'postgres',
      async call(index, method, path, body, headers = {}) {
        const response = await fetch(`${baseUrls[index % baseUrls.length]}${path}`, {
          method,
          headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const text = await response.text();
        return { status: response.status, text, json: parsed(text) };
      },
      async start() {
        await services!.outbox.stop();
        // One after the other, with a generous bound: the machine may be busy.
        for (let index = 0; index < RACE_INSTANCES; index++) {
          const { service, baseUrl } = await startService(installation!.env, { timeoutMs: 180_000 });
          children.push(service);
          baseUrls.push(baseUrl);
        }
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Gives `address` 1000 coins on the main chain. */
export async function fundAccount(services: Services, address: string): Promise<void> {
  await services.chains.get('main').client.request({ method: 'anvil_setBalance', params: [address as Address, toHex(parseEther('1000'))] } as never);
}

/** The account's nonce once every transaction it signed is mined (none is left pending). */
export async function settledNonce(services: Services, account: Address): Promise<number> {
  const client = services.chains.get('main').client;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [latest, pending] = await Promise.all([
      client.getTransactionCount({ address: account, blockTag: 'latest' }),
      client.getTransactionCount({ address: account, blockTag: 'pending' }),
    ]);
    if (latest === pending) return latest;
    if (Date.now() > deadline) throw new Error(`${account} still has ${pending - latest} transactions pending`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The registry code of a refusal, in either family's shape ({ code } or B3's { error: { code } }). */
export function codeOf(answer: RaceAnswer): number | undefined {
  return answer.json.code ?? answer.json.error?.code;
}

/** What a race gave: its winners and the refusals' codes. */
export interface RaceTally {
  answers: RaceAnswer[];
  winners: RaceAnswer[];
  refusedCodes: number[];
  /** Every answer on one line each, for assertion messages. */
  all: string;
}

/**
 * Fires `call` RACERS times at once (spread over the instances) and checks what every race must
 * hold: no 5xx, no NUL character or raw revert data in a body, and every refusal a registry code
 * with its registered HTTP status. `won` says which answers are winners.
 */
export async function runRace(call: (index: number) => Promise<RaceAnswer>, won: (answer: RaceAnswer) => boolean = (answer) => answer.status === 200, racers = RACERS): Promise<RaceTally> {
  const answers = await Promise.all(Array.from({ length: racers }, (_, index) => call(index)));
  const all = answers.map((answer) => `${answer.status} ${answer.text.slice(0, 300)}`).join('\n');
  const refusedCodes: number[] = [];
  for (const answer of answers) {
    assert.ok(answer.status < 500, `no 5xx:\n${all}`);
    assert.ok(!answer.text.includes('\\u0000') && !answer.text.includes('\u0000'), `no NUL characters:\n${all}`);
    assert.doesNotMatch(answer.text, /0x[0-9a-f]{72,}/i, 'no raw revert data');
    if (won(answer)) continue;
    const code = codeOf(answer);
    assert.ok(code !== undefined && code in errorCodes, `a refusal carries a registry code:\n${all}`);
    assert.equal(answer.status, errorCodes[code as keyof typeof errorCodes].http, `the registered HTTP status of ${code}:\n${all}`);
    refusedCodes.push(code);
  }
  return { answers, winners: answers.filter(won), refusedCodes, all };
}

/** "4006 x4, 403 x5": the refusals of a race, for the test's diagnostics. */
export function describeRefusals(codes: number[]): string {
  const counts = new Map<number, number>();
  for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + 1);
  return [...counts].map(([code, count]) => `${code} x${count}`).join(', ') || 'none';
}
