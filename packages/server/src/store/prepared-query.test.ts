import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { availableTestStoreKinds, createTestSchema, openTestStore } from '../testing/test-store.ts';
import { openStore } from './database.ts';
import { preparedQuery, statementNameOf } from './prepared-query.ts';

const upsertSetting = preparedQuery({ key: true, value: true }, (db, { key, value }: { key: string; value: string }) =>
  db
    .insertInto('service_settings')
    .values({ key, value })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
    .returning(['key', 'value']),
);
// A constant of the query ('settled:%') stays as it was; the same value twice takes both places.
const settledLike = preparedQuery({ prefix: true }, (db, { prefix }: { prefix: string }) =>
  db
    .selectFrom('service_settings')
    .select(['key', 'value'])
    .where('key', 'like', 'settled:%')
    .where(sql<boolean>`substr(key, 1, length(${prefix})) = ${prefix}`)
    .orderBy('key'),
);

for (const kind of availableTestStoreKinds()) {
  describe(`prepared queries on ${kind}`, () => {
    test('run with each call\'s values, in and out of transactions, as the query builder would', async () => {
      const { store, cleanup } = await openTestStore(kind);
      try {
        assert.deepEqual((await upsertSetting(store.db, { key: 'settled:a', value: '1' })).rows, [{ key: 'settled:a', value: '1' }]);
        assert.deepEqual((await upsertSetting(store.db, { key: 'settled:a', value: '2' })).rows, [{ key: 'settled:a', value: '2' }]);
        await store.db.transaction().execute(async (trx) => {
          await upsertSetting(trx, { key: 'settled:b', value: '3' });
          await upsertSetting(trx, { key: 'other:c', value: '4' });
        });
        // A transaction that fails takes its prepared statements back with it.
        await assert.rejects(
          store.db.transaction().execute(async (trx) => {
            await upsertSetting(trx, { key: 'settled:d', value: '5' });
            throw new Error('undone');
          }),
          /undone/,
        );
        assert.deepEqual((await settledLike(store.db, { prefix: 'settled:' })).rows, [
          { key: 'settled:a', value: '2' },
          { key: 'settled:b', value: '3' },
        ]);
        assert.deepEqual((await settledLike(store.db, { prefix: 'other' })).rows, []);
        const stored = await store.db.selectFrom('service_settings').select(['key', 'value']).where('key', 'in', ['settled:a', 'settled:b', 'other:c', 'settled:d']).orderBy('key').execute();
        assert.deepEqual(stored, [
          { key: 'other:c', value: '4' },
          { key: 'settled:a', value: '2' },
          { key: 'settled:b', value: '3' },
        ]);
      } finally {
        await cleanup();
      }
    });
  });
}

test('a query whose value becomes SQL text, or that leaves a value out, is refused when first compiled', async () => {
  const { store, cleanup } = await openTestStore('sqlite');
  try {
    const asText = preparedQuery({ key: true }, (db, { key }: { key: string }) => db.selectFrom('service_settings').selectAll().where('key', '=', `settled:${key}`));
    await assert.rejects(asText(store.db, { key: 'a' }), /the value "key" was made part of the SQL text/);
    const leftOut = preparedQuery({ key: true, value: true }, (db, { key }: { key: string; value: string }) => db.selectFrom('service_settings').selectAll().where('key', '=', key));
    await assert.rejects(leftOut(store.db, { key: 'a', value: 'b' }), /value not among the parameters/);
  } finally {
    await cleanup();
  }
});

const allSettings = preparedQuery({ key: true }, (db, { key }: { key: string }) => db.selectFrom('service_settings').selectAll().where('key', '=', key));

test('on PostgreSQL a prepared query naming its columns is parsed once per connection, and still answers after its table gains a column', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, async () => {
  const schema = await createTestSchema();
  // One connection, so that every query below runs on the one whose statements are read.
  const store = await openStore({ databaseUrl: schema.databaseUrl, postgresSchema: schema.schema, sqlitePath: '', poolSize: 1 });
  try {
    await upsertSetting(store.db, { key: 'settled:a', value: '1' });
    await upsertSetting(store.db, { key: 'settled:a', value: '2' });
    await allSettings(store.db, { key: 'settled:a' });
    const statements = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(store.db);
    const upsertSql = statements.rows.find((row) => row.statement.startsWith('insert into "service_settings"'));
    assert.ok(upsertSql, JSON.stringify(statements.rows));
    assert.equal(statementNameOf(upsertSql.statement), upsertSql.name);
    assert.match(upsertSql.name, /^wallet_prepared_\d+$/);
    // A query that selects `*` is not kept: it would fail once the table gains a column.
    assert.ok(!statements.rows.some((row) => row.statement.includes('*')), JSON.stringify(statements.rows));

    await sql`alter table service_settings add column note text`.execute(store.db);
    assert.deepEqual((await upsertSetting(store.db, { key: 'settled:a', value: '3' })).rows, [{ key: 'settled:a', value: '3' }]);
    assert.deepEqual((await allSettings(store.db, { key: 'settled:a' })).rows, [{ key: 'settled:a', value: '3', note: null }]);
  } finally {
    await store.close();
    await schema.drop();
  }
});
