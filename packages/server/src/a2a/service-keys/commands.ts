import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../store/database.ts';
import { epochSeconds } from '../../store/database.ts';
import type { UserRow } from '../../store/schema.ts';
import { findCiKey, findServiceKeyIdByHash, insertServiceKey } from './store.ts';

/**
 * Operator-issued service keys. A BApp that sends one in `bapp.service_key` of an auth request gets
 * `ci_hash` in the result: an HMAC of the member's identity value, keyed per service key, so the same
 * person gives the same ci_hash to one BApp and unlinkable values to different BApps.
 *
 *   ci_key  = HMAC-SHA256(key = service key (UTF-8), message = "ci_hash key")
 *   ci_hash = hex HMAC-SHA256(key = ci_key, message = identity value (UTF-8))
 *   identity value = NFC(name) + "|" + birth (YYYY-MM-DD) + "|" + phone (E.164)
 *
 * Only SHA-256 of the key (to find it) and ci_key are stored; the key is shown once at creation.
 */
export interface CreatedServiceKey {
  id: string;
  name: string;
  service_key: string;
}

export async function createServiceKey(db: Db, name: string): Promise<CreatedServiceKey> {
  const label = name.trim();
  if (!label) throw new Error('a service key needs a name');
  const serviceKey = `sk_${randomBytes(32).toString('base64url')}`;
  const id = randomUUID();
  await insertServiceKey(db, {
    id,
    name: label,
    lookup_hash: lookupHash(serviceKey),
    ci_key: ciKeyOf(serviceKey).toString('hex'),
    created_at: epochSeconds(),
    revoked_at: null,
  });
  return { id, name: label, service_key: serviceKey };
}

/** The id of a valid service key, or undefined. */
export async function findServiceKeyId(db: Db, serviceKey: string): Promise<string | undefined> {
  return findServiceKeyIdByHash(db, lookupHash(serviceKey));
}

/** ci_hash of a member for the service key with this id, or undefined when the key is gone. */
export async function ciHashFor(db: Db, serviceKeyId: string, member: Pick<UserRow, 'name' | 'birth' | 'phone'>): Promise<string | undefined> {
  const ciKey = await findCiKey(db, serviceKeyId);
  if (ciKey === undefined) return undefined;
  return ciHash(Buffer.from(ciKey, 'hex'), identityValue(member));
}

/** The identity value hashed into ci_hash. */
export function identityValue(member: Pick<UserRow, 'name' | 'birth' | 'phone'>): string {
  return `${member.name.normalize('NFC')}|${member.birth}|${member.phone}`;
}

export function ciKeyOf(serviceKey: string): Buffer {
  return createHmac('sha256', Buffer.from(serviceKey, 'utf8')).update('ci_hash key').digest();
}

export function ciHash(ciKey: Buffer, identity: string): string {
  return createHmac('sha256', ciKey).update(identity, 'utf8').digest('hex');
}

function lookupHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
