import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { Logger } from 'pino';
import type { Store } from '../../store/database.ts';
import { PollingLoop } from '../../lib/polling-loop.ts';
import { wipeClaimSecretsBefore } from '../../custody/store.ts';
import { claimKey, deleteKeysBefore, findKey, releaseKey, renewLease, storeAnswer, takeOverKey } from './store.ts';

/** How long a key and its answer are kept. */
export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A running call renews its lease this often; a holder silent for LEASE_MS has stopped. */
const RENEW_EVERY_MS = 5_000;
const LEASE_MS = 30_000;
/** How often a retry looks whether the first call has answered. */
const WAIT_POLL_MS = 100;

/** An answer as it went out: replayed byte for byte. */
export interface StoredAnswer {
  status: number;
  type: string | null;
  body: string;
}

/** A call that holds its key: it runs the operation, then stores its answer (or lets the key go). */
export interface HeldKey {
  partnerId: string;
  key: string;
  holder: string;
  /** When the key was first claimed (kept when a retry takes it over): with the key, names the operation's transactions. */
  createdAtMs: number;
  /** True when an earlier call with this key started and its process ended before it answered. */
  resumed: boolean;
  /** Stops the lease renewals; called once the answer is stored or the key released. */
  stop(): void;
}

export type KeyedCall = { kind: 'run'; held: HeldKey } | { kind: 'replay'; answer: StoredAnswer };

/** SHA-256 hex of what makes two calls the same request: route, path and query values, body. */
export function requestFingerprint(request: { method: string; route: string; params: unknown; query: unknown; body: unknown }): string {
  return createHash('sha256').update(canonicalJson([request.method, request.route, request.params ?? {}, request.query ?? {}, request.body ?? null])).digest('hex');
}

/**
 * Begins a call under an Idempotency-Key. The first call claims the key (a row with a unique
 * primary key, so this holds across instances) and runs. A call with the same key and request
 * waits while the first runs and then gets its answer; if the first call's process stopped (its
 * lease ran out), it takes the key over and runs with `resumed` set, so the operation can look for
 * what the first call already accepted. The same key with another request is refused (4090).
 */
export async function beginKeyedCall(deps: { store: Store }, call: { partnerId: string; key: string; fingerprint: string }, now = Date.now): Promise<KeyedCall> {
  const db = deps.store.db;
  const holder = randomUUID();
  for (;;) {
    const at = now();
    const claimed = await claimKey(db, {
      partner_id: call.partnerId,
      idempotency_key: call.key,
      fingerprint: call.fingerprint,
      state: 'running',
      holder,
      lease_until_ms: at + LEASE_MS,
      created_at_ms: at,
    });
    if (claimed) return { kind: 'run', held: holdKey(deps, call, { holder, createdAtMs: at, resumed: false }, now) };
    const row = await findKey(db, call.partnerId, call.key);
    if (!row) continue; // forgotten meanwhile: claim it afresh
    if (Number(row.created_at_ms) < at - KEY_RETENTION_MS && (row.state === 'done' || Number(row.lease_until_ms) < at)) {
      await deleteKeysBefore(db, at - KEY_RETENTION_MS, at);
      continue;
    }
    if (row.fingerprint !== call.fingerprint) throw new AppError(Errors.IdempotencyKeyReused);
    if (row.state === 'done') return { kind: 'replay', answer: { status: Number(row.response_status), type: row.response_type, body: row.response_body ?? '' } };
    if (Number(row.lease_until_ms) < at) {
      if (await takeOverKey(db, call.partnerId, call.key, row, { holder, leaseUntilMs: at + LEASE_MS, nowMs: at })) {
        return { kind: 'run', held: holdKey(deps, call, { holder, createdAtMs: Number(row.created_at_ms), resumed: true }, now) };
      }
      continue;
    }
    await sleep(WAIT_POLL_MS);
  }
}

/** Stores the answer of a call that held its key; later calls with the key get it. */
export async function finishKeyedCall(deps: { store: Store }, held: HeldKey, answer: StoredAnswer): Promise<void> {
  held.stop();
  await storeAnswer(deps.store.db, held.partnerId, held.key, held.holder, answer);
}

/** Lets the key go without an answer (a failure outside the listed codes): a retry runs the call again. */
export async function abandonKeyedCall(deps: { store: Store }, held: HeldKey): Promise<void> {
  held.stop();
  await releaseKey(deps.store.db, held.partnerId, held.key, held.holder);
}

/** Forgets keys older than KEY_RETENTION_MS, and wipes the claim secrets kept for A17 retries as old (no key can ask for them any more). */
export async function forgetOldKeys(deps: { store: Store }, nowMs = Date.now()): Promise<number> {
  const forgotten = await deleteKeysBefore(deps.store.db, nowMs - KEY_RETENTION_MS, nowMs);
  await wipeClaimSecretsBefore(deps.store.db, nowMs - KEY_RETENTION_MS);
  return forgotten;
}

/** Runs forgetOldKeys at start and every hour, where the service runs. */
export function startIdempotencyKeyCleanup(deps: { store: Store; log: Logger }): PollingLoop {
  const loop = new PollingLoop(
    async () => {
      await forgetOldKeys(deps);
    },
    60 * 60 * 1000,
    (error) => deps.log.warn(`idempotency keys: ${error.message}`),
  );
  loop.start();
  return loop;
}

function holdKey(deps: { store: Store }, call: { partnerId: string; key: string }, claim: { holder: string; createdAtMs: number; resumed: boolean }, now: () => number): HeldKey {
  const { holder } = claim;
  const timer = setInterval(() => {
    renewLease(deps.store.db, call.partnerId, call.key, holder, now() + LEASE_MS).catch(() => {
      // A missed renewal is made up by the next one; the lease outlasts several.
    });
  }, RENEW_EVERY_MS);
  timer.unref();
  return { partnerId: call.partnerId, key: call.key, ...claim, stop: () => clearInterval(timer) };
}

/** JSON with object keys sorted, so the same body sent with its fields in another order matches. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
