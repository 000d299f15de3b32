/**
 * The chaos run (issue 23): several `wallet-service serve` processes on one store and one chain
 * node that none of them manages, a seeded mixed load through all of them, `kill -9` of instances
 * and of the node at random moments, then a check of everything against the chain.
 *
 * It lives in testing/ because it is test support: it starts whole services from outside and
 * reads their store for the final check, which only testing/ may do (layers.test.ts).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { toHex, parseEther, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { sha256Hex } from '../../custody/passwords.ts';
import { buildApprovedPartner, buildUser } from '../factories.ts';
import { startService } from '../service-process.ts';
import { createSharedInstallation, type SharedInstallation } from '../shared-installation.ts';
import { RATE_LIMIT_GROUPS } from '../../http/rate-limit/limits.ts';
import { ChaosChain, type ReorgMode } from './chain.ts';
import { runWorker, signInAll, sleep, type ChaosMember, type ChaosPartner, type LoadContext } from './load.ts';
import { LoadModel, Random, type Timeline } from './model.ts';
import { verifyAgainstChain, type Verification } from './verify.ts';
import { scrapeMetricsDuring, type MetricsSeen } from './metrics-scrape.ts';

export interface ChaosOptions {
  durationSeconds: number;
  seed: number;
  instances: number;
  store: 'sqlite' | 'postgres';
  /** PostgreSQL server to make the run's schema in (store postgres). */
  databaseUrl?: string;
  /** Concurrent load workers. */
  workers?: number;
  /** Mean seconds between kills; 0: no kills. */
  killEverySeconds?: number;
  /** Mean seconds between reorganisations of the chain (depth 1 to 5); 0 or absent: none. */
  reorgEverySeconds?: number;
  /**
   * The chain's `confirmations` for the services (WALLET_CHAIN_MAIN_CONFIRMATIONS): a depth or
   * `safe`/`finalized`; default 0, as for Kaia. Above 0 the chain also mines a block a second.
   */
  confirmations?: string;
  /** Progress lines (kills, phases). */
  log?: (line: string) => void;
}

/** The reorganisations a run made. */
export interface ReorgFigures {
  /** Made, by depth, by what became of the replaced blocks' transactions. */
  byDepth: Record<number, Record<ReorgMode, number>>;
  /** Mined transactions the replaced blocks held, by mode. */
  transactions: Record<ReorgMode, number>;
  /** anvil_reorg calls that failed (the run's own trouble, not the service's). */
  failed: string[];
}

export interface ChaosReport extends Verification {
  seed: number;
  instances: number;
  store: 'sqlite' | 'postgres';
  durationSeconds: number;
  operations: { answered: number; refused: number; unanswered: number };
  byKind: Record<string, { answered: number; refused: number; unanswered: number }>;
  kills: { instances: number; chain: number };
  /** Present when the run reorganised the chain. */
  reorgs?: ReorgFigures;
  surprises: string[];
  /** What scraping every instance's /metrics during the load saw. */
  metrics: MetricsSeen;
}

const PARTNERS = 2;
const MEMBERS = 4;

interface Instance {
  index: number;
  child: ChildProcess | undefined;
  baseUrl: string | undefined;
}


