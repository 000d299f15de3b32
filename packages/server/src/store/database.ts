import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type DialectAdapter,
  type SqliteDatabase as KyselySqliteDatabase,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { GroupCommit } from './group-commit.ts';
import { pipelinedTransactions } from './pipelined-transaction.ts';
import { statementNameOf } from './prepared-query.ts';
import { createPrivateFile, makePrivateDirectory } from '../lib/private-files.ts';
import { migrationProvider, type StoreDialect } from './migrations/index.ts';

export type Db = Kysely<Database>;
export type DbTransaction = Transaction<Database>;

export interface StoreOptions {
  /** PostgreSQL connection string; when absent the embedded SQLite file is used. */
  databaseUrl?: string | undefined;
  /** Path of the SQLite file (ignored with databaseUrl). */
  sqlitePath: string;
  /** PostgreSQL schema to use (tests isolate themselves in one schema each). */
  postgresSchema?: string | undefined;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
}

export interface Store {
  db: Db;
  dialect: StoreDialect;
  /**
   * Runs `work` in a transaction of its own on PostgreSQL; on SQLite, work that arrives together
   * shares one commit, each piece in its own savepoint (see GroupCommit). For short, hot write
   * transactions of calls that run many at a time.
   */
  groupCommit<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in a transaction whose commit need not wait for the disk: it does not (an fsync
   * less; `synchronous_commit = off` on PostgreSQL), so a power cut or a crash of the database
   * server can lose it whole, a crash of the process cannot, and the next commit that waits makes it
   * durable too. Only for writes the service makes again from the chain when they are missing, such
   * as the receipt of a transaction stored before it was sent.
   */
  unsyncedTransaction<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs reads whose answers a caller shows together as of one moment (a count beside the rows it
   * counts), through the `db` it is given. On PostgreSQL each statement otherwise reads the database
   * as of its own start, so a commit between two (the card index moving a card and its holder's
   * count) shows half done: here they share one read-only REPEATABLE READ transaction. On SQLite
   * they share the store's one connection in a deferred transaction, which also keeps out other
   * processes' commits; every other query of the process waits meanwhile, so `work` must read
   * nothing through the store's own `db` (it would wait for itself) and be quick.
   */
  readSnapshot<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** Answers when the store is reachable; used by /health. */
  ping(): Promise<void>;
  /**
   * PostgreSQL only: calls `onPayload` with the payload of every NOTIFY on `channel`, from any
   * process, over a connection of its own (reconnected when it drops) until the returned close().
   */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<Listening>;
  /**
   * SQLite only: SQLite's `data_version`, which changes when another connection (another process,
   * the CLI) commits to the file, and never for this connection's own commits.
   */
  dataVersion?(): number;
  /**
   * SQLite only: calls `onCall` with the argument whenever SQL run on this connection calls the
   * function `name` (one argument), such as a temporary trigger announcing this process's own
   * writes, synchronously, in the statement that writes. Returns what stops it.
   */
  onFunctionCall?(name: string, onCall: (argument: string) => void): () => void;
  /** SQLite only: a consistent copy of the database at `path` while it is in use (SQLite's online backup). */
  backupTo?(path: string): Promise<void>;
  close(): Promise<void>;
}

/** A LISTEN under way (Store.listen). */
export interface Listening {
  close(): Promise<void>;
  /**
   * The connection listening now, as a number that changes at every reconnection, or null while
   * none is: announcements are missed only between two connections.
   */
  connection(): number | null;
  /**
   * A round trip on the listening connection, begun after the call: PostgreSQL sends a listening
   * connection the announcements of every transaction committed before a query it runs ahead of that
   * query's answer, so when this resolves `onPayload` has seen all of them. Resolves to the
   * connection it ran on, or null when none answered. Calls made while one is under way share the
   * next one.
   */
  caughtUp(): Promise<number | null>;
}

const INT8_OID = 20;

/** Opens the store and brings its schema up to date. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const store = options.databaseUrl ? openPostgres(options) : openSqlite(options.sqlitePath);
  try {
    await migrate(store, options.postgresSchema);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

const require = createRequire(import.meta.url);

/**
 * better-sqlite3 13 is built on Node-API 10 (Node.js 22.14 and later) and ships prebuilt for every
 * platform, so it loads on any such Node.js without a build. Node.js 20 has Node-API 9: there the
 * store uses better-sqlite3 12 (the optional dependency better-sqlite3-node20), built by npm install
 * (scripts/postinstall.mjs) for the Node.js that ran it. 12 cannot serve every line: built for
 * Node.js 24.19 or later it aborts the process when a statement is garbage-collected
 * (nodejs/node#65446).
 */
export function sqliteDriver(napiVersion = Number(process.versions.napi)): typeof SqliteDatabase {
  const name = napiVersion >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20';
  try {
    return require(name) as typeof SqliteDatabase;
  } catch (error) {
    throw new Error(
      `the SQLite store needs ${name} on Node.js ${process.version}, which did not load; run npm install under this Node.js and read its output (${(error as Error).message})`,
    );
  }
}

