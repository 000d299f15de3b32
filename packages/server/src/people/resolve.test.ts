import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Messenger } from '../messenger/index.ts';
import { buildUser } from '../testing/factories.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { dayKey, monthKey } from '../lib/time.ts';
import { planInviteQuota, takeInviteQuota } from './invite-quota.ts';
import { parsePersonPair, resolvePeople, type Person } from './index.ts';
import { freshPhone, refusedWith } from './test-support.ts';

const LIMITS = { senderDailyLimit: 5, receiverDailyLimit: 2, receiverMonthlyLimit: 3 };
const CARD = { cardName: 'Gold Pass', partnerServiceName: 'Shop Cards' };

const person = (name: string, phone = freshPhone()): Person => ({ name, phone });
const partnerId = () => `partner-${randomUUID()}`;

describe('resolvePeople', () => {
  let services: TestServices;
  before(async () => {
    services = await openTestServices({ invites: LIMITS });
  });
  after(() => services?.cleanup());

  const db = () => services.store.db;
  const count = async (kind: string, subject: string): Promise<number> => {
    const rows = await db().selectFrom('invite_counts').select('count').where('kind', '=', kind).where('subject', '=', subject).execute();
    return rows.reduce((sum, row) => sum + Number(row.count), 0);
  };
  const wallets = (who: Person) => db().selectFrom('reserved_wallets').selectAll().where('phone', '=', who.phone).where('name', '=', who.name).execute();
  const invitesOf = (partner: string) => db().selectFrom('person_invites').selectAll().where('partner_id', '=', partner).execute();
  const messagesTo = (who: Person) => db().selectFrom('messenger_messages').selectAll().where('to_phone', '=', who.phone).where('to_name', '=', who.name).execute();

  test('a member (same phone, same name once whitespace is collapsed) gets the card at their address, no invite', async () => {
    const { user } = await buildUser(services, { name: 'Kim Lee', phone: freshPhone() });
    const partner = partnerId();
    const resolution = await resolvePeople(services, {
      partnerId: partner,
      people: [parsePersonPair(['Kim Lee', user.phone], 0, 'US'), parsePersonPair([` ${user.phone} `, ' Kim \t Lee'], 1, 'US')],
    });
    for (const recipient of resolution.recipients) {
      assert.deepEqual(recipient, {
        name: recipient.name,
        phone: user.phone,
        address: user.main_address,
        userId: user.id,
        reservedWalletId: null,
        invite: false,
      });
    }
    assert.equal((await invitesOf(partner)).length, 0);
    assert.equal(await count('sender_day', partner), 0);
    await resolution.sendInvites([0, 1], CARD);
    assert.equal((await messagesTo({ name: 'Kim Lee', phone: user.phone })).length, 0);

    const namesake = await resolvePeople(services, { partnerId: partner, people: [{ name: 'Kim Park', phone: user.phone }] });
    const [other] = namesake.recipients;
    assert.equal(other!.userId, null, 'the same phone under another name is someone else');
    assert.notEqual(other!.address, user.main_address);
    assert.equal(other!.invite, true);
    await namesake.releaseInvites([0]);
  });

  test('a non-member gets a reserved wallet, reused by the next call; a partner invites a person once', async () => {
    const kim = person('Kim');
    const [first, second] = [partnerId(), partnerId()];
    const one = await resolvePeople(services, { partnerId: first, people: [kim] });
    const [recipient] = one.recipients;
    assert.equal(recipient!.userId, null);
    assert.equal(recipient!.invite, true);
    const [wallet] = await wallets(kim);
    assert.ok(wallet);
    assert.deepEqual([recipient!.address, recipient!.reservedWalletId], [wallet.address, wallet.id]);
    const key = await db().selectFrom('signing_keys').selectAll().where('id', '=', wallet.key_id).executeTakeFirstOrThrow();
    assert.deepEqual([key.owner_type, key.owner_id, key.protection, key.secret_kind, key.address], ['user', wallet.id, 'server', 'mnemonic_entropy', wallet.address]);
    assert.equal((await services.vault.unlock(wallet.key_id)).address, wallet.address);
    await one.sendInvites([0], CARD);

    const again = await resolvePeople(services, { partnerId: first, people: [kim] });
    assert.deepEqual(again.recipients[0], { ...recipient, invite: false }, 'already invited by this partner: same wallet, no invite');
    assert.equal(await count('sender_day', first), 1, 'a repeat takes no quota');
    const other = await resolvePeople(services, { partnerId: second, people: [kim] });
    assert.deepEqual(other.recipients[0], recipient, 'another partner invites too');
    assert.equal((await wallets(kim)).length, 1);
    await other.releaseInvites([0]);
  });

  test('five parallel calls for one person end with one wallet; of one partner\'s, one invites', async () => {
    const lee = person('Lee');
    const [first, second] = [partnerId(), partnerId()];
    const partners = [first, second, first, second, first];
    const resolutions = await Promise.all(partners.map((partner) => resolvePeople(services, { partnerId: partner, people: [lee] })));
    const [wallet, ...more] = await wallets(lee);
    assert.ok(wallet);
    assert.equal(more.length, 0);
    assert.ok(resolutions.every((resolution) => resolution.recipients[0]!.address === wallet.address));
    assert.equal(resolutions.filter((resolution) => resolution.recipients[0]!.invite).length, 2, 'one invite per partner');
    const keys = await db().selectFrom('signing_keys').select('id').where('owner_id', '=', wallet.id).execute();
    assert.deepEqual(keys.map((key) => key.id), [wallet.key_id], 'no stray key');

    const park = person('Park');
    const partner = partnerId();
    const same = await Promise.all(Array.from({ length: 5 }, () => resolvePeople(services, { partnerId: partner, people: [park] })));
    assert.deepEqual(same.map((resolution) => resolution.recipients[0]!.invite).sort(), [false, false, false, false, true]);
    assert.equal((await wallets(park)).length, 1);
    assert.equal(await count('sender_day', partner), 1);
    assert.equal(await count('receiver_day', park.phone), 1);
  });

  test('the same person twice in one call: one wallet, the invite flag at the first index, one message', async () => {
    const choi = person('Choi');
    const partner = partnerId();
    const resolution = await resolvePeople(services, { partnerId: partner, people: [choi, person('Jang'), { ...choi }] });
    const [a, b, c] = resolution.recipients;
    assert.deepEqual([a!.invite, b!.invite, c!.invite], [true, true, false]);
    assert.equal(a!.address, c!.address);
    assert.equal(await count('sender_day', partner), 2);
    await resolution.sendInvites([2], CARD);
    assert.equal((await messagesTo(choi)).length, 1, 'a minted duplicate index sends the person\'s invite');
    await resolution.releaseInvites([0, 1]);
    assert.equal(await count('sender_day', partner), 1, 'the sent invite keeps its quota, the other is given back');
  });

  test('4112: a partner\'s daily invites; a refused call leaves no count, invite or wallet', async () => {
    const partner = partnerId();
    const six = Array.from({ length: 6 }, (_, index) => person(`Sender Test ${index}`));
    await assert.rejects(resolvePeople(services, { partnerId: partner, people: six }), refusedWith(4112));
    assert.equal(await count('sender_day', partner), 0);
    for (const someone of six) {
      assert.equal(await count('receiver_day', someone.phone), 0);
      assert.equal((await wallets(someone)).length, 0);
    }
    assert.equal((await invitesOf(partner)).length, 0);

    const five = await resolvePeople(services, { partnerId: partner, people: six.slice(0, 5) });
    assert.equal(await count('sender_day', partner), 5);
    await assert.rejects(resolvePeople(services, { partnerId: partner, people: six.slice(5) }), refusedWith(4112));
    const repeat = await resolvePeople(services, { partnerId: partner, people: six.slice(0, 2) });
    assert.ok(repeat.recipients.every((recipient) => !recipient.invite), 'people already invited need no quota');
    await five.releaseInvites([4]);
    const sixth = await resolvePeople(services, { partnerId: partner, people: six.slice(5) });
    assert.equal(sixth.recipients[0]!.invite, true, 'a given-back invite frees its place');
    assert.equal(await count('sender_day', partner), 5);
  });

  test('4114: invites a phone receives a day from all partners; the refused partner keeps its count', async () => {
    const phone = freshPhone();
    const [a, b, c] = [partnerId(), partnerId(), partnerId()];
    await resolvePeople(services, { partnerId: a, people: [person('Han', phone)] });
    await resolvePeople(services, { partnerId: b, people: [person('Han Two', phone)] });
    const bystander = person('Bystander');
    await assert.rejects(resolvePeople(services, { partnerId: c, people: [bystander, person('Han', phone)] }), refusedWith(4114));
    assert.equal(await count('receiver_day', phone), 2);
    assert.equal(await count('sender_day', c), 0);
    assert.equal(await count('receiver_day', bystander.phone), 0);
    assert.equal(await count('receiver_month', bystander.phone), 0);
    assert.equal((await invitesOf(c)).length, 0);
    assert.equal((await wallets(bystander)).length, 0);
  });

  test('4115: invites a phone receives a month', async () => {
    const phone = freshPhone();
    const now = new Date();
    const otherDay = new Date(now);
    otherDay.setUTCDate(now.getUTCDate() === 1 ? 2 : 1);
    assert.equal(monthKey(otherDay, 'UTC'), monthKey(now, 'UTC'));
    assert.notEqual(dayKey(otherDay, 'UTC'), dayKey(now, 'UTC'));
    await takeInviteQuota(db(), planInviteQuota(LIMITS, { partnerId: partnerId(), phones: [phone, phone], timeZone: 'UTC', now: otherDay }));

    await resolvePeople(services, { partnerId: partnerId(), people: [person('Yoon', phone)] });
    assert.deepEqual([await count('receiver_day', phone), await count('receiver_month', phone)], [3, 3], 'two days: 2 + 1');
    const partner = partnerId();
    const bystander = person('Bystander Two');
    await assert.rejects(resolvePeople(services, { partnerId: partner, people: [bystander, person('Yoon', phone)] }), refusedWith(4115));
    assert.equal(await count('receiver_month', phone), 3);
    assert.equal(await count('receiver_day', phone), 3, 'today\'s count is given back too');
    assert.equal(await count('sender_day', partner), 0);
    assert.equal(await count('receiver_month', bystander.phone), 0);
    assert.equal((await invitesOf(partner)).length, 0);
  });

  test('releaseInvites gives the quota back and the person can be invited again; a sent invite is not released', async () => {
    const partner = partnerId();
    const [sent, released] = [person('Seo'), person('Oh')];
    const resolution = await resolvePeople(services, { partnerId: partner, people: [sent, released] });
    assert.deepEqual(
      [await count('sender_day', partner), await count('receiver_day', released.phone), await count('receiver_month', released.phone)],
      [2, 1, 1],
    );
    await resolution.sendInvites([0], CARD);
    await resolution.releaseInvites([0, 1]);
    await resolution.releaseInvites([1]);
    assert.deepEqual(
      [await count('sender_day', partner), await count('receiver_day', released.phone), await count('receiver_month', released.phone)],
      [1, 0, 0],
    );
    assert.deepEqual([await count('receiver_day', sent.phone), await count('receiver_month', sent.phone)], [1, 1]);
    const rows = await invitesOf(partner);
    assert.deepEqual(rows.map((row) => row.name), ['Seo']);
    assert.ok(rows[0]!.sent_at, 'the sent invite stays, marked sent');
    assert.equal(rows[0]!.reserved_wallet_id, resolution.recipients[0]!.reservedWalletId);
    await resolution.sendInvites([1], CARD);
    assert.equal((await messagesTo(released)).length, 0, 'a released invite is never sent');

    const next = await resolvePeople(services, { partnerId: partner, people: [sent, released] });
    assert.deepEqual(next.recipients.map((recipient) => recipient.invite), [false, true]);
    assert.equal(next.recipients[1]!.address, resolution.recipients[1]!.address, 'the wallet stays reserved');
  });

  test('sendInvites writes exactly one message per person, however often and in parallel it is called', async () => {
    const partner = partnerId();
    const people = [person('Moon Jae'), person('Kang')];
    const resolution = await resolvePeople(services, { partnerId: partner, people: [people[0]!, people[1]!, people[0]!] });
    await Promise.all([resolution.sendInvites([0, 1, 2], CARD), resolution.sendInvites([0, 1, 2], CARD), resolution.sendInvites([1], CARD)]);
    await resolution.sendInvites([0, 1, 2], CARD);
    for (const someone of people) {
      const messages = await messagesTo(someone);
      assert.equal(messages.length, 1, someone.name);
      assert.equal(messages[0]!.kind, 'invite');
      assert.match(messages[0]!.text, /^Shop Cards sent you the card "Gold Pass"/);
      assert.ok(messages[0]!.text.includes(`as ${someone.name} with this phone number`));
      assert.ok(messages[0]!.text.includes(services.config.publicUrl));
    }
    assert.ok((await invitesOf(partner)).every((row) => row.sent_at !== null));
  });

  test('a message the messenger refuses gives 501 and releases that invite', async () => {
    const partner = partnerId();
    const [kept, failed] = [person('Baek'), person('Nam')];
    const messenger: Messenger = {
      send: async (message) => {
        if (message.to.name === failed.name) throw new Error('connection refused');
        await services.messenger.send(message);
      },
    };
    const resolution = await resolvePeople({ ...services, messenger }, { partnerId: partner, people: [kept, failed] });
    await assert.rejects(resolution.sendInvites([0, 1], CARD), refusedWith(501));
    assert.equal((await messagesTo(kept)).length, 1);
    assert.deepEqual((await invitesOf(partner)).map((row) => row.name), ['Baek']);
    assert.deepEqual([await count('sender_day', partner), await count('receiver_day', failed.phone)], [1, 0]);
  });
});
