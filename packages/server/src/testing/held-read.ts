import type { KyselyPlugin, QueryResult, UnknownRow } from 'kysely';

/**
 * A Kysely plugin (for `db.withPlugin`) that, once armed, holds the next read whose first row
 * `matches` picks until released: a test orders that read against other work instead of leaving
 * the order to timing. A held read holds its connection: on SQLite, the store's only one.
 */
export interface HeldRead {
  plugin: KyselyPlugin;
  /** Holds the next matching read from now on; resolves with its first row once it is held. */
  arm(): Promise<UnknownRow>;
  /** Lets the held read (or the next one, if none is held yet) go on. */
  release(): void;
}

export function heldRead(matches: (row: UnknownRow) => boolean): HeldRead {
  let onHeld: ((row: UnknownRow) => void) | undefined;
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    plugin: {
      transformQuery: ({ node }) => node,
      async transformResult({ result }): Promise<QueryResult<UnknownRow>> {
        const row = result.rows[0];
        if (onHeld && row && matches(row)) {
          const held = onHeld;
          onHeld = undefined;
          held(row);
          await released;
        }
        return result;
      },
    },
    arm: () => new Promise<UnknownRow>((resolve) => (onHeld = resolve)),
    release,
  };
}
