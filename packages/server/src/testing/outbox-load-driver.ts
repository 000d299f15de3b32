/**
 * Child-process load driver for the outbox crash tests. Run as
 *
 *   node --import tsx packages/server/src/testing/outbox-load-driver.ts <mode> --data-dir DIR [options]
 *
 * Modes:
 *   setup         3 approved partners (contracts deployed, accounts funded) and 3 funded fee-payer keys
 *   load          --count N operations from several accounts (operator and fee-payer transfers, partner
 *                 mintBatch calls), --concurrency at a time; then waits until they are final
 *   serve         opens the services (the outbox replays) and runs until SIGTERM/SIGINT
 *   shared-setup  one fee-payer key (owner id --sender-owner) funded by the operator
 *   send          --count transfers from that one shared key
 *
 * Options: --database-url URL and --schema S (PostgreSQL store; SQLite in the data dir otherwise),
 * --rpc-url URL --chain-id ID (main chain external instead of embedded), --run PREFIX (idempotency
 * keys), --pin PIN (partners), --send-window N (the outbox's outbox.sendWindow), --block-time S (the embedded main chain mines a
 * block every S seconds instead of automining), --linger (load/send: keep serving once done), --wait-go (load/send:
 * print {"ready"} and wait for a line on stdin before sending), --exit-with-parent (stop when stdin
 * closes: the parent died). Without the flags, WALLET_DATA_DIR, DATABASE_URL and WALLET_POSTGRES_SCHEMA
 * are read from the environment; WALLET_MASTER_KEY always is. Every event is one JSON line on stdout;
 * logs go to stderr.
 *
 * The parent side (`startDriver`) is exported for the tests; the script part
 * only runs when this file is the entry point.
 *
 * `{"accepted": key, ...}` is printed right after `outbox.submit` resolves: the moment an operation
 * counts as accepted. `{"attempt": key, ...}` is printed before the first submit of an operation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { encodeFunctionData, parseEther, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { cardNftAbi } from '@wallet-service/contracts';
import { loadConfig, type Config } from '../config/config.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { Operator } from '../operator/operator.ts';
import type { Store } from '../store/database.ts';
import { sha256Hex } from '../custody/passwords.ts';
import type { OutboxTransaction, TransactionOutbox, TransactionSigner } from '../outbox/outbox.ts';
import { approvePartner, createPartner } from '../partners/commands.ts';
import { openServices, type Services } from '../services.ts';
import { withBackgroundJobs } from '../background-jobs.ts';

// ---------------------------------------------------------------------------------------------
// What the driver prints
// ---------------------------------------------------------------------------------------------

export type OperationKind = 'operator-transfer' | 'fee-payer-transfer' | 'mint';

/** One planned operation, as printed in `attempt` and `accepted` lines. */
export interface OperationDetails {
  kind: OperationKind;
  from: Address;
  /** Transfers: the recipient. Mints: the contract. */
  to: Address;
  /** Transfers: wei as a decimal string. */
  value: string;
  /** Mints: the recipients, one token each. */
  recipients: Address[];
}

export interface AcceptedLine extends OperationDetails {
  accepted: string;
  id: string;
  nonce: number;
  txHash: Hex;
}

export interface AttemptLine extends OperationDetails {
  attempt: string;
}

export interface PartnerLine {
  partner: { email: string; pin: string; address: Address; contract: Address; nftId: number };
}

export type DriverLine = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Parent side: start the driver as a child process
// ---------------------------------------------------------------------------------------------

export interface DriverOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  schema?: string | undefined;
  rpcUrl?: string | undefined;
  chainId?: number | undefined;
  masterKey?: string | undefined;
  count?: number;
  concurrency?: number;
  run?: string;
  pin?: string;
  senderOwner?: string;
  sendWindow?: number;
  blockTime?: number;
  linger?: boolean;
  waitGo?: boolean;
}

