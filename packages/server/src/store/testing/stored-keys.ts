import { sqliteDriver } from '../database.ts';

/** The keys of service_settings in a SQLite file, read through a connection of its own. */
export function storedSettingKeys(path: string): string[] {
  const Database = sqliteDriver();
  const reader = new Database(path, { readonly: true });
  try {
    return (reader.prepare('select key from service_settings order by key').all() as Array<{ key: string }>).map((row) => row.key);
  } finally {
    reader.close();
  }
}
