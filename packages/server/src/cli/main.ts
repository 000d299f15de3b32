import { parseArgs, type ParseArgsConfig } from 'node:util';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config, type ConfigOverrides } from '../config/config.ts';
import { isAppError } from '../errors/app-error.ts';
import { openServices, type Services } from '../services.ts';
import { sha256Hex } from '../custody/passwords.ts';
import { approvePartner, createPartner, unlockPartnerPin } from '../partners/commands.ts';
import { assertPartnerProgramOpen } from '../partner-api/program-window.ts';
import { createUser, unlockMemberPin } from '../users/commands.ts';
import { faucet } from '../operator/faucet.ts';
import { serve } from './serve.ts';
import { required, sixDigitPin, UsageError, wholeNumber } from './options.ts';
import { withRunningServiceUrl } from './service-record.ts';
import { a2aCommands, A2A_CLI_OPTIONS, A2A_CLI_USAGE } from '../a2a/cli-commands.ts';

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
  user create --name N --phone PH --email E --password P --pin PIN --birth YYYY-MM-DD
                                          create a wallet member
  user unlock --email E                   let a member approve again after 5 wrong PINs
  faucet --to ADDRESS --amount COIN [--chain main]
                                          send coins from the operator account
${A2A_CLI_USAGE}

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
  ...A2A_CLI_OPTIONS,
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
    // The longest command name that starts the positionals; what follows are its arguments (blacklist add ADDRESS).
    const name = Object.keys(COMMANDS)
      .filter((key) => command === key || command.startsWith(`${key} `))
      .sort((a, b) => b.length - a.length)[0];
    const handler = name ? COMMANDS[name] : undefined;
    if (!name || !handler) throw new UsageError(`unknown command "${command}". Run wallet-service --help for usage.`);
    const args = positionals.slice(name.split(' ').length);
    // Only handlers that declare the third parameter take positional arguments.
    if (args.length > 0 && handler.length < 3) throw new UsageError(`unknown command "${command}". Run wallet-service --help for usage.`);
    const services = await openServices(withRunningServiceUrl(config), { chainMode: 'attach', runOutbox: true, log: quietLogger(config) });
    try {
      const result = await handler(services, values, args);
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
  ...a2aCommands,
};

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
  for (const [key, value] of Object.entries(result)) console.log(`${key}: ${String(value)}`);
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
