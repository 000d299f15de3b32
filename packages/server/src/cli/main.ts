import { parseArgs, type ParseArgsConfig } from 'node:util';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config, type ConfigOverrides } from '../config/config.ts';
import { isAppError } from '../errors/app-error.ts';
import { openServices, type Services } from '../services.ts';
import { withBackgroundJobs } from '../background-jobs.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { approvePartner, createPartner, unlockPartnerPin } from '../partners/commands.ts';
import { assertPartnerProgramOpen } from '../partner-api/program-window.ts';
import { createUser, unlockMemberPin } from '../users/commands.ts';
import { faucet } from '../operator/faucet.ts';
import { serve } from './serve.ts';
import { required, sixDigitPin, UsageError, wholeNumber } from './options.ts';
import { withRunningServiceUrl } from './service-record.ts';
import { ACCOUNT_STATUS, findAccountOrFail, listAccounts, setAccountStatus, setMintLimit, statusName, type AccountSelector, type AccountStatusName } from '../accounts/commands.ts';
import { listOperatorActions, operatorName, recordOperatorAction } from '../audit/store.ts';
import type { PartnerRow, UserRow } from '../store/schema.ts';
import { a2aCommands, A2A_CLI_OPTIONS, A2A_CLI_USAGE } from './a2a-commands.ts';
import { webhookCommands, WEBHOOK_CLI_OPTIONS, WEBHOOK_CLI_USAGE } from './webhook-commands.ts';
import { rotateMasterKey } from '../custody/rotation.ts';
import { createBackup, restoreBackup } from '../backup/commands.ts';

const USAGE = `wallet-service: the wallet service and its operator commands

Usage: wallet-service <command> [options]

Commands:
  serve                                   run the service (what npm start runs)
  partner create --email E --password P --pin PIN --name N --phone PH --service-name S
                                          register a partner (status 20); refused (440) once
                                          partnerProgram.endsAt has passed
  partner approve --email E [--mint-limit N]
                                          approve it: deploys its card contract (status 1)
  partner unlock --email E                allow PIN signing again after 5 wrong PINs
  partner list [--search TEXT] [--limit N] [--cursor C]
                                          partners by e-mail; TEXT matches e-mail, phone or address
  partner show (--email E | --phone PH | --address A)
  partner set-status (--email E | ...) --status active|suspended|banned|unsubscribed [--reason R]
                                          A1 and every partner call answer 422, 421 or 423
  partner set-mint-limit (--email E | ...) --mint-limit N
  user create --name N --phone PH --email E --password P --pin PIN --birth YYYY-MM-DD
                                          create a wallet member
  user unlock --email E                   let a member approve again after 5 wrong PINs
  user list [--search TEXT] [--limit N] [--cursor C]
  user show (--email E | --phone PH | --address A)
  user set-status (--email E | ...) --status active|suspended|banned|unsubscribed [--reason R]
                                          sign-in answers 422, 421 or 423; approvals 6501
  audit list [--limit N] [--cursor C]     operator actions, newest first
  limits show                             the daily and monthly limits in force (set in config)
  faucet --to ADDRESS --amount COIN [--chain main]
                                          send coins from the operator account
  keys rotate-master [--batch-size N]     a new master key; every wrapped data key re-wrapped in
                                          batches; resumable, run it again after a crash
  backup create --to DIR                  a consistent copy of the store (SQLite) and the data
                                          directory's files, beside a running service
  backup restore --from DIR               restores a backup into --data-dir, new or empty
${A2A_CLI_USAGE}
${WEBHOOK_CLI_USAGE}

Global options:
  --data-dir DIR    data directory (default ./data, env WALLET_DATA_DIR)
  --config FILE     JSON config file (env WALLET_CONFIG)
  --json            print the result as JSON
  -h, --help        this help

Passwords and PINs are given in clear here; the CLI sends their SHA-256 hex, as clients do.
Commands work against the data directory of a running service, or start its chains themselves.`;

const OPTIONS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  host: { type: 'string' },
  port: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  pin: { type: 'string' },
  name: { type: 'string' },
  phone: { type: 'string' },
  'service-name': { type: 'string' },
  'mint-limit': { type: 'string' },
  birth: { type: 'string' },
  to: { type: 'string' },
  amount: { type: 'string' },
  chain: { type: 'string' },
  status: { type: 'string' },
  search: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  address: { type: 'string' },
  from: { type: 'string' },
  'batch-size': { type: 'string' },
  ...A2A_CLI_OPTIONS,
  ...WEBHOOK_CLI_OPTIONS,
} satisfies ParseArgsConfig['options'];

