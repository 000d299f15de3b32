import { randomUUID } from 'node:crypto';
import type { Store } from '../store/database.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import { epochSeconds, isUniqueViolation, type Db, type DbTransaction } from '../store/database.ts';
import type { ReservedWalletRow } from '../store/schema.ts';
import type { Person } from './person.ts';
import { findReservedWallet, insertReservedWallet } from './store.ts';

export { findInvitesOfWallet, findReservedWallet, markReservedWalletClaimed } from './store.ts';

/**
 * The wallet kept for a person who is not a member: the unclaimed one of that name and phone, or a
 * new one. A new wallet is a BIP-39 key that the server alone unlocks (owner: the reserved wallet's
 * id), inserted with its row in one transaction. The unique index on unclaimed (phone, name) makes
 * parallel calls, in any number of processes, end with one wallet: a loser's transaction rolls back
 * (its key with it) and it reads the winner's row.
 */
export async function reserveWallet(deps: { store: Store; vault: KeyVault }, person: Person): Promise<ReservedWalletRow> {
  const db = deps.store.db;
  const existing = await findReservedWallet(db, person);
  if (existing) return existing;
  const id = randomUUID();
  try {
    return await db.transaction().execute(async (trx) => {
      const key = await deps.vault.createKey(
        { ownerType: 'user', ownerId: id, protection: 'server', secretKind: 'mnemonic_entropy' },
        trx,
      );
      const row: ReservedWalletRow = {
        id,
        name: person.name,
        phone: person.phone,
        key_id: key.keyId,
        address: key.address,
        created_at: epochSeconds(),
        claimed_user_id: null,
        claimed_at: null,
      };
      await insertReservedWallet(trx, row);
      return row;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await findReservedWallet(db, person);
    if (!winner) throw error;
    return winner;
  }
}
