import type { Db } from '../../store/database.ts';

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
