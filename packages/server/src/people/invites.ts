import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { Config } from '../config/config.ts';
import type { Messenger } from '../messenger/index.ts';
import type { Store } from '../store/database.ts';
import { epochSeconds, type Db } from '../store/database.ts';
import { deleteInvite, findUnsentInviteBefore, insertNewInvites, markInviteSent, renewUnsentInvite, setInviteCharges, setInviteWallet } from './store.ts';
import { giveBackInviteQuota, planInviteQuota, takeInviteQuota, type InviteCounter } from './invite-quota.ts';
import { personKey, type Person } from './person.ts';
import { Errors } from '../errors/codes.ts';
import { enqueueWebhookEvent } from '../webhooks/events.ts';

/** Messages handed to the messenger at once. */
const SEND_CONCURRENCY = 8;
/** Rows per insert statement. */
const INSERT_CHUNK = 100;
/**
 * An invite claimed this long ago and never sent was left by a call that stopped half-way (the
 * process was killed between claim and send): the next call for that person takes it over. Far
 * longer than a live call holds a claim (its messages are sent within the messenger's timeouts).
 */
export const ABANDONED_CLAIM_SECONDS = 600;

interface ClaimedInvite {
  id: string;
  person: Person;
  /** Counters this invite was charged to (give one use back each on release). */
  charges: InviteCounter[];
}

/** What invites are kept in, limited by and sent with. */
export interface InviteDeps {
  config: Readonly<Config>;
  store: Store;
  messenger: Messenger;
}

/**
 * The invites that one call owns: the `person_invites` rows it inserted for a partner (one row per
 * partner and person, so a person already invited by this partner, or being invited by a parallel
 * call, is not in the batch), their quota, and what becomes of them: sent or released. A released
 * invite's row is deleted and its quota given back, so it does not count as "already invited".
 */
export class InviteBatch {
  readonly #deps: InviteDeps;
  readonly #partnerId: string;
  readonly #invites: Map<string, ClaimedInvite>;

  private constructor(deps: InviteDeps, partnerId: string, invites: Map<string, ClaimedInvite>) {
    this.#deps = deps;
    this.#partnerId = partnerId;
    this.#invites = invites;
  }

  /**
   * Inserts the invite rows of `people` (distinct) that this partner has none of, and takes over
   * those left unsent by a call that stopped (ABANDONED_CLAIM_SECONDS); the batch holds those.
   */
  static async claim(deps: InviteDeps, partnerId: string, people: readonly Person[]): Promise<InviteBatch> {
    const invites = new Map<string, ClaimedInvite>();
    const createdAt = epochSeconds();
    for (let start = 0; start < people.length; start += INSERT_CHUNK) {
      const rows = people.slice(start, start + INSERT_CHUNK).map((person) => ({
        id: randomUUID(),
        partner_id: partnerId,
        phone: person.phone,
        name: person.name,
        reserved_wallet_id: null,
        created_at: createdAt,
        sent_at: null,
        quota_charges: null,
        used_at: null,
      }));
      const inserted = await insertNewInvites(deps.store.db, rows);
      for (const row of inserted) {
        const person = { name: row.name, phone: row.phone };
        invites.set(personKey(person), { id: row.id, person, charges: [] });
      }
    }
    for (const person of people) {
      if (invites.has(personKey(person))) continue;
      const id = await takeOverAbandoned(deps.store.db, partnerId, person, createdAt);
      if (id) invites.set(personKey(person), { id, person, charges: [] });
    }
    return new InviteBatch(deps, partnerId, invites);
  }

  /** Whether this batch invites the person of this key (personKey). */
  has(key: string): boolean {
    return this.#invites.has(key);
  }

  get size(): number {
    return this.#invites.size;
  }

