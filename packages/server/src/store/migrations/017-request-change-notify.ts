import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './context.ts';

/** The PostgreSQL channel that carries the key of an App2App request that changed. */
export const REQUEST_CHANGED_CHANNEL = 'a2a_request_changed';

/**
 * PostgreSQL: every change of an App2App request, and of the outbox row of its transaction (the
 * receipt), is announced on REQUEST_CHANGED_CHANNEL with the request key, whichever process made
 * it, so a result long-poll on any instance wakes at once (a2a/requests/watcher.ts). Triggers, so
 * no writer can forget it. SQLite has no such thing: there other processes' changes are polled.
 */
export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  if (context.dialect !== 'postgres') return;
  await sql`
    create or replace function a2a_request_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('a2a_request_changed', new.request_key);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger a2a_requests_changed after insert or update on a2a_requests
    for each row execute function a2a_request_changed()`.execute(db);
  // Only outbox rows of App2App requests (their idempotency key is the request key) announce.
  await sql`
    create or replace function a2a_request_transaction_changed() returns trigger language plpgsql as $$
    begin
      if new.idempotency_key is not null
        and (new.status is distinct from old.status or new.receipt_status is distinct from old.receipt_status)
        and exists (select 1 from a2a_requests where request_key = new.idempotency_key) then
        perform pg_notify('a2a_request_changed', new.idempotency_key);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger outbox_a2a_request_changed after update on outbox_transactions
    for each row execute function a2a_request_transaction_changed()`.execute(db);
}
