import type { Db } from '../store/database.ts';

export async function insertMessage(db: Db, row: { id: string; kind: string; to_name: string; to_phone: string; text: string; created_at: number }): Promise<void> {
  await db.insertInto('messenger_messages').values(row).execute();
}