  /**
   * Takes the quota of every invite of the batch (4112, 4114, 4115) and stores on each invite what it
   * was charged, in one DB transaction, so an invite's charges are known whatever happens to this
   * call later; on a refusal the whole batch is released. The invites (this call's own rows) are
   * written first and the shared counters last, so the counters stay locked for the least time.
   */
  async takeQuota(): Promise<void> {
    const invites = [...this.#invites.values()];
    const plan = planInviteQuota(this.#deps.config.invites, {
      partnerId: this.#partnerId,
      phones: invites.map((invite) => invite.person.phone),
      timeZone: this.#deps.config.timeZone,
    });
    try {
      await this.#deps.store.db.transaction().execute(async (trx) => {
        for (const [index, invite] of invites.entries()) {
          await setInviteCharges(trx, invite.id, plan.charges[index]!);
        }
        await takeInviteQuota(trx, plan);
      });
    } catch (error) {
      await this.release(this.#invites.keys());
      throw error;
    }
    invites.forEach((invite, index) => {
      invite.charges = plan.charges[index]!;
    });
  }

  /** Records on each invite the wallet reserved for its person. */
  async attachWallets(walletIds: ReadonlyMap<string, string>): Promise<void> {
    for (const [key, invite] of this.#invites) {
      const walletId = walletIds.get(key);
      if (!walletId) continue;
      await setInviteWallet(this.#deps.store.db, invite.id, walletId);
    }
  }

  /**
   * Sends the messages of the invites of these keys, each at most once: `sent_at` is set by a guarded
   * UPDATE before the message goes out, so a repeated or parallel call sends nothing twice. A message
   * the messenger refuses releases its invite (quota back, not "already invited"); after trying every
   * message, the first such failure is thrown (AppError 501).
   */
  async send(keys: Iterable<string>, textOf: (person: Person) => string): Promise<void> {
    const invites = this.#pick(keys);
    const failures: unknown[] = [];
    for (let start = 0; start < invites.length; start += SEND_CONCURRENCY) {
      await Promise.all(
        invites.slice(start, start + SEND_CONCURRENCY).map(async (invite) => {
          const sentAt = epochSeconds();
          if (!(await markInviteSent(this.#deps.store.db, invite.id, sentAt))) return;
          try {
            await this.#deps.messenger.send({ to: invite.person, kind: 'invite', text: textOf(invite.person) });
          } catch (error) {
            failures.push(error);
            await this.#remove(invite, sentAt);
            return;
          }
          await enqueueWebhookEvent(this.#deps.store.db, {
            partnerId: this.#partnerId,
            type: 'invite.sent',
            data: { invite_id: invite.id, name: invite.person.name, phone: invite.person.phone },
          });
        }),
      );
    }
    if (failures.length > 0) {
      const [first] = failures;
      throw isAppError(first) && first.code === 501 ? first : new AppError(Errors.MessengerSendFailed, { cause: first });
    }
  }

  /** Releases the invites of these keys whose message was not sent: rows deleted, quota given back. */
  async release(keys: Iterable<string>): Promise<void> {
    for (const invite of this.#pick(keys)) await this.#remove(invite, null);
  }

  #pick(keys: Iterable<string>): ClaimedInvite[] {
    const picked = new Map<string, ClaimedInvite>();
    for (const key of keys) {
      const invite = this.#invites.get(key);
      if (invite) picked.set(key, invite);
    }
    return [...picked.values()];
  }

  /** Deletes an invite row still in the state `sentAt` (null: unsent) and gives its quota back, together. */
  async #remove(invite: ClaimedInvite, sentAt: number | null): Promise<void> {
    await this.#deps.store.db.transaction().execute(async (trx) => {
      if (await deleteInvite(trx, invite.id, sentAt)) await giveBackInviteQuota(trx, invite.charges);
    });
  }
}

/**
 * Takes over this partner's invite of `person` if a call that stopped left it unsent
 * (ABANDONED_CLAIM_SECONDS): it gets a new id, so should that call still be alive after all, its
 * send and release find nothing; and the quota that call took for it is given back in the same DB
 * transaction, since the new owner takes its own. Returns the new id, or undefined.
 */
async function takeOverAbandoned(db: Db, partnerId: string, person: Person, now: number): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const abandoned = await findUnsentInviteBefore(trx, { partnerId, person, before: now - ABANDONED_CLAIM_SECONDS });
    if (!abandoned) return undefined;
    // Guarded by the old id: of two calls taking it over at once, one finds it gone.
    const id = randomUUID();
    if (!(await renewUnsentInvite(trx, abandoned.id, id, now))) return undefined;
    if (abandoned.quota_charges) await giveBackInviteQuota(trx, JSON.parse(abandoned.quota_charges) as InviteCounter[]);
    return id;
  });
}