/** The largest monthly mint limit: the store keeps it in a 32-bit integer column. */
const MAX_MINT_LIMIT = 2_147_483_647;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];


/** Runs one CLI invocation; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
  } catch (error) {
    return fail(`${(error as Error).message.replace(/\.?$/, '.')} Run wallet-service --help for usage.`);
  }
  const command = positionals.join(' ');
  if (values.help || command === '' || command === 'help') {
    console.log(USAGE);
    return values.help || command === 'help' ? 0 : 1;
  }
  try {
    const config = loadConfig({
      ...(values.config ? { file: values.config } : {}),
      overrides: overridesFrom(values),
    });
    if (command === 'serve') return await serve(config);
    // Restoring writes a new data directory: nothing there may be opened first.
    if (command === 'backup restore') {
      print({ ...(await restoreBackup({ config }, required(values, 'from'))) }, values.json ?? false);
      return 0;
    }
    // The longest command name that starts the positionals; what follows are its arguments (blacklist add ADDRESS).
    const name = Object.keys(COMMANDS)
      .filter((key) => command === key || command.startsWith(`${key} `))
      .sort((a, b) => b.length - a.length)[0];
    const handler = name ? COMMANDS[name] : undefined;
    if (!name || !handler) throw new UsageError(`unknown command "${command}". Run wallet-service --help for usage.`);
    const args = positionals.slice(name.split(' ').length);
    // Only handlers that declare the third parameter take positional arguments.
    if (args.length > 0 && handler.length < 3) throw new UsageError(`unknown command "${command}". Run wallet-service --help for usage.`);
    const services = await withBackgroundJobs(await openServices(withRunningServiceUrl(config), { chainMode: 'attach', log: quietLogger(config) }));
    try {
      const result = await handler(services, values, args);
      if (AUDITED_AFTER_THE_FACT.has(name)) {
        await recordOperatorAction(services.store.db, operatorName(), { action: name, target: targetOf(values, args), before: null, after: withoutSecrets(result) });
      }
      print(result, values.json ?? false);
      return 0;
    } finally {
      await services.close();
    }
  } catch (error) {
    if (isAppError(error)) return fail(`error ${error.code}: ${error.message}`);
    if (error instanceof UsageError || error instanceof ConfigError) return fail(error.message);
    return fail(oneLine(error));
  }
}

type Handler = (services: Services, values: Values, args: string[]) => Promise<Record<string, unknown>>;

const COMMANDS: Record<string, Handler> = {
  'partner create': async (services, values) => {
    // After partnerProgram.endsAt the program takes no new partners (error 440).
    assertPartnerProgramOpen(services.config);
    const partner = await createPartner(services, {
      email: required(values, 'email'),
      passwordHash: sha256Hex(required(values, 'password')),
      pinHash: sha256Hex(sixDigitPin(values)),
      name: required(values, 'name'),
      phone: required(values, 'phone'),
      serviceName: required(values, 'service-name'),
    });
    return { email: partner.email, status: partner.status, main_address: partner.main_address };
  },
  'partner approve': async (services, values) => {
    const mintLimit = values['mint-limit'];
    const approved = await approvePartner(services, {
      email: required(values, 'email'),
      ...(mintLimit !== undefined ? { mintLimit: wholeNumber(mintLimit, 'mint-limit', MAX_MINT_LIMIT) } : {}),
    });
    return {
      email: approved.partner.email,
      status: approved.partner.status,
      contract_address: approved.contractAddress,
      nft_id: approved.nftId,
      mint_limit: approved.partner.mint_limit,
    };
  },
  'partner unlock': async (services, values) => {
    const partner = await unlockPartnerPin(services, required(values, 'email'));
    return { email: partner.email, pin_locked: false };
  },
  'user create': async (services, values) => {
    const user = await createUser(services, {
      name: required(values, 'name'),
      phone: required(values, 'phone'),
      email: required(values, 'email'),
      passwordHash: sha256Hex(required(values, 'password')),
      pinHash: sha256Hex(sixDigitPin(values)),
      birth: required(values, 'birth'),
    });
    return { email: user.email, main_address: user.main_address, evm_address: user.main_address };
  },
  'user unlock': async (services, values) => {
    const member = await unlockMemberPin(services, required(values, 'email'));
    return { email: member.email, pin_locked: false };
  },
  faucet: async (services, values) => {
    const transaction = await faucet(services, {
      to: required(values, 'to'),
      amount: required(values, 'amount'),
      ...(values.chain ? { chain: values.chain } : {}),
    });
    return { tx_hash: transaction.txHash, status: transaction.receiptStatus ?? transaction.status, chain: transaction.chain };
  },
  'partner list': async (services, values) => listed(services, 'partner', values),
  'partner show': async (services, values) => presentAccount('partner', await findAccountOrFail(accountDeps(services), 'partner', selector(values))),
  'partner set-status': async (services, values) =>
    presentAccount('partner', await setAccountStatus(accountDeps(services), 'partner', statusChange(values))),
  'partner set-mint-limit': async (services, values) =>
    presentAccount(
      'partner',
      await setMintLimit(accountDeps(services), {
        by: selector(values),
        mintLimit: wholeNumber(required(values, 'mint-limit'), 'mint-limit', MAX_MINT_LIMIT),
        actor: operatorName(),
      }),
    ),
  'user list': async (services, values) => listed(services, 'member', values),
  'user show': async (services, values) => presentAccount('member', await findAccountOrFail(accountDeps(services), 'member', selector(values))),
  'user set-status': async (services, values) => presentAccount('member', await setAccountStatus(accountDeps(services), 'member', statusChange(values))),
  'limits show': async (services) => {
    const { invites, a2a, partners, partnerApi, timeZone } = services.config;
    // Each limit with the code a request past it answers; 0 means no limit.
    return {
      time_zone: timeZone,
      invite_sender_daily_4112: invites.senderDailyLimit,
      invite_receiver_daily_4114: invites.receiverDailyLimit,
      invite_receiver_monthly_4115: invites.receiverMonthlyLimit,
      execute_contract_daily_6200: a2a.executeContractDailyLimit,
      partner_default_mint_monthly_4080: partners.defaultMintLimit,
      partner_api_requests_429: `${partnerApi.rateLimit.max} per ${partnerApi.rateLimit.timeWindowMs / 1000} s per client address`,
    };
  },
  'audit list': async (services, values) => {
    const page = await listOperatorActions(services.store.db, { limit: pageLimit(values), ...(values.cursor ? { cursor: values.cursor } : {}) });
    return { entries: page.entries, next_cursor: page.nextCursor };
  },
  'keys rotate-master': async (services, values) => {
    const { store, vault, config } = services;
    const batchSize = values['batch-size'] === undefined ? undefined : Math.max(1, wholeNumber(values['batch-size'], 'batch-size', 10_000));
    const result = await rotateMasterKey(
      { db: store.db, dialect: store.dialect, vault, source: { dataDir: config.dataDir, masterKeyHex: config.masterKey } },
      { ...(batchSize ? { batchSize } : {}), afterBatch: killAfterBatchesForTests() },
    );
    return { ...result };
  },
  'backup create': async (services, values) => ({ ...(await createBackup({ config: services.config, store: services.store }, required(values, 'to'))) }),
  ...a2aCommands,
  ...webhookCommands,
};

/**
 * Tests stop a rotation as a crash would: WALLET_TEST_ROTATION_KILL_AFTER_BATCHES=N kills the
 * process (SIGKILL, nothing cleaned up) once N batches are committed.
 */
