import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { Services } from '../services.ts';
import { epochSeconds } from '../store/database.ts';
import { giveBackInviteQuota, takeInviteQuota, type InviteCounter } from './invite-quota.ts';
import { personKey, type Person } from './person.ts';

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

/**
 * The invites that one call owns: the `person_invites` rows it inserted for a partner (one row per
 * partner and person, so a person already invited by this partner, or being invited by a parallel
 * call, is not in the batch), their quota, and what becomes of them: sent or released. A released
 * invite's row is deleted and its quota given back, so it does not count as "already invited".
 */
export class InviteBatch {
  readonly #services: Services;
  readonly #partnerId: string;
  readonly #invites: Map<string, ClaimedInvite>;

  private constructor(services: Services, partnerId: string, invites: Map<string, ClaimedInvite>) {
    this.#services = services;
    this.#partnerId = partnerId;
    this.#invites = invites;
  }

  /**
   * Inserts the invite rows of `people` (distinct) that this partner has none of, and takes over
   * those left unsent by a call that stopped (ABANDONED_CLAIM_SECONDS); the batch holds those.
   */
  static async claim(services: Services, partnerId: string, people: readonly Person[]): Promise<InviteBatch> {
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
      }));
      const inserted = await services.store.db
        .insertInto('person_invites')
        .values(rows)
        .onConflict((conflict) => conflict.columns(['partner_id', 'phone', 'name']).doNothing())
        .returning(['id', 'phone', 'name'])
        .execute();
      for (const row of inserted) {
        const person = { name: row.name, phone: row.phone };
        invites.set(personKey(person), { id: row.id, person, charges: [] });
      }
    }
    for (const person of people) {
      if (invites.has(personKey(person))) continue;
      // A new id: should the stopped call still be alive after all, its release finds nothing.
      const taken = await services.store.db
        .updateTable('person_invites')
        .set({ id: randomUUID(), created_at: createdAt })
        .where('partner_id', '=', partnerId)
        .where('phone', '=', person.phone)
        .where('name', '=', person.name)
        .where('sent_at', 'is', null)
        .where('created_at', '<', createdAt - ABANDONED_CLAIM_SECONDS)
        .returning('id')
        .executeTakeFirst();
      if (taken) invites.set(personKey(person), { id: taken.id, person, charges: [] });
    }
    return new InviteBatch(services, partnerId, invites);
  }

  /** Whether this batch invites the person of this key (personKey). */
  has(key: string): boolean {
    return this.#invites.has(key);
  }

  get size(): number {
    return this.#invites.size;
  }

  /** Takes the quota of every invite of the batch (4112, 4114, 4115); on a refusal the whole batch is released. */
  async takeQuota(): Promise<void> {
    const invites = [...this.#invites.values()];
    let charges: InviteCounter[][];
    try {
      charges = await takeInviteQuota(this.#services.store.db, this.#services.config.invites, {
        partnerId: this.#partnerId,
        phones: invites.map((invite) => invite.person.phone),
        timeZone: this.#services.config.timeZone,
      });
    } catch (error) {
      await this.release(this.#invites.keys());
      throw error;
    }
    invites.forEach((invite, index) => {
      invite.charges = charges[index]!;
    });
  }

  /** Records on each invite the wallet reserved for its person. */
  async attachWallets(walletIds: ReadonlyMap<string, string>): Promise<void> {
    for (const [key, invite] of this.#invites) {
      const walletId = walletIds.get(key);
      if (!walletId) continue;
      await this.#services.store.db.updateTable('person_invites').set({ reserved_wallet_id: walletId }).where('id', '=', invite.id).execute();
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
          const marked = await this.#services.store.db
            .updateTable('person_invites')
            .set({ sent_at: sentAt })
            .where('id', '=', invite.id)
            .where('sent_at', 'is', null)
            .executeTakeFirst();
          if (marked.numUpdatedRows !== 1n) return;
          try {
            await this.#services.messenger.send({ to: invite.person, kind: 'invite', text: textOf(invite.person) });
          } catch (error) {
            failures.push(error);
            await this.#remove(invite, sentAt);
          }
        }),
      );
    }
    if (failures.length > 0) {
      const [first] = failures;
      throw isAppError(first) && first.code === 501 ? first : new AppError(501, { cause: first });
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

  /** Deletes an invite row still in the state `sentAt` (null: unsent) and gives its quota back. */
  async #remove(invite: ClaimedInvite, sentAt: number | null): Promise<void> {
    const db = this.#services.store.db;
    const deleted = await db
      .deleteFrom('person_invites')
      .where('id', '=', invite.id)
      .where('sent_at', sentAt === null ? 'is' : '=', sentAt)
      .executeTakeFirst();
    if (deleted.numDeletedRows === 1n) await giveBackInviteQuota(db, invite.charges);
  }
}
