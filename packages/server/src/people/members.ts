import type { Db } from '../store/database.ts';
import { normalizePersonName, personKey, type Person } from './person.ts';
import { findUsersByPhones } from './store.ts';

export interface Member {
  id: string;
  main_address: string;
}

/**
 * The members among `people`, by personKey: a member is a user with the same E.164 phone and the
 * same name once both names are trimmed and their inner whitespace collapsed.
 */
export async function findMembers(db: Db, people: readonly Person[]): Promise<Map<string, Member>> {
  const wanted = new Set(people.map(personKey));
  const phones = [...new Set(people.map((person) => person.phone))];
  const members = new Map<string, Member>();
  for (const row of await findUsersByPhones(db, phones)) {
    const key = personKey({ name: normalizePersonName(row.name), phone: row.phone });
    if (wanted.has(key) && !members.has(key)) members.set(key, { id: row.id, main_address: row.main_address });
  }
  return members;
}
