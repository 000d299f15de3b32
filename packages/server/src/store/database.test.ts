import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { availableTestStoreKinds, createTestSchema, openTestStore } from '../testing/test-store.ts';
import { openStore, sqliteDriver, type DbTransaction, type Store } from './database.ts';
import { storedSettingKeys } from './testing/stored-keys.ts';
import { migrationProvider } from './migrations/index.ts';
import { commitBehindSent } from './pipelined-transaction.ts';


test('SQLite statements dropped from the cache are collected, and the process exits, without an abort', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-sqlite-gc-'));
  try {
    // More distinct statements than the store keeps, then collections: each dropped statement is
    // freed by the garbage collector, as on a long-running service. Run in a child process because
    // a native abort ends the process that hits it.
    const script = `
      import { Migrator, sql } from 'kysely';
      const { openStore } = await import(${JSON.stringify(new URL('./database.ts', import.meta.url).href)});
      const store = await openStore({ sqlitePath: ${JSON.stringify(join(directory, 'wallet.db'))} });
      for (let round = 0; round < 5; round++) {
        for (let n = 0; n < 1000; n++) await sql.raw('select ' + (round * 1000 + n) + ' as n').execute(store.db);
        globalThis.gc();
      }
      await store.close();
      console.log('closed');
    `;
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('.', import.meta.url),
      encoding: 'utf8',
    });
    assert.equal(child.signal, null, child.stderr);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'closed');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a SQLite snapshot does not see another connection commit between its reads, and holds no write lock', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-sqlite-snapshot-'));
  const path = join(directory, 'wallet.sqlite');
  const store = await openStore({ sqlitePath: path });
  // Another connection to the file, as another process on the data directory would hold, that does not wait for locks.
  const other = new (sqliteDriver())(path);
  other.pragma('busy_timeout = 0');
  try {
    await store.db.insertInto('service_settings').values({ key: 'snapshot', value: 'before' }).execute();
    const read = async (db: typeof store.db) =>
      (await db.selectFrom('service_settings').select('value').where('key', '=', 'snapshot').executeTakeFirstOrThrow()).value;
    const seen = await store.readSnapshot(async (db) => {
      const first = await read(db);
      // The other connection writes at once: the snapshot took no write lock.
      other.prepare("update service_settings set value = 'other' where key = 'snapshot'").run();
      return [first, await read(db)];
    });
    assert.deepEqual(seen, ['before', 'before']);
    assert.equal(await read(store.db), 'other');
  } finally {
    other.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a SQLite transaction that reads and then writes holds the write lock from its start', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-sqlite-immediate-'));
  const path = join(directory, 'wallet.sqlite');
  const store = await openStore({ sqlitePath: path });
  // Another connection to the file, as another process on the data directory would hold, that does not wait for locks.
  const Database = sqliteDriver();
  const other = new Database(path);
  other.pragma('busy_timeout = 0');
  try {
    const settle = (key: string) => other.prepare('insert into service_settings (key, value) values (?, ?)').run(key, 'other');
    const outcome = await store.db.transaction().execute(async (trx) => {
      await trx.selectFrom('service_settings').selectAll().execute();
      let otherWrite: string;
      try {
        settle('other-during');
        otherWrite = 'committed';
      } catch (error) {
        otherWrite = (error as { code?: string }).code ?? String(error);
      }
      await trx.insertInto('service_settings').values({ key: 'mine', value: 'this transaction' }).execute();
      return otherWrite;
    });
    // The other connection could not commit in the middle; this transaction's write went through.
    assert.equal(outcome, 'SQLITE_BUSY');
    settle('other-after');
    const keys = await store.db.selectFrom('service_settings').select('key').where('key', 'in', ['mine', 'other-during', 'other-after']).orderBy('key').execute();
    assert.deepEqual(keys.map((row) => row.key), ['mine', 'other-after']);
  } finally {
    other.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
});