export interface DriverHandle {
  child: ChildProcess;
  /** Parsed stdout lines so far. */
  lines: DriverLine[];
  /** The last 200 kB of stderr. */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first line (already seen or to come) that matches; rejects on timeout or exit. */
  waitForLine(match: (line: DriverLine) => boolean, timeoutMs: number, what?: string): Promise<DriverLine>;
  /** Resolves once `count` lines match. */
  waitForCount(match: (line: DriverLine) => boolean, count: number, timeoutMs: number, what?: string): Promise<void>;
  /** Writes a line to the child's stdin (the `go` of --wait-go). */
  send(line: string): void;
  /** SIGTERM (graceful: the child stops its node), SIGKILL after `graceMs`; resolves when it exited. */
  stop(graceMs?: number): Promise<void>;
}

const DRIVER_PATH = fileURLToPath(import.meta.url);
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export function startDriver(mode: string, options: DriverOptions): DriverHandle {
  const args = [mode, '--data-dir', options.dataDir];
  if (options.databaseUrl) args.push('--database-url', options.databaseUrl);
  if (options.schema) args.push('--schema', options.schema);
  if (options.rpcUrl) args.push('--rpc-url', options.rpcUrl, '--chain-id', String(options.chainId ?? 31337));
  if (options.count !== undefined) args.push('--count', String(options.count));
  if (options.concurrency !== undefined) args.push('--concurrency', String(options.concurrency));
  if (options.run) args.push('--run', options.run);
  if (options.pin) args.push('--pin', options.pin);
  if (options.senderOwner) args.push('--sender-owner', options.senderOwner);
  if (options.sendWindow !== undefined) args.push('--send-window', String(options.sendWindow));
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.linger) args.push('--linger');
  if (options.waitGo) args.push('--wait-go');
  // Should the test process die without stopping us, our stdin closes: stop then, with the node.
  args.push('--exit-with-parent');
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.WALLET_MASTER_KEY;
  if (options.masterKey) env.WALLET_MASTER_KEY = options.masterKey;
  // npm test bundles this file with the tests (scripts/run-tests.mjs): it then starts without tsx.
  const bundle = process.env.WALLET_TEST_LOAD_DRIVER;
  const child = spawn(process.execPath, [...(bundle ? ['--enable-source-maps', bundle] : ['--import', 'tsx', DRIVER_PATH]), ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: DriverLine[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  let stdoutRest = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    stdoutRest += chunk;
    let newline: number;
    while ((newline = stdoutRest.indexOf('\n')) >= 0) {
      const text = stdoutRest.slice(0, newline).trim();
      stdoutRest = stdoutRest.slice(newline + 1);
      if (!text) continue;
      try {
        lines.push(JSON.parse(text) as DriverLine);
      } catch {
        lines.push({ text });
      }
    }
    notify();
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-200_000);
  });
  child.stdin!.on('error', () => {});
  let exitState: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  // 'close' comes after stdout is drained, so every line the child wrote has been parsed by then.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      exitState = { code, signal };
      resolve(exitState);
      notify();
    }),
  );

  const describe = (what: string) => `driver ${mode} (pid ${child.pid}): ${what}`;
  const waitUntil = (done: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (done()) finish();
        else if (exitState) finish(new Error(describe(`exited (${exitState.signal ?? exitState.code}) before ${what}\n${stderr.slice(-3000)}`)));
      };
      const timer = setTimeout(() => finish(new Error(describe(`no ${what} within ${timeoutMs} ms\n${stderr.slice(-3000)}`))), timeoutMs);
      function finish(error?: Error) {
        clearTimeout(timer);
        listeners.delete(check);
        if (error) reject(error);
        else resolve();
      }
      listeners.add(check);
      check();
    });

  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    async waitForLine(match, timeoutMs, what = 'matching line') {
      await waitUntil(() => lines.some(match), timeoutMs, what);
      return lines.find(match)!;
    },
    async waitForCount(match, count, timeoutMs, what = `${count} matching lines`) {
      await waitUntil(() => lines.filter(match).length >= count, timeoutMs, what);
    },
    send(line) {
      child.stdin!.write(`${line}\n`);
    },
    async stop(graceMs = 10_000) {
      if (exitState) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}


