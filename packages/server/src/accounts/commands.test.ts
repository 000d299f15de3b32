import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listOperatorActions } from '../audit/store.ts';
import { buildPartner, buildUser } from '../testing/factories.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { setAccountStatus, setMintLimit, type AccountStatusName } from './commands.ts';

/**
 * Walks the audit entries of one target from the first value on, each entry's `before` being the
 * one the entry before it left; answers the value the last left.
 */
function followChain(entries: Array<{ before: Record<string, unknown>; after: Record<string, unknown> }>, field: string, first: unknown): unknown {
  const left = [...entries];
  let current = first;
  while (left.length > 0) {
    const next = left.findIndex((entry) => entry.before[field] === current);
    assert.ok(next >= 0, `no entry changes ${field} from ${String(current)}: ${JSON.stringify(left)}`);
    current = left.splice(next, 1)[0]!.after[field];
  }
  return current;
}

describe('operator changes of one account made at once', () => {
  let services: TestServices;
  before(async () => {
    services = await openTestServices();
  });
  after(() => services?.cleanup());

  const deps = () => ({ db: services.store.db, phoneDefaultCountry: services.config.phoneDefaultCountry });
  const entriesOf = async (target: string) =>
    (await listOperatorActions(services.store.db, { limit: 100 })).entries.filter((entry) => entry.target === target) as unknown as Array<{
      before: Record<string, unknown>;
      after: Record<string, unknown>;
    }>;

  test("status changes: each audit entry's before is the status the change before it left", async () => {
    const { user } = await buildUser(services);
    const statuses: AccountStatusName[] = ['banned', 'suspended', 'unsubscribed'];
    await Promise.all(statuses.map((status, index) => setAccountStatus(deps(), 'member', { by: { email: user.email }, status, actor: `operator-${index}` })));
    const entries = await entriesOf(`member ${user.email}`);
    assert.equal(entries.length, statuses.length);
    const last = followChain(entries, 'status', 'active');
    const row = await services.store.db.selectFrom('users').select('status').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.status, { banned: 421, suspended: 422, unsubscribed: 423 }[last as 'banned']);
  });

  test("mint limit changes: each audit entry's before is the limit the change before it left", async () => {
    const { partner } = await buildPartner(services);
    const limits = [10, 20, 30, 40, 50];
    await Promise.all(limits.map((mintLimit, index) => setMintLimit(deps(), { by: { email: partner.email }, mintLimit, actor: `operator-${index}` })));
    const entries = await entriesOf(`partner ${partner.email}`);
    assert.equal(entries.length, limits.length);
    const last = followChain(entries, 'mint_limit', partner.mint_limit);
    const row = await services.store.db.selectFrom('partners').select('mint_limit').where('id', '=', partner.id).executeTakeFirstOrThrow();
    assert.equal(row.mint_limit, last);
  });
});
