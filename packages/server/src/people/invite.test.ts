import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { App } from '../app.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { epochSeconds } from '../store/database.ts';
import { buildUser } from '../testing/factories.ts';
import { openTestApp, type TestApp, type TestServices } from '../testing/test-services.ts';
import { ABANDONED_CLAIM_SECONDS, InviteBatch } from './invites.ts';
import { personKey } from './person.ts';
import { freshPhone as freshE164, typedPhone } from './test-support.ts';
import { withoutMessage } from '../testing/responses.ts';

/** A number written the way a partner might; e164() gives it as stored. */
const freshPhone = () => typedPhone(freshE164());
const e164 = (typed: string) => `+1${typed.replace(/\D/g, '')}`;

describe('POST /v2/wallet/invite', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;

  before(async () => {
    testApp = await openTestApp({ invites: { senderDailyLimit: 4, receiverDailyLimit: 3, receiverMonthlyLimit: 10 } });
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  const invite = (token: string | undefined, body: unknown) =>
    app.inject({ method: 'POST', url: '/v2/wallet/invite', headers: token ? { authorization: token } : {}, payload: body as object });
  const db = () => services.store.db;
  const invitesOf = (partnerId: string) => db().selectFrom('person_invites').selectAll().where('partner_id', '=', partnerId).orderBy('name').execute();
  const receiverCount = async (phone: string, kind: 'receiver_day' | 'receiver_month') =>
    Number((await db().selectFrom('invite_counts').select('count').where('kind', '=', kind).where('subject', '=', phone).executeTakeFirst())?.count ?? 0);
  const senderCount = async (partnerId: string) =>
    Number((await db().selectFrom('invite_counts').select('count').where('kind', '=', 'sender_day').where('subject', '=', partnerId).executeTakeFirst())?.count ?? 0);

  test('invites each person once: reserved wallets, one message each, { invited }', async () => {
    const { partner, token } = await signedInPartner(app, services);
    const [kimPhone, leePhone] = [freshPhone(), freshPhone()];
    const answer = await invite(token, { to_person: [['Kim', kimPhone], [leePhone, 'Lee  Min'], ['Kim', kimPhone]] });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(answer.json(), { invited: 2 });

    const rows = await invitesOf(partner.id);
    assert.deepEqual(rows.map((row) => [row.name, row.phone]), [['Kim', e164(kimPhone)], ['Lee Min', e164(leePhone)]]);
    assert.ok(rows.every((row) => row.sent_at !== null && row.reserved_wallet_id !== null));
    for (const row of rows) {
      const wallet = await db().selectFrom('reserved_wallets').selectAll().where('id', '=', row.reserved_wallet_id!).executeTakeFirstOrThrow();
      assert.deepEqual([wallet.name, wallet.phone, wallet.claimed_user_id], [row.name, row.phone, null]);
      const messages = await db().selectFrom('messenger_messages').selectAll().where('to_phone', '=', row.phone).execute();
      assert.equal(messages.length, 1);
      assert.deepEqual([messages[0]!.kind, messages[0]!.to_name], ['invite', row.name]);
      assert.match(messages[0]!.text, new RegExp(`^${partner.service_name} invites you to the wallet`));
    }
    assert.equal(await senderCount(partner.id), 2);
  });

  test('4113 when this partner already invited any of them; nothing is kept', async () => {
    const { partner, token } = await signedInPartner(app, services);
    const phone = freshPhone();
    assert.equal((await invite(token, { to_person: [['Park', phone]] })).statusCode, 200);
    const fresh = freshPhone();
    const repeat = await invite(token, { to_person: [['Choi', fresh], ['Park', phone]] });
    assert.deepEqual([repeat.statusCode, repeat.json()], [400, { code: 4113, err: 'sender already sent invite message to receiver' }]);
    assert.deepEqual((await invitesOf(partner.id)).map((row) => row.name), ['Park']);
    assert.equal(await senderCount(partner.id), 1);
    assert.equal((await db().selectFrom('reserved_wallets').select('id').where('phone', '=', e164(fresh)).execute()).length, 0);
    assert.equal((await db().selectFrom('messenger_messages').select('id').where('to_phone', '=', e164(fresh)).execute()).length, 0);

    const other = await signedInPartner(app, services);
    assert.deepEqual((await invite(other.token, { to_person: [['Park', phone]] })).json(), { invited: 1 }, 'another partner may invite');
  });

  test('an invite that a stopped call claimed and never sent goes to the next call; one claimed moments ago is still 4113', async () => {
    const { partner, token } = await signedInPartner(app, services);
    const [abandonedPhone, busyPhone] = [freshPhone(), freshPhone()];
    const now = epochSeconds();
    // What a call killed between claiming and sending leaves behind, and what a live call holds.
    const claimed = (name: string, phone: string, createdAt: number) => ({
      id: randomUUID(), partner_id: partner.id, phone: e164(phone), name, reserved_wallet_id: null, created_at: createdAt, sent_at: null, quota_charges: null, used_at: null,
    });
    const abandoned = claimed('Han', abandonedPhone, now - ABANDONED_CLAIM_SECONDS - 1);
    const busy = claimed('Seo', busyPhone, now - 5);
    await db().insertInto('person_invites').values([abandoned, busy]).execute();

    const answer = await invite(token, { to_person: [['Han', abandonedPhone]] });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(answer.json(), { invited: 1 });
    const [row] = await db().selectFrom('person_invites').selectAll().where('phone', '=', e164(abandonedPhone)).execute();
    assert.notEqual(row!.id, abandoned.id);
    assert.ok(row!.sent_at !== null && row!.reserved_wallet_id !== null);
    assert.equal((await db().selectFrom('messenger_messages').select('id').where('to_phone', '=', e164(abandonedPhone)).execute()).length, 1);

    const refused = await invite(token, { to_person: [['Seo', busyPhone]] });
    assert.deepEqual([refused.statusCode, refused.json().code], [400, 4113]);
    assert.deepEqual(await db().selectFrom('person_invites').selectAll().where('id', '=', busy.id).executeTakeFirst(), busy);
    assert.equal((await db().selectFrom('messenger_messages').select('id').where('to_phone', '=', e164(busyPhone)).execute()).length, 0);
  });

  test('the quota a stopped call took for an invite it never sent is given back when the next call takes the invite over', async () => {
    const { partner, token } = await signedInPartner(app, services);
    const phone = freshPhone();
    const person = { name: 'Baek', phone: e164(phone) };
    // A call killed after taking the quota and before sending: its invite row holds what it was charged.
    const stopped = await InviteBatch.claim(services, partner.id, [person]);
    await stopped.takeQuota();
    const [claimedRow] = await invitesOf(partner.id);
    assert.deepEqual(JSON.parse(claimedRow!.quota_charges!).map((charge: { kind: string }) => charge.kind), ['sender_day', 'receiver_day', 'receiver_month']);
    assert.deepEqual([await senderCount(partner.id), await receiverCount(person.phone, 'receiver_day'), await receiverCount(person.phone, 'receiver_month')], [1, 1, 1]);
    await db().updateTable('person_invites').set({ created_at: epochSeconds() - ABANDONED_CLAIM_SECONDS - 1 }).where('id', '=', claimedRow!.id).execute();

    const answer = await invite(token, { to_person: [['Baek', phone]] });
    assert.deepEqual([answer.statusCode, answer.json()], [200, { invited: 1 }]);
    // Charged once, not twice: the stopped call's charges went back when the invite was taken over.
    assert.deepEqual([await senderCount(partner.id), await receiverCount(person.phone, 'receiver_day'), await receiverCount(person.phone, 'receiver_month')], [1, 1, 1]);
    const [row] = await invitesOf(partner.id);
    assert.ok(row!.id !== claimedRow!.id && row!.sent_at !== null && row!.quota_charges !== null);
    assert.equal((await db().selectFrom('messenger_messages').select('id').where('to_phone', '=', person.phone).execute()).length, 1);
    // The stopped call, alive after all, can neither send nor give anything back twice.
    await stopped.release([personKey(person)]);
    assert.deepEqual([await senderCount(partner.id), (await invitesOf(partner.id)).length], [1, 1]);
  });

  test('4111 when any of them is a member', async () => {
    const { partner, token } = await signedInPartner(app, services);
    const { user } = await buildUser(services, { name: 'Jung Ho', phone: freshPhone() });
    const answer = await invite(token, { to_person: [['Yoon', freshPhone()], [' Jung   Ho ', user.phone]] });
    assert.deepEqual([answer.statusCode, answer.json()], [400, { code: 4111, err: 'receiver is already an user of the wallet' }]);
    assert.equal((await invitesOf(partner.id)).length, 0);
    assert.equal(await senderCount(partner.id), 0);
  });

  test('4112 past the partner\'s daily invites, all or nothing', async () => {
    const { partner, token } = await signedInPartner(app, services);
    const five = Array.from({ length: 5 }, (_, index) => [`Person ${index}`, freshPhone()]);
    const refused = await invite(token, { to_person: five });
    assert.deepEqual([refused.statusCode, refused.json()], [400, { code: 4112, err: 'sender daily limit exceeded' }]);
    assert.equal((await invitesOf(partner.id)).length, 0);
    assert.equal(await senderCount(partner.id), 0);
    assert.deepEqual((await invite(token, { to_person: five.slice(0, 4) })).json(), { invited: 4 });
    assert.equal((await invite(token, { to_person: five.slice(4) })).json().code, 4112);
  });

  test('malformed bodies and pairs answer 400', async () => {
    const { token } = await signedInPartner(app, services);
    for (const body of [{}, { to_person: [] }, { to_person: Array.from({ length: 101 }, () => ['A', freshPhone()]) }, { to_person: [['Kim', 'no phone']] }, { to_person: [['Kim']] }]) {
      const answer = await invite(token, body);
      assert.deepEqual([answer.statusCode, withoutMessage(answer.json())], [400, { code: 400, err: 'bad request' }], JSON.stringify(body).slice(0, 80));
      assert.match(answer.json().message, /to_person/, JSON.stringify(body).slice(0, 80));
    }
  });

  test('without a token: 4003, and nothing happens', async () => {
    const phone = freshPhone();
    const answer = await invite(undefined, { to_person: [['Kim', phone]] });
    assert.deepEqual([answer.statusCode, answer.json()], [401, { code: 4003, err: 'fail to get authorization in header' }]);
    assert.equal((await db().selectFrom('person_invites').select('id').where('phone', '=', e164(phone)).execute()).length, 0);
  });
});
