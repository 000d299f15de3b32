export type StoreDialect = 'sqlite' | 'postgres';

/** What a migration is told about the store it changes. */
export interface MigrationContext {
  dialect: StoreDialect;
}