export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const random = new Random(options.seed);
  if (options.databaseUrl) process.env.TEST_DATABASE_URL = options.databaseUrl;
  const chainDir = mkdtempSync(join(tmpdir(), 'wallet-chaos-chain-'));
  const chain = await ChaosChain.start(chainDir, log);
  let installation: SharedInstallation | undefined;
  const instances: Instance[] = Array.from({ length: options.instances }, (_, index) => ({ index, child: undefined, baseUrl: undefined }));
  const timeline: Timeline = [];
  let stopTicker = async () => {};
  try {
    const confirmations = options.confirmations ?? '0';
    // Blocks come without traffic too, so every answer reaches its confirmation depth.
    let ticking = confirmations !== '0';
    const ticker = ticking ? chain.tick(1_000, () => !ticking) : Promise.resolve();
    stopTicker = async () => {
      ticking = false;
      await ticker;
    };
    installation = await createSharedInstallation({
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      store: options.store,
      env: { WALLET_CHAIN_MAIN_CONFIRMATIONS: confirmations },
      configFile: {
        // The load comes from one address; the per-address limits would refuse most of it (the
        // limits have tests of their own: http/abuse-limits.test.ts).
        partnerApi: { rateLimit: { max: 1_000_000 } },
        http: { rateLimits: Object.fromEntries(RATE_LIMIT_GROUPS.map((group) => [group, { max: 1_000_000 }])) },
        outbox: { pollIntervalMs: 100, rebroadcastAfterMs: 2_000 },
        cards: { confirmTimeoutMs: 30_000 },
      },
    });
    const { env } = installation;
    log(`setup: data ${installation.dataDir}, store ${options.store}${installation.postgresSchema ? ` (schema ${installation.postgresSchema})` : ''}, chain ${chain.rpcUrl}`);
    const { partners, members, escrow } = await setUp(installation);
    // A graceful restart dumps the node's state: the setup survives the kills to come.
    await chain.restart();

    log(`starting ${options.instances} instance(s)`);
    await Promise.all(instances.map((instance) => startInstance(instance, env, timeline)));
    const target = { pick: (r: Random) => pickRunning(instances, r) };
    const context: LoadContext = { model: new LoadModel(), partners, members, escrow, target, surprises: [] };
    await signInAll(context, random);

    const until = Date.now() + options.durationSeconds * 1000;
    const workers = Array.from({ length: options.workers ?? 4 }, (_, index) => runWorker(context, new Random(options.seed * 7919 + index + 1), until));
    const kills = { instances: 0, chain: 0 };
    const chaos = options.killEverySeconds === 0 ? Promise.resolve() : killAtRandom({ random, until, instances, env, chain, kills, log, timeline, meanSeconds: options.killEverySeconds ?? 6 });
    const reorgs: ReorgFigures | undefined = options.reorgEverySeconds ? { byDepth: {}, transactions: { dropped: 0, reordered: 0 }, failed: [] } : undefined;
    const reorganising = reorgs
      ? reorganiseAtRandom({
          // A source of its own: the kills and the load choose as they do without reorgs.
          random: new Random(options.seed * 104_729 + 17),
          until,
          chain,
          reorgs,
          log,
          timeline,
          meanSeconds: options.reorgEverySeconds!,
          aboveBlock: await chain.head(),
        })
      : Promise.resolve();
    const scraped = scrapeMetricsDuring(instances, until);
    await Promise.all([...workers, chaos, reorganising]);
    const metrics = await scraped;
    log(`load done: ${JSON.stringify(context.model.totals)}; kills ${JSON.stringify(kills)}${reorgs ? `; reorgs ${JSON.stringify(reorgs.byDepth)}` : ''}; settling`);
    // The instances notice a replaced block by polling (the outbox's rewind watch, the card index):
    // give them a few of their checks before the store is read for the final check.
    if (reorgs) await sleep(REORG_NOTICE_MS);

    const verification = await verifyAgainstChain({
      services: await installation.open(),
      model: context.model,
      partners,
      members,
      escrow,
      timeline,
      baseUrls: () => instances.map((instance) => instance.baseUrl).filter((url): url is string => url !== undefined),
      stopInstances: () => Promise.all(instances.map((instance) => stopInstance(instance))).then(() => {}),
      log,
    });
    // A kill cuts a call (no answer) or stops the node (503, try again); a 500 is the service failing.
    const failures = context.surprises.filter((line) => /: unanswered: 5\d\d\b/.test(line) && !/: unanswered: 503\b/.test(line));
    return {
      ...verification,
      discrepancies: [...verification.discrepancies, ...failures.map((line) => `answered as a failure of the service: ${line}`)],
      seed: options.seed,
      instances: options.instances,
      store: options.store,
      durationSeconds: options.durationSeconds,
      operations: context.model.totals,
      byKind: Object.fromEntries(context.model.operations),
      kills,
      ...(reorgs ? { reorgs } : {}),
      surprises: context.surprises,
      metrics,
    };
  } finally {
    await Promise.all(instances.map((instance) => stopInstance(instance)));
    await stopTicker();
    await chain.close();
    await installation?.remove();
    rmSync(chainDir, { recursive: true, force: true });
  }
}

/** Partners with contracts (and the escrow), members, all funded on the chain; made in-process on the run's store. */
async function setUp(installation: SharedInstallation) {
  const services = await installation.open();
  try {
    await services.outbox.start();
    const client = services.chains.get('main').client;
    const fund = (address: string) => client.request({ method: 'anvil_setBalance', params: [address as Address, toHex(parseEther('1000000'))] } as never);
    await fund(services.operator.address);
    const partners: ChaosPartner[] = [];
    for (let i = 0; i < PARTNERS; i++) {
      const built = await buildApprovedPartner(services, { mintLimit: 1_000_000 });
      await fund(built.partner.main_address);
      partners.push({
        email: built.partner.email,
        passwordHash: built.passwordHash,
        pinHash: built.pinHash,
        address: built.partner.main_address.toLowerCase() as Address,
        contract: built.contractAddress.toLowerCase() as Address,
        nftId: built.nftId,
      });
    }
    const members: ChaosMember[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const phone = `+1415555${String(2000 + i)}`;
      const built = await buildUser(services, { name: `Chaos Member ${i}`, phone });
      await fund(built.user.main_address);
      members.push({
        email: built.user.email,
        passwordHash: sha256Hex(built.password),
        pinHash: built.pinHash,
        name: built.user.name,
        phone,
        address: built.user.main_address.toLowerCase() as Address,
      });
    }
    const escrow = (await client.readContract({ address: partners[0]!.contract, abi: cardNftAbi, functionName: 'escrow' })).toLowerCase() as Address;
    await services.outbox.stop();
    return { partners, members, escrow };
  } finally {
    await services.close();
  }
}

/** On a machine this loaded a start can take long; one that never listens is tried again. */
const START_TIMEOUT_MS = 120_000;
const START_ATTEMPTS = 3;