for (const commit of ['groupCommit', 'unsyncedTransaction'] as const) {
  test(`a process killed while it commits has stored every write it answered (${commit})`, async () => {
    const directory = mkdtempSync(join(tmpdir(), 'wallet-commit-kill-'));
    const path = join(directory, 'wallet.sqlite');
    try {
      // Writes in waves of 8 and prints each key once its commit has answered; killed with SIGKILL
      // partway, while later waves are being committed. A commit that does not wait for the disk is
      // in the operating system's hands once answered: only a power cut could lose it.
      const script = `
        const { openStore } = await import(${JSON.stringify(new URL('./database.ts', import.meta.url).href)});
        const store = await openStore({ sqlitePath: ${JSON.stringify(path)} });
        for (let wave = 0; ; wave++) {
          await Promise.all(Array.from({ length: 8 }, async (_, n) => {
            const key = 'k' + String(wave * 8 + n).padStart(6, '0');
            await store.${commit}((trx) => trx.insertInto('service_settings').values({ key, value: 'v' }).execute());
            process.stdout.write(key + '\\n');
          }));
        }
      `;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('.', import.meta.url), stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          // Enough answered writes that the kill lands among running commits.
          if (output.split('\n').filter((line) => line.startsWith('k')).length >= 200) resolve();
        });
        child.on('exit', () => reject(new Error(`the writer ended on its own: ${stderr}`)));
      });
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      const answered = output.split('\n').filter((line) => /^k\d{6}$/.test(line));
      const stored = new Set(storedSettingKeys(path));
      assert.ok(answered.length >= 200);
      assert.deepEqual(answered.filter((key) => !stored.has(key)), [], 'answered writes missing after the kill');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
}

/** Whether a commit in `trx` would wait for the disk: SQLite's synchronous=FULL, PostgreSQL's synchronous_commit=on. */
async function commitWaitsForDisk(store: Store, trx: DbTransaction): Promise<boolean> {
  if (store.dialect === 'sqlite') {
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(trx);
    return rows[0]!.synchronous === 2;
  }
  const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(trx);
  return rows[0]!.synchronous_commit === 'on';
}