function killAfterBatchesForTests(): ((batches: number) => void) | undefined {
  const limit = Number(process.env.WALLET_TEST_ROTATION_KILL_AFTER_BATCHES ?? 0);
  if (!(limit > 0)) return undefined;
  return (batches) => {
    if (batches >= limit) process.kill(process.pid, 'SIGKILL');
  };
}

/**
 * Commands that change something and record it once they have succeeded (the account commands
 * record before and after inside their own transaction); reading commands record nothing.
 */
const AUDITED_AFTER_THE_FACT = new Set([
  'partner create', 'partner approve', 'partner unlock', 'user create', 'user unlock', 'faucet',
  'a2a approve', 'a2a cancel', 'fee-credential create', 'fee-credential revoke', 'service-key create',
  'blacklist add', 'blacklist remove', 'keys rotate-master', 'backup create',
  'webhook create', 'webhook delete', 'webhook rotate-secret', 'webhook redeliver',
]);

/** What a command acted on, from its options. */
function targetOf(values: Values, args: string[]): string {
  const named = values.email ?? values.user ?? values['request-key'] ?? values.to ?? values.id ?? values.name ?? values.chain ?? values.from;
  return String(args[0] ?? named ?? '');
}

/** Secrets shown once (credentials, service keys, webhook signing secrets) never reach the audit log. */
const SECRET_FIELDS = new Set(['credential', 'service_key', 'kas_authorization_key', 'master_key', 'secret']);
function withoutSecrets(result: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(result).filter(([field]) => !SECRET_FIELDS.has(field)));
}

