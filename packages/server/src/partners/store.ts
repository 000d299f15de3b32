import type { Db } from '../store/database.ts';
import { columnsOf, preparedQuery } from '../store/prepared-query.ts';
import type { CardContractKind, NftContractRow, PartnerRow } from '../store/schema.ts';

export async function findPartnerById(db: Db, id: string): Promise<PartnerRow | undefined> {
  return (await partnerByIdQuery(db, { id })).rows[0];
}
// Every Family A call reads its partner. Its columns named, so that PostgreSQL keeps it parsed (prepared-query.ts).
const PARTNER_COLUMNS = columnsOf<PartnerRow>({
  id: true, email: true, password_hash: true, name: true, phone: true, service_name: true, status: true, mint_limit: true, mint_count: true,
  mint_period: true, key_id: true, main_address: true, contract_address: true, nft_id: true, token_version: true, created_at: true, updated_at: true,
});
const partnerByIdQuery = preparedQuery({ id: true }, (db, { id }: { id: string }) => db.selectFrom('partners').select(PARTNER_COLUMNS).where('id', '=', id));

/** The partner of an e-mail as stored (trimmed, lower case). */
export async function findPartnerByEmail(db: Db, email: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function insertPartner(db: Db, row: PartnerRow): Promise<void> {
  await db.insertInto('partners').values(row).execute();
}

/** What a password change is checked and guarded with. */
export async function findPartnerPassword(db: Db, id: string): Promise<Pick<PartnerRow, 'id' | 'password_hash' | 'token_version'> | undefined> {
  return db.selectFrom('partners').select(['id', 'password_hash', 'token_version']).where('id', '=', id).executeTakeFirst();
}

/**
 * Sets a new password and ends every access token issued before (token_version + 1), guarded by
 * the hash it replaces; false when the password changed meanwhile.
 */
export async function replacePartnerPassword(db: Db, input: { id: string; oldHash: string; newHash: string; now: number }): Promise<boolean> {
  const result = await db
    .updateTable('partners')
    .set((eb) => ({ password_hash: input.newHash, token_version: eb('token_version', '+', 1), updated_at: input.now }))
    .where('id', '=', input.id)
    .where('password_hash', '=', input.oldHash)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function markPartnerApproved(
  db: Db,
  input: { id: string; status: number; contractAddress: string; nftId: number; mintLimit?: number; now: number },
): Promise<void> {
  await db
    .updateTable('partners')
    .set({
      status: input.status,
      contract_address: input.contractAddress,
      nft_id: input.nftId,
      ...(input.mintLimit !== undefined ? { mint_limit: input.mintLimit } : {}),
      updated_at: input.now,
    })
    .where('id', '=', input.id)
    .execute();
}

export async function findPartnerContract(db: Db, partnerId: string): Promise<NftContractRow | undefined> {
  return db.selectFrom('nft_contracts').selectAll().where('partner_id', '=', partnerId).executeTakeFirst();
}

/** A card contract row before its deployment is mined (address null). */
export async function insertPartnerContract(
  db: Db,
  input: { chain: string; partnerId: string; name: string; symbol: string; kind: CardContractKind; deployOutboxId: string; now: number },
): Promise<NftContractRow> {
  return db
    .insertInto('nft_contracts')
    .values({
      chain: input.chain,
      kind: input.kind,
      address: null,
      partner_id: input.partnerId,
      name: input.name,
      symbol: input.symbol,
      deploy_outbox_id: input.deployOutboxId,
      created_at: input.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setContractAddress(db: Db, nftId: number, address: string): Promise<void> {
  await db.updateTable('nft_contracts').set({ address }).where('id', '=', nftId).execute();
}
