import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SignJWT } from 'jose';
import { masterKeyId } from '../custody/envelope.ts';
import { MasterKeyRing } from '../custody/master-key-ring.ts';
import { recordMasterKeyId, startRotation } from '../custody/store.ts';
import { openTestStore, type TestStore } from '../testing/test-store.ts';
import { MasterKeyTokenKeys } from './token-keys.ts';
import { deriveTokenKey, issuePartnerToken, PARTNER_TOKEN_AUDIENCE, PARTNER_TOKEN_LIFETIME_SECONDS, verifyPartnerToken, type TokenKeys } from './tokens.ts';

const ISSUER = 'https://wallet.example.com';
const oldKey = new Uint8Array(randomBytes(32));
const newKey = new Uint8Array(randomBytes(32));
let testStore: TestStore;
let dataDir: string;
/** Two instances of one installation: one runs the old key, one the new key; each finds the other in the data directory. */
let onOld: TokenKeys;
let onNew: TokenKeys;

before(async () => {
  testStore = await openTestStore();
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-token-keys-'));
  writeFileSync(join(dataDir, 'master.key.next'), Buffer.from(newKey).toString('hex'), { mode: 0o600 });
  writeFileSync(join(dataDir, 'master.key.previous'), Buffer.from(oldKey).toString('hex'), { mode: 0o600 });
  await recordMasterKeyId(testStore.store.db, masterKeyId(oldKey));
  onOld = new MasterKeyTokenKeys(testStore.store.db, new MasterKeyRing(oldKey, dataDir));
  onNew = new MasterKeyTokenKeys(testStore.store.db, new MasterKeyRing(newKey, dataDir));
});
after(async () => {
  await testStore?.cleanup();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const issue = (keys: TokenKeys) => issuePartnerToken({ keys, issuer: ISSUER }, 'partner-1', 0);
const accepted = async (keys: TokenKeys, token: string) => {
  try {
    return (await verifyPartnerToken({ keys, issuer: ISSUER }, token)).sub === 'partner-1';
  } catch (error) {
    assert.equal((error as { code?: number }).code, 4001);
    return false;
  }
};
/** A token from before tokens named their key: no kid. */
const withoutKid = (masterKey: Uint8Array) =>
  new SignJWT({ ver: 0 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('partner-1')
    .setIssuer(ISSUER)
    .setAudience(PARTNER_TOKEN_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(deriveTokenKey(masterKey));

test('tokens name the key they are signed with, and each instance signs with its own', async () => {
  const { kid } = JSON.parse(Buffer.from((await issue(onOld)).split('.')[0]!, 'base64url').toString('utf8')) as { kid: string };
  assert.equal(kid, masterKeyId(oldKey));
  assert.equal(onNew.signing().id, masterKeyId(newKey));
});

test('while a rotation is under way each instance accepts the other key\'s tokens; outside of one, only its own', async () => {
  const fromOld = await issue(onOld);
  const fromNew = await issue(onNew);
  const legacy = await withoutKid(oldKey);
  // No rotation recorded: another key's token is not ours.
  assert.deepEqual([await accepted(onNew, fromOld), await accepted(onOld, fromNew), await accepted(onNew, legacy)], [false, false, false]);

  await startRotation(testStore.store.db, { from: masterKeyId(oldKey), to: masterKeyId(newKey), startedAtMs: Date.now() });
  assert.deepEqual(
    [await accepted(onNew, fromOld), await accepted(onOld, fromNew), await accepted(onNew, legacy), await accepted(onOld, fromOld), await accepted(onNew, fromNew)],
    [true, true, true, true, true],
  );
  // A kid that names no key of the rotation, or a token signed by another key under a kid of ours, is refused.
  const strangerKey = new Uint8Array(randomBytes(32));
  const forged = await issuePartnerToken({ keys: { signing: () => ({ id: masterKeyId(newKey), key: deriveTokenKey(strangerKey) }), verifying: async () => [] }, issuer: ISSUER }, 'partner-1', 0);
  const otherKid = await issuePartnerToken({ keys: { signing: () => ({ id: masterKeyId(strangerKey), key: deriveTokenKey(newKey) }), verifying: async () => [] }, issuer: ISSUER }, 'partner-1', 0);
  assert.deepEqual([await accepted(onOld, forged), await accepted(onNew, forged), await accepted(onOld, otherKid)], [false, false, false]);

  // The rotation over (keys finish-rotation): the old key's tokens are refused again.
  await testStore.store.db.deleteFrom('service_settings').where('key', '=', 'master_key_rotation').execute();
  assert.deepEqual([await accepted(onNew, fromOld), await accepted(onNew, legacy), await accepted(onNew, fromNew)], [false, false, true]);
});

test('a token checked before is refused once it expires (4002) and once its key is no longer accepted (4001)', async (t) => {
  // Issued a day less 10 s ago: 10 s left.
  const issuedAt = new Date(Date.now() - PARTNER_TOKEN_LIFETIME_SECONDS * 1000 + 10_000);
  const token = await issuePartnerToken({ keys: onOld, issuer: ISSUER }, 'partner-1', 0, issuedAt);
  assert.equal((await verifyPartnerToken({ keys: onOld, issuer: ISSUER }, token)).sub, 'partner-1');
  assert.equal((await verifyPartnerToken({ keys: onOld, issuer: ISSUER }, token)).sub, 'partner-1');
  // Another issuer never takes a token checked for this one.
  await assert.rejects(verifyPartnerToken({ keys: onOld, issuer: 'https://other.example.com' }, token), { code: 4001 });
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() + 11_000 });
  await assert.rejects(verifyPartnerToken({ keys: onOld, issuer: ISSUER }, token), { code: 4002 });
  await assert.rejects(verifyPartnerToken({ keys: onOld, issuer: ISSUER }, token), { code: 4002 });
  t.mock.timers.reset();

  // Accepted by the other instance while a rotation is under way, then refused once it is over.
  const fromOld = await issue(onOld);
  await startRotation(testStore.store.db, { from: masterKeyId(oldKey), to: masterKeyId(newKey), startedAtMs: Date.now() });
  assert.equal(await accepted(onNew, fromOld), true);
  assert.equal(await accepted(onNew, fromOld), true);
  await testStore.store.db.deleteFrom('service_settings').where('key', '=', 'master_key_rotation').execute();
  assert.equal(await accepted(onNew, fromOld), false);
  assert.equal(await accepted(onOld, fromOld), true);
});