const accountDeps = (services: Services) => ({ db: services.store.db, phoneDefaultCountry: services.config.phoneDefaultCountry });

/** The account an option names: exactly one of --email, --phone, --address. */
function selector(values: Values): AccountSelector {
  const given = (['email', 'phone', 'address'] as const).filter((name) => typeof values[name] === 'string' && values[name].trim() !== '');
  if (given.length !== 1) throw new UsageError('name the account with exactly one of --email, --phone, --address');
  return { [given[0]!]: values[given[0]!] };
}

function statusChange(values: Values) {
  const status = required(values, 'status');
  if (!(status in ACCOUNT_STATUS)) throw new UsageError(`--status must be one of ${Object.keys(ACCOUNT_STATUS).join(', ')}`);
  return { by: selector(values), status: status as AccountStatusName, actor: operatorName(), ...(values.reason ? { reason: values.reason } : {}) };
}

function pageLimit(values: Values): number {
  return values.limit === undefined ? 100 : Math.max(1, wholeNumber(values.limit, 'limit', 1000));
}

async function listed(services: Services, kind: 'partner' | 'member', values: Values) {
  const page = await listAccounts({ db: services.store.db }, kind, {
    limit: pageLimit(values),
    ...(values.search ? { search: values.search } : {}),
    ...(values.cursor ? { cursor: values.cursor } : {}),
  });
  return {
    [kind === 'partner' ? 'partners' : 'users']: page.accounts.map((account) => presentAccount(kind, account)),
    next_cursor: page.nextCursor,
  };
}

/** An account as the CLI prints it: no secrets (password hash, key id). */
function presentAccount(kind: 'partner' | 'member', account: PartnerRow | UserRow): Record<string, unknown> {
  const common = { email: account.email, name: account.name, phone: account.phone, status: statusName(account.status), main_address: account.main_address };
  if (kind === 'member') return { ...common, birth: (account as UserRow).birth };
  const partner = account as PartnerRow;
  return { ...common, service_name: partner.service_name, contract_address: partner.contract_address, nft_id: partner.nft_id, mint_limit: partner.mint_limit };
}

function overridesFrom(values: Values): ConfigOverrides {
  const overrides: ConfigOverrides = {};
  if (values['data-dir']) overrides.dataDir = values['data-dir'];
  if (values.host) overrides.host = values.host;
  if (values.port) overrides.port = wholeNumber(values.port, 'port');
  return overrides;
}

function print(result: Record<string, unknown>, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  for (const [key, value] of Object.entries(result)) {
    // Lists of records (accounts, audit entries): one line each, `field=value` pairs.
    if (Array.isArray(value) && value.some((item) => typeof item === 'object' && item !== null)) {
      console.log(`${key}:`);
      for (const item of value) console.log(`  ${Object.entries(item as object).map(([field, inner]) => `${field}=${typeof inner === 'object' && inner !== null ? JSON.stringify(inner) : String(inner)}`).join(' ')}`);
    } else {
      console.log(`${key}: ${String(value)}`);
    }
  }
}

/**
 * What went wrong, on one line: a library's error (viem's carry a short message beside a long
 * report) reduced to its first line, so the CLI never prints a stack of details for one mistake.
 */
function oneLine(error: unknown): string {
  const { shortMessage, message } = error as { shortMessage?: string; message?: string };
  return (shortMessage ?? message ?? String(error)).split('\n', 1)[0]!.trim();
}

function fail(message: string): number {
  console.error(`wallet-service: ${message}`);
  return 1;
}

function quietLogger(config: Readonly<Config>) {
  // Commands print their result; the service log is for warnings only.
  return pinoToStderr(config.logLevel === 'info' ? 'warn' : config.logLevel);
}

function pinoToStderr(level: string) {
  return pino({ level }, pino.destination(2));
}
