/**
 * The CLI's commands: their names, options, help text, what each needs opened (the config alone,
 * the store, or every service) and where its code is. Nothing here imports more than Node.js
 * itself, so `--help` and a malformed command answer at once; a command's code is loaded when it
 * runs (main.ts).
 */
import type { ParseArgsConfig } from 'node:util';
import type { SecretName } from './secrets.ts';
import type { Handler, Needs } from './handler.ts';


export const USAGE = `wallet-service: the wallet service and its operator commands

Usage: wallet-service <command> [options]

Commands:
  serve                                   run the service (what npm start runs)
  partner create --email E --name N --phone PH --service-name S
                 (--password-stdin | --password P) (--pin-stdin | --pin PIN)
                                          register a partner (status 20); refused (440) once
                                          partnerProgram.endsAt has passed
  partner approve --email E [--mint-limit N] [--card-contract indexed|lean]
                                          approve it: deploys its card contract (status 1);
                                          lean mints for less gas, its balanceOf grows with
                                          its batches (docs/performance.md)
  partner unlock --email E                allow PIN signing again after 5 wrong PINs
  partner list [--search TEXT] [--limit N] [--cursor C]
                                          partners by e-mail; TEXT matches e-mail, phone or address
  partner show (--email E | --phone PH | --address A)
  partner set-status (--email E | ...) --status active|suspended|banned|unsubscribed [--reason R]
                                          A1 and every partner call answer 422, 421 or 423
  partner set-mint-limit (--email E | ...) --mint-limit N
  user create --name N --phone PH --email E --birth YYYY-MM-DD
              (--password-stdin | --password P) (--pin-stdin | --pin PIN)
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
  keys status                             the master key in force, a rotation under way, and each
                                          running instance with the key it runs with
  keys finish-rotation                    retire a rotation's old key once no instance runs it;
                                          deletes master.key.next and master.key.previous
  backup create --to DIR                  a consistent copy of the store (SQLite) and the data
                                          directory's files, beside a running service
  backup restore --from DIR               restores a backup into --data-dir, new or empty
  a2a approve --request-key K --user EMAIL (--pin-stdin | --pin PIN)
                                          approve an App2App request as that member (the
                                          wallet app's path); waits for a transaction's receipt
  a2a cancel --request-key K --user EMAIL cancel an App2App request as that member
  fee-credential create [--chain main] [--fund COIN]
                                          create a fee payer and its kas_authorization_key
                                          (funded by the operator on embedded chains)
  fee-credential revoke --id ID           stop accepting a fee-delegation credential
  service-key create --name N             issue a service_key (auth results carry ci_hash)
  blacklist add ADDRESS [--reason R]      refuse App2App requests naming ADDRESS (6500)
  blacklist remove ADDRESS                take ADDRESS off the blacklist
  blacklist list                          print the blacklist
  webhook list --email E                  a partner's webhook endpoints
  webhook create --email E --url U [--events a,b]
                                          register an endpoint (all events by default); prints
                                          its signing secret, shown this once
  webhook delete --email E --endpoint ID  stop sending to an endpoint
  webhook rotate-secret --email E --endpoint ID [--overlap SECONDS]
                                          a new signing secret, shown once; the old one also
                                          signs for SECONDS more (default 86400, 0 to 604800)
  webhook test --email E --endpoint ID    queue a webhook.test message
  webhook deliveries --email E --endpoint ID [--limit N]
                                          the endpoint's newest messages: status, attempts,
                                          next attempt (nextAttemptAt), last error, each attempt
  webhook redeliver --email E --endpoint ID --message ID
                                          deliver a message again (same id and body)

Global options:
  --data-dir DIR    data directory (default ./data, env WALLET_DATA_DIR)
  --config FILE     JSON config file (env WALLET_CONFIG)
  --json            print the result as JSON
  -h, --help        this help

Passwords and PINs, safest first:
  --password-stdin, --pin-stdin
                    read from standard input, one line each; with both, the password's line
                    comes first, then the PIN's
  WALLET_PASSWORD, WALLET_PIN
                    environment variables
  (none given)      asked for with no echo when standard input is a terminal
  --password P, --pin PIN
                    still accepted, but any local user sees them in \`ps\` and the shell keeps them
                    in its history
The CLI sends their SHA-256 hex, as clients do. Weak ones are refused (4010, 4011).
Commands work against the data directory of a running service, or start its chains themselves.`;