for (const kind of availableTestStoreKinds()) {
  describe(`the store on ${kind}`, () => {
    test('reads of one snapshot do not see a commit made between them; reads outside one do, and a throw inside leaves the store usable', async () => {
      const { store, cleanup } = await openTestStore(kind);
      try {
        const read = async (db: typeof store.db) =>
          (await db.selectFrom('service_settings').select('value').where('key', '=', 'snapshot').executeTakeFirstOrThrow()).value;
        const setTo = (value: string) => store.db.updateTable('service_settings').set({ value }).where('key', '=', 'snapshot').execute();
        await store.db.insertInto('service_settings').values({ key: 'snapshot', value: 'before' }).execute();

        // Outside a snapshot each statement reads afresh.
        assert.equal(await read(store.db), 'before');
        await setTo('between');
        assert.equal(await read(store.db), 'between');

        let committed: Promise<unknown> | undefined;
        const seen = await store.readSnapshot(async (db) => {
          const first = await read(db);
          committed = setTo('during');
          // On PostgreSQL the commit goes through on another connection while the snapshot is open;
          // on SQLite it waits for the store's one connection, which the snapshot holds.
          if (kind === 'postgres') await committed;
          return [first, await read(db)];
        });
        assert.deepEqual(seen, ['between', 'between']);
        await committed;
        assert.equal(await read(store.db), 'during');

        await assert.rejects(
          store.readSnapshot(async (db) => {
            await read(db);
            throw new Error('refused');
          }),
          /refused/,
        );
        // Read-only on PostgreSQL.
        if (kind === 'postgres') await assert.rejects(store.readSnapshot((db) => db.deleteFrom('service_settings').execute()), /read-only/);
        await setTo('after');
        assert.equal(await store.readSnapshot(read), 'after');
      } finally {
        await cleanup();
      }
    });

    test('a transaction that need not wait for the disk is the only one: every other commit, at the same time or after, waits', async () => {
      const { store, cleanup } = await openTestStore(kind);
      try {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const order: string[] = [];
        const unsynced = store.unsyncedTransaction(async (trx) => {
          const waits = await commitWaitsForDisk(store, trx);
          await trx.insertInto('service_settings').values({ key: 'unsynced', value: 'v' }).execute();
          // Others are asked for while this one is open.
          await held;
          order.push('unsynced');
          return waits;
        });
        const others = [
          store.groupCommit(async (trx) => {
            order.push('group');
            return commitWaitsForDisk(store, trx);
          }),
          store.db.transaction().execute(async (trx) => {
            order.push('plain');
            return commitWaitsForDisk(store, trx);
          }),
        ];
        await new Promise((resolve) => setTimeout(resolve, 20));
        release();
        // Committed without an fsync: SQLite's synchronous=NORMAL, PostgreSQL's synchronous_commit=off.
        assert.equal(await unsynced, false);
        assert.deepEqual(await Promise.all(others), [true, true]);
        // On SQLite the store's one connection is the unsynced transaction's until it ends.
        if (kind === 'sqlite') assert.equal(order[0], 'unsynced');

        // A throw inside rolls its writes back and leaves the setting as it was.
        await assert.rejects(
          store.unsyncedTransaction(async (trx) => {
            await trx.insertInto('service_settings').values({ key: 'thrown', value: 'v' }).execute();
            throw new Error('refused');
          }),
          /refused/,
        );
        assert.equal(await store.db.transaction().execute((trx) => commitWaitsForDisk(store, trx)), true);
        const keys = await store.db.selectFrom('service_settings').select('key').where('key', 'in', ['unsynced', 'thrown']).execute();
        assert.deepEqual(keys.map((row) => row.key), ['unsynced']);
      } finally {
        await cleanup();
      }
    });

    test('statements a transaction makes without waiting run in the order they were made; one that fails takes the whole transaction back', async () => {
      const { store, cleanup } = await openTestStore(kind);
      try {
        // On PostgreSQL they go out together (a pipelined client): every tenth one counts the rows
        // the ones before it wrote, which only the order they were made in gives.
        const counts = await store.groupCommit((trx) =>
          Promise.all(
            Array.from({ length: 50 }, (_, index) =>
              index % 10 === 9
                ? sql<{ n: string | number }>`select count(*) as n from service_settings where key like 'order-%'`.execute(trx).then((result) => Number(result.rows[0]!.n))
                : trx.insertInto('service_settings').values({ key: `order-${String(index).padStart(2, '0')}`, value: String(index) }).execute().then(() => undefined),
            ),
          ),
        );
        assert.deepEqual(counts.filter((count) => count !== undefined), [9, 18, 27, 36, 45]);

        const settingsLike = async (pattern: string) =>
          (await store.db.selectFrom('service_settings').select(['key', 'value']).where('key', 'like', pattern).orderBy('key').execute()).map((row) => `${row.key}=${row.value}`);
        await assert.rejects(
          store.groupCommit((trx) =>
            Promise.all([
              trx.insertInto('service_settings').values({ key: 'undone-1', value: 'v' }).execute(),
              // A key stored above: the unique index refuses it, and what was sent after it fails too.
              trx.insertInto('service_settings').values({ key: 'order-00', value: 'again' }).execute(),
              trx.insertInto('service_settings').values({ key: 'undone-2', value: 'v' }).execute(),
            ]),
          ),
          /unique/i,
        );
        assert.deepEqual(await settingsLike('undone-%'), []);
        assert.deepEqual(await settingsLike('order-00'), ['order-00=0']);
        // The connection goes on serving transactions.
        await store.groupCommit((trx) => trx.insertInto('service_settings').values({ key: 'undone-after', value: 'v' }).execute());
        assert.deepEqual(await settingsLike('undone-%'), ['undone-after=v']);
      } finally {
        await cleanup();
      }
    });

    test('a commit sent behind the statements stores them all, or none when one fails; a statement made after it is refused', async () => {
      const { store, cleanup } = await openTestStore(kind);
      try {
        const settingsLike = async (pattern: string) =>
          (await store.db.selectFrom('service_settings').select('key').where('key', 'like', pattern).orderBy('key').execute()).map((row) => row.key);
        const insert = (trx: DbTransaction, key: string) => trx.insertInto('service_settings').values({ key, value: 'v' }).execute();
        await store.groupCommit(async (trx) => {
          const sent = [insert(trx, 'behind-1'), insert(trx, 'behind-2')];
          commitBehindSent(trx);
          await Promise.all(sent);
        });
        assert.deepEqual(await settingsLike('behind-%'), ['behind-1', 'behind-2']);

        // The second statement fails (a key stored above): the commit behind it takes the first back too.
        await assert.rejects(
          store.groupCommit(async (trx) => {
            const sent = [insert(trx, 'undone-behind'), insert(trx, 'behind-1')];
            commitBehindSent(trx);
            await Promise.all(sent);
          }),
          /unique/i,
        );
        assert.deepEqual(await settingsLike('undone-behind'), []);

        // On PostgreSQL the commit is on the wire: a later statement would run outside the
        // transaction, and is refused. On SQLite the commit follows the work, and it is part of it.
        const late = store.groupCommit(async (trx) => {
          const sent = insert(trx, 'before-late');
          commitBehindSent(trx);
          await sent;
          await insert(trx, 'late');
        });
        if (kind === 'postgres') await assert.rejects(late, /after its transaction was committed/);
        else await late;
        assert.deepEqual(await settingsLike('%late'), kind === 'postgres' ? ['before-late'] : ['before-late', 'late']);
        // The connection goes on serving transactions.
        await store.groupCommit((trx) => insert(trx, 'behind-after'));
        assert.deepEqual(await settingsLike('behind-%'), ['behind-1', 'behind-2', 'behind-after']);
      } finally {
        await cleanup();
      }
    });

    test('a store opened again opens as it is; one that ran a migration this version does not know is refused, naming it', async () => {
      const schema = kind === 'postgres' ? await createTestSchema() : undefined;
      const directory = mkdtempSync(join(tmpdir(), 'wallet-store-again-'));
      const options = schema
        ? { databaseUrl: schema.databaseUrl, postgresSchema: schema.schema, sqlitePath: '' }
        : { sqlitePath: join(directory, 'store.sqlite') };
      try {
        const migrated = await openStore(options);
        const ranAt = async (store: Store) =>
          (await store.db.selectFrom('kysely_migration' as never).select(['name', 'timestamp'] as never).orderBy('name' as never).execute()) as unknown as Array<{ name: string; timestamp: string }>;
        const first = await ranAt(migrated);
        assert.equal(first.length, Object.keys(await migrationProvider({ dialect: kind }).getMigrations()).length);
        await migrated.close();

        const again = await openStore(options);
        assert.deepEqual(await ranAt(again), first);
        await again.db.insertInto('kysely_migration' as never).values({ name: '999-from-a-newer-version', timestamp: new Date().toISOString() } as never).execute();
        await again.close();

        await assert.rejects(openStore(options), /^Error: store migrations failed: corrupted migrations: previously executed migration 999-from-a-newer-version is missing$/);
      } finally {
        await schema?.drop();
        rmSync(directory, { recursive: true, force: true });
      }
    });

    test('migrations that fail part way leave nothing of any of them, so the next start makes them all again', async () => {
      const { store, cleanup } = await openTestStore(kind);
      try {
        const tables = async () =>
          (kind === 'postgres'
            ? await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(store.db)
            : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(store.db)
          ).rows.map((row) => row.name);
        const before = (await tables()).sort();
        const schema = kind === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]!.schema : undefined;
        const migrator = (failing: boolean) =>
          new Migrator({
            db: store.db,
            ...(schema ? { migrationTableSchema: schema } : {}),
            // Kysely's Migrator needs every migration it has run, so the store's own come first.
            provider: {
              getMigrations: async () => ({
                ...(await migrationProvider({ dialect: kind }).getMigrations()),
                '900-first': { up: (db) => db.schema.createTable('added_first').addColumn('id', 'integer').execute() },
                '901-second': {
                  up: async (db) => {
                    await db.schema.createTable('added_second').addColumn('id', 'integer').execute();
                    if (failing) throw new Error('the second fails after its first statement');
                  },
                },
              }),
            },
          });
        const failed = await migrator(true).migrateToLatest();
        assert.match(String((failed.error as Error)?.message), /the second fails/);
        assert.deepEqual((await tables()).sort(), before);
        const ran = await store.db.selectFrom('kysely_migration' as never).select('name' as never).execute();
        assert.ok(!ran.some((row) => String((row as { name: string }).name).startsWith('90')));

        const made = await migrator(false).migrateToLatest();
        assert.equal(made.error, undefined);
        assert.deepEqual(made.results?.map((result) => [result.migrationName, result.status]), [['900-first', 'Success'], ['901-second', 'Success']]);
        assert.deepEqual((await tables()).sort(), [...before, 'added_first', 'added_second'].sort());
      } finally {
        await cleanup();
      }
    });
  });
}