/** Every instance process the run started, killed if the run itself dies. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

async function startInstance(instance: Instance, env: NodeJS.ProcessEnv, timeline: Timeline, attempt = 1): Promise<void> {
  let started: Awaited<ReturnType<typeof startService>>;
  try {
    started = await startService(env, { timeoutMs: START_TIMEOUT_MS });
  } catch (error) {
    if (attempt >= START_ATTEMPTS) throw error;
    return startInstance(instance, env, timeline, attempt + 1);
  }
  timeline.push({ at: Date.now(), line: `instance ${instance.index} up at ${started.baseUrl} (pid ${started.service.pid})` });
  children.add(started.service);
  started.service.once('exit', () => children.delete(started.service));
  instance.child = started.service;
  instance.baseUrl = started.baseUrl;
  // CHAOS_LOG_DIR keeps what each instance logs (warnings: rewinds, reorgs, broadcast failures).
  const logDir = process.env.CHAOS_LOG_DIR;
  if (logDir) mkdirSync(logDir, { recursive: true });
  const keep = logDir ? (chunk: Buffer) => appendFileSync(join(logDir, `instance-${instance.index}.log`), chunk) : () => {};
  started.service.stderr!.on('data', keep);
  started.service.stdout!.on('data', keep);
  started.service.once('exit', () => {
    if (instance.child === started.service) {
      instance.child = undefined;
      instance.baseUrl = undefined;
    }
  });
}

async function stopInstance(instance: Instance): Promise<void> {
  const child = instance.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function pickRunning(instances: Instance[], random: Random): string | undefined {
  const running = instances.filter((instance) => instance.baseUrl !== undefined);
  return running.length === 0 ? undefined : random.pick(running).baseUrl;
}

/** Kills an instance (three times in four) or the chain node with SIGKILL at random moments, restarting it a moment later. */
async function killAtRandom(options: {
  random: Random;
  until: number;
  instances: Instance[];
  env: NodeJS.ProcessEnv;
  chain: ChaosChain;
  kills: { instances: number; chain: number };
  log: (line: string) => void;
  timeline: Timeline;
  meanSeconds: number;
}): Promise<void> {
  const { random, instances, chain, kills, log, timeline } = options;
  for (;;) {
    const wait = (0.5 + random.next()) * options.meanSeconds * 1000;
    if (Date.now() + wait >= options.until) return;
    await sleep(wait);
    const downMs = random.int(300, 2_000);
    if (random.next() < 0.75) {
      const instance = random.pick(instances);
      if (!instance.child) continue;
      timeline.push({ at: Date.now(), line: `kill -9 instance ${instance.index} at ${instance.baseUrl} (pid ${instance.child.pid})` });
      instance.child.kill('SIGKILL');
      kills.instances += 1;
      log(`kill -9 instance ${instance.index}; back in ${downMs} ms`);
      await sleep(downMs);
      await startInstance(instance, options.env, timeline);
    } else {
      timeline.push({ at: Date.now(), line: 'kill -9 chain node' });
      await chain.kill();
      kills.chain += 1;
      log(`kill -9 chain node; back in ${downMs} ms`);
      await sleep(downMs);
      await chain.restart();
      timeline.push({ at: Date.now(), line: 'chain node up again' });
    }
  }
}

/** How long the instances are given after the last reorganisation to notice it (their checks run every second or faster). */
const REORG_NOTICE_MS = 5_000;

/**
 * Reorganises the chain at random moments: depth 1 to 5, the replaced blocks' transactions dropped
 * or re-ordered into later blocks (half each), never reaching below `aboveBlock` (the setup).
 */
async function reorganiseAtRandom(options: {
  random: Random;
  until: number;
  chain: ChaosChain;
  reorgs: ReorgFigures;
  log: (line: string) => void;
  timeline: Timeline;
  meanSeconds: number;
  aboveBlock: number;
}): Promise<void> {
  const { random, chain, reorgs, log, timeline } = options;
  for (;;) {
    const wait = (0.5 + random.next()) * options.meanSeconds * 1000;
    if (Date.now() + wait >= options.until) return;
    await sleep(wait);
    const depth = random.int(1, 5);
    const mode: ReorgMode = random.next() < 0.5 ? 'dropped' : 'reordered';
    if (!chain.running) continue;
    try {
      const done = await chain.reorganise(depth, mode, { aboveBlock: options.aboveBlock });
      if (done.skipped) continue;
      const byMode = (reorgs.byDepth[done.depth] ??= { dropped: 0, reordered: 0 });
      byMode[done.mode] += 1;
      reorgs.transactions[done.mode] += done.transactions;
      const line = `reorg depth ${done.depth}, ${done.transactions} transaction(s) ${done.mode === 'dropped' ? 'dropped' : 're-ordered'}`;
      timeline.push({ at: Date.now(), line });
      log(line);
    } catch (error) {
      reorgs.failed.push((error as Error).message);
      log(`reorg depth ${depth} (${mode}) failed: ${(error as Error).message}`);
    }
  }
}