function openSqlite(path: string): Store {
  // Created owner-only before SQLite opens it: its WAL, shared-memory and journal files take its mode.
  makePrivateDirectory(dirname(path));
  createPrivateFile(path);
  const Driver = sqliteDriver();
  const database = new Driver(path);
  // WAL with synchronous=FULL: an answered commit survives power loss; readers never block the writer.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new MigratedAtomicallySqliteDialect({ database: withStatementCache(database) }) });
  const group = new GroupCommit(db);
  const dataVersion = database.prepare('pragma data_version').pluck();
  const functionCalls = new Map<string, Set<(argument: string) => void>>();
  return {
    db,
    dialect: 'sqlite',
    groupCommit: (work) => group.run(work),
    // synchronous=NORMAL for this commit alone: WAL frames written, not synced. The store's one
    // connection is this call's from before the setting to after it is put back, so no other
    // commit runs under it.
    unsyncedTransaction: (work) =>
      db.connection().execute(async (connection) => {
        database.pragma('synchronous = NORMAL');
        try {
          return await connection.transaction().execute(work);
        } finally {
          database.pragma('synchronous = FULL');
        }
      }),
    readSnapshot: (work) =>
      db.connection().execute(async (connection) => {
        // Not `begin`, which this store makes `begin immediate`: reads need no write lock.
        await sql`begin deferred`.execute(connection);
        try {
          const result = await work(connection);
          await sql`commit`.execute(connection);
          return result;
        } catch (error) {
          await sql`rollback`.execute(connection);
          throw error;
        }
      }),
    async ping() {
      database.prepare('select 1').get();
    },
    dataVersion: () => dataVersion.get() as number,
    onFunctionCall(name, onCall) {
      let callers = functionCalls.get(name);
      if (!callers) {
        const registered = new Set<(argument: string) => void>();
        functionCalls.set(name, (callers = registered));
        database.function(name, { deterministic: false, varargs: false }, (argument: unknown) => {
          for (const caller of registered) caller(String(argument));
          return null;
        });
      }
      callers.add(onCall);
      const registered = callers;
      return () => registered.delete(onCall);
    },
    async backupTo(path: string) {
      createPrivateFile(path);
      await database.backup(path);
    },
    close: () => db.destroy(),
  };
}

/**
 * SQLite's DDL is transactional, but Kysely's adapter says it is not, so its Migrator would run every
 * statement of every migration in a commit of its own: a crash between two left a migration half
 * made that the next start could not finish ("table already exists"), and each of those commits
 * waited on an fsync (about a hundred in all on a new file). Saying so runs every pending migration
 * in one transaction, as on PostgreSQL. The flag is read by the Migrator alone.
 */
class MigratedAtomicallySqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }
}

/** Statements kept compiled, by SQL text; past this many the least recently used is dropped. */
const STATEMENT_CACHE_SIZE = 300;

/**
 * Kysely's SQLite driver prepares every query anew; the outbox and the APIs run the same few
 * statements over and over, so compiled statements are kept and reused (better-sqlite3 statements
 * are reusable, and SQLite re-prepares one itself after a schema change).
 */
function withStatementCache(database: SqliteDatabase.Database): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(query: string) {
      // Kysely opens every transaction with a deferred `begin`: in WAL mode one that reads first and
      // writes later fails with SQLITE_BUSY_SNAPSHOT when another connection (another process on
      // the data directory) committed in between. `begin immediate` takes the write lock at the
      // start, waiting for it under busy_timeout instead.
      const text = query === 'begin' ? 'begin immediate' : query;
      let statement = cache.get(text);
      if (statement) {
        cache.delete(text);
      } else {
        statement = database.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(text, statement);
      return statement;
    },
  };
}

/**
 * The pool's client: a prepared query's SQL (store/prepared-query.ts) goes out as a named statement,
 * parsed and planned once per connection. Kysely sends every query as `query(sql, parameters)`.
 */
class NamedStatementClient extends pg.Client {
  override query(...args: unknown[]): never {
    const query = super.query as (...args: unknown[]) => never;
    const [text, values] = args;
    const name = args.length === 2 && typeof text === 'string' ? statementNameOf(text) : undefined;
    return name ? query.call(this, { name, text, values }) : query.apply(this, args);
  }
}

function openPostgres(options: StoreOptions): Store {
  const schema = options.postgresSchema;
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize ?? 10,
    // A client writes each query on the wire at once, without waiting for the answer to the one
    // before: the store's transactions send statements that do not wait on each other together
    // (pipelinedTransactions). Kysely's own use, a query at a time, is unchanged.
    pipeline: true,
    Client: NamedStatementClient,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    // Block numbers and millisecond times are int8; they fit a JS number.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as never,
    },
  });
  const dialect = new PostgresDialect({ pool });
  const db = new Kysely<Database>({ dialect });
  const transaction = pipelinedTransactions(db, dialect);
  return {
    db,
    dialect: 'postgres',
    // A commit there does not hold the event loop, and the pool runs several at once.
    groupCommit: transaction,
    // `set local synchronous_commit = off` goes out behind `begin`: a crash of the server may lose
    // the commit, never a part of it, and a later commit that waits flushes it with its own.
    unsyncedTransaction: pipelinedTransactions(db, dialect, { synchronousCommit: false }),
    readSnapshot: (work) => db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work),
    async ping() {
      await pool.query('select 1');
    },
    listen: (channel, onPayload) => listenPostgres(options, channel, onPayload),
    close: () => db.destroy(),
  };
}

