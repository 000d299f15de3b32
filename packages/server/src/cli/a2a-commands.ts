import { sha256Hex } from '../custody/passwords.ts';
import { AppError } from '../errors/app-error.ts';
import { required, sixDigitPin, UsageError } from './options.ts';
import type { Handler, Needs } from './handler.ts';
import type { Services } from '../services.ts';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { Logger } from 'pino';
import { approveRequest, cancelRequestAsMember, findMemberByEmail } from '../a2a/approval/commands.ts';
import { createFeeCredential, revokeFeeCredential, settleFee } from '../a2a/fee-delegation/commands.ts';
import { addToBlacklist, listBlacklist, removeFromBlacklist } from '../a2a/policies/commands.ts';
import { findRequest } from '../a2a/requests/store.ts';
import { normalizeRequestKey } from '../a2a/requests/keys.ts';
import { presentRequest, readResult, type ResultAnswer } from '../a2a/requests/commands.ts';
import { createServiceKey } from '../a2a/service-keys/commands.ts';
import { Errors } from '../errors/codes.ts';

type CliHandler = Handler<Services>;

const RECEIPT_WAIT_MS = 60_000;

export const a2aCommands: Record<string, CliHandler> = {
  'a2a approve': async (services, values) => {
    const member = await findMemberByEmail(services, required(values, 'user'));
    let answer = await approveRequest(services, {
      requestKey: required(values, 'request-key'),
      userId: member.id,
      pinHash: sha256Hex(sixDigitPin(values)),
    });
    answer = await untilFinal(services, answer);
    return present(answer, values.json === true);
  },
  'a2a cancel': async (services, values) => {
    const member = await findMemberByEmail(services, required(values, 'user'));
    const answer = await cancelRequestAsMember(services, { requestKey: required(values, 'request-key'), userId: member.id });
    return present(answer, values.json === true);
  },
  'fee-credential create': async (services, values) => {
    const fund = values.fund;
    const created = await createFeeCredential(services, {
      ...(typeof values.chain === 'string' ? { chain: values.chain } : {}),
      ...(typeof fund === 'string' ? { fundCoins: coins(fund) } : {}),
    });
    return {
      ...created,
      note: created.funding_tx_hash
        ? 'give kas_authorization_key to the BApp; it is not shown again'
        : `fund ${created.fee_payer_address} on ${created.chain}; give kas_authorization_key to the BApp; it is not shown again`,
    };
  },
  'fee-credential revoke': async (services, values) => {
    const id = required(values, 'id');
    return { id, revoked: await revokeFeeCredential(services, id) };
  },
  'service-key create': async (services, values) => {
    const created = await createServiceKey(services.store.db, required(values, 'name'));
    return { ...created, note: 'give service_key to the BApp; it is not shown again' };
  },
  'blacklist add': async (services, values, args) => {
    const entry = await addToBlacklist(services.store.db, address(args), typeof values.reason === 'string' ? values.reason : undefined);
    return { address: entry.address, blacklisted: true, reason: entry.reason ?? '' };
  },
  'blacklist remove': async (services, _values, args) => {
    const target = address(args);
    return { address: target.toLowerCase(), removed: await removeFromBlacklist(services.store.db, target) };
  },
  // The store alone: no chain is attached for a listing.
  'blacklist list': async (deps: Needs['store'], values) => {
    const entries = await listBlacklist(deps.store.db);
    if (values.json === true) return { addresses: entries };
    return { addresses: entries.map((entry) => `${entry.address}${entry.reason ? ` (${entry.reason})` : ''}`).join('\n  ') || '(none)' };
  },
};

/** A transaction's result is followed to its receipt, and a delegated fee settled, before the CLI exits. */
async function untilFinal(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; log: Logger }, answer: ResultAnswer): Promise<ResultAnswer> {
  const key = normalizeRequestKey('request_key' in answer.body ? answer.body.request_key : undefined);
  if (!key || answer.httpStatus !== 200) return answer;
  const sent = await deps.outbox.findByIdempotencyKey(key);
  if (!sent) return answer;
  await deps.outbox.waitForFinal(sent.id, RECEIPT_WAIT_MS);
  await settleFee(deps, key);
  const row = await findRequest(deps.store.db, key);
  return row ? presentRequest(deps, row) : readResult(deps, key);
}

/** The B3 body (JSON), or flat `key: value` lines; a request in error exits 1 with its code. */
function present(answer: ResultAnswer, json: boolean): Record<string, unknown> {
  const body = answer.body as { error?: { code: number; message: string } } & Record<string, unknown>;
  if (answer.httpStatus !== 200) {
    const error = body.error ?? (body as unknown as { code: number; err: string });
    throw new AppError((error.code ?? Errors.InternalError) as never, { detail: 'message' in error ? error.message : undefined });
  }
  if (json) return body;
  const flat: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (value && typeof value === 'object') for (const [inner, innerValue] of Object.entries(value)) flat[`${name}.${inner}`] = innerValue;
    else flat[name] = value;
  }
  return flat;
}

function address(args: string[]): string {
  if (args.length !== 1) throw new UsageError('give exactly one ADDRESS');
  return args[0]!;
}

function coins(text: string): number {
  if (!/^\d+(\.\d+)?$/.test(text)) throw new UsageError('--fund must be a number of coins');
  return Number(text);
}


