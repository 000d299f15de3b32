import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import type { App } from '../app.ts';
import { openTestApp, type TestServices } from '../testing/test-services.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { issuePartnerToken, PARTNER_TOKEN_AUDIENCE } from './tokens.ts';

let services: TestServices;
let app: App;

before(async () => {
  ({ services, app } = await openTestApp({ partnerApi: { rateLimit: { max: 100_000, timeWindowMs: 60_000 } } }));
});
after(async () => {
  await app?.close();
  await services?.cleanup();
});

/** An authorised Family A call with no side effect: reading a secure file that does not exist (404 once authorised). */
const PROBE_URL = '/v2/wallet/nftResource/secure/00000000-0000-4000-8000-000000000000.png';

async function probe(authorization?: string) {
  const response = await app.inject({ method: 'GET', url: PROBE_URL, headers: authorization === undefined ? {} : { authorization } });
  return { status: response.statusCode, body: response.json() };
}

const authorised = { status: 404, body: { code: 404, err: 'not Found' } };
const invalid = { status: 401, body: { code: 4001, err: 'invalid access token' } };

function claimsToken(key: Uint8Array, claims: { sub: string; ver?: number; iss?: string; aud?: string; alg?: string; expiresIn?: number }) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ver: claims.ver ?? 0 })
    .setProtectedHeader({ alg: claims.alg ?? 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(claims.iss ?? services.config.publicUrl)
    .setAudience(claims.aud ?? PARTNER_TOKEN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expiresIn ?? 3600))
    .sign(key);
}

describe('Family A Authorization', () => {
  test('the raw token from A1 is accepted, and leniently "Bearer <token>"', async () => {
    const { token } = await signedInPartner(app, services);
    assert.deepEqual(await probe(token), authorised);
    assert.deepEqual(await probe(`Bearer ${token}`), authorised);
    assert.deepEqual(await probe(`bearer  ${token}`), authorised);
  });

  test('a missing or blank header answers 4003', async () => {
    const missing = { status: 401, body: { code: 4003, err: 'fail to get authorization in header' } };
    assert.deepEqual(await probe(), missing);
    assert.deepEqual(await probe(''), missing);
    assert.deepEqual(await probe('   '), missing);
  });

  test('malformed, forged, alg none, another algorithm, issuer or audience: 4001', async () => {
    const { partner } = await signedInPartner(app, services);
    const otherKey = new Uint8Array(randomBytes(32));
    const tokens = {
      garbage: 'not-a-token',
      dots: 'a.b.c',
      forged: await claimsToken(otherKey, { sub: partner.id }),
      algNone: new UnsecuredJWT({ ver: 0 })
        .setSubject(partner.id)
        .setIssuer(services.config.publicUrl)
        .setAudience(PARTNER_TOKEN_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('1h')
        .encode(),
      hs512: await claimsToken(services.tokenKeys.signing().key, { sub: partner.id, alg: 'HS512' }),
      otherIssuer: await claimsToken(services.tokenKeys.signing().key, { sub: partner.id, iss: 'https://elsewhere.example' }),
      otherAudience: await claimsToken(services.tokenKeys.signing().key, { sub: partner.id, aud: 'wallet-service:member' }),
      tooLong: `${await claimsToken(services.tokenKeys.signing().key, { sub: partner.id })}${'A'.repeat(4000)}`,
    };
    for (const [name, token] of Object.entries(tokens)) assert.deepEqual(await probe(token), invalid, name);
  });

  test('an expired token answers 4002; expired and forged is 4001', async () => {
    const { partner } = await signedInPartner(app, services);
    const dayAndAnHourAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    const expired = await issuePartnerToken({ keys: services.tokenKeys, issuer: services.config.publicUrl }, partner.id, 0, dayAndAnHourAgo);
    assert.deepEqual(await probe(expired), { status: 401, body: { code: 4002, err: 'the expired token' } });
    const forgedExpired = await claimsToken(new Uint8Array(randomBytes(32)), { sub: partner.id, expiresIn: -3600 });
    assert.deepEqual(await probe(forgedExpired), invalid);
  });

  test('the token of a deleted partner answers 4001', async () => {
    const { partner, token } = await signedInPartner(app, services);
    await services.store.db.deleteFrom('nft_contracts').where('partner_id', '=', partner.id).execute();
    await services.store.db.deleteFrom('partners').where('id', '=', partner.id).execute();
    assert.deepEqual(await probe(token), invalid);
  });

  test('a token older than the last password change answers 4044', async () => {
    const { partner, token } = await signedInPartner(app, services);
    await services.store.db.updateTable('partners').set({ token_version: 1 }).where('id', '=', partner.id).execute();
    assert.deepEqual(await probe(token), { status: 401, body: { code: 4044, err: 'access token does not exist' } });
  });

  test('a status change after sign-in applies at once; approved without contract answers 4005', async () => {
    const { partner, token } = await signedInPartner(app, services);
    const cases: Array<[number, number, string]> = [
      [421, 421, 'banned accounts cannot login'],
      [422, 422, 'suspended accounts cannot login'],
      [423, 423, 'the account has been unsubscribed'],
      [20, 425, 'not yet approved'],
      [99, 424, 'undefined status'],
    ];
    for (const [status, code, err] of cases) {
      await services.store.db.updateTable('partners').set({ status }).where('id', '=', partner.id).execute();
      assert.deepEqual(await probe(token), { status: 401, body: { code, err } });
    }
    await services.store.db.updateTable('partners').set({ status: 1, contract_address: null }).where('id', '=', partner.id).execute();
    assert.deepEqual(await probe(token), { status: 401, body: { code: 4005, err: 'account does not have a contract address' } });
  });
});