export const OPTIONS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  host: { type: 'string' },
  port: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean', default: false },
  pin: { type: 'string' },
  'pin-stdin': { type: 'boolean', default: false },
  name: { type: 'string' },
  phone: { type: 'string' },
  'service-name': { type: 'string' },
  'mint-limit': { type: 'string' },
  'card-contract': { type: 'string' },
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
  // App2App commands.
  'request-key': { type: 'string' },
  user: { type: 'string' },
  fund: { type: 'string' },
  reason: { type: 'string' },
  id: { type: 'string' },
  // Webhook commands.
  url: { type: 'string' },
  events: { type: 'string' },
  endpoint: { type: 'string' },
  message: { type: 'string' },
  overlap: { type: 'string' },
} satisfies ParseArgsConfig['options'];

interface CommandOptions {
  /** Takes positional arguments after its name (blacklist add ADDRESS). */
  args?: boolean;
  /** The secrets it takes, in the order standard input gives them (secrets.ts). */
  secrets?: readonly SecretName[];
  /** New secrets (an account's): a prompt asks twice. */
  newSecrets?: boolean;
  /** Changes something and records it in the audit log once it has succeeded. */
  audited?: boolean;
}

type Command = { [N in keyof Needs]: CommandOptions & { needs: N; load: () => Promise<Handler<Needs[N]>> } }[keyof Needs];

type Module = Record<string, Handler<never>>;

/** A command whose code is the `name` entry of the handlers a module exports. */
function from<N extends keyof Needs>(needs: N, module: () => Promise<Module>, name: string, more: CommandOptions = {}): Command {
  return { needs, load: async () => (await module())[name] as Handler<Needs[N]>, ...more } as Command;
}

const accounts = async () => (await import('./account-commands.ts')).accountCommands as Module;
const onboarding = async () => (await import('./onboarding-commands.ts')).onboardingCommands as Module;
const records = async () => (await import('./record-commands.ts')).recordCommands as Module;
const operator = async () => (await import('./operator-commands.ts')).operatorCommands as Module;
const keys = async () => (await import('./keys-commands.ts')).keysCommands as Module;
const a2a = async () => (await import('./a2a-commands.ts')).a2aCommands as Module;
const webhooks = async () => (await import('./webhook-commands.ts')).webhookCommands as Module;

const audited = { audited: true } as const;
const newAccount: CommandOptions = { secrets: ['password', 'pin'], newSecrets: true, audited: true };

/**
 * Every command but `serve` and `backup restore` (main.ts runs those itself: they open the data
 * directory their own way). The longest name that starts the positionals wins.
 */
export const COMMANDS: Record<string, Command> = {
  'partner create': from('services', onboarding, 'partner create', newAccount),
  'partner approve': from('services', onboarding, 'partner approve', audited),
  'partner unlock': from('services', onboarding, 'partner unlock', audited),
  'partner list': from('store', accounts, 'partner list'),
  'partner show': from('store', accounts, 'partner show'),
  'partner set-status': from('store', accounts, 'partner set-status'),
  'partner set-mint-limit': from('store', accounts, 'partner set-mint-limit'),
  'user create': from('services', onboarding, 'user create', newAccount),
  'user unlock': from('services', onboarding, 'user unlock', audited),
  'user list': from('store', accounts, 'user list'),
  'user show': from('store', accounts, 'user show'),
  'user set-status': from('store', accounts, 'user set-status'),
  'limits show': from('config', records, 'limits show'),
  'audit list': from('store', records, 'audit list'),
  faucet: from('services', operator, 'faucet', audited),
  'backup create': from('services', operator, 'backup create', audited),
  'keys rotate-master': from('services', keys, 'keys rotate-master', audited),
  'keys status': from('store', keys, 'keys status'),
  'keys finish-rotation': from('services', keys, 'keys finish-rotation', audited),
  'a2a approve': from('services', a2a, 'a2a approve', { secrets: ['pin'], audited: true }),
  'a2a cancel': from('services', a2a, 'a2a cancel', audited),
  'fee-credential create': from('services', a2a, 'fee-credential create', audited),
  'fee-credential revoke': from('services', a2a, 'fee-credential revoke', audited),
  'service-key create': from('services', a2a, 'service-key create', audited),
  'blacklist add': from('services', a2a, 'blacklist add', { args: true, audited: true }),
  'blacklist remove': from('services', a2a, 'blacklist remove', { args: true, audited: true }),
  'blacklist list': from('store', a2a, 'blacklist list'),
  'webhook list': from('store', webhooks, 'webhook list'),
  'webhook create': from('services', webhooks, 'webhook create', audited),
  'webhook delete': from('services', webhooks, 'webhook delete', audited),
  'webhook rotate-secret': from('services', webhooks, 'webhook rotate-secret', audited),
  'webhook test': from('services', webhooks, 'webhook test'),
  'webhook deliveries': from('store', webhooks, 'webhook deliveries'),
  'webhook redeliver': from('services', webhooks, 'webhook redeliver', audited),
};
