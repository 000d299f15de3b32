import type { Db } from '../store/database.ts';
import type { UploadedFileRow } from '../store/schema.ts';

export async function insertUploadedFile(db: Db, row: UploadedFileRow): Promise<void> {
  await db.insertInto('uploaded_files').values(row).execute();
}

/** A stored file by name, or undefined. */
export function findUploadedFile(db: Db, name: string): Promise<UploadedFileRow | undefined> {
  return db.selectFrom('uploaded_files').selectAll().where('name', '=', name).executeTakeFirst();
}
