/**
 * What a CLI command's code is given and answers. Apart from the command table, so that the
 * command modules the table loads lazily do not import the table back.
 */
import type { Config } from '../config/config.ts';
import type { Services } from '../services.ts';
import type { Store } from '../store/database.ts';

/** The options as parsed: text, flags, or absent. */
export type CliValues = { [name: string]: string | boolean | undefined };

/** What a command gets, by what it needs opened. */
export interface Needs {
  /** Only the configuration: nothing opened. */
  config: { config: Readonly<Config> };
  /** The configuration and the store (migrated), no chain, no keys. */
  store: { config: Readonly<Config>; store: Store };
  /** Everything a running service has (services.ts), its chains attached or started. */
  services: Services;
}

export type Handler<Deps> = (deps: Deps, values: CliValues, args: string[]) => Promise<Record<string, unknown>>;
