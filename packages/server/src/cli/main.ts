import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isAppError } from '../errors/app-error.ts';
import type { Config, ConfigOverrides } from '../config/config.ts';
import { COMMANDS, OPTIONS, USAGE } from './command-table.ts';
import type { CliValues, Handler, Needs } from './handler.ts';
import { UsageError, required, wholeNumber } from './options.ts';
import { resolveSecrets } from './secrets.ts';

/**
 * Runs one CLI invocation; resolves to the exit code. Only the command table is loaded up front:
 * the config, the store and a command's own code are imported when the command runs, so `--help`
 * or `limits show` never pays for the chains, the HTTP server or the contracts.
 */
export async function main(argv: string[]): Promise<number> {
  let values: CliValues;
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
    if (command === 'serve' || command === 'backup restore') {
      await resolveSecrets(values, []);
      const config = await configFrom(values);
      if (command === 'serve') return await (await import('./serve.ts')).serve(config);
      // Restoring writes a new data directory: nothing there may be opened first.
      const { restoreBackup } = await import('../backup/commands.ts');
      print({ ...(await restoreBackup({ config }, required(values, 'from'))) }, values.json === true);
      return 0;
    }
    // The longest command name that starts the positionals; what follows are its arguments (blacklist add ADDRESS).
    const name = Object.keys(COMMANDS)
      .filter((key) => command === key || command.startsWith(`${key} `))
      .sort((a, b) => b.length - a.length)[0];
    const entry = name ? COMMANDS[name] : undefined;
    const args = name ? positionals.slice(name.split(' ').length) : [];
    if (!name || !entry || (args.length > 0 && !entry.args)) throw new UsageError(`unknown command "${command}". Run wallet-service --help for usage.`);
    // Secrets first: a prompt comes before the slow part, and a missing one stops the command at once.
    await resolveSecrets(values, entry.secrets ?? [], { confirm: entry.newSecrets === true });
    const config = await configFrom(values);
    if (entry.needs === 'config') {
      print(await (await entry.load())({ config }, values, args), values.json === true);
    } else if (entry.needs === 'store') {
      print(await withStore(config, async (store) => (await entry.load())({ config, store }, values, args)), values.json === true);
    } else {
      print(await withServices(config, name, await entry.load(), values, args, entry.audited === true), values.json === true);
    }
    return 0;
  } catch (error) {
    if (isAppError(error)) return fail(`error ${error.code}: ${error.message}`);
    if (error instanceof UsageError || (error instanceof Error && error.name === 'ConfigError')) return fail(error.message);
    return fail(oneLine(error));
  }
}

async function configFrom(values: CliValues): Promise<Readonly<Config>> {
  const [{ loadConfig }, { configSecretValues, maskSecretValues }] = await Promise.all([import('../config/config.ts'), import('../logging/redaction.ts')]);
  const config = loadConfig({
    ...(typeof values.config === 'string' && values.config ? { file: values.config } : {}),
    overrides: overridesFrom(values),
  });
  // From here a failure's message may quote a configured URL (a chain that does not answer): its credentials are masked.
  const secrets = configSecretValues(config);
  maskSecrets = (text) => maskSecretValues(text, secrets);
  return config;
}

/** The store alone, migrated as the service opens it: for commands that read or change rows only. */
async function withStore<T>(config: Readonly<Config>, work: (store: Needs['store']['store']) => Promise<T>): Promise<T> {
  const { openStore } = await import('../store/database.ts');
  const store = await openStore({ databaseUrl: config.databaseUrl ?? undefined, sqlitePath: join(config.dataDir, 'wallet.sqlite') });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Every service, beside a running one (its chains and public URL) or with the chains started for the command. */
async function withServices(
  configured: Readonly<Config>,
  name: string,
  handler: Handler<Needs['services']>,
  values: CliValues,
  args: string[],
  audited: boolean,
): Promise<Record<string, unknown>> {
  const [{ openServices }, { withBackgroundJobs, startTransactionTracking }, { withRunningServiceUrl }, { pino }, { createLogger }] = await Promise.all([
    import('../services.ts'),
    import('../background-jobs.ts'),
    import('./service-record.ts'),
    import('pino'),
    import('../logging/logger.ts'),
  ]);
  // Commands print their result; the service log is for warnings only.
  const log = createLogger({ level: configured.logLevel === 'info' ? 'warn' : configured.logLevel, destination: pino.destination(2), config: configured });
  const services = await withBackgroundJobs(await openServices(withRunningServiceUrl(configured), { chainMode: 'attach', log }), startTransactionTracking);
  try {
    const result = await handler(services, values, args);
    // Commands that change something record it once they have succeeded (the account commands
    // record before and after inside their own transaction); reading commands record nothing.
    if (audited) {
      const { operatorName, recordOperatorAction } = await import('../audit/store.ts');
      await recordOperatorAction(services.store.db, operatorName(), { action: name, target: targetOf(values, args), before: null, after: withoutSecrets(result) });
    }
    return result;
  } finally {
    await services.close();
  }
}

/** What a command acted on, from its options. */
function targetOf(values: CliValues, args: string[]): string {
  const named = values.email ?? values.user ?? values['request-key'] ?? values.to ?? values.id ?? values.name ?? values.chain ?? values.from;
  return String(args[0] ?? named ?? '');
}

/** Secrets shown once (credentials, service keys, webhook signing secrets) never reach the audit log. */
const SECRET_FIELDS = new Set(['credential', 'service_key', 'kas_authorization_key', 'master_key', 'secret']);
function withoutSecrets(result: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(result).filter(([field]) => !SECRET_FIELDS.has(field)));
}

function overridesFrom(values: CliValues): ConfigOverrides {
  const overrides: ConfigOverrides = {};
  if (typeof values['data-dir'] === 'string' && values['data-dir']) overrides.dataDir = values['data-dir'];
  if (typeof values.host === 'string' && values.host) overrides.host = values.host;
  if (typeof values.port === 'string' && values.port) overrides.port = wholeNumber(values.port, 'port');
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

/** The configuration's secret values masked in a text (logging/redaction.ts), once the configuration is loaded. */
let maskSecrets = (text: string) => text;

function fail(message: string): number {
  console.error(`wallet-service: ${maskSecrets(message)}`);
  return 1;
}
