import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './schema.ts';

// Not database.ts's Db: that module sends the statements named here (an import circle otherwise).
type Db = Kysely<Database>;

/**
 * Where one of a prepared query's values goes. It refuses to become text, so that a value built
 * into the SQL itself (rather than passed as a parameter) fails when the query is first compiled.
 */
class Slot {
  constructor(readonly name: string) {
    Object.freeze(this);
  }
  toString(): never {
    throw new Error(`preparedQuery: the value "${this.name}" was made part of the SQL text; pass it as a parameter`);
  }
  [Symbol.toPrimitive](): never {
    return this.toString();
  }
}

/**
 * Statement names of prepared queries' SQL. The PostgreSQL pool's clients send such SQL as a named
 * statement (store/database.ts), which the server parses and plans once per connection rather than
 * at every call. Not a query that selects `*`: a statement kept so fails ("cached plan must not
 * change result type") once its table gains a column.
 */
const statementNames = new Map<string, string>();

/**
 * Every column of a row, named, for a prepared query to select instead of `*` (kept parsed on
 * PostgreSQL, above); `columns`' type makes the list complete.
 */
export function columnsOf<Row>(columns: Record<keyof Row, true>): Array<keyof Row> {
  return Object.keys(columns) as Array<keyof Row>;
}

/** The name a prepared query's SQL is sent under on PostgreSQL, if it is one. */
export function statementNameOf(sql: string): string | undefined {
  return statementNames.get(sql);
}

interface Template {
  sql: string;
  /** Per parameter: the name of the value it takes, or undefined for a constant of the query. */
  slots: Array<string | undefined>;
  constants: readonly unknown[];
}

/**
 * A query built and compiled once per dialect, then run with each call's values as its parameters.
 * Kysely builds and compiles a query anew each time it runs: 0.05 to 0.15 ms of CPU a query, about
 * 1 ms of an A7 call's ten statements; a prepared one costs only its run, and on PostgreSQL the
 * server parses and plans it once per connection (below). The hot statements of
 * the outbox and of A7 are prepared (docs/performance.md, "Queries compiled once").
 *
 * `fields` names every value (`{ id: true }`; for a row, every column, which the type checks), and
 * `build` makes the query from them. `build` runs once, with stand-ins for the values, so the
 * query's shape must not depend on them: no branching on a value, no `in` list of values, every
 * value a parameter (one made part of the SQL text throws, and so does a value the query leaves
 * out). A value of a call that is missing is sent as null. Name the columns a query answers rather
 * than select `*`, so that PostgreSQL keeps it parsed.
 */
export function preparedQuery<Values extends Record<string, unknown>, Row>(
  fields: { [Name in keyof Values]-?: true },
  build: (db: Db, values: Values) => Compilable<Row>,
): (db: Db, values: Values) => Promise<QueryResult<Row>> {
  const names = Object.keys(fields);
  // One per dialect: a transaction shares its database's adapter.
  const templates = new WeakMap<object, Template>();
  const templateFor = (db: Db): Template => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (!template) {
      const stand = Object.fromEntries(names.map((name) => [name, new Slot(name)])) as unknown as Values;
      const compiled = build(db, stand).compile();
      const slots = compiled.parameters.map((parameter) => (parameter instanceof Slot ? parameter.name : undefined));
      const unused = names.filter((name) => !slots.includes(name));
      if (unused.length > 0) throw new Error(`preparedQuery: ${unused.join(', ')} not among the parameters of: ${compiled.sql}`);
      template = { sql: compiled.sql, slots, constants: compiled.parameters };
      if (!compiled.sql.includes('*') && !statementNames.has(compiled.sql)) statementNames.set(compiled.sql, `wallet_prepared_${statementNames.size + 1}`);
      templates.set(adapter, template);
    }
    return template;
  };
  // Async so that a query refused when first compiled is a rejection; the statement is still made
  // before it returns (OutboxSubmission.alongsideStatements).
  return async (db, values) => {
    const { sql, slots, constants } = templateFor(db);
    const parameters = slots.map((name, index) => (name === undefined ? constants[index] : (values[name] ?? null)));
    return db.executeQuery(CompiledQuery.raw(sql, parameters) as CompiledQuery<Row>);
  };
}