// ---------------------------------------------------------------------------------------------
// Child side
// ---------------------------------------------------------------------------------------------

const PARTNER_COUNT = 3;
const FEE_PAYER_COUNT = 3;
const FEE_PAYER_OWNER_PREFIX = 'load-fee-payer-';
const FEE_PAYER_FUNDING = parseEther('100');
/** Submissions that fail (node down, restarting) are tried again with the same key until this deadline. */
const RETRY_FOR_MS = 60_000;
const FINAL_TIMEOUT_MS = 120_000;

interface DriverArgs {
  mode: string;
  dataDir: string;
  databaseUrl: string | undefined;
  schema: string | undefined;
  rpcUrl: string | undefined;
  chainId: number;
  count: number;
  concurrency: number;
  run: string;
  pin: string;
  senderOwner: string;
  /** The outbox's send window (outbox.sendWindow); the default when undefined. */
  sendWindow: number | undefined;
  /** The embedded main chain's block time in seconds (chains.main.blockTimeSeconds); automine when undefined. */
  blockTime: number | undefined;
  linger: boolean;
  waitGo: boolean;
  exitWithParent: boolean;
}

function print(line: DriverLine): void {
  // Pipes are synchronous on Linux: once this returns, the parent can read the line even if we die.
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function parseDriverArgs(argv: string[]): DriverArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      schema: { type: 'string' },
      'rpc-url': { type: 'string' },
      'chain-id': { type: 'string' },
      count: { type: 'string' },
      concurrency: { type: 'string' },
      run: { type: 'string' },
      pin: { type: 'string' },
      'sender-owner': { type: 'string' },
      'send-window': { type: 'string' },
      'block-time': { type: 'string' },
      linger: { type: 'boolean', default: false },
      'wait-go': { type: 'boolean', default: false },
      'exit-with-parent': { type: 'boolean', default: false },
    },
  });
  const mode = positionals[0] ?? '';
  const dataDir = values['data-dir'] ?? process.env.WALLET_DATA_DIR;
  if (!dataDir) throw new Error('--data-dir is required');
  return {
    mode,
    dataDir,
    databaseUrl: values['database-url'] ?? process.env.DATABASE_URL,
    schema: values.schema ?? process.env.WALLET_POSTGRES_SCHEMA,
    rpcUrl: values['rpc-url'],
    chainId: Number(values['chain-id'] ?? 31337),
    count: Number(values.count ?? 200),
    concurrency: Number(values.concurrency ?? 8),
    run: values.run ?? randomBytes(4).toString('hex'),
    pin: values.pin ?? '246810',
    senderOwner: values['sender-owner'] ?? 'shared-sender',
    sendWindow: values['send-window'] === undefined ? undefined : Number(values['send-window']),
    blockTime: values['block-time'] === undefined ? undefined : Number(values['block-time']),
    linger: values.linger ?? false,
    waitGo: values['wait-go'] ?? false,
    exitWithParent: values['exit-with-parent'] ?? false,
  };
}

async function openDriverServices(args: DriverArgs): Promise<Services> {
  const env: NodeJS.ProcessEnv = { WALLET_DATA_DIR: args.dataDir };
  if (args.databaseUrl) env.DATABASE_URL = args.databaseUrl;
  if (process.env.WALLET_MASTER_KEY) env.WALLET_MASTER_KEY = process.env.WALLET_MASTER_KEY;
  if (process.env.WALLET_SCRYPT_COST) env.WALLET_SCRYPT_COST = process.env.WALLET_SCRYPT_COST;
  if (args.rpcUrl) {
    env.WALLET_CHAIN_MAIN_RPC_URL = args.rpcUrl;
    env.WALLET_CHAIN_MAIN_CHAIN_ID = String(args.chainId);
  }
  const config = loadConfig({
    env,
    overrides: {
      chains: { ...(args.blockTime ? { main: { blockTimeSeconds: args.blockTime } } : {}), ethereum: null, polygon: null },
      logLevel: 'warn',
      ...(args.sendWindow ? { outbox: { sendWindow: args.sendWindow } } : {}),
    },
  });
  const services = await openServices(config, {
    chainMode: 'own',
    log: pino({ level: 'warn' }, pino.destination(2)),
    ...(args.schema ? { postgresSchema: args.schema } : {}),
  });
  return withBackgroundJobs(services);
}

