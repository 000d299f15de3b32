/**
 * Reads on request paths and frequent loops over tables that grow without bound go along an index
 * (SQLite's plans; PostgreSQL has the same indexes, migration 027): none reads its whole table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { purgeRequests } from '../a2a/requests/store.ts';
import { pendingAccountNonces } from '../metrics/store.ts';
import { OutboxStore } from '../outbox/store.ts';
import { findInvitesOfWallet } from '../people/store.ts';
import { inviteAwaitsWallet, markPersonInvitesUsed } from '../users/store.ts';
import { hasSentTo } from '../wallet-app/store.ts';
import { tokensSeenBy } from '../wallet-app/home/store.ts';
import { listCardTransfersOf, listMemberClaims, listUnfinishedCardSendsBy, namesOf } from '../wallet-app/activity/store.ts';
import { deleteFinishedMessagesBefore, listDeliveries } from '../webhooks/store.ts';
import { deleteKeysBefore } from '../partner-api/idempotency/store.ts';
import { wipeClaimSecretsBefore } from '../custody/store.ts';
import { sqlitePlansOf } from '../testing/query-plans.ts';
import { openTestStore, type TestStore } from '../testing/test-store.ts';
import type { Db } from './database.ts';

const address = `0x${'a'.repeat(40)}`;
const person = { name: 'Kim', phone: '+821012345678' };

describe('reads along an index (SQLite plans)', () => {
  let testStore: TestStore;
  before(async () => {
    testStore = await openTestStore('sqlite');
  });
  after(() => testStore?.cleanup());

  /** The plan of each query `work` runs, joined; asserts none scans one of `tables` whole. */
  async function plansOf(tables: string[], work: (db: Db) => Promise<unknown>): Promise<string> {
    const plans = await sqlitePlansOf(testStore.store, work);
    assert.ok(plans.length > 0, 'the work ran a query');
    const all = plans.map(({ sql, plan }) => `${sql}\n${plan}`).join('\n\n');
    for (const table of tables) assert.doesNotMatch(all, new RegExp(`SCAN ${table}\\b(?! USING)`), all);
    return all;
  }

  test("the wallet app's activity: a member's claimed links, newest first, without a sort", async () => {
    for (const after of [undefined, [1_700_000_000_000, 'claim-id']]) {
      const plan = await plansOf(['e', 'escrow_claims'], (db) => listMemberClaims(db, 'member-id', 21, after));
      assert.match(plan, /SEARCH e USING (COVERING )?INDEX escrow_claims_member \(claimed_by=/, plan);
      assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
    }
  });

  test("the wallet app's activity: an address's card transfers, newest first, without sorting all of them", async () => {
    for (const after of [undefined, [1_700_000_000, `0x${'1'.repeat(64)}`, 3]]) {
      const plan = await plansOf(['indexed_card_transfers'], (db) => listCardTransfersOf(db, address, 21, after));
      const bound = after ? ' AND block_time<\\?' : '';
      assert.match(plan, new RegExp(`SEARCH indexed_card_transfers USING INDEX card_transfers_from_time \\(from_address=\\?${bound}\\)`), plan);
      assert.match(plan, new RegExp(`SEARCH indexed_card_transfers USING INDEX card_transfers_to_time \\(to_address=\\?${bound}\\)`), plan);
      // Each side read in the list's order up to its page; only the pages are sorted when merged.
      assert.doesNotMatch(plan, /USING INDEX card_transfers_\w+ \([^)]*\)\nUSE TEMP B-TREE/, plan);
    }
  });

  test("the wallet app's activity: an address's unfinished card sends, without reading its finished ones", async () => {
    for (const after of [undefined, [1_700_000_000_000, 'row-id']]) {
      const plan = await plansOf(['o', 'outbox_transactions'], (db) => listUnfinishedCardSendsBy(db, address, 21, after));
      assert.match(plan, new RegExp(`SEARCH o USING INDEX outbox_unfinished_card_sends \\(from_address=\\?${after ? ' AND created_ms<\\?' : ''}\\)`), plan);
      assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
    }
  });

  test("the request view: whether the member ever sent to an address, without reading her history", async () => {
    const plan = await plansOf(['outbox_transactions'], (db) => hasSentTo(db, 'main', address, `0x${'b'.repeat(40)}`));
    assert.match(plan, /SEARCH outbox_transactions USING (COVERING )?INDEX outbox_from_to \(from_address=\? AND to_address=\? AND chain=\?\)/, plan);
  });

  test("the wallet app's home: the tokens a member sent, without reading her other requests and sends", async () => {
    const plan = await plansOf(['a2a_requests', 'member_transfers'], (db) => tokensSeenBy(db, 'member-id'));
    assert.match(plan, /SEARCH a2a_requests USING INDEX a2a_requests_token_sends \(user_id=\?\)/, plan);
    assert.match(plan, /SEARCH member_transfers USING COVERING INDEX member_transfers_tokens \(user_id=\?\)/, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
  });

  test("the wallet app's activity: who the counterparties are", async () => {
    const plan = await plansOf(['users', 'reserved_wallets', 'escrow_claims'], (db) => namesOf(db, [address, `0x${'b'.repeat(40)}`]));
    assert.match(plan, /SEARCH users USING INDEX users_main_address/, plan);
    assert.match(plan, /SEARCH reserved_wallets USING INDEX reserved_wallets_address/, plan);
    assert.doesNotMatch(plan, /escrow_claims/, 'escrow contracts are read from the settings');
  });

  test("the outbox's rewind watch and its check after a rewind: a chain's mined rows above a height, newest first", async () => {
    const plan = await plansOf(['outbox_transactions'], async (db) => {
      const outbox = new OutboxStore({ ...testStore.store, db });
      await outbox.minedAbove('main', 1_000, 500);
      await outbox.minedPage('main', undefined, 500);
      await outbox.minedPage('main', { blockNumber: 1_000, id: 'id' }, 500);
    });
    assert.match(plan, /SEARCH outbox_transactions USING INDEX outbox_status_block \(status=\? AND chain=\? AND block_number>\?\)/, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
  });

  test('/metrics: the accounts with transactions waiting for a receipt', async () => {
    const plan = await plansOf(['outbox_transactions', 'account_nonces', 'n'], (db) => pendingAccountNonces(db, 100));
    assert.match(plan, /SEARCH outbox_transactions USING (COVERING )?INDEX outbox_status_block \(status=\?\)/, plan);
    assert.match(plan, /SEARCH n USING INDEX sqlite_autoindex_account_nonces_1 \(chain=\? AND address=\?\)/, plan);
  });

  test("B1's purge of finished and expired requests", async () => {
    const plan = await plansOf(['a2a_requests'], (db) => purgeRequests(db, 86_400, 1_700_000_000));
    assert.match(plan, /MULTI-INDEX OR/, plan);
    assert.match(plan, /INDEX a2a_requests_finished \(finished_at<\?\)/, plan);
  });

  test("a member's sign-up: the invites of her phone and name, and of a reserved wallet", async () => {
    const plan = await plansOf(['person_invites'], async (db) => {
      await inviteAwaitsWallet(db, person, 0);
      await db.transaction().execute((trx) => markPersonInvitesUsed(trx, person, 1));
      await findInvitesOfWallet(db, 'wallet-id');
    });
    assert.match(plan, /SEARCH person_invites USING INDEX person_invites_person \(phone=\? AND name=\?\)/, plan);
    assert.match(plan, /SEARCH person_invites USING INDEX person_invites_wallet \(reserved_wallet_id=\?\)/, plan);
  });

  test("a partner's delivery log of one endpoint, newest first", async () => {
    const plan = await plansOf(['webhook_messages'], (db) => listDeliveries(db, 'endpoint-id', 20));
    assert.match(plan, /SEARCH webhook_messages USING INDEX webhook_messages_endpoint \(endpoint_id=\?\)/, plan);
  });

  test('the hourly purges: old Idempotency-Keys, the claim secrets kept for their retries, finished webhook messages', async () => {
    const plan = await plansOf(['partner_idempotency_keys', 'escrow_claims', 'webhook_messages', 'webhook_attempts', 'webhook_message_subjects'], async (db) => {
      await deleteKeysBefore(db, 1_700_000_000_000, 1_700_000_100_000);
      await wipeClaimSecretsBefore(db, 1_700_000_000_000);
      await deleteFinishedMessagesBefore(db, 1_700_000_000_000);
    });
    assert.match(plan, /SEARCH partner_idempotency_keys USING INDEX partner_idempotency_keys_created \(created_at_ms<\?\)/, plan);
    assert.match(plan, /SEARCH escrow_claims USING INDEX escrow_claims_kept_secrets \(created_ms<\?\)/, plan);
    assert.match(plan, /SEARCH webhook_messages USING INDEX webhook_messages_finished \(status=\? AND created_at_ms<\?\)/, plan);
    assert.doesNotMatch(plan, /webhook_messages_due/, plan);
  });
});
