import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parseEther, type Address } from 'viem';
import { faucet } from '../operator/faucet.ts';
import { resolvePeople } from '../people/index.ts';
import { freshPhone, refusedWith, typedPhone } from '../people/test-support.ts';
import { buildUser } from '../testing/factories.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';

describe('sign-up claims the wallet reserved for its name and phone', () => {
  let services: TestServices;
  before(async () => {
    services = await openTestServices();
  });
  after(() => services?.cleanup());

  const db = () => services.store.db;
  const reserveFor = async (name: string, phone: string) => {
    const resolution = await resolvePeople(services, { partnerId: `partner-${randomUUID()}`, people: [{ name, phone }] });
    const [recipient] = resolution.recipients;
    return db().selectFrom('reserved_wallets').selectAll().where('id', '=', recipient!.reservedWalletId!).executeTakeFirstOrThrow();
  };

  test('the member gets the reserved wallet: same address and key, their PIN unlocks it, the server alone no longer does', async () => {
    const phone = freshPhone();
    const wallet = await reserveFor('Hana Kim', phone);
    await faucet(services, { to: wallet.address, amount: '0.25' });
    const keyBefore = await db().selectFrom('signing_keys').selectAll().where('id', '=', wallet.key_id).executeTakeFirstOrThrow();
    assert.equal((await services.vault.unlock(wallet.key_id)).address, wallet.address);

    const { user, pinHash } = await buildUser(services, { name: ' Hana   Kim ', phone: typedPhone(phone), pin: '135790' });
    assert.equal(user.main_address, wallet.address);
    assert.equal(user.key_id, wallet.key_id);
    assert.deepEqual([user.name, user.phone], ['Hana Kim', phone]);

    const claimed = await db().selectFrom('reserved_wallets').selectAll().where('id', '=', wallet.id).executeTakeFirstOrThrow();
    assert.equal(claimed.claimed_user_id, user.id);
    assert.ok(claimed.claimed_at);
    const keyAfter = await db().selectFrom('signing_keys').selectAll().where('id', '=', wallet.key_id).executeTakeFirstOrThrow();
    assert.equal(keyAfter.protection, 'pin');
    assert.deepEqual([keyAfter.owner_id, keyAfter.encrypted_secret], [keyBefore.owner_id, keyBefore.encrypted_secret]);

    const unlocked = await services.vault.unlock(user.key_id, pinHash);
    assert.equal(unlocked.address, wallet.address);
    await assert.rejects(services.vault.unlock(user.key_id), refusedWith(4006));
    const balance = await services.chains.get('main').client.getBalance({ address: user.main_address as Address });
    assert.equal(balance, parseEther('0.25'), 'the coins sent before the sign-up are the member\'s');

    const after = await resolvePeople(services, { partnerId: `partner-${randomUUID()}`, people: [{ name: 'Hana Kim', phone }] });
    assert.deepEqual(after.recipients[0], { name: 'Hana Kim', phone, address: wallet.address, userId: user.id, reservedWalletId: null, invite: false });
  });

  test('a sign-up with another name and the same phone does not claim it', async () => {
    const phone = freshPhone();
    const wallet = await reserveFor('Hana Kim', phone);
    const { user, pinHash } = await buildUser(services, { name: 'Hana Lee', phone });
    assert.notEqual(user.main_address, wallet.address);
    assert.notEqual(user.key_id, wallet.key_id);
    const unclaimed = await db().selectFrom('reserved_wallets').selectAll().where('id', '=', wallet.id).executeTakeFirstOrThrow();
    assert.equal(unclaimed.claimed_user_id, null);
    assert.equal((await services.vault.unlock(wallet.key_id)).address, wallet.address, 'still a server key');
    assert.equal((await services.vault.unlock(user.key_id, pinHash)).address, user.main_address);
  });

  test('two sign-ups with that name and phone at once: one owns the wallet, the other gets 412', async () => {
    const phone = freshPhone();
    const wallet = await reserveFor('Jisoo Park', phone);
    const results = await Promise.allSettled([buildUser(services, { name: 'Jisoo Park', phone }), buildUser(services, { name: 'Jisoo Park', phone })]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    refusedWith(412)((lost[0] as PromiseRejectedResult).reason);
    const { user } = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof buildUser>>>).value;
    assert.equal(user.main_address, wallet.address);
    const members = await db().selectFrom('users').select('id').where('phone', '=', phone).execute();
    assert.deepEqual(members.map((member) => member.id), [user.id]);
  });

  test('two sign-ups of the same person with no reserved wallet: one member, the other gets 412', async () => {
    const phone = freshPhone();
    const results = await Promise.allSettled([buildUser(services, { name: 'Min Seo', phone }), buildUser(services, { name: 'Min Seo', phone })]);
    assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
    const lost = results.filter((result) => result.status === 'rejected');
    assert.equal(lost.length, 1);
    refusedWith(412)((lost[0] as PromiseRejectedResult).reason);
    const members = await db().selectFrom('users').select('id').where('phone', '=', phone).execute();
    assert.equal(members.length, 1);
  });
});