const freshAddress = (): Address => privateKeyToAddress(generatePrivateKey()).toLowerCase() as Address;

async function setup(services: Services, args: DriverArgs): Promise<void> {
  print({ operator: services.operator.address });
  for (let index = 0; index < PARTNER_COUNT; index++) {
    const tag = `${args.run}-${index}`;
    const partner = await createPartner(services, {
      email: `load-partner-${tag}@example.com`,
      passwordHash: sha256Hex(`password-${tag}`),
      pinHash: sha256Hex(args.pin),
      name: `Load Partner ${index}`,
      phone: `+1415555${String(1000 + index)}`,
      serviceName: `Load Cards ${index}`,
    });
    const approved = await approvePartner(services, { email: partner.email });
    print({
      partner: {
        email: partner.email,
        pin: args.pin,
        address: partner.main_address as Address,
        contract: approved.contractAddress,
        nftId: approved.nftId,
      },
    } satisfies PartnerLine);
  }
  const operator = await services.operator.signer();
  const fundings: OutboxTransaction[] = [];
  for (let index = 0; index < FEE_PAYER_COUNT; index++) {
    const key = await services.vault.createKey({
      ownerType: 'fee_payer',
      ownerId: `${FEE_PAYER_OWNER_PREFIX}${index}`,
      protection: 'server',
      secretKind: 'private_key',
    });
    fundings.push(
      await services.outbox.submit({
        idempotencyKey: `fund-fee-payer:${key.keyId}`,
        chain: 'main',
        signer: operator,
        to: key.address,
        value: FEE_PAYER_FUNDING,
      }),
    );
    print({ feePayer: { keyId: key.keyId, address: key.address } });
  }
  for (const funding of fundings) await expectMined(services, funding);
  print({ ready: true });
}

async function sharedSetup(deps: { vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator }, args: DriverArgs): Promise<void> {
  const chain = deps.chains.get('main');
  if (!chain.managed) {
    // A throwaway test chain: give the operator coins the way the embedded chains do.
    await chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [deps.operator.address, toHex(parseEther('1000000'))] as never,
    });
  }
  const key = await deps.vault.createKey({
    ownerType: 'fee_payer',
    ownerId: args.senderOwner,
    protection: 'server',
    secretKind: 'private_key',
  });
  const funding = await deps.outbox.submit({
    idempotencyKey: `fund-shared-sender:${key.keyId}`,
    chain: 'main',
    signer: await deps.operator.signer(),
    to: key.address,
    value: FEE_PAYER_FUNDING,
  });
  await expectMined(deps, funding);
  print({ sender: { keyId: key.keyId, address: key.address } });
}

async function expectMined(deps: { outbox: TransactionOutbox }, transaction: OutboxTransaction): Promise<void> {
  const final = await deps.outbox.waitForFinal(transaction.id, FINAL_TIMEOUT_MS);
  if (final.status !== 'mined' || final.receiptStatus !== 'success') {
    throw new Error(`transaction ${final.txHash} ended ${final.status}/${final.receiptStatus}: ${final.error ?? ''}`);
  }
}

interface PlannedOperation extends OperationDetails {
  key: string;
  signer: TransactionSigner;
  data?: Hex;
}

