import type { Db } from '../../store/database.ts';

/** The name of the BApp (its partner's service name) whose contract the card is on. */
export async function findBappName(db: Db, partnerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('partners').select('service_name').where('id', '=', partnerId).executeTakeFirst();
  return row?.service_name;
}

/** The chains of the designs whose secure files include `fileName`. */
export async function listChainsNamingSecureFile(db: Db, fileName: string): Promise<string[]> {
  const rows = await db
    .selectFrom('card_secure_files as f')
    .innerJoin('card_designs as d', 'd.id', 'f.design_id')
    .select('d.chain')
    .distinct()
    .where('f.file_name', '=', fileName)
    .execute();
  return rows.map((row) => row.chain);
}
