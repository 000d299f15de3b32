import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestStore } from '../../testing/test-store.ts';
import { memberClaimsQuery } from './store.ts';

test("a member's claimed links are read along their index, not by reading every claim link (SQLite's plan)", async () => {
  const { store, cleanup } = await openTestStore('sqlite');
  try {
    for (const after of [undefined, [1_700_000_000_000, 'claim-id']]) {
      const compiled = memberClaimsQuery(store.db, 'member-id', 21, after).compile();
      const plan = await store.db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
      const details = plan.rows.map((row) => row.detail).join('\n');
      assert.match(details, /SEARCH e USING (COVERING )?INDEX escrow_claims_member \(claimed_by=/, details);
      assert.doesNotMatch(details, /SCAN e\b/, details);
      assert.doesNotMatch(details, /TEMP B-TREE/, `no sort: the index gives the order\n${details}`);
    }
  } finally {
    await cleanup();
  }
});