/** Fresh recipients and distinct values, so every effect on chain is attributable to one operation. */
async function planLoad(deps: { store: Store; vault: KeyVault; operator: Operator }, args: DriverArgs): Promise<PlannedOperation[]> {
  const db = deps.store.db;
  const operator = await deps.operator.signer();
  const feePayerRows = await db
    .selectFrom('signing_keys')
    .select(['id', 'owner_id'])
    .where('owner_type', '=', 'fee_payer')
    .where('owner_id', 'like', `${FEE_PAYER_OWNER_PREFIX}%`)
    .orderBy('owner_id')
    .execute();
  const feePayers: TransactionSigner[] = [];
  for (const row of feePayerRows) {
    const unlocked = await deps.vault.unlock(row.id);
    feePayers.push({ address: unlocked.address, account: unlocked.account });
  }
  const partnerRows = await db
    .selectFrom('partners')
    .select(['key_id', 'contract_address'])
    .where('contract_address', 'is not', null)
    .orderBy('email')
    .execute();
  // Each PIN unlock is counted as an attempt until it succeeds: unlock once per partner, not per mint.
  const partners: Array<{ signer: TransactionSigner; contract: Address }> = [];
  for (const row of partnerRows) {
    const unlocked = await deps.vault.unlock(row.key_id, sha256Hex(args.pin));
    partners.push({ signer: { address: unlocked.address, account: unlocked.account }, contract: row.contract_address as Address });
  }
  if (feePayers.length === 0 || partners.length === 0) throw new Error('run the setup mode first');

  return Array.from({ length: args.count }, (_, index): PlannedOperation => {
    const key = `load:${args.run}:${index}`;
    // Distinct per operation and per run: 1e12 wei times the index, plus a per-run offset below 1e6.
    const value = (BigInt(index + 1) * 10n ** 12n + BigInt(parseInt(sha256Hex(args.run).slice(0, 5), 16))).toString();
    const slot = index % 5;
    if (slot === 0) {
      return { key, kind: 'operator-transfer', signer: operator, from: operator.address, to: freshAddress(), value, recipients: [] };
    }
    if (slot === 1 || slot === 2) {
      const signer = feePayers[index % feePayers.length]!;
      return { key, kind: 'fee-payer-transfer', signer, from: signer.address, to: freshAddress(), value, recipients: [] };
    }
    const partner = partners[index % partners.length]!;
    const recipients = Array.from({ length: 1 + (index % 3) }, freshAddress);
    return {
      key,
      kind: 'mint',
      signer: partner.signer,
      from: partner.signer.address,
      to: partner.contract,
      value: '0',
      recipients,
      data: encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [recipients, true] }),
    };
  });
}

async function planSend(deps: { store: Store; vault: KeyVault }, args: DriverArgs): Promise<PlannedOperation[]> {
  const row = await deps.store.db
    .selectFrom('signing_keys')
    .select('id')
    .where('owner_type', '=', 'fee_payer')
    .where('owner_id', '=', args.senderOwner)
    .orderBy('created_at')
    .executeTakeFirst();
  if (!row) throw new Error(`no fee-payer key owned by ${args.senderOwner}: run shared-setup first`);
  const unlocked = await deps.vault.unlock(row.id);
  const signer: TransactionSigner = { address: unlocked.address, account: unlocked.account };
  const offset = BigInt(parseInt(sha256Hex(args.run).slice(0, 5), 16));
  return Array.from({ length: args.count }, (_, index) => ({
    key: `send:${args.run}:${index}`,
    kind: 'fee-payer-transfer' as const,
    signer,
    from: signer.address,
    to: freshAddress(),
    value: (BigInt(index + 1) * 10n ** 12n + offset).toString(),
    recipients: [],
  }));
}