const LISTEN_RETRY_MS = 1_000;
/** The application_name of listening connections (followed by the schema, if any). */
export const LISTENER_NAME = 'wallet-service listener';

/**
 * LISTEN on a connection outside the pool (a pooled one would be handed to queries). A dropped
 * connection is opened again after LISTEN_RETRY_MS; what was announced meanwhile is missed, so a
 * listener must not be the only way it learns of changes.
 */
async function listenPostgres(options: StoreOptions, channel: string, onPayload: (payload: string) => void): Promise<Listening> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let closed = false;
  let client: pg.Client | undefined;
  /** Counts connections; `listening` is the current one once its LISTEN is answered. */
  let connections = 0;
  let listening: number | null = null;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      // Named, so that an operator can find it in pg_stat_activity (and a test end it).
      application_name: `${LISTENER_NAME} ${options.postgresSchema ?? ''}`.trim(),
      ...(options.postgresSchema ? { options: `-c search_path=${options.postgresSchema}` } : {}),
    });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    client = next;
    await next.connect();
    await next.query(`listen ${channel}`);
    if (client === next) listening = ++connections;
  };
  const reconnect = (failed: pg.Client) => {
    if (client === failed) listening = null;
    if (closed || client !== failed || retry) return;
    client = undefined;
    failed.end().catch(() => {});
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => reconnect(client!));
    }, LISTEN_RETRY_MS);
    retry.unref();
  };
  const roundTrip = async (): Promise<number | null> => {
    const on = client;
    const connection = listening;
    if (!on || connection === null) return null;
    try {
      await on.query('select 1');
    } catch {
      return null;
    }
    return listening === connection ? connection : null;
  };
  let underWay: Promise<number | null> | undefined;
  let queued: Promise<number | null> | undefined;
  const caughtUp = (): Promise<number | null> => {
    if (!underWay) return (underWay = roundTrip().finally(() => (underWay = undefined)));
    // One begun before this call may have missed what was committed just before it: the next one.
    return (queued ??= underWay.then(() => {
      queued = undefined;
      return caughtUp();
    }));
  };
  await connect();
  return {
    connection: () => listening,
    caughtUp,
    async close() {
      closed = true;
      listening = null;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

async function migrate(store: Store, postgresSchema: string | undefined): Promise<void> {
  // On PostgreSQL the migration tables live in the store's own schema; otherwise Kysely would take
  // another schema's tables (found on the search path) for this one's.
  const migrationTableSchema =
    store.dialect === 'postgres'
      ? (postgresSchema ?? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]!.schema)
      : undefined;
  const provider = migrationProvider({ dialect: store.dialect });
  if (await hasRunExactly(store, migrationTableSchema, Object.keys(await provider.getMigrations()))) return;
  const migrator = new Migrator({
    db: store.db,
    provider,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  let outcome = await migrator.migrateToLatest();
  // Kysely's introspection reads the catalog of every schema of the database, and PostgreSQL
  // answers "schema", "relation" or "column does not exist" when another schema's tables are
  // dropped at that moment: a passing race with someone else's schema, so the migration is tried again.
  for (let attempt = 1; attempt < 5 && isCatalogRace(outcome.error); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    outcome = await migrator.migrateToLatest();
  }
  const { error, results } = outcome;
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`store migration${failed ? ` ${failed.migrationName}` : 's'} failed: ${String((error as Error)?.message ?? error)}`, {
      cause: error,
    });
  }
}

/**
 * Whether the store has run exactly these migrations, read in one query. Kysely's Migrator finds the
 * same, but only after reading the catalog of every table of the database twice (about 200 ms
 * on PostgreSQL), at every start of the service and every CLI command. Anything else (no migration
 * table, one missing, one this version does not know) is left to the Migrator.
 */
async function hasRunExactly(store: Store, schema: string | undefined, names: string[]): Promise<boolean> {
  try {
    const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration');
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(store.db);
    const ran = new Set(rows.map((row) => row.name));
    return ran.size === names.length && names.every((name) => ran.has(name));
  } catch {
    return false;
  }
}

/** Errors of a catalog read racing another schema's drop: invalid schema, undefined table or column. */
export function isCatalogRace(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === '3F000' || code === '42P01' || code === '42703';
}

/** Current time in Unix epoch seconds, the unit of every `*_at` column. */
export function epochSeconds(date?: Date): number {
  // No Date made for the current time: B3 polls ask at every request.
  return Math.floor((date ? date.getTime() : Date.now()) / 1000);
}

/** Whether a store error is a unique-constraint violation (PostgreSQL 23505, or SQLite's). */
export function isUniqueViolation(error: unknown): boolean {
  const value = error as { code?: string; message?: string };
  return value?.code === '23505' || value?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(value?.message ?? '');
}