/** Submits every operation (`concurrency` at a time), printing attempt and accepted lines; then waits for finality. */
async function runOperations(deps: { outbox: TransactionOutbox }, args: DriverArgs, operations: PlannedOperation[]): Promise<void> {
  if (args.waitGo) {
    print({ ready: true });
    await waitForStdinLine();
  }
  const accepted: OutboxTransaction[] = [];
  const gaveUp: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < operations.length) {
      const operation = operations[next++]!;
      const { key, signer, data, ...details } = operation;
      print({ attempt: key, ...details } satisfies AttemptLine);
      const deadline = Date.now() + RETRY_FOR_MS;
      for (let attempt = 1; ; attempt++) {
        try {
          const transaction = await deps.outbox.submit({
            idempotencyKey: key,
            chain: 'main',
            signer,
            to: operation.to,
            value: BigInt(operation.value),
            ...(data ? { data } : {}),
          });
          print({ accepted: key, ...details, id: transaction.id, nonce: transaction.nonce, txHash: transaction.txHash } satisfies AcceptedLine);
          accepted.push(transaction);
          break;
        } catch (error) {
          const message = (error as Error).message.split('\n')[0];
          if (Date.now() > deadline) {
            print({ gaveUp: key, error: message });
            gaveUp.push(key);
            break;
          }
          process.stderr.write(`driver: ${key} attempt ${attempt}: ${message}\n`);
          await sleep(Math.min(1_000, 100 * attempt));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, args.concurrency) }, worker));
  print({ submitted: accepted.length, gaveUp: gaveUp.length });

  const finals = await Promise.all(accepted.map((transaction) => deps.outbox.waitForFinal(transaction.id, FINAL_TIMEOUT_MS)));
  const mined = finals.filter((transaction) => transaction.status === 'mined').length;
  print({ final: { mined, failed: finals.length - mined } });
}

function waitForStdinLine(): Promise<void> {
  return new Promise((resolve) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('\n')) {
        process.stdin.off('data', onData);
        resolve();
      }
    };
    process.stdin.on('data', onData);
  });
}

/** Keeps the process alive until SIGTERM/SIGINT, whose handler closes the services and exits. */
function untilSignalled(): Promise<never> {
  setInterval(() => {}, 60_000);
  return new Promise<never>(() => {});
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function runDriver(argv: string[]): Promise<void> {
  const args = parseDriverArgs(argv);
  const services = await openDriverServices(args);
  let closing: Promise<void> | undefined;
  const shutdown = (code: number) => {
    closing ??= services
      .close()
      .catch((error: Error) => {
        process.stderr.write(`driver: close: ${error.message}\n`);
      })
      .finally(() => process.exit(code));
    return closing;
  };
  process.once('SIGTERM', () => void shutdown(0));
  process.once('SIGINT', () => void shutdown(0));
  if (args.exitWithParent) {
    process.stdin.on('end', () => void shutdown(0));
    process.stdin.resume();
  }

  try {
    const main = services.chains.get('main');
    switch (args.mode) {
      case 'setup':
        await setup(services, args);
        break;
      case 'shared-setup':
        await sharedSetup(services, args);
        break;
      case 'load':
        await runOperations(services, args, await planLoad(services, args));
        break;
      case 'send':
        await runOperations(services, args, await planSend(services, args));
        break;
      case 'serve':
        print({ serving: true, rpcUrl: main.rpcUrl, nodePid: main.node?.pid ?? null });
        await untilSignalled();
        break;
      default:
        throw new Error(`unknown mode "${args.mode}" (setup, load, serve, shared-setup, send)`);
    }
    if (args.linger) {
      print({ serving: true, rpcUrl: main.rpcUrl, nodePid: main.node?.pid ?? null });
      await untilSignalled();
    }
  } catch (error) {
    process.stderr.write(`driver ${args.mode}: ${(error as Error).stack ?? String(error)}\n`);
    await shutdown(1);
    return;
  }
  await shutdown(0);
}

// Run as a script: this file through tsx, or its bundle (whose import.meta.url is this file's).
if (process.argv[1] && (import.meta.url === pathToFileURL(process.argv[1]).href || process.argv[1] === process.env.WALLET_TEST_LOAD_DRIVER)) {
  runDriver(process.argv.slice(2)).catch((error: Error) => {
    process.stderr.write(`driver: ${error.stack ?? error.message}\n`);
    process.exit(1);
  });
}
